// Longest common substring and MEMs from a suffix array, backend-neutral: both the CPU
// (libdivsufsort) and the CUDA (prefix doubling) suffix arrays end here, so the answers are
// identical by construction.
//
// The text is T = A·B (length N = m + n) with NO separator: every byte value may occur in real
// inputs, so none can serve as a sentinel. Instead of a separator we clamp: an A-suffix T[i..]
// matches B for at most m - i bytes, B-suffixes are exact suffixes of T. Consequences:
//  - LCP values are of T; a common substring of length L is a pair (A-suffix i with
//    m - i >= L, B-suffix) whose T-LCP is >= L.
//  - "Adjacent suffixes from different inputs suffice" breaks under clamping (an A-suffix with
//    a small m - i can sit between a long-room A-suffix and its best B partner), so the length
//    is found per A-suffix from its NEAREST B-suffix on each side in SA order (the LCP to any
//    farther B-suffix is a smaller range minimum), clamped by m - i.
//  - Occurrences: with L fixed, the maximal SA runs whose adjacent LCPs are all >= L are
//    exactly the classes of suffixes sharing one length-L prefix; a run is one distinct common
//    substring when it holds an A-suffix with m - i >= L and a B-suffix. This gives the exact
//    distinct count and every occurrence pair.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "warpmatch/lcs.hpp"

namespace warpmatch::core {

/// Index: the suffix array's integer, std::int32_t for texts below 2 GiB (half the memory of
/// std::int64_t: the CPU's `lcs` of two 100 MB genomes held 26 bytes per input byte with 64-bit
/// arrays, 14 with 32-bit ones), std::int64_t above and for the GPU's arrays. The LCP array has
/// the same integer.
///
/// lcp[k] = length of the longest common prefix of T[sa[k-1]..] and T[sa[k]..]; lcp[0] = 0.
/// Φ algorithm (Kärkkäinen, Manzini, Puglisi 2009), the text split into chunks over `threads`
/// (each chunk restarts the h - 1 lower bound at 0, which is only slower, never wrong).
template <class Index>
std::vector<Index> lcp_from_suffix_array(ByteSpan text, std::span<const Index> sa, int threads);

/// The longest common substring of A = text[0, m) and B = text[m, N) from T's SA and LCP.
/// Fills length, count, total_pairs, pairs (first max_matches in (a, b) order).
template <class Index>
void lcs_from_suffix_array(ByteSpan text, std::uint64_t m, std::span<const Index> sa, std::span<const Index> lcp,
                           std::uint64_t max_matches, int threads, LcsResult& out);

/// Every MEM of length >= min_length: for each A position a, the SA neighbourhood of T[a..]
/// whose LCP stays >= min_length holds every B-suffix sharing that much; the common length is
/// min(range-minimum LCP, m - a) (right-maximal by construction), kept when left-maximal.
/// Work is the number of (a, b) pairs sharing >= min_length bytes (quadratic only for floods).
template <class Index>
void mems_from_suffix_array(ByteSpan text, std::uint64_t m, std::span<const Index> sa, std::span<const Index> lcp,
                            std::uint64_t min_length, std::uint64_t max_matches, int threads, MemResult& out);

/// The A and B starts of one distinct common substring (one SA run).
struct OccurrenceGroup {
  std::vector<std::uint64_t> a, b;
};
/// From the groups of a longest length: count, total_pairs and the first max_matches pairs in
/// (a, b) order (each A start is in one group only). Sorts the groups' B lists as needed.
void finish_lcs_from_groups(std::vector<OccurrenceGroup>& groups, std::uint64_t length,
                            std::uint64_t max_matches, LcsResult& out);

/// Distinct substrings a[s, s + length) over the given starts (hash set; O(starts × length)).
std::uint64_t count_distinct_substrings(ByteSpan a, std::span<const std::uint64_t> starts,
                                        std::uint64_t length);

/// Device memory the GPU suffix-array path (src/cuda/lcs/dispatch.cu) needs for a text T = A·B
/// of `text_bytes`: the text 1 + keys 2 x 8 + suffixes 2 x 4 + rank 4 + positions 4 + round
/// suffixes 4 = 37 bytes per byte, an eighth for CUB's temporary storage (small in
/// double-buffer mode) and 64 MiB of slack. One GPU holds all of it: lcs has no split over
/// several GPUs.
std::uint64_t lcs_suffix_array_device_bytes(std::uint64_t text_bytes);
/// The longest text the GPU suffix array takes (32-bit ranks and indices, two values reserved).
inline constexpr std::uint64_t kLcsDeviceMaxTextBytes = (std::uint64_t{1} << 32) - 3;

/// Whether inputs of `a_bytes` + `b_bytes` fit the GPU suffix array, with `available` bytes of
/// device memory (the GPU's free memory within the device-memory cap).
struct LcsDeviceFit {
  std::uint64_t a_bytes = 0, b_bytes = 0;
  std::uint64_t needed = 0;     // lcs_suffix_array_device_bytes(a + b)
  std::uint64_t available = 0;
  bool fits_memory() const { return needed <= available; }
  bool fits_index() const { return a_bytes + b_bytes <= kLcsDeviceMaxTextBytes; }
  bool fits() const { return fits_memory() && fits_index(); }
  /// Why it does not fit, naming the sizes and the limit: "inputs of 1000 + 2000 bytes need
  /// 64.1 MiB (67211648 bytes) of device memory for the suffix array on GPU 0, 32 MiB
  /// (33554432 bytes) available"; "" when it fits. `where` names the device.
  std::string shortfall(std::string_view where) const;
};
LcsDeviceFit lcs_device_fit(std::uint64_t a_bytes, std::uint64_t b_bytes, std::uint64_t available);

}  // namespace warpmatch::core
