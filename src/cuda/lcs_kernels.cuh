// Kernels of longest common substring on CUDA (included by lcs_dispatch.cu only); the
// per-thread work lives in lcs_thread_logic.hpp so the CPU can emulate it in tests.
//  - Seed paper 004 (Zhang Changzhi et al., "GPU acceleration of LCS for protocol signature
//    extraction", 2013): one thread per alignment offset of B against A (diagonal
//    b - a = offset, m + n - 1 of them) compares byte by byte and keeps its longest run.
//  - Prefix doubling (Manber-Myers ranks, sorted with CUB radix sort), Φ-LCP in chunks, and
//    the nearest-B scans of core/lcs_suffix.hpp in blocks.
#pragma once

#include <cstdint>

#include "cuda/lcs_thread_logic.hpp"

namespace warpmatch::cuda::kernels {

namespace lt = lcs_thread;
using lt::kInfiniteLcp;
using lt::kInitialBytes;
using lt::kInitialRankLimit;
using lt::kNoSuffix;
using lt::NearestB;

__device__ __forceinline__ std::int64_t global_index() {
  return static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}

/// The paper's kernel: longest run of equal bytes on each diagonal.
__global__ void diagonal_longest_run(const std::uint8_t* __restrict__ a, const std::uint8_t* __restrict__ b,
                                     std::int64_t m, std::int64_t n, std::uint32_t* __restrict__ longest) {
  const std::int64_t d = global_index();
  if (d >= m + n - 1) return;
  longest[d] = lt::diagonal_longest_run(a, b, m, n, d);
}

/// Runs of exactly `target` bytes on each diagonal whose longest run is `target` (the others
/// exit at once): counted when `pair_keys` is null, else written as a * n + b from
/// `first_slot[d]` on, and their A starts flagged.
__global__ void diagonal_emit_runs(const std::uint8_t* __restrict__ a, const std::uint8_t* __restrict__ b,
                                   std::int64_t m, std::int64_t n,
                                   const std::uint32_t* __restrict__ longest, std::uint32_t target,
                                   std::uint64_t* __restrict__ run_count,
                                   const std::uint64_t* __restrict__ first_slot,
                                   std::uint64_t* __restrict__ pair_keys,
                                   std::uint8_t* __restrict__ a_start_flags) {
  const std::int64_t d = global_index();
  if (d >= m + n - 1) return;
  if (longest[d] != target) {
    if (!pair_keys) run_count[d] = 0;
    return;
  }
  if (!pair_keys) {
    run_count[d] = lt::diagonal_runs_of_length(a, b, m, n, d, target, [](std::int64_t, std::int64_t) {});
    return;
  }
  std::uint64_t slot = first_slot[d];
  lt::diagonal_runs_of_length(a, b, m, n, d, target, [&](std::int64_t start_a, std::int64_t start_b) {
    pair_keys[slot++] = static_cast<std::uint64_t>(start_a) * static_cast<std::uint64_t>(n) +
                        static_cast<std::uint64_t>(start_b);
    a_start_flags[start_a] = 1;
  });
}

/// First ranks: each suffix's first three bytes.
__global__ void doubling_initial_ranks(const std::uint8_t* __restrict__ text, std::int64_t n,
                                       std::uint32_t* __restrict__ rank) {
  const std::int64_t i = global_index();
  if (i >= n) return;
  rank[i] = lt::initial_rank(text, n, i);
}

/// Round of prefix doubling: keys (rank[i], rank[i + h]) and values i.
__global__ void doubling_keys(const std::uint32_t* __restrict__ rank, std::int64_t n, std::int64_t h,
                              int rank_bits, std::uint64_t* __restrict__ keys,
                              std::uint32_t* __restrict__ suffixes) {
  const std::int64_t i = global_index();
  if (i >= n) return;
  keys[i] = lt::doubling_key(rank, n, h, rank_bits, i);
  suffixes[i] = static_cast<std::uint32_t>(i);
}

/// 1 where a sorted key differs from its predecessor (a new rank group starts).
__global__ void doubling_group_heads(const std::uint64_t* __restrict__ sorted_keys, std::int64_t n,
                                     std::uint32_t* __restrict__ heads) {
  const std::int64_t k = global_index();
  if (k >= n) return;
  heads[k] = (k == 0 || sorted_keys[k] != sorted_keys[k - 1]) ? 1u : 0u;
}

/// rank[sa[k]] = inclusive prefix sum of heads at k (ranks 1..groups).
__global__ void doubling_scatter_ranks(const std::uint32_t* __restrict__ sa,
                                       const std::uint32_t* __restrict__ new_rank, std::int64_t n,
                                       std::uint32_t* __restrict__ rank) {
  const std::int64_t k = global_index();
  if (k >= n) return;
  rank[sa[k]] = new_rank[k];
}

/// phi[sa[k]] = sa[k - 1]: the suffix preceding T[i..] in SA order (none for the first).
__global__ void lcp_phi(const std::uint32_t* __restrict__ sa, std::int64_t n, std::uint32_t* __restrict__ phi) {
  const std::int64_t k = global_index();
  if (k >= n) return;
  phi[sa[k]] = k == 0 ? kNoSuffix : sa[k - 1];
}

/// Φ PLCP, `chunk` consecutive text positions per thread; past `budget` comparisons a thread
/// sets *exhausted and stops (the host then computes the LCP).
__global__ void lcp_plcp_chunks(const std::uint8_t* __restrict__ text, std::int64_t n, std::int64_t chunk,
                                std::int64_t budget, std::uint32_t* __restrict__ phi_plcp,
                                int* __restrict__ exhausted) {
  const std::int64_t lo = global_index() * chunk;
  if (lo >= n) return;
  const std::int64_t hi = lo + chunk < n ? lo + chunk : n;
  if (!lt::plcp_range(text, n, lo, hi, budget, phi_plcp)) *exhausted = 1;
}

/// lcp[k] = plcp[sa[k]] (lcp[0] = 0).
__global__ void lcp_gather(const std::uint32_t* __restrict__ sa, const std::uint32_t* __restrict__ plcp,
                           std::int64_t n, std::uint32_t* __restrict__ lcp) {
  const std::int64_t k = global_index();
  if (k >= n) return;
  lcp[k] = k == 0 ? 0u : plcp[sa[k]];
}

/// Per block of `block_len` SA positions: the scan states at its far ends.
__global__ void nearest_b_summaries(const std::uint32_t* __restrict__ sa, const std::uint32_t* __restrict__ lcp,
                                    std::int64_t n, std::uint32_t m, std::int64_t block_len,
                                    NearestB* __restrict__ forward_out, NearestB* __restrict__ backward_out) {
  const std::int64_t t = global_index();
  const std::int64_t lo = t * block_len;
  if (lo >= n) return;
  const std::int64_t hi = lo + block_len < n ? lo + block_len : n;
  lt::nearest_b_summary(sa, lcp, n, m, lo, hi, forward_out[t], backward_out[t]);
}

/// Per block: the longest clamped match of its A-suffixes, folded into *best.
__global__ void nearest_b_best(const std::uint32_t* __restrict__ sa, const std::uint32_t* __restrict__ lcp,
                               std::int64_t n, std::uint32_t m, std::int64_t block_len,
                               const NearestB* __restrict__ forward_in, const NearestB* __restrict__ backward_in,
                               std::uint32_t* __restrict__ left, unsigned long long* __restrict__ best) {
  const std::int64_t t = global_index();
  const std::int64_t lo = t * block_len;
  if (lo >= n) return;
  const std::int64_t hi = lo + block_len < n ? lo + block_len : n;
  const std::uint32_t block_best = lt::nearest_b_best(sa, lcp, n, m, lo, hi, forward_in[t], backward_in[t], left);
  if (block_best) atomicMax(best, static_cast<unsigned long long>(block_best));
}

/// 1 for SA positions in a run of adjacent LCPs >= length.
__global__ void run_members(const std::uint32_t* __restrict__ lcp, std::int64_t n, std::uint32_t length,
                            std::uint8_t* __restrict__ member) {
  const std::int64_t k = global_index();
  if (k >= n) return;
  member[k] = lt::is_run_member(lcp, n, k, length) ? 1 : 0;
}

}  // namespace warpmatch::cuda::kernels
