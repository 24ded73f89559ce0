// Backend-neutral compiled form of one exact-search pattern, shared by src/cpu and src/cuda.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "warpmatch/common.hpp"

namespace warpmatch::core {

/// ASCII case folding: 'A'..'Z' -> 'a'..'z', every other byte unchanged.
constexpr std::uint8_t fold_ascii(std::uint8_t c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<std::uint8_t>(c + 32) : c;
}

struct ExactPattern {
  std::vector<std::uint8_t> bytes;  // folded with fold_ascii when case_insensitive
  bool case_insensitive = false;

  std::size_t size() const { return bytes.size(); }
  /// Reference comparison at one position (caller guarantees pos + size() <= text.size()).
  bool matches_at(ByteSpan text, std::uint64_t pos) const {
    for (std::size_t j = 0; j < bytes.size(); ++j) {
      std::uint8_t c = text[pos + j];
      if (case_insensitive) c = fold_ascii(c);
      if (c != bytes[j]) return false;
    }
    return true;
  }
};

/// Receives start offsets of occurrences in ascending order, a batch at a time;
/// returns false to stop. Backends call it only from the calling thread.
using StartsSink = std::function<bool(std::span<const std::uint64_t> starts)>;

}  // namespace warpmatch::core
