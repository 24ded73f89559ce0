// Per-thread logic of the CUDA Hamming kernel (hamming_kernels.cuh, approx --hamming), host +
// device; tests/test_sequence.cpp runs the kernel itself on the CPU.
#pragma once

#include <cstdint>
#include <vector>

#include "core/approx_pattern.hpp"

#include "core/host_device.hpp"  // WARPMATCH_HD

namespace warpmatch::cuda::logic {

/// Which pattern positions each text byte matches (core::ApproxPattern::matches, so IUPAC and
/// case folding are in the table): bit i % 32 of word [byte][i / 32].
struct HammingTable {
  std::uint32_t words = 0;
  std::vector<std::uint32_t> bits;  // 256 * words
};

inline HammingTable make_hamming_table(const core::ApproxPattern& p) {
  HammingTable t;
  const auto m = static_cast<std::uint32_t>(p.size());
  t.words = (m + 31) / 32;
  t.bits.assign(256 * std::size_t{t.words}, 0);
  for (std::uint32_t c = 0; c < 256; ++c)
    for (std::uint32_t i = 0; i < m; ++i)
      if (p.matches(p.bytes[i], static_cast<std::uint8_t>(c))) t.bits[c * t.words + i / 32] |= 1u << (i % 32);
  return t;
}

/// Mismatches of the m-byte window at `window`, or limit + 1 as soon as there are more than
/// `limit` (on random text a window is given up after a few bytes).
WARPMATCH_HD std::uint32_t window_mismatches(const std::uint8_t* window, const std::uint32_t* table,
                                             std::uint32_t words, std::uint32_t m, std::uint32_t limit) {
  std::uint32_t miss = 0;
  for (std::uint32_t i = 0; i < m; ++i) {
    miss += ((table[window[i] * words + (i >> 5)] >> (i & 31)) & 1u) ^ 1u;
    if (miss > limit) return limit + 1;
  }
  return miss;
}

}  // namespace warpmatch::cuda::logic
