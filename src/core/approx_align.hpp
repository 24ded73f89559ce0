// Approximate search, backend-neutral pieces used by every backend and by the tests:
// the plain O(mn) dynamic programme (the reference), recovery of the start and of the
// alignment of one reported hit by small banded DPs, and the CIGAR helpers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/approx_pattern.hpp"

namespace warpmatch::core {

/// reference_end_distances() of an end with no window before it (Hamming, e < m).
inline constexpr std::uint32_t kNoWindow = 0xffffffffu;

/// dist(e) for every e in 1..n (index e - 1), by the plain DP over the whole text: column
/// D[.][j], D[0][j] = 0, D[i][0] = i. Distances are exact (no cutoff). O(mn), one thread.
/// Hamming patterns: the mismatches of text[e - m, e) counted directly (kNoWindow for e < m).
std::vector<std::uint32_t> reference_end_distances(const ApproxPattern& pattern, ByteSpan text);

/// The reference answer of a query: all ends within k, or the best ends (<= k).
std::vector<EndHit> reference_hits(const ApproxPattern& pattern, ByteSpan text,
                                   const ApproxQuery& query);

/// The largest s such that ED(pattern, text[s:end]) == distance, given distance == dist(end).
/// Over text[end - m - distance, end): bit-parallel for patterns of up to 64 bytes (O(m +
/// distance) words), recover_start_dp otherwise.
std::uint64_t recover_start(const ApproxPattern& pattern, ByteSpan text, std::uint64_t end,
                            std::uint32_t distance);
/// recover_start by a banded reverse DP, O(m * distance): any length, and the tests' oracle.
std::uint64_t recover_start_dp(const ApproxPattern& pattern, ByteSpan text, std::uint64_t end,
                               std::uint32_t distance);

/// An optimal global alignment of pattern against text[start:end] whose cost is
/// `distance` (== ED), as an extended CIGAR (run-length: "3=1X2=1I"). Banded DP, band =
/// distance. Throws std::logic_error when ED(pattern, text[start:end]) != distance.
std::string recover_cigar(const ApproxPattern& pattern, ByteSpan text, std::uint64_t start,
                          std::uint64_t end, std::uint32_t distance);

/// Applies a CIGAR to `pattern` with the text as the source of X and D bytes; returns false
/// when the CIGAR is malformed or does not consume exactly pattern and text[start:end] or an
/// '=' is not a match (tests use it to check every alignment). `cost` receives X + I + D.
bool cigar_is_valid(const ApproxPattern& pattern, ByteSpan text, std::uint64_t start,
                    std::uint64_t end, const std::string& cigar, std::uint64_t* cost);

}  // namespace warpmatch::core
