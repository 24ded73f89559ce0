// CUDA kernels of approximate search. Included only by dispatch.cu (same folder).
//  - Myers' bit-vector algorithm (JACM 1999) in Hyyro's block form on 32-bit words, two
//    layouts: myers_thread_kernel (long texts, m <= 1024: one thread per long text chunk,
//    the pattern's words in registers) and myers_lane_kernel (short texts or long patterns:
//    a group of lanes pipelines the pattern's words over one chunk, carries by shuffle).
//    Both report only ends within k (best mode: a few candidates per thread, see
//    logic::EndReporter), compacted on the fly (emit_hit).
//  - wavefront_kernel: seed paper 000 (Man Duhu, Song Zhan, "Approximate string matching on
//    the Hierarchical Memory Machine", 2015), faithfully: one block per overlapping piece of
//    the text, anti-diagonal wavefront over a 3 x (m+1) rolling buffer in shared memory, a
//    warp-shuffle min of the block's minima.
//
// The CUDA built-ins come from nvcc and <cooperative_groups.h> (dispatch.cu includes it) or,
// in tests/test_approx_emulation.cpp, from the host shim tests/support/cuda_host_shim.hpp, which
// runs this very text on the CPU. Fixed-size shared arrays are `static __shared__` (the same
// to nvcc; one array per block in the shim).
#pragma once

#include <climits>
#include <cstdint>

#include "cuda/approx/agent.hpp"

