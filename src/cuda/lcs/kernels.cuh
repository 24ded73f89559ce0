// Kernels of longest common substring on CUDA (included by dispatch.cu only; the per-thread
// work in agent.hpp). tests/test_lcs_emulation.cpp runs this very text on the CPU under the
// host shim tests/support/cuda_host_shim.hpp; fixed shared arrays are `static __shared__`
// for it (the same to nvcc).
//  - Seed paper 004 (Zhang Changzhi et al., "GPU acceleration of LCS for protocol signature
//    extraction", 2013): one thread per alignment offset of B against A (diagonal
//    b - a = offset, m + n - 1 of them) compares byte by byte and keeps its longest run.
//  - Prefix doubling (Manber-Myers ranks, sorted with CUB radix sort) from initial keys that
//    pack as many alphabet-compacted bytes as fit in 56 bits, Φ-LCP in small chunks, and the
//    element and output functors of the nearest-B scans of core/lcs_suffix.hpp (CUB scans).
#pragma once

#include <cstdint>

#include "cuda/lcs/agent.hpp"

namespace warpmatch::cuda::kernels {

namespace lt = lcs_thread;
using lt::kAlphabetWords;
using lt::kInfiniteLcp;
using lt::kInitialKeyBits;
using lt::kNoSuffix;
using lt::kPlcpBudget;
using lt::kPlcpChunk;
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

/// The set of byte values in the text (kAlphabetWords words, zeroed before): each warp ORs
/// its bytes' bits together with warp reductions, one lane per word, then one atomicOr.
__global__ void mark_present_bytes(const std::uint8_t* __restrict__ text, std::int64_t n,
                                   std::uint32_t* __restrict__ present) {
  const unsigned lane = threadIdx.x & 31u;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  std::uint32_t word = 0;  // lane w < kAlphabetWords gathers bytes 32w .. 32w + 31
  for (std::int64_t base = global_index() - lane; base < n; base += stride) {  // warp-uniform
    const std::int64_t i = base + lane;
    const unsigned byte = i < n ? text[i] : 256u;  // 256: no word
    for (unsigned w = 0; w < kAlphabetWords; ++w) {
      const std::uint32_t bits = __reduce_or_sync(0xFFFFFFFFu, (byte >> 5) == w ? 1u << (byte & 31u) : 0u);
      if (lane == w) word |= bits;
    }
  }
  if (lane < kAlphabetWords && word) atomicOr(&present[lane], word);
}

/// Initial keys (lcs_thread::initial_key, the code table built per block in shared memory;
/// needs 256 threads per block) and values i; thread 0 also records how many characters the
/// keys cover, the h of the first doubling round.
__global__ void doubling_initial_keys(const std::uint8_t* __restrict__ text, std::int64_t n,
                                      const std::uint32_t* __restrict__ present_bytes,
                                      std::uint64_t* __restrict__ keys, std::uint32_t* __restrict__ suffixes,
                                      std::int64_t* __restrict__ key_chars) {
  static __shared__ std::uint32_t present[kAlphabetWords];
  static __shared__ std::uint16_t codes[256];
  if (threadIdx.x < kAlphabetWords) present[threadIdx.x] = present_bytes[threadIdx.x];
  __syncthreads();
  codes[threadIdx.x] = static_cast<std::uint16_t>(lt::alphabet_code(present, static_cast<std::uint8_t>(threadIdx.x)));
  const int code_bits = lt::alphabet_code_bits(present);
  __syncthreads();
  const std::int64_t i = global_index();
  if (i == 0) *key_chars = lt::initial_key_chars(present);
  if (i >= n) return;
  keys[i] = lt::initial_key(text, n, codes, code_bits, i);
  suffixes[i] = static_cast<std::uint32_t>(i);
}

/// Round of prefix doubling over the `count` suffixes still sharing a group, at SA
/// positions `positions`: keys (rank[i], rank[i + h]) and values i.
__global__ void doubling_keys(const std::uint32_t* __restrict__ sa, const std::uint32_t* __restrict__ positions,
                              std::int64_t count, const std::uint32_t* __restrict__ rank, std::int64_t n,
                              std::int64_t h, int rank_bits, std::uint64_t* __restrict__ keys,
                              std::uint32_t* __restrict__ suffixes) {
  const std::int64_t j = global_index();
  if (j >= count) return;
  const std::uint32_t i = sa[positions[j]];
  keys[j] = lt::doubling_key(rank, n, h, rank_bits, i);
  suffixes[j] = i;
}

/// After a sort of `count` suffixes (at SA positions `positions`, null: all, in order):
/// puts them into the SA and gives each its group's rank (group_ranks: the max-scan of
/// lcs_thread::group_start_rank).
__global__ void doubling_place_ranks(const std::uint32_t* __restrict__ sorted_suffixes,
                                     const std::uint32_t* __restrict__ positions,
                                     const std::uint32_t* __restrict__ group_ranks, std::int64_t count,
                                     std::uint32_t* __restrict__ sa, std::uint32_t* __restrict__ rank) {
  const std::int64_t j = global_index();
  if (j >= count) return;
  const std::uint32_t i = sorted_suffixes[j];
  if (positions) sa[positions[j]] = i;
  rank[i] = group_ranks[j];
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

/// Functors of the doubling rounds' CUB scan and select (over sorted positions j).
struct GroupStartRank {
  const std::uint64_t* sorted_keys;
  const std::uint32_t* positions;
  __host__ __device__ std::uint32_t operator()(std::int64_t j) const {
    return lt::group_start_rank(sorted_keys, positions, j);
  }
};
struct InSharedGroup {
  const std::uint64_t* sorted_keys;
  std::int64_t count;
  __host__ __device__ bool operator()(std::int64_t j) const { return lt::in_shared_group(sorted_keys, count, j); }
};
struct PositionOf {
  const std::uint32_t* positions;
  __host__ __device__ std::uint32_t operator()(std::int64_t j) const {
    return positions ? positions[j] : static_cast<std::uint32_t>(j);
  }
};
struct MaxOp {
  __host__ __device__ std::uint32_t operator()(std::uint32_t x, std::uint32_t y) const { return x > y ? x : y; }
};

/// Inputs of the nearest-B scans, as functors of the position for thrust::counting_iterator
/// + transform_iterator: the forward elements in SA order, the backward ones reversed
/// (scan position j is SA position n - 1 - j).
struct ForwardElement {
  const std::uint32_t* sa;
  const std::uint32_t* lcp;
  std::uint32_t m;
  __host__ __device__ NearestB operator()(std::int64_t k) const { return lt::forward_element(sa, lcp, m, k); }
};
struct BackwardElement {
  const std::uint32_t* sa;
  const std::uint32_t* lcp;
  std::int64_t n;
  std::uint32_t m;
  __host__ __device__ NearestB operator()(std::int64_t j) const { return lt::backward_element(sa, lcp, n, m, n - 1 - j); }
};
struct ChainOp {
  __host__ __device__ NearestB operator()(const NearestB& before, const NearestB& next) const { return lt::chain(before, next); }
};

/// Outputs of the nearest-B scans (thrust::tabulate_output_iterator): the forward scan stores
/// each position's left LCP; the backward scan replaces it with the clamped match of the
/// position, which a max-reduce turns into the length.
struct StoreLeft {
  std::uint32_t* left;
  __host__ __device__ void operator()(std::int64_t k, const NearestB& state) const { left[k] = lt::nearest_b_lcp(state); }
};
struct StoreClampedMatch {
  const std::uint32_t* sa;
  std::int64_t n;
  std::uint32_t m;
  std::uint32_t* left_then_match;
  __host__ __device__ void operator()(std::int64_t j, const NearestB& state) const {
    const std::int64_t k = n - 1 - j;
    left_then_match[k] = lt::clamped_match(sa, m, k, left_then_match[k], lt::nearest_b_lcp(state));
  }
};

/// Positions of the runs holding the length (flags of the CUB select; none when the length
/// is 0), read from device memory so the host need not wait for it.
struct RunMember {
  const std::uint32_t* lcp;
  std::int64_t n;
  const std::uint32_t* length;
  __host__ __device__ bool operator()(std::int64_t k) const {
    const std::uint32_t l = *length;
    return l > 0 && lt::is_run_member(lcp, n, k, l);
  }
};
/// A run member as sa[k] << 32 | lcp[k]: one selected array carries both to the host.
struct PackRunMember {
  const std::uint32_t* sa;
  const std::uint32_t* lcp;
  __host__ __device__ std::uint64_t operator()(std::int64_t k) const {
    return static_cast<std::uint64_t>(sa[k]) << 32 | lcp[k];
  }
};

}  // namespace warpmatch::cuda::kernels
