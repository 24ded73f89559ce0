// CPU backend of edit distance: the plain two-row DP (reference) and Myers/Hyyrö bit-parallel
// columns (banded by k, pipelined stripes over threads), Hirschberg alignment on top of the
// bit-parallel columns, and batches over all threads.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "warpmatch/distance.hpp"

namespace warpmatch::cpu {

enum class DistanceAlgorithm {
  myers,  // bit-parallel, 64 cells per word step, banded, stripes over threads
  dp,     // plain DP, two rows of 64-bit values, one thread
};

/// Distance of a and b; k < 0 = no bound. Returns kDistanceOverK beyond k.
std::int64_t edit_distance(ByteSpan a, ByteSpan b, std::int64_t k, DistanceAlgorithm algorithm,
                           int threads);

/// An optimal alignment (extended CIGAR) and its distance, or kDistanceOverK beyond k.
/// Hirschberg over banded bit-parallel columns: memory linear in |a| + |b|.
DistanceResult edit_alignment(ByteSpan a, ByteSpan b, std::int64_t k, int threads);

/// Plain DP with full traceback (O(|a| |b|) memory): the tests' alignment reference and
/// Hirschberg's base case.
DistanceResult edit_alignment_full_dp(ByteSpan a, ByteSpan b);

/// Every pair, spread over `threads` (each pair on one thread).
std::vector<DistanceResult> edit_distance_batch(std::span<const std::pair<ByteSpan, ByteSpan>> pairs,
                                                std::int64_t k, bool want_alignment,
                                                DistanceAlgorithm algorithm, int threads);

}  // namespace warpmatch::cpu