namespace warpmatch::cuda::kernels {

constexpr int kReduceThreads = 256;
constexpr int kMyersLaneThreads = 128;    // lane pipeline: 4 warps, one per SMSP
constexpr int kMyersThreadThreads = 256;  // thread per chunk

/// Where the Myers kernels put their hits: (index << 32) | dist, unordered. `count` may
/// exceed `capacity` (the host then re-runs with a larger buffer). Best mode: `best` gets
/// the minimum and `overflow` the smallest minimum at which a thread saw more ends than it
/// keeps (both atomicMin, from UINT_MAX; see logic::EndReporter).
struct HitSink {
  std::uint64_t* hits;
  std::uint32_t capacity;
  std::uint32_t* count;
  std::uint32_t* best;
  std::uint32_t* overflow;
};

/// One hit, with one atomic per group of threads that emit together (warp-aggregated).
__device__ __forceinline__ void emit_hit(const HitSink& sink, std::uint32_t index, std::uint32_t distance) {
  const cooperative_groups::coalesced_group active = cooperative_groups::coalesced_threads();
  std::uint32_t slot = 0;
  if (active.thread_rank() == 0) slot = atomicAdd(sink.count, active.size());
  slot = active.shfl(slot, 0) + active.thread_rank();
  if (slot < sink.capacity) sink.hits[slot] = (static_cast<std::uint64_t>(index) << 32) | distance;
}

/// The 16 text bytes at `at` (16-byte aligned) of a buffer whose 16-byte blocks end at
/// `blocks_end`; past it zeros (those columns are never reported).
__device__ __forceinline__ uint4 text_block(const std::uint8_t* text, std::uint32_t at, std::uint32_t blocks_end) {
  return at < blocks_end ? __ldg(reinterpret_cast<const uint4*>(text + at)) : make_uint4(0, 0, 0, 0);
}

__device__ __forceinline__ std::uint32_t byte_of(const uint4& b, int j) {
  const std::uint32_t w = j < 4 ? b.x : j < 8 ? b.y : j < 12 ? b.z : b.w;
  return (w >> (8 * (j & 3))) & 0xffu;
}

/// Myers over long texts: one thread per chunk of owned columns [own_begin, own_end), DP
/// restarted `overlap` columns early (rounded down to 16 bytes), the whole pattern's W words
/// in registers. Eq rows (logic::EqTables' thread table) in shared memory. Reports owned ends
/// (index = column - own_lo) with dist <= k through logic::EndReporter.
template <int W>
__global__ void __launch_bounds__(kMyersThreadThreads)
    myers_thread_kernel(const std::uint8_t* __restrict__ text, std::uint32_t blocks_end, std::uint32_t own_lo,
                        std::uint32_t own_hi, std::uint32_t chunk, std::uint32_t overlap,
                        const std::uint32_t* __restrict__ peq, const std::uint8_t* __restrict__ code,
                        std::uint32_t table_words, std::uint32_t stride, std::uint32_t m, std::uint32_t pad,
                        std::uint32_t k, bool best, HitSink sink) {
  extern __shared__ uint4 shared_table[];
  static __shared__ std::uint8_t code_of[256];
  std::uint32_t* eq_table = reinterpret_cast<std::uint32_t*>(shared_table);
  for (std::uint32_t i = threadIdx.x; i < table_words; i += blockDim.x) eq_table[i] = peq[i];
  for (std::uint32_t i = threadIdx.x; i < 256; i += blockDim.x) code_of[i] = code[i];
  __syncthreads();
  const std::uint64_t first = own_lo + static_cast<std::uint64_t>(blockIdx.x * blockDim.x + threadIdx.x) * chunk;
  if (first >= own_hi) return;
  const auto own_begin = static_cast<std::uint32_t>(first);
  const std::uint32_t own_end = logic::myers_own_end(own_begin, own_hi, chunk);
  const std::uint32_t from = logic::myers_from(own_begin, overlap);
  std::uint32_t pv[W], mv[W];
#pragma unroll
  for (int q = 0; q < W; ++q) {
    pv[q] = logic::real_rows(q, pad);  // D[i][from] = i: vertical delta +1 (dummy rows 0)
    mv[q] = 0;
  }
  int score = static_cast<int>(m);
  logic::EndReporter out(best, k);
  const auto emit = [&](std::uint32_t index, std::uint32_t distance) { emit_hit(sink, index, distance); };
  for (std::uint32_t at = from; at < own_end; at += 16) {
    const uint4 bytes = text_block(text, at, blocks_end);
#pragma unroll
    for (int j = 0; j < 16; ++j) {
      const std::uint32_t* eq = eq_table + code_of[byte_of(bytes, j)] * stride;
      std::uint32_t e[W];
      if constexpr (W % 4 == 0) {
#pragma unroll
        for (int q = 0; q < W; q += 4) {
          const uint4 v = *reinterpret_cast<const uint4*>(eq + q);
          e[q] = v.x, e[q + 1] = v.y, e[q + 2] = v.z, e[q + 3] = v.w;
        }
      } else {
#pragma unroll
        for (int q = 0; q < W; ++q) e[q] = eq[q];
      }
      logic::Carry h;  // top row D[0][.] = 0: free start in the text
#pragma unroll
      for (int q = 0; q < W; ++q) h = core::myers_step(pv[q], mv[q], e[q], h);
      score += h.value();
      if (score <= static_cast<int>(out.limit)) {
        const std::uint32_t c = at + j;
        if (c >= own_begin && c < own_end) out.report(c - own_lo, static_cast<std::uint32_t>(score), emit);
      }
    }
  }
  if (best && out.finish_best(min(out.low, atomicMin(sink.best, out.low)), emit)) atomicMin(sink.overflow, out.low);
}

/// Myers over short texts with long patterns: a group of `group` lanes (a power of two <= 32)
/// pipelines one chunk, lane g holding words [g * PER_LANE, (g + 1) * PER_LANE) and processing
/// column t - g at step t. Lane 0 reads the text 16 bytes at a time; every lane passes its
/// outgoing horizontal delta and the Eq row of its NEXT column to lane g + 1 in one shuffle
/// (logic::pack_passed), so each lane loads its Eq words a step ahead. Before its first
/// column a lane sees the zero row with no carry, which leaves its initial state unchanged.
/// Eq table: logic::EqTables' lane table (lane g reads bank g: conflict-free), in shared
/// memory when SHARED, else read from global.
template <int PER_LANE, bool SHARED>
__global__ void __launch_bounds__(kMyersLaneThreads, PER_LANE <= 2 ? 8 : 1)
    myers_lane_kernel(const std::uint8_t* __restrict__ text, std::uint32_t blocks_end, std::uint32_t own_lo,
                      std::uint32_t own_hi, std::uint32_t chunk, std::uint32_t overlap,
                      const std::uint32_t* __restrict__ peq, const std::uint8_t* __restrict__ code,
                      std::uint32_t table_words, std::uint32_t zero_row, std::uint32_t m, std::uint32_t lanes,
                      std::uint32_t pad, std::uint32_t group, std::uint32_t k, bool best, HitSink sink) {
  extern __shared__ uint4 shared_table[];
  static __shared__ std::uint8_t code_of[256];
  const std::uint32_t* eq_table = peq;
  if constexpr (SHARED) {
    std::uint32_t* table = reinterpret_cast<std::uint32_t*>(shared_table);
    for (std::uint32_t i = threadIdx.x; i < table_words; i += blockDim.x) table[i] = peq[i];
    eq_table = table;
  }
  for (std::uint32_t i = threadIdx.x; i < 256; i += blockDim.x) code_of[i] = code[i];
  __syncthreads();
  const unsigned lane = threadIdx.x & 31u;
  const unsigned g = lane & (group - 1);
  const std::uint64_t group_index =
      (static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32 * (32 / group) + lane / group;
  const std::uint64_t first = own_lo + group_index * chunk;
  const bool empty = first >= own_hi;
  const auto own_begin = static_cast<std::uint32_t>(empty ? own_hi : first);
  const std::uint32_t own_end = logic::myers_own_end(own_begin, own_hi, chunk);
  const std::uint32_t from = logic::myers_from(own_begin, overlap);
  // Every lane runs the warp's largest step count: shuffles need the whole warp.
  const std::uint32_t steps = __reduce_max_sync(0xffffffffu, empty ? 0u : own_end - from + group - 1);
  if (steps == 0) return;  // uniform across the warp

  const std::uint32_t lane_word = g * PER_LANE;
  std::uint32_t pv[PER_LANE], mv[PER_LANE];
#pragma unroll
  for (int q = 0; q < PER_LANE; ++q) {
    pv[q] = logic::real_rows(lane_word + q, pad);
    mv[q] = 0;
  }
  const bool holds_last = !empty && g == lanes - 1;  // its last word ends at row m
  int score = static_cast<int>(m);
  // Eq words of this lane's current column, loaded one step ahead (off the carry's path).
  std::uint32_t eq[PER_LANE];
  auto load_eq = [&](std::uint32_t row) {
    const std::uint32_t* e = eq_table + row * (PER_LANE * 32) + g;
#pragma unroll
    for (int q = 0; q < PER_LANE; ++q) eq[q] = SHARED ? e[q * 32] : __ldg(e + q * 32);
  };
  uint4 bytes = text_block(text, from, blocks_end);
  // What this lane hands to lane g + 1: the delta h of its column, the row of its next column.
  std::uint32_t passed = logic::pack_passed(g == 0 ? code_of[byte_of(bytes, 0)] : zero_row, logic::Carry{});
  load_eq(logic::passed_row(passed));
  // Column of this lane at step t: from + t - g, tracked relative to own_begin.
  std::int32_t column =
      static_cast<std::int32_t>(from) - static_cast<std::int32_t>(own_begin) - static_cast<std::int32_t>(g);
  const auto owned = static_cast<std::int32_t>(own_end - own_begin);
  logic::EndReporter out(best, k);
  const auto emit = [&](std::uint32_t index, std::uint32_t distance) { emit_hit(sink, index, distance); };
  // Lane 0 takes its next column from the text, the others from lane g - 1: an arithmetic
  // select, so that no lane branches (a branch would serialise lane 0 against the rest).
  const std::uint32_t from_text = g == 0 ? 0xffffffffu : 0u;
  for (std::uint32_t t = 0; t < steps; t += 16) {
    const uint4 ahead = text_block(text, from + t + 16, blocks_end);
#pragma unroll
    for (int j = 0; j < 16; ++j, ++column) {
      const std::uint32_t received = __shfl_up_sync(0xffffffffu, passed, 1, group);
      const std::uint32_t text_row = code_of[j < 15 ? byte_of(bytes, j + 1) : byte_of(ahead, 0)];
      const std::uint32_t input =
          (logic::pack_passed(text_row, logic::Carry{}) & from_text) | (received & ~from_text);
      logic::Carry h = logic::passed_carry(input);
#pragma unroll
      for (int q = 0; q < PER_LANE; ++q) h = core::myers_step(pv[q], mv[q], eq[q], h);
      const std::uint32_t next_row = logic::passed_row(input);
      passed = logic::pack_passed(next_row, h);
      load_eq(next_row);
      // Every lane keeps a score; only the last lane's (h left row m) is the distance.
      score += h.value();
      if (holds_last & (score <= static_cast<int>(out.limit)) &
          (static_cast<std::uint32_t>(column) < static_cast<std::uint32_t>(owned)))
        out.report(own_begin + static_cast<std::uint32_t>(column) - own_lo, static_cast<std::uint32_t>(score), emit);
    }
    bytes = ahead;
  }
  if (best) {  // one atomic per warp: the warp's minimum
    const std::uint32_t warp_low = __reduce_min_sync(0xffffffffu, out.low);
    std::uint32_t before = 0;
    if (lane == 0) before = atomicMin(sink.best, warp_low);
    if (out.finish_best(min(warp_low, __shfl_sync(0xffffffffu, before, 0)), emit)) atomicMin(sink.overflow, out.low);
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
  static __shared__ std::uint8_t fold_map[256];
  static __shared__ std::uint32_t warp_minima[32];
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
