// The per-thread work of the LCS kernels (kernels.cuh) as plain functions, callable on
// the device and on the host: the kernels are thin wrappers over them, and
// tests/test_lcs_emulation.cpp runs the kernels on the CPU (no GPU needed) to check the
// index arithmetic against the oracle.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define WARPMATCH_LCS_HD __host__ __device__ __forceinline__
#else
#define WARPMATCH_LCS_HD inline
#endif

namespace warpmatch::cuda::lcs_thread {

constexpr std::uint32_t kNoSuffix = 0xFFFFFFFFu;
constexpr std::uint32_t kInfiniteLcp = 0xFFFFFFFFu;
/// Device Φ-PLCP: text positions per thread, and the byte comparisons a thread may spend
/// before the device gives up on a repetitive input (the host then computes the LCP). Small
/// chunks give many threads; the budget only bounds the repeats the device handles.
constexpr std::int64_t kPlcpChunk = 8;
constexpr std::int64_t kPlcpBudget = 16384;
/// Bytes present in the text, as a 256-bit set (8 words).
constexpr int kAlphabetWords = 8;

WARPMATCH_LCS_HD std::uint32_t min_u32(std::uint32_t x, std::uint32_t y) { return x < y ? x : y; }
WARPMATCH_LCS_HD std::uint32_t max_u32(std::uint32_t x, std::uint32_t y) { return x > y ? x : y; }
WARPMATCH_LCS_HD int popcount_u32(std::uint32_t x) {
#if defined(__CUDA_ARCH__)
  return __popc(x);
#else
  int c = 0;
  for (; x; x &= x - 1) ++c;
  return c;
#endif
}

/// Diagonal `d` of A (length m) against B (length n): offset = d - (m - 1) = b - a.
struct Diagonal {
  std::int64_t a0, b0, length;
};
WARPMATCH_LCS_HD Diagonal diagonal_of(std::int64_t d, std::int64_t m, std::int64_t n) {
  const std::int64_t offset = d - (m - 1);
  const std::int64_t a0 = offset < 0 ? -offset : 0;
  const std::int64_t b0 = a0 + offset;
  const std::int64_t len = (m - a0) < (n - b0) ? (m - a0) : (n - b0);
  return {a0, b0, len};
}

/// The paper's thread: longest run of equal bytes on diagonal d.
WARPMATCH_LCS_HD std::uint32_t diagonal_longest_run(const std::uint8_t* a, const std::uint8_t* b,
                                                    std::int64_t m, std::int64_t n, std::int64_t d) {
  const Diagonal g = diagonal_of(d, m, n);
  std::uint32_t run = 0, best = 0;
  for (std::int64_t k = 0; k < g.length; ++k) {
    run = a[g.a0 + k] == b[g.b0 + k] ? run + 1 : 0;
    best = run > best ? run : best;
  }
  return best;
}

/// Runs of exactly `target` bytes on diagonal d (whose longest run is target): calls
/// emit(a_start, b_start) for each, returns how many.
template <class Emit>
WARPMATCH_LCS_HD std::uint64_t diagonal_runs_of_length(const std::uint8_t* a, const std::uint8_t* b,
                                                       std::int64_t m, std::int64_t n, std::int64_t d,
                                                       std::uint32_t target, Emit&& emit) {
  const Diagonal g = diagonal_of(d, m, n);
  std::uint64_t found = 0;
  std::uint32_t run = 0;
  for (std::int64_t k = 0; k < g.length; ++k) {
    run = a[g.a0 + k] == b[g.b0 + k] ? run + 1 : 0;
    if (run == target) {  // the longest on this diagonal: the next byte cannot extend it
      ++found;
      emit(g.a0 + k + 1 - target, g.b0 + k + 1 - target);
    }
  }
  return found;
}

/// Bits per packed character: codes 1..sigma for the sigma bytes present, 0 past the end
/// (which must sort before every byte, since any byte, NUL included, may occur).
WARPMATCH_LCS_HD int alphabet_code_bits(const std::uint32_t* present) {
  int sigma = 0;
  for (int w = 0; w < kAlphabetWords; ++w) sigma += popcount_u32(present[w]);
  int bits = 1;
  while ((1 << bits) <= sigma) ++bits;
  return bits;
}

/// Characters per initial key: as many codes as fit in kInitialKeyBits bits (56 for one
/// byte value, 18 for DNA, 11 for lowercase letters, 6 for all 256 bytes). The key sits in the
/// top kInitialKeyBits bits, so the sort skips the low byte (7 radix passes, not 8).
constexpr int kInitialKeyBits = 56;
WARPMATCH_LCS_HD int initial_key_chars(const std::uint32_t* present) {
  return kInitialKeyBits / alphabet_code_bits(present);
}

/// Code of a present byte: 1 + the number of present byte values below it.
WARPMATCH_LCS_HD std::uint32_t alphabet_code(const std::uint32_t* present, std::uint8_t byte) {
  const int word = byte >> 5;
  std::uint32_t below = popcount_u32(present[word] & ((1u << (byte & 31)) - 1u));
  for (int w = 0; w < word; ++w) below += popcount_u32(present[w]);
  return below + 1u;
}

/// Initial sort key of suffix i from the codes of all byte values (alphabet_code, in a table):
/// its first kInitialKeyBits / code_bits codes, most significant first, so keys order like
/// the suffixes' prefixes of that length (a suffix ending early is smaller); left-aligned
/// to bit 63.
WARPMATCH_LCS_HD std::uint64_t initial_key(const std::uint8_t* text, std::int64_t n, const std::uint16_t* codes,
                                           int code_bits, std::int64_t i) {
  const int chars = kInitialKeyBits / code_bits;
  std::uint64_t key = 0;
  for (int k = 0; k < chars; ++k) key = (key << code_bits) | (i + k < n ? codes[text[i + k]] : 0u);
  return key << (64 - chars * code_bits);
}

/// Ranks of prefix doubling: the 1-based SA position of the first suffix of the group (equal
/// prefixes of the current length h), so ranks order like the prefixes and a group split
/// later leaves every other rank valid; 0 stands for past the end.
///
/// Prefix-doubling key of suffix i: rank[i] << rank_bits | rank[i + h].
WARPMATCH_LCS_HD std::uint64_t doubling_key(const std::uint32_t* rank, std::int64_t n, std::int64_t h,
                                            int rank_bits, std::int64_t i) {
  const std::uint64_t second = i + h < n ? rank[i + h] : 0u;
  return (static_cast<std::uint64_t>(rank[i]) << rank_bits) | second;
}

/// Over the sorted keys of the suffixes being ranked (all of them at first, later only those
/// in groups of two or more, at SA positions positions[j]; null positions: j itself).
WARPMATCH_LCS_HD bool starts_group(const std::uint64_t* sorted_keys, std::int64_t j) {
  return j == 0 || sorted_keys[j] != sorted_keys[j - 1];
}
/// The new rank's candidate at j: 1 + its SA position where a group starts, else 0 (an
/// inclusive max-scan then gives every suffix its group's rank).
WARPMATCH_LCS_HD std::uint32_t group_start_rank(const std::uint64_t* sorted_keys, const std::uint32_t* positions,
                                                std::int64_t j) {
  if (!starts_group(sorted_keys, j)) return 0u;
  return (positions ? positions[j] : static_cast<std::uint32_t>(j)) + 1u;
}
/// Whether j's new group holds another suffix (so the next round must rank it again).
WARPMATCH_LCS_HD bool in_shared_group(const std::uint64_t* sorted_keys, std::int64_t count, std::int64_t j) {
  return !(starts_group(sorted_keys, j) && (j + 1 == count || starts_group(sorted_keys, j + 1)));
}

/// Φ-algorithm PLCP over text positions [lo, hi), in place over phi (phi[i] = the suffix
/// before T[i..] in SA order, kNoSuffix for the first). Kasai's h - 1 bound holds within the
/// range. Returns false when more than `budget` byte comparisons were needed (long repeats).
WARPMATCH_LCS_HD bool plcp_range(const std::uint8_t* text, std::int64_t n, std::int64_t lo, std::int64_t hi,
                                 std::int64_t budget, std::uint32_t* phi_plcp) {
  std::int64_t h = 0, spent = 0;
  for (std::int64_t i = lo; i < hi; ++i) {
    const std::uint32_t previous = phi_plcp[i];
    if (previous == kNoSuffix) {
      phi_plcp[i] = 0;
      h = 0;
      continue;
    }
    const std::int64_t j = previous;
    while (i + h < n && j + h < n && text[i + h] == text[j + h]) {
      ++h;
      if (++spent > budget) return false;
    }
    phi_plcp[i] = static_cast<std::uint32_t>(h);
    if (h > 0) --h;
  }
  return true;
}

/// Scan state for the nearest B-suffix: seen one, and the minimum LCP since it.
struct NearestB {
  std::uint32_t seen;
  std::uint32_t min_lcp;
};

/// The scan operator: the state after `next` given the state before it. A B-suffix restarts
/// the state, anything else only lowers the running minimum. Associative, so the scans run as
/// device-wide parallel scans (CUB) over the per-position elements below.
WARPMATCH_LCS_HD NearestB chain(const NearestB& before, const NearestB& next) {
  return next.seen ? next : NearestB{before.seen, min_u32(before.min_lcp, next.min_lcp)};
}

/// Forward scan element of SA position k: stepping onto k crosses lcp[k].
WARPMATCH_LCS_HD NearestB forward_element(const std::uint32_t* sa, const std::uint32_t* lcp, std::uint32_t m,
                                          std::int64_t k) {
  return sa[k] >= m ? NearestB{1, kInfiniteLcp} : NearestB{0, lcp[k]};
}

/// Backward scan element of SA position k: stepping from k + 1 onto k crosses lcp[k + 1].
WARPMATCH_LCS_HD NearestB backward_element(const std::uint32_t* sa, const std::uint32_t* lcp, std::int64_t n,
                                           std::uint32_t m, std::int64_t k) {
  if (sa[k] >= m) return NearestB{1, kInfiniteLcp};
  return NearestB{0, k + 1 < n ? lcp[k + 1] : kInfiniteLcp};
}

/// The LCP of an A-suffix with its nearest B-suffix on one side (0 when there is none), from
/// the inclusive scan state at its position.
WARPMATCH_LCS_HD std::uint32_t nearest_b_lcp(const NearestB& state) { return state.seen ? state.min_lcp : 0u; }

/// Longest match of the suffix at SA position k with B: for an A-suffix the better of its
/// nearest B-suffixes, clamped to its m - i bytes of A; 0 for a B-suffix.
WARPMATCH_LCS_HD std::uint32_t clamped_match(const std::uint32_t* sa, std::uint32_t m, std::int64_t k,
                                             std::uint32_t left, std::uint32_t right) {
  const std::uint32_t i = sa[k];
  return i < m ? min_u32(m - i, max_u32(left, right)) : 0u;
}

/// SA position k is in a run of adjacent LCPs >= length (its own LCP or the next one).
WARPMATCH_LCS_HD bool is_run_member(const std::uint32_t* lcp, std::int64_t n, std::int64_t k,
                                    std::uint32_t length) {
  return (k >= 1 && lcp[k] >= length) || (k + 1 < n && lcp[k + 1] >= length);
}

}  // namespace warpmatch::cuda::lcs_thread
