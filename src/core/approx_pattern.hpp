// Backend-neutral compiled form of one approximate-search pattern and the backends' result
// type (end position + distance), shared by src/core, src/cpu and src/cuda.
#pragma once

#include <cstdint>
#include <vector>

#include "core/exact_pattern.hpp"  // fold_ascii
#include "core/nucleotide.hpp"     // iupac_match
#include "warpmatch/common.hpp"

namespace warpmatch::core {

struct ApproxPattern {
  std::vector<std::uint8_t> bytes;  // folded with fold_ascii when case_insensitive
  bool case_insensitive = false;
  bool iupac = false;               // degenerate codes match their bases (core/nucleotide.hpp)
  bool hamming = false;             // substitutions only: every hit spans exactly size() bytes

  std::size_t size() const { return bytes.size(); }
  /// The text byte as the pattern sees it.
  std::uint8_t text_byte(std::uint8_t c) const { return case_insensitive ? fold_ascii(c) : c; }
  /// Whether pattern byte `p` (one of `bytes`) matches the raw text byte `t`: every backend's
  /// match tables and the references are built from this one predicate.
  bool matches(std::uint8_t p, std::uint8_t t) const {
    const std::uint8_t c = text_byte(t);
    return iupac ? iupac_match(p, c, case_insensitive) : p == c;
  }
};

/// What a backend finds: an end position (exclusive, 1..n, relative to the scanned text)
/// and dist(end), the minimal edit distance of a substring ending there.
struct EndHit {
  std::uint64_t end = 0;
  std::uint32_t distance = 0;
  friend bool operator==(const EndHit&, const EndHit&) = default;
};

/// What the backends are asked: every end with dist <= k, or the best ends (dist == the
/// minimum, and <= k).
enum class ApproxMode { all_within_k, best };

struct ApproxQuery {
  ApproxMode mode = ApproxMode::all_within_k;
  std::uint32_t k = 0;              // already capped at the pattern length
  std::uint64_t chunk_ends = 0;     // 0 = backend's choice (test hook)
};

/// Overlap a chunk of owned end positions needs before its first end: a substring within
/// k edits is at most m + k bytes long (best mode: k = m, so 2m).
inline std::uint64_t approx_overlap(std::uint64_t m, std::uint32_t k) { return m + k; }

}  // namespace warpmatch::core
