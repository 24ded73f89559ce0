// CPU backend of longest common substring and MEMs: the libdivsufsort suffix-array path (all
// cores for LCP and scans) and the O(mn) references of seed paper 004 (diagonal, DP).
#pragma once

#include <cstdint>
#include <vector>

#include "warpmatch/lcs.hpp"

namespace warpmatch::cpu {

enum class LcsAlgorithm {
  suffix_array,    // libdivsufsort on A·B, Φ-LCP, LCP-interval scan (core/lcs_suffix.hpp); 32-bit
                   // arrays below kSuffixArray32MaxBytes, 64-bit above
  suffix_array64,  // the same with 64-bit arrays whatever the size (tests of the wide path)
  diagonal,      // seed paper 004: one pass per alignment offset, longest run per diagonal
  dp,            // the matrix recurrence with one rolling row
};

/// Suffix array of `text` by libdivsufsort (bytes, 64-bit indices). Single-threaded.
std::vector<std::int64_t> suffix_array(ByteSpan text);
/// The most bytes a 32-bit suffix array (libdivsufsort's saidx_t) indexes.
inline constexpr std::uint64_t kSuffixArray32MaxBytes = (std::uint64_t{1} << 31) - 1;
/// The same with 32-bit indices (half the memory), for texts of up to kSuffixArray32MaxBytes.
std::vector<std::int32_t> suffix_array32(ByteSpan text);

/// Fills length, count, total_pairs and pairs (first max_matches in (a, b) order).
void lcs(ByteSpan a, ByteSpan b, LcsAlgorithm algorithm, std::uint64_t max_matches, int threads,
         LcsResult& out);

/// MEMs of length >= min_length; algorithm suffix_array or diagonal.
void mems(ByteSpan a, ByteSpan b, std::uint64_t min_length, LcsAlgorithm algorithm,
          std::uint64_t max_matches, int threads, MemResult& out);

}  // namespace warpmatch::cpu
