// CUDA kernels of approximate search. Included only by approx_dispatch.cu.
//  - myers_kernel: Myers' bit-vector algorithm (JACM 1999) in Hyyro's block form on 32-bit
//    words; a group of lanes pipelines the pattern's words over one text chunk (lane g
//    processes column t - g at step t, receiving the horizontal carry of lane g - 1 by a
//    shuffle), so long patterns use a whole warp and short ones pack several chunks per warp.
//  - wavefront_kernel: seed paper 000 (Man Duhu, Song Zhan, "Approximate string matching on
//    the Hierarchical Memory Machine", 2015), faithfully: one block per overlapping piece of
//    the text, anti-diagonal wavefront over a 3 x (m+1) rolling buffer in shared memory, a
//    warp-shuffle min of the block's minima.
#pragma once

#include <cuda_runtime.h>

#include <climits>
#include <cstdint>

#include "cuda/approx_device_logic.hpp"

namespace warpmatch::cuda::kernels {

constexpr int kMyersBlockThreads = 256;
constexpr int kReduceThreads = 256;

/// dist[c - own_lo] = dist(c + 1) for every owned column c in [own_lo, own_hi) of the
/// device text. peq is [256][words]: bit r of word w set when pattern[32w + r] matches the byte.
template <int PER_LANE>
__global__ void __launch_bounds__(kMyersBlockThreads, PER_LANE >= 32 ? 2 : 4)
    myers_kernel(const std::uint8_t* __restrict__ text, std::uint64_t own_lo, std::uint64_t own_hi,
                 std::uint64_t chunk_ends, std::uint64_t overlap, const std::uint32_t* __restrict__ peq,
                 std::uint32_t m, std::uint32_t words, std::uint32_t group,
                 std::uint32_t* __restrict__ dist) {
  const unsigned lane = threadIdx.x & 31u;
  const std::uint64_t warp = (static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const unsigned g = lane & (group - 1);
  const std::uint64_t group_index = warp * (32 / group) + lane / group;
  const logic::ChunkSpan ch = logic::chunk_of(group_index, own_lo, own_hi, chunk_ends, overlap);
  // Every lane runs the warp's largest step count: shuffles need the whole warp.
  const unsigned span = ch.empty ? 0u : static_cast<unsigned>(ch.own_end - ch.from);
  const unsigned warp_span = __reduce_max_sync(0xffffffffu, span);
  if (warp_span == 0) return;  // uniform across the warp
  const unsigned steps = warp_span + group - 1;

  std::uint32_t pv[PER_LANE], mv[PER_LANE];
#pragma unroll
  for (int q = 0; q < PER_LANE; ++q) {
    pv[q] = 0xffffffffu;  // D[i][from] = i: every vertical delta +1
    mv[q] = 0;
  }
  const std::uint32_t last_word = words - 1;
  const bool holds_last = last_word / PER_LANE == g;
  int score = static_cast<int>(m);
  int carry = 0;  // this lane's horizontal delta of the previous step, for lane g + 1
  for (unsigned t = 0; t < steps; ++t) {
    const int from_above = __shfl_up_sync(0xffffffffu, carry, 1, group);
    const std::int64_t c = static_cast<std::int64_t>(ch.from) + t - g;
    if (ch.empty || c < static_cast<std::int64_t>(ch.from) || c >= static_cast<std::int64_t>(ch.own_end))
      continue;
    int h = g == 0 ? 0 : from_above;  // top row D[0][.] = 0: free start in the text
    const std::uint32_t* eq_row = peq + static_cast<std::uint32_t>(text[c]) * words;
#pragma unroll
    for (int q = 0; q < PER_LANE; ++q) {
      const std::uint32_t w = g * PER_LANE + q;
      if (w < words) h = logic::advance_word(pv[q], mv[q], __ldg(eq_row + w), h, logic::word_hbit(w, words, m));
    }
    carry = h;
    if (holds_last) {
      score += h;  // words after the last one are skipped, so h left the pattern's row m
      if (static_cast<std::uint64_t>(c) >= ch.own_begin) dist[static_cast<std::uint64_t>(c) - own_lo] = score;
    }
  }
}

__device__ __forceinline__ std::uint32_t warp_min(std::uint32_t v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v = min(v, __shfl_down_sync(0xffffffffu, v, offset));
  return v;
}

/// Seed paper 000's block: piece blockIdx.x owns columns [own_begin, own_end) and reads from
/// `from` (overlap m + k before, 2m in best mode). Cells of anti-diagonal d = i + j are
/// independent; only diagonals d, d-1, d-2 live, in buf[d % 3]. Thread t owns rows
/// t+1, t+1+blockDim, ... . Writes dist for owned columns and the piece's minimum.
__global__ void wavefront_kernel(const std::uint8_t* __restrict__ text, std::uint64_t own_lo,
                                 std::uint64_t own_hi, std::uint64_t piece_ends, std::uint64_t overlap,
                                 const std::uint8_t* __restrict__ pattern,
                                 const std::uint8_t* __restrict__ fold, std::uint32_t m,
                                 std::uint32_t* __restrict__ dist, std::uint32_t* __restrict__ block_min) {
  extern __shared__ std::uint16_t diagonals[];  // 3 x (m + 1); cell values <= m < 2^16
  __shared__ std::uint8_t fold_map[256];
  __shared__ std::uint32_t warp_minima[32];
  const logic::ChunkSpan ch = logic::chunk_of(blockIdx.x, own_lo, own_hi, piece_ends, overlap);
  if (ch.empty) {
    if (threadIdx.x == 0) block_min[blockIdx.x] = UINT_MAX;
    return;  // uniform across the block
  }
  for (unsigned i = threadIdx.x; i < 256; i += blockDim.x) fold_map[i] = fold[i];
  const std::uint32_t stride = m + 1;
  for (std::uint32_t i = threadIdx.x; i < 3 * stride; i += blockDim.x) diagonals[i] = 0;  // row 0 stays 0
  __syncthreads();
  const std::int64_t len = static_cast<std::int64_t>(ch.own_end - ch.from);
  std::uint32_t local_min = UINT_MAX;
  const std::int64_t last_diagonal = static_cast<std::int64_t>(m) + len;
  for (std::int64_t d = 1; d <= last_diagonal; ++d) {
    std::uint16_t* cur = diagonals + (d % 3) * stride;
    const std::uint16_t* prev1 = diagonals + ((d + 2) % 3) * stride;  // diagonal d - 1
    const std::uint16_t* prev2 = diagonals + ((d + 1) % 3) * stride;  // diagonal d - 2
    for (std::uint32_t i = threadIdx.x + 1; i <= m; i += blockDim.x) {
      const std::int64_t j = d - static_cast<std::int64_t>(i);
      if (j < 0 || j > len) continue;
      const bool same = j >= 1 && __ldg(pattern + i - 1) == fold_map[text[ch.from + j - 1]];
      const std::uint32_t v = logic::wavefront_cell(i, j, j >= 1 ? prev2[i - 1] : 0u, prev1[i - 1],
                                                    j >= 1 ? prev1[i] : 0u, same);
      cur[i] = static_cast<std::uint16_t>(v);
      if (i == m && j >= 1) {
        const std::uint64_t c = ch.from + static_cast<std::uint64_t>(j) - 1;
        if (c >= ch.own_begin) {
          dist[c - own_lo] = v;
          local_min = min(local_min, v);
        }
      }
    }
    __syncthreads();
  }
  local_min = warp_min(local_min);
  if ((threadIdx.x & 31u) == 0) warp_minima[threadIdx.x >> 5] = local_min;
  __syncthreads();
  if (threadIdx.x < 32) {
    const unsigned warps = (blockDim.x + 31) / 32;
    std::uint32_t v = threadIdx.x < warps ? warp_minima[threadIdx.x] : UINT_MAX;
    v = warp_min(v);
    if (threadIdx.x == 0) block_min[blockIdx.x] = v;
  }
}

/// *out = min(*out, min of values[0, count)): grid-stride, warp-shuffle min, one atomic per warp.
__global__ void min_reduce_kernel(const std::uint32_t* __restrict__ values, std::uint64_t count,
                                  std::uint32_t* __restrict__ out) {
  std::uint32_t v = UINT_MAX;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += static_cast<std::uint64_t>(gridDim.x) * blockDim.x)
    v = min(v, values[i]);
  v = warp_min(v);
  if ((threadIdx.x & 31u) == 0) atomicMin(out, v);
}

/// out[i] = dist[index[i]] for the selected hits.
__global__ void gather_kernel(const std::uint32_t* __restrict__ dist, const std::uint32_t* __restrict__ index,
                              const std::uint32_t* __restrict__ count, std::uint32_t* __restrict__ out) {
  const std::uint32_t n = *count;
  for (std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[i] = dist[index[i]];
}

/// CUB selection predicate over end indices: dist <= limit (all hits) or == limit (best).
struct DistanceSelect {
  const std::uint32_t* dist;
  std::uint32_t limit;
  bool equal;
  __device__ __forceinline__ bool operator()(std::uint32_t index) const {
    const std::uint32_t v = dist[index];
    return equal ? v == limit : v <= limit;
  }
};

}  // namespace warpmatch::cuda::kernels
