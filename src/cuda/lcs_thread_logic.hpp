// The per-thread work of the LCS kernels (lcs_kernels.cuh) as plain functions, callable on
// the device and on the host: the kernels are thin wrappers over them, and
// tests/test_lcs_emulation.cpp runs them over an emulated grid on the CPU (no GPU needed) to
// check the index arithmetic against the oracle.
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
/// Bytes packed into the first ranks (9 bits each: byte value + 1, 0 = past the end, which
/// must sort before every byte since any byte, NUL included, may occur).
constexpr int kInitialBytes = 3;
constexpr std::uint32_t kInitialRankLimit = (1u << (9 * kInitialBytes)) - 1;

WARPMATCH_LCS_HD std::uint32_t min_u32(std::uint32_t x, std::uint32_t y) { return x < y ? x : y; }
WARPMATCH_LCS_HD std::uint32_t max_u32(std::uint32_t x, std::uint32_t y) { return x > y ? x : y; }

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

/// First rank of suffix i: its first three bytes, in order (not compact; < 2^27).
WARPMATCH_LCS_HD std::uint32_t initial_rank(const std::uint8_t* text, std::int64_t n, std::int64_t i) {
  std::uint32_t r = 0;
  for (int k = 0; k < kInitialBytes; ++k)
    r = (r << 9) | (i + k < n ? static_cast<std::uint32_t>(text[i + k]) + 1u : 0u);
  return r;
}

/// Prefix-doubling key of suffix i: rank[i] << rank_bits | rank[i + h] (0 past the end).
WARPMATCH_LCS_HD std::uint64_t doubling_key(const std::uint32_t* rank, std::int64_t n, std::int64_t h,
                                            int rank_bits, std::int64_t i) {
  const std::uint64_t second = i + h < n ? rank[i + h] : 0u;
  return (static_cast<std::uint64_t>(rank[i]) << rank_bits) | second;
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

/// Forward and backward scan states at the far ends of SA positions [lo, hi), starting from
/// "none seen" (the host chains them into each block's incoming state).
WARPMATCH_LCS_HD void nearest_b_summary(const std::uint32_t* sa, const std::uint32_t* lcp, std::int64_t n,
                                        std::uint32_t m, std::int64_t lo, std::int64_t hi, NearestB& forward,
                                        NearestB& backward) {
  NearestB f{0, kInfiniteLcp}, r{0, kInfiniteLcp};
  for (std::int64_t k = lo; k < hi; ++k) {
    f.min_lcp = min_u32(f.min_lcp, lcp[k]);
    if (sa[k] >= m) f = NearestB{1, kInfiniteLcp};
  }
  for (std::int64_t k = hi - 1; k >= lo; --k) {
    if (k + 1 < n) r.min_lcp = min_u32(r.min_lcp, lcp[k + 1]);
    if (sa[k] >= m) r = NearestB{1, kInfiniteLcp};
  }
  forward = f;
  backward = r;
}

/// Incoming state of the next block: a block with a B-suffix restarts the state, one without
/// only lowers the running minimum.
WARPMATCH_LCS_HD NearestB chain(const NearestB& in, const NearestB& block) {
  return block.seen ? block : NearestB{in.seen, min_u32(in.min_lcp, block.min_lcp)};
}

/// Over SA positions [lo, hi): max over A-suffixes i of min(m - i, LCP with the nearest
/// B-suffix on either side). `left` is scratch indexed by SA position.
WARPMATCH_LCS_HD std::uint32_t nearest_b_best(const std::uint32_t* sa, const std::uint32_t* lcp, std::int64_t n,
                                              std::uint32_t m, std::int64_t lo, std::int64_t hi,
                                              NearestB forward_in, NearestB backward_in, std::uint32_t* left) {
  NearestB f = forward_in;
  for (std::int64_t k = lo; k < hi; ++k) {
    f.min_lcp = min_u32(f.min_lcp, lcp[k]);
    const std::uint32_t i = sa[k];
    left[k] = (i < m && f.seen) ? f.min_lcp : 0u;
    if (i >= m) f = NearestB{1, kInfiniteLcp};
  }
  NearestB r = backward_in;
  std::uint32_t best = 0;
  for (std::int64_t k = hi - 1; k >= lo; --k) {
    if (k + 1 < n) r.min_lcp = min_u32(r.min_lcp, lcp[k + 1]);
    const std::uint32_t i = sa[k];
    if (i < m) {
      const std::uint32_t right = r.seen ? r.min_lcp : 0u;
      best = max_u32(best, min_u32(m - i, max_u32(left[k], right)));
    } else {
      r = NearestB{1, kInfiniteLcp};
    }
  }
  return best;
}

/// SA position k is in a run of adjacent LCPs >= length (its own LCP or the next one).
WARPMATCH_LCS_HD bool is_run_member(const std::uint32_t* lcp, std::int64_t n, std::int64_t k,
                                    std::uint32_t length) {
  return (k >= 1 && lcp[k] >= length) || (k + 1 < n && lcp[k + 1] >= length);
}

}  // namespace warpmatch::cuda::lcs_thread
