// CPU backend of longest common substring and MEMs: the libdivsufsort suffix-array path (all
// cores for LCP and scans) and the O(mn) references of seed paper 004 (diagonal, DP).
#pragma once

#include <cstdint>
#include <vector>

#include "warpmatch/lcs.hpp"

namespace warpmatch::cpu {

enum class LcsAlgorithm {
  suffix_array,  // divsufsort64 on A·B, Φ-LCP, LCP-interval scan (core/lcs_suffix.hpp)
  diagonal,      // seed paper 004: one pass per alignment offset, longest run per diagonal
  dp,            // the matrix recurrence with one rolling row
};

/// Suffix array of `text` by libdivsufsort (bytes, 64-bit indices). Single-threaded.
std::vector<std::int64_t> suffix_array(ByteSpan text);

/// Fills length, count, total_pairs and pairs (first max_matches in (a, b) order).
void lcs(ByteSpan a, ByteSpan b, LcsAlgorithm algorithm, std::uint64_t max_matches, int threads,
         LcsResult& out);

/// MEMs of length >= min_length; algorithm suffix_array or diagonal.
void mems(ByteSpan a, ByteSpan b, std::uint64_t min_length, LcsAlgorithm algorithm,
          std::uint64_t max_matches, int threads, MemResult& out);

}  // namespace warpmatch::cpu
