// Kernels of exact single-pattern search (device code only; launched by dispatch.cu).
//
// Both kernels scan one device-resident chunk: `text` holds the chunk's bytes, start
// positions [0, npos) are the ones the chunk owns, and every position p < npos has its
// whole occurrence p + m <= chunk length inside the buffer. Buffers are padded so that
// 16-byte loads up to `text_vecs` vectors are in bounds; bytes past the chunk are never
// part of a reported match (the valid-position mask and npos cut them off).
//
// The CUDA built-ins come from nvcc or, in tests/test_exact_emulation.cpp, from the host shim
// tests/support/cuda_host_shim.hpp, which runs this very text on the CPU. Fixed-size shared
// arrays are `static __shared__` (the same to nvcc; one array per block in the shim).
#pragma once

#ifdef __CUDACC__
#include <cuda_runtime.h>
#endif

#include <algorithm>
#include <cstdint>

#include "cuda/exact/exact_cuda.hpp"

namespace warpmatch::cuda::kernels {

/// Patterns up to this length travel inside the kernel parameter block (constant bank:
/// broadcast when a warp reads the same index); longer ones are read from global memory.
constexpr std::uint32_t kInlinePattern = 64;

struct PatternParams {
  const std::uint8_t* global = nullptr;  // the whole pattern in device memory
  std::uint32_t length = 0;
  std::uint32_t first4 = 0;       // first byte in all 4 lanes of a word (folded if needed)
  std::uint32_t last4 = 0;        // last byte likewise
  std::uint32_t shift_vecs = 0;   // (length - 1) / 16
  std::uint32_t shift_bytes = 0;  // (length - 1) % 16
  std::uint32_t prefix4[3] = {};  // pattern bytes 0, 1, 2 in all 4 lanes of a word (folded)
  std::uint8_t inline_bytes[kInlinePattern] = {};
};

/// The kernels' parameters for `pattern` (already folded when case-insensitive). `global`
/// stays null: the caller points it at the pattern's bytes on the device when they do not
/// fit inline (length > kInlinePattern).
inline PatternParams make_pattern_params(const core::ExactPattern& pattern) {
  const auto& bytes = pattern.bytes;
  const auto m = static_cast<std::uint32_t>(bytes.size());
  PatternParams params{};
  params.length = m;
  params.first4 = 0x01010101u * bytes.front();
  params.last4 = 0x01010101u * bytes.back();
  params.shift_vecs = (m - 1) / 16;
  params.shift_bytes = (m - 1) % 16;
  for (std::uint32_t i = 0; i < 3; ++i) params.prefix4[i] = 0x01010101u * bytes[std::min(i, m - 1)];
  if (m <= kInlinePattern) std::copy(bytes.begin(), bytes.end(), params.inline_bytes);
  return params;
}

constexpr unsigned kFullMask = 0xffffffffu;

// ---- byte tricks on 32-bit words (SWAR) ---------------------------------------------------

/// ASCII 'A'..'Z' -> 'a'..'z' in each of the 4 bytes; no byte carries into its neighbour.
__device__ __forceinline__ std::uint32_t fold4(std::uint32_t w) {
  const std::uint32_t t = w & 0x7f7f7f7fu;
  const std::uint32_t ge_a = t + 0x3f3f3f3fu;  // bit 7 set where byte >= 'A'
  const std::uint32_t gt_z = t + 0x25252525u;  // bit 7 set where byte >  'Z'
  const std::uint32_t upper = ge_a & ~gt_z & ~w & 0x80808080u;
  return w | (upper >> 2);  // 0x80 >> 2 == 0x20, the case bit
}

__device__ __forceinline__ std::uint8_t fold1(std::uint8_t c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<std::uint8_t>(c + 32) : c;
}

/// 4-bit mask, bit i set when byte i of w equals byte i of c4. Exact (no false positives):
/// the add cannot carry across bytes because bit 7 is masked off first.
__device__ __forceinline__ std::uint32_t eq_mask4(std::uint32_t w, std::uint32_t c4) {
  const std::uint32_t x = w ^ c4;
  const std::uint32_t y = ((x & 0x7f7f7f7fu) + 0x7f7f7f7fu) | x;
  const std::uint32_t z = ~y & 0x80808080u;  // 0x80 in each zero byte of x
  // Gathers bits 7, 15, 23, 31 into bits 28..31 (distinct partial products: no carries).
  return (z * 0x00204081u) >> 28;
}

__device__ __forceinline__ std::uint32_t eq_mask16(const uint4& v, std::uint32_t c4) {
  return eq_mask4(v.x, c4) | (eq_mask4(v.y, c4) << 4) | (eq_mask4(v.z, c4) << 8) |
         (eq_mask4(v.w, c4) << 12);
}

template <bool kFold>
__device__ __forceinline__ uint4 maybe_fold(uint4 v) {
  if constexpr (kFold) {
    v.x = fold4(v.x);
    v.y = fold4(v.y);
    v.z = fold4(v.z);
    v.w = fold4(v.w);
  }
  return v;
}

template <bool kFold>
__device__ __forceinline__ std::uint8_t text_byte(const std::uint8_t* __restrict__ p) {
  const std::uint8_t c = __ldg(p);
  if constexpr (kFold) return fold1(c);
  return c;
}

__device__ __forceinline__ std::uint8_t pattern_byte(const PatternParams& p, std::uint32_t i) {
  return p.length <= kInlinePattern ? p.inline_bytes[i] : __ldg(p.global + i);
}

/// Compares the pattern's bytes [from, to) with the text at `at`.
template <bool kFold>
__device__ __forceinline__ bool equal_range(const std::uint8_t* __restrict__ at,
                                            const PatternParams& p, std::uint32_t from,
                                            std::uint32_t to) {
  for (std::uint32_t i = from; i < to; ++i)
    if (text_byte<kFold>(at + i) != pattern_byte(p, i)) return false;
  return true;
}

// ---- first_last: 16 bytes per lane, first/last-byte filter, warp-ordered output -------------------

enum class FastMode {
  count_total,     // add the number of matches to *total (one atomicAdd per warp)
  count_segments,  // seg_counts[s] = matches in segment s (sizes the emit pass exactly)
  emit,            // write chunk-relative starts, ascending, from seg_offsets[s] on
};

constexpr int kFastBlock = 256;
/// A warp scans a segment of kSegmentSteps x 32 lanes x 16 bytes of start positions; the
/// segment is the unit the count pass sizes, so the emit pass can write in order.
constexpr std::uint32_t kSegmentSteps = 16;
constexpr std::uint64_t kSegmentVecs = 32ull * kSegmentSteps;
constexpr std::uint64_t kSegmentPositions = 16ull * kSegmentVecs;  // 8 KiB
/// Steps a lane's loads run ahead of its arithmetic: with ~40 registers (5-6 blocks of 256
/// per SM) one step ahead keeps only ~24 KiB per SM in flight, short of what HBM3e needs.
/// To be tuned on the H200 (time_exact_resident).
constexpr std::uint32_t kPrefetchSteps = 2;

__host__ __device__ constexpr std::uint64_t fast_segments(std::uint64_t npos) {
  return (npos + kSegmentPositions - 1) / kSegmentPositions;
}

/// Positions [16 j, 16 j + 16) that are below npos, as a 16-bit mask.
__device__ __forceinline__ std::uint32_t valid_mask(std::uint64_t j, std::uint64_t npos) {
  const std::uint64_t first = 16 * j;
  if (first + 16 <= npos) return 0xffffu;
  if (first >= npos) return 0;
  return (1u << static_cast<std::uint32_t>(npos - first)) - 1u;
}

/// What both filter kernels do with a lane's 16-bit mask of verified hits of vector j:
/// emit — write the starts in order (lanes hold consecutive vectors, so a lane-order prefix
/// sum keeps them ascending; out_at advances by the warp's total); count_segments /
/// count_total — add them to the segment's or the thread's count. Warp-uniform call.
template <FastMode kMode>
__device__ __forceinline__ void record_hits(std::uint32_t hits, std::uint64_t j, unsigned lane,
                                            std::uint32_t* __restrict__ out, std::uint32_t& out_at,
                                            std::uint32_t& seg_count, std::uint32_t& thread_count) {
  if constexpr (kMode == FastMode::emit) {
    if (__any_sync(kFullMask, hits != 0)) {
      const std::uint32_t c = __popc(hits);
      std::uint32_t incl = c;
#pragma unroll
      for (unsigned d = 1; d < 32; d <<= 1) {
        const std::uint32_t v = __shfl_up_sync(kFullMask, incl, d);
        if (lane >= d) incl += v;
      }
      std::uint32_t o = out_at + incl - c;
      while (hits) {
        const int bit = __ffs(hits) - 1;
        hits &= hits - 1;
        out[o++] = static_cast<std::uint32_t>(16 * j + bit);
      }
      out_at += __shfl_sync(kFullMask, incl, 31);
    }
  } else if constexpr (kMode == FastMode::count_segments) {
    seg_count += __popc(hits);
  } else {
    thread_count += __popc(hits);
  }
}

/// kShort: pattern of at most 16 bytes, so a position's last byte lies in the lane's own
/// vector or the next one and a single load per step serves both filters.
template <bool kFold, bool kShort, FastMode kMode>
__global__ void __launch_bounds__(kFastBlock)
    exact_fast_kernel(const std::uint8_t* __restrict__ text, std::uint64_t text_vecs,
                      std::uint64_t npos, const __grid_constant__ PatternParams p,
                      unsigned long long* __restrict__ total,
                      std::uint32_t* __restrict__ seg_counts,
                      const std::uint32_t* __restrict__ seg_offsets,
                      std::uint32_t* __restrict__ out) {
  const uint4* __restrict__ vtext = reinterpret_cast<const uint4*>(text);
  const unsigned lane = threadIdx.x & 31u;
  const std::uint64_t warp = (static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const std::uint64_t warps = (static_cast<std::uint64_t>(gridDim.x) * blockDim.x) >> 5;
  const std::uint64_t pos_vecs = (npos + 15) / 16;
  const std::uint64_t segments = fast_segments(npos);
  const std::uint32_t k = p.shift_vecs;
  const std::uint32_t r = p.shift_bytes;
  const bool needs_verify = p.length > 2;  // first and last byte are the whole pattern

  auto load = [&](std::uint64_t j, bool wanted) -> uint4 {
    return (wanted && j < text_vecs) ? __ldg(vtext + j) : make_uint4(0, 0, 0, 0);
  };

  std::uint32_t thread_count = 0;
  for (std::uint64_t seg = warp; seg < segments; seg += warps) {  // warp-uniform loop
    const std::uint64_t seg_vec = seg * kSegmentVecs;
    const std::uint32_t steps = static_cast<std::uint32_t>(
        min(static_cast<std::uint64_t>(kSegmentSteps), (pos_vecs - seg_vec + 31) / 32));
    std::uint64_t j = seg_vec + lane;

    // Lane l of step s covers positions 16 j .. 16 j + 15 with j = seg_vec + 32 s + l.
    // fcur: first-byte hits of vector j; lcur: last-byte hits of vector j + k; the lane
    // also needs vector j + k + 1, which is lane l + 1's lcur (lane 31: lane 0's next).
    // bq[d]: vector j + 32 (d + 1) + k, whose last-byte hits become lcur of step s + d + 1;
    // aq[d] (long patterns): vector j + 32 d, the first bytes of step s + d. Both are loaded
    // kPrefetchSteps steps ahead. In a segment's last step only lane 0's look-ahead
    // vector is used (by lane 31), so the other lanes skip that load.
    auto want_b = [&](std::uint32_t t) { return t < steps && (t + 1 < steps || lane == 0); };
    uint4 aq[kPrefetchSteps], bq[kPrefetchSteps];
#pragma unroll
    for (std::uint32_t d = 0; d < kPrefetchSteps; ++d) {
      bq[d] = load(j + 32 * (d + 1) + k, want_b(d));
      if constexpr (!kShort) aq[d] = load(j + 32 * d, d < steps);
    }
    std::uint32_t fcur = 0, lcur;
    if constexpr (kShort) {
      const uint4 a = maybe_fold<kFold>(load(j, true));
      fcur = eq_mask16(a, p.first4);
      lcur = eq_mask16(a, p.last4);
    } else {
      lcur = eq_mask16(maybe_fold<kFold>(load(j + k, true)), p.last4);
    }
    std::uint32_t seg_count = 0;
    std::uint32_t out_at = 0;
    if constexpr (kMode == FastMode::emit) out_at = seg_offsets[seg];

    for (std::uint32_t s = 0; s < steps; ++s, j += 32) {
      // Issue step s + kPrefetchSteps's loads before this step's arithmetic.
      const uint4 next_b = load(j + 32 * (kPrefetchSteps + 1) + k, want_b(s + kPrefetchSteps));
      uint4 next_a{};
      if constexpr (!kShort) {
        next_a = load(j + 32 * kPrefetchSteps, s + kPrefetchSteps < steps);
        fcur = eq_mask16(maybe_fold<kFold>(aq[0]), p.first4);
      }
      const uint4 bf = maybe_fold<kFold>(bq[0]);
      const std::uint32_t lnext = eq_mask16(bf, p.last4);
      std::uint32_t fnext = 0;
      if constexpr (kShort) fnext = eq_mask16(bf, p.first4);

      const std::uint32_t share = lane == 0 ? lnext : lcur;
      const std::uint32_t lhi = __shfl_sync(kFullMask, share, (lane + 1) & 31u);
      const std::uint32_t lmask = ((lcur | (lhi << 16)) >> r) & 0xffffu;
      std::uint32_t cand = fcur & lmask & valid_mask(j, npos);

      std::uint32_t hits = cand;
      if (needs_verify && cand) {
        hits = 0;
        const std::uint8_t* at = text + 16 * j;
        while (cand) {
          const int bit = __ffs(cand) - 1;
          cand &= cand - 1;
          if (equal_range<kFold>(at + bit, p, 1, p.length - 1)) hits |= 1u << bit;
        }
      }

      record_hits<kMode>(hits, j, lane, out, out_at, seg_count, thread_count);

      lcur = lnext;
      if constexpr (kShort) fcur = fnext;
#pragma unroll
      for (std::uint32_t d = 0; d + 1 < kPrefetchSteps; ++d) {
        bq[d] = bq[d + 1];
        if constexpr (!kShort) aq[d] = aq[d + 1];
      }
      bq[kPrefetchSteps - 1] = next_b;
      if constexpr (!kShort) aq[kPrefetchSteps - 1] = next_a;
    }
    if constexpr (kMode == FastMode::count_segments) {
      const std::uint32_t sum = __reduce_add_sync(kFullMask, seg_count);
      if (lane == 0) seg_counts[seg] = sum;
    }
  }
  if constexpr (kMode == FastMode::count_total) {
    const std::uint32_t sum = __reduce_add_sync(kFullMask, thread_count);
    if (lane == 0 && sum) atomicAdd(total, static_cast<unsigned long long>(sum));
  }
}

// ---- fast (default): prefix filter on the pattern's first bytes, SWAR, no verify if m <= 3 ----
//
// Resident text is scanned at memory speed only if the filter costs few integer operations
// per byte (an H200 streams ~17 bytes per SM clock while issuing ~64 integer operations).
// This kernel tests the first kTests = min(m, 3) pattern bytes at once for 4 positions per
// 32-bit word: x = (w ^ c0) | (w >> 8 ^ c1) | (w >> 16 ^ c2), byte shifts by funnel shifts
// with the next word, then one exact zero-byte test. About 10 operations per 4 positions,
// against ~16 for the first/last-byte masks of exact_fast_kernel. Patterns of up to 3
// bytes need no verification at all (counting is a popcount), longer ones verify bytes
// [3, m) of each candidate. The warp/segment layout (and so the ordered emit) is the same
// as exact_fast_kernel's.

/// 0x80 in each byte of x that is zero, 0 elsewhere (exact: no borrow between bytes).
__device__ __forceinline__ std::uint32_t zero_bytes(std::uint32_t x) {
  return ~(((x & 0x7f7f7f7fu) + 0x7f7f7f7fu) | x) & 0x80808080u;
}

/// Bits 7, 15, 23, 31 of z gathered into bits 0..3 (see eq_mask4).
__device__ __forceinline__ std::uint32_t gather4(std::uint32_t z) { return (z * 0x00204081u) >> 28; }

template <int kTests>
__device__ __forceinline__ std::uint32_t prefix_zero_bytes(std::uint32_t w, std::uint32_t next,
                                                           const PatternParams& p) {
  std::uint32_t x = w ^ p.prefix4[0];
  if constexpr (kTests >= 2) x |= __funnelshift_r(w, next, 8) ^ p.prefix4[1];
  if constexpr (kTests >= 3) x |= __funnelshift_r(w, next, 16) ^ p.prefix4[2];
  return zero_bytes(x);
}

template <bool kFold>
__device__ __forceinline__ std::uint32_t maybe_fold1w(std::uint32_t w) {
  if constexpr (kFold) return fold4(w);
  return w;
}

template <bool kFold, int kTests, FastMode kMode>
__global__ void __launch_bounds__(kFastBlock)
    exact_prefix_kernel(const std::uint8_t* __restrict__ text, std::uint64_t text_vecs,
                        std::uint64_t npos, const __grid_constant__ PatternParams p,
                        unsigned long long* __restrict__ total,
                        std::uint32_t* __restrict__ seg_counts,
                        const std::uint32_t* __restrict__ seg_offsets,
                        std::uint32_t* __restrict__ out) {
  constexpr std::uint32_t P = kPrefetchSteps;
  const uint4* __restrict__ vtext = reinterpret_cast<const uint4*>(text);
  const unsigned lane = threadIdx.x & 31u;
  const std::uint64_t warp = (static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const std::uint64_t warps = (static_cast<std::uint64_t>(gridDim.x) * blockDim.x) >> 5;
  const std::uint64_t pos_vecs = (npos + 15) / 16;
  const std::uint64_t segments = fast_segments(npos);
  const bool needs_verify = p.length > static_cast<std::uint32_t>(kTests);

  auto load = [&](std::uint64_t j, bool wanted) -> uint4 {
    return (wanted && j < text_vecs) ? __ldg(vtext + j) : make_uint4(0, 0, 0, 0);
  };

  std::uint32_t thread_count = 0;
  for (std::uint64_t seg = warp; seg < segments; seg += warps) {  // warp-uniform loop
    const std::uint64_t seg_vec = seg * kSegmentVecs;
    const std::uint32_t steps = static_cast<std::uint32_t>(
        min(static_cast<std::uint64_t>(kSegmentSteps), (pos_vecs - seg_vec + 31) / 32));
    std::uint64_t j = seg_vec + lane;
    // q[d] = vector j + 32 d. Lane 31's positions need the first word of vector j + 1,
    // which is lane 0's q[1]; so lane 0 loads one vector past the segment's last step.
    auto wanted = [&](std::uint32_t t) { return t < steps || (t == steps && lane == 0); };
    uint4 q[P + 1];
#pragma unroll
    for (std::uint32_t d = 0; d <= P; ++d) q[d] = load(j + 32 * d, wanted(d));

    std::uint32_t seg_count = 0;
    std::uint32_t out_at = 0;
    if constexpr (kMode == FastMode::emit) out_at = seg_offsets[seg];

    for (std::uint32_t s = 0; s < steps; ++s, j += 32) {
      const uint4 incoming = load(j + 32 * (P + 1), wanted(s + P + 1));  // in flight early
      const uint4 v = maybe_fold<kFold>(q[0]);
      const std::uint32_t share = lane == 0 ? maybe_fold1w<kFold>(q[1].x) : v.x;
      const std::uint32_t ahead = __shfl_sync(kFullMask, share, (lane + 1) & 31u);
      const std::uint32_t z0 = prefix_zero_bytes<kTests>(v.x, v.y, p);
      const std::uint32_t z1 = prefix_zero_bytes<kTests>(v.y, v.z, p);
      const std::uint32_t z2 = prefix_zero_bytes<kTests>(v.z, v.w, p);
      const std::uint32_t z3 = prefix_zero_bytes<kTests>(v.w, ahead, p);
      const std::uint32_t any = z0 | (z1 >> 1) | (z2 >> 2) | (z3 >> 3);  // disjoint bits
      const bool whole_vector = 16 * (j + 1) <= npos;

      if (kMode == FastMode::count_total && !needs_verify && whole_vector) {
        thread_count += __popc(any);  // the filter is the whole pattern: no verification
      } else {
        std::uint32_t hits = 0;
        if (any != 0 || kMode == FastMode::emit) {
          std::uint32_t cand = (gather4(z0) | (gather4(z1) << 4) | (gather4(z2) << 8) |
                                (gather4(z3) << 12)) & valid_mask(j, npos);
          hits = cand;
          if (needs_verify && cand) {
            hits = 0;
            const std::uint8_t* at = text + 16 * j;
            while (cand) {
              const int bit = __ffs(cand) - 1;
              cand &= cand - 1;
              if (equal_range<kFold>(at + bit, p, kTests, p.length)) hits |= 1u << bit;
            }
          }
        }
        record_hits<kMode>(hits, j, lane, out, out_at, seg_count, thread_count);
      }

#pragma unroll
      for (std::uint32_t d = 0; d < P; ++d) q[d] = q[d + 1];
      q[P] = incoming;
    }
    if constexpr (kMode == FastMode::count_segments) {
      const std::uint32_t sum = __reduce_add_sync(kFullMask, seg_count);
      if (lane == 0) seg_counts[seg] = sum;
    }
  }
  if constexpr (kMode == FastMode::count_total) {
    const std::uint32_t sum = __reduce_add_sync(kFullMask, thread_count);
    if (lane == 0 && sum) atomicAdd(total, static_cast<unsigned long long>(sum));
  }
}

// ---- bf: seed paper 003 -------------------------------------------------------------------

/// Paper 003 (brute-force matching with CUDA, 2009): THREAD_NUM 256 threads per block.
constexpr int kBfBlock = 256;

/// Seed paper 003, faithfully: one thread per start position, grid-stride (thread t tries
/// t, t + T, t + 2T, ...), each thread counts its matches in its shared-memory slot, the
/// block reduces the slots and writes one total per block; the host side sums the block
/// totals (here with cub::DeviceReduce). The paper launched BLOCK_NUM = 32 blocks on an
/// 8800 GT; the dispatch sizes the grid to fill the GPU instead.
/// kEmit also appends each start to `out` through an atomic cursor (unordered; the
/// dispatch sorts them with cub::DeviceRadixSort).
template <bool kFold, bool kEmit>
__global__ void __launch_bounds__(kBfBlock)
    exact_bf_kernel(const std::uint8_t* __restrict__ text, std::uint64_t npos,
                    const __grid_constant__ PatternParams p,
                    unsigned long long* __restrict__ block_totals,
                    std::uint32_t* __restrict__ out, unsigned int* __restrict__ cursor) {
  static __shared__ unsigned long long counts[kBfBlock];
  const unsigned tid = threadIdx.x;
  counts[tid] = 0;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * kBfBlock;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * kBfBlock + tid; i < npos;
       i += stride) {
    if (equal_range<kFold>(text + i, p, 0, p.length)) {
      counts[tid] += 1;
      if constexpr (kEmit) out[atomicAdd(cursor, 1u)] = static_cast<std::uint32_t>(i);
    }
  }
  if constexpr (!kEmit) {
    __syncthreads();
    for (unsigned s = kBfBlock / 2; s > 0; s >>= 1) {
      if (tid < s) counts[tid] += counts[tid + s];
      __syncthreads();
    }
    if (tid == 0) block_totals[blockIdx.x] = counts[0];
  }
}

// ---- kernel selection (host) ----------------------------------------------------------------

template <FastMode M>
using FastKernel = void (*)(const std::uint8_t*, std::uint64_t, std::uint64_t, const PatternParams,
                            unsigned long long*, std::uint32_t*, const std::uint32_t*, std::uint32_t*);

/// The filter kernel of an algorithm. `fast` takes, per pattern length, the kernel that
/// measured faster on an H200 (1 GiB English, bench find): the prefix filter for m <= 3,
/// where it needs no verification ("the": 2.75 vs 1.95 TB/s), the first/last-byte filter
/// for longer patterns ("Sherlock": 2.81 vs 2.65 TB/s).
template <FastMode M>
FastKernel<M> fast_kernel(ExactAlgorithm algorithm, bool fold, std::uint32_t m) {
  if (algorithm == ExactAlgorithm::fast) algorithm = m <= 3 ? ExactAlgorithm::prefix : ExactAlgorithm::first_last;
  if (algorithm == ExactAlgorithm::first_last) {
    const bool short_pattern = m <= 16;
    if (fold) return short_pattern ? exact_fast_kernel<true, true, M> : exact_fast_kernel<true, false, M>;
    return short_pattern ? exact_fast_kernel<false, true, M> : exact_fast_kernel<false, false, M>;
  }
  if (fold) {
    if (m == 1) return exact_prefix_kernel<true, 1, M>;
    if (m == 2) return exact_prefix_kernel<true, 2, M>;
    return exact_prefix_kernel<true, 3, M>;
  }
  if (m == 1) return exact_prefix_kernel<false, 1, M>;
  if (m == 2) return exact_prefix_kernel<false, 2, M>;
  return exact_prefix_kernel<false, 3, M>;
}

using BfKernel = void (*)(const std::uint8_t*, std::uint64_t, const PatternParams, unsigned long long*,
                          std::uint32_t*, unsigned int*);

inline BfKernel bf_kernel(bool fold, bool emit) {
  if (fold) return emit ? exact_bf_kernel<true, true> : exact_bf_kernel<true, false>;
  return emit ? exact_bf_kernel<false, true> : exact_bf_kernel<false, false>;
}

}  // namespace warpmatch::cuda::kernels
