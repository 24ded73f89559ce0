// Kernels of multi-pattern exact search. Included only by src/cuda/multi_dispatch.cu.
//
// Both kernels scan one chunk of text in device memory: `owned` start positions, `readable`
// bytes (owned + the overlap of longest pattern - 1, less at the end of the text). Each
// occurrence either bumps a 64-bit counter (count only) or is appended as the key
// (local start << 32 | pattern id) to `hits` (when the slot index is below `capacity`; the
// counter always counts, so the host sees an overflow and re-runs with room). Keys are
// sorted afterwards, which yields the (start, pattern) order.
#pragma once

#ifdef __CUDACC__
#include <cuda_runtime.h>
#endif
// Without nvcc, tests/test_multi_kernel_emulation.cpp compiles these kernels for the host
// with shims (one std::thread per CUDA thread, std::barrier for __syncthreads) to check
// their index arithmetic against the CPU backend.

#include <cstdint>

#include "core/multi_patterns.hpp"

namespace warpmatch::cuda::detail {

/// The fast filter's tables in device memory (see core::PrefixIndex).
struct DevicePrefixIndex {
  std::uint32_t class_mask = 0;
  const std::uint64_t* bit1 = nullptr;
  const std::uint64_t* bit2 = nullptr;
  const std::uint64_t* bit3 = nullptr;
  const std::uint64_t* bit4 = nullptr;
  const std::uint64_t* bit8 = nullptr;
  int bits3 = 0, bits4 = 0, bits8 = 0;
  const core::PrefixTableEntry* table[core::kPrefixClasses] = {};
  std::uint64_t table_mask[core::kPrefixClasses] = {};
  const std::uint32_t* ids = nullptr;
  const std::uint64_t* head8 = nullptr;
  const std::uint64_t* offsets = nullptr;
  const std::uint8_t* bytes = nullptr;
  bool case_insensitive = false;
};

/// The paper's M-BNDM tables in device memory (see core::MbndmPlan).
struct DeviceMbndm {
  const core::MbndmSubset* subsets = nullptr;
  const std::uint32_t* members = nullptr;
  const std::uint64_t* tables = nullptr;  // 256 words per subset
  std::uint32_t subset_count = 0;
  const std::uint64_t* offsets = nullptr;
  const std::uint8_t* bytes = nullptr;
  bool case_insensitive = false;
};

struct HitOutput {
  unsigned long long* counter = nullptr;
  std::uint64_t* hits = nullptr;  // nullptr: count only
  std::uint64_t capacity = 0;
};

__device__ __forceinline__ std::uint8_t fold_byte(std::uint8_t c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<std::uint8_t>(c + 32) : c;
}

__device__ __forceinline__ void emit_hit(const HitOutput& out, std::uint64_t local_start,
                                         std::uint32_t id) {
  const unsigned long long slot = atomicAdd(out.counter, 1ull);
  if (out.hits && slot < out.capacity) out.hits[slot] = (local_start << 32) | id;
}

// ---- fast: prefix q-gram filter + device hash table ----------------------------------

constexpr int kFastThreads = 256;
constexpr int kFastStartsPerThreadStep = 4;  // consecutive starts from 3 shared words
constexpr int kFastSteps = 4;
constexpr int kFastTileStarts = kFastThreads * kFastStartsPerThreadStep * kFastSteps;  // 4096
constexpr int kFastTileWords = kFastTileStarts / 4 + 4;  // + look-ahead of 16 bytes
/// The 4-byte bitmap goes to shared memory up to this many bits (32 KiB).
constexpr int kFastSharedBitmapBits = 18;

__device__ __forceinline__ bool device_verify(const DevicePrefixIndex& ix, std::uint32_t id,
                                              const std::uint8_t* text, std::uint64_t pos,
                                              std::uint64_t word, std::uint64_t avail) {
  const std::uint64_t off = __ldg(ix.offsets + id);
  const std::uint64_t len = __ldg(ix.offsets + id + 1) - off;
  if (len > avail) return false;
  const std::uint64_t head = __ldg(ix.head8 + id);
  if (len <= 8) return (word & core::low_bytes_mask(static_cast<int>(len))) == head;
  if (word != head) return false;
  for (std::uint64_t j = 8; j < len; ++j) {
    std::uint8_t c = text[pos + j];
    if (ix.case_insensitive) c = fold_byte(c);
    if (c != __ldg(ix.bytes + off + j)) return false;
  }
  return true;
}

/// Verifies every pattern of class `cls` keyed `key`; returns how many matched.
__device__ __forceinline__ std::uint32_t device_collect(const DevicePrefixIndex& ix, int cls,
                                                     std::uint64_t key, const std::uint8_t* text,
                                                     std::uint64_t pos, std::uint64_t word,
                                                     std::uint64_t avail, const HitOutput& out) {
  const core::PrefixTableEntry* table = ix.table[cls];
  const std::uint64_t mask = ix.table_mask[cls];
  std::uint32_t found = 0;
  for (std::uint64_t slot = core::prefix_hash(key) >> 20 & mask;; slot = (slot + 1) & mask) {
    const std::uint32_t count = table[slot].count;
    if (count == 0) return 0;
    if (table[slot].key != key) continue;
    const std::uint32_t begin = table[slot].begin;
    for (std::uint32_t k = 0; k < count; ++k) {
      const std::uint32_t id = __ldg(ix.ids + begin + k);
      if (device_verify(ix, id, text, pos, word, avail)) {
        ++found;
        if (out.hits) emit_hit(out, pos, id);
      }
    }
    return found;
  }
}

/// One tile of kFastTileStarts starts per block iteration (grid-stride over tiles). The tile
/// plus a 16-byte look-ahead is staged in shared memory as 32-bit words; each thread takes
/// 4 consecutive starts per step and forms their 8-byte windows with funnel shifts.
template <bool kSharedBitmap>
__global__ void __launch_bounds__(kFastThreads)
    multi_fast_kernel(DevicePrefixIndex ix, const std::uint8_t* __restrict__ text,
                      std::uint64_t owned, std::uint64_t readable, HitOutput out) {
  extern __shared__ std::uint32_t shared_words[];
  std::uint32_t* tile = shared_words;
  const std::uint64_t* bit4 = ix.bit4;
  if constexpr (kSharedBitmap) {
    auto* bitmap = reinterpret_cast<std::uint64_t*>(shared_words + kFastTileWords);
    const int words = (1 << ix.bits4) / 64;
    for (int i = threadIdx.x; i < words; i += blockDim.x) bitmap[i] = __ldg(ix.bit4 + i);
    bit4 = bitmap;  // visible after the first __syncthreads below
  }
  const bool has4 = ix.class_mask & 8, has8 = ix.class_mask & 16;
  const bool has1 = ix.class_mask & 1, has2 = ix.class_mask & 2, has3 = ix.class_mask & 4;
  const int shift3 = 64 - ix.bits3, shift8 = 64 - ix.bits8;
  std::uint64_t counted = 0;
  const std::uint64_t tiles = (owned + kFastTileStarts - 1) / kFastTileStarts;
  for (std::uint64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const std::uint64_t tile_start = t * kFastTileStarts;
    __syncthreads();  // the previous tile is no longer read
    for (int i = threadIdx.x; i < kFastTileWords; i += blockDim.x) {
      const std::uint64_t g = tile_start + 4ull * i;
      std::uint32_t w = 0;
      if (g + 4 <= readable) {
        w = __ldg(reinterpret_cast<const std::uint32_t*>(text + g));  // g % 4 == 0
      } else {
        for (int b = 0; b < 4; ++b)
          if (g + b < readable) w |= static_cast<std::uint32_t>(text[g + b]) << (8 * b);
      }
      tile[i] = w;
    }
    __syncthreads();
    for (int step = 0; step < kFastSteps; ++step) {
      const int wi = step * kFastThreads + threadIdx.x;
      const std::uint32_t w0 = tile[wi], w1 = tile[wi + 1], w2 = tile[wi + 2];
#pragma unroll
      for (int b = 0; b < kFastStartsPerThreadStep; ++b) {
        const std::uint64_t local = 4ull * wi + b;
        const std::uint64_t pos = tile_start + local;
        if (pos >= owned) break;
        const std::uint32_t lo = __funnelshift_r(w0, w1, 8 * b);
        const std::uint32_t hi = __funnelshift_r(w1, w2, 8 * b);
        std::uint64_t word = (static_cast<std::uint64_t>(hi) << 32) | lo;
        if (ix.case_insensitive) word = core::fold_ascii_word(word);
        const std::uint64_t avail = readable - pos;
        bool maybe4 = false;
        if (has4 || has8) {
          const std::uint32_t h = core::prefix_hash4(word, ix.bits4);
          maybe4 = avail >= 4 && ((bit4[h >> 6] >> (h & 63)) & 1);
        }
        const bool maybe1 = has1 && ((__ldg(ix.bit1 + ((word & 0xff) >> 6)) >> (word & 63)) & 1);
        const bool maybe2 =
            has2 && avail >= 2 && ((__ldg(ix.bit2 + ((word & 0xffff) >> 6)) >> (word & 63)) & 1);
        bool maybe3 = false;
        if (has3 && avail >= 3) {
          const std::uint64_t h = core::prefix_hash(word & 0xffffff) >> shift3;
          maybe3 = (__ldg(ix.bit3 + (h >> 6)) >> (h & 63)) & 1;
        }
        if (!(maybe4 || maybe1 || maybe2 || maybe3)) continue;
        if (maybe1) counted += device_collect(ix, 0, word & 0xff, text, pos, word, avail, out);
        if (maybe2) counted += device_collect(ix, 1, word & 0xffff, text, pos, word, avail, out);
        if (maybe3) counted += device_collect(ix, 2, word & 0xffffff, text, pos, word, avail, out);
        if (maybe4) {
          if (has4)
            counted += device_collect(ix, 3, word & 0xffffffffull, text, pos, word, avail, out);
          if (has8 && avail >= 8) {
            const std::uint64_t h = core::prefix_hash(word) >> shift8;
            if ((__ldg(ix.bit8 + (h >> 6)) >> (h & 63)) & 1)
              counted += device_collect(ix, 4, word, text, pos, word, avail, out);
          }
        }
      }
    }
  }
  // Count only: one atomic per warp. With hits, emit_hit already counted each.
  if (!out.hits) {
    for (int d = 16; d > 0; d >>= 1) counted += __shfl_down_sync(0xffffffffu, counted, d);
    if ((threadIdx.x & 31) == 0 && counted) atomicAdd(out.counter, static_cast<unsigned long long>(counted));
  }
}

// ---- mbndm: seed paper 002 -----------------------------------------------------------
//
// Zhao & Wu, "Research on Multiple Pattern String Matching with Bit-parallelism Based on
// GPU" (Computer Engineering 37(14), 2011): the text is cut into pages of P_SIZE bytes,
// consecutive pages overlapping by maxPLength; the pattern set is cut into subsets; the
// blocks of a group take different subsets of the same page, groups take different pages;
// each thread runs M-BNDM for its subset over the page, held in shared memory; the B tables
// are read through the texture (read-only, __ldg) path, the paper's best placement.
// Grid: blockIdx.x = group * subset_blocks + subset_block; groups stride over pages.

__global__ void multi_mbndm_kernel(DeviceMbndm mb, const std::uint8_t* __restrict__ text,
                                   std::uint64_t owned, std::uint64_t readable, int page_bytes,
                                   int overlap, std::uint32_t subset_blocks, HitOutput out) {
  extern __shared__ std::uint8_t page[];
  const std::uint32_t group = blockIdx.x / subset_blocks;
  const std::uint32_t groups = gridDim.x / subset_blocks;
  const std::uint32_t subset = (blockIdx.x % subset_blocks) * blockDim.x + threadIdx.x;
  const bool active = subset < mb.subset_count;
  core::MbndmSubset sub{};
  if (active) sub = mb.subsets[subset];
  const std::uint64_t* B = mb.tables + 256ull * subset;
  const std::uint64_t pages = (owned + page_bytes - 1) / page_bytes;
  std::uint64_t counted = 0;
  for (std::uint64_t p = group; p < pages; p += groups) {
    const std::uint64_t page_start = p * page_bytes;
    const std::uint64_t page_end = min(readable, page_start + page_bytes + overlap);
    const int page_len = static_cast<int>(page_end - page_start);
    __syncthreads();
    for (int i = threadIdx.x; i < page_len; i += blockDim.x) page[i] = text[page_start + i];
    __syncthreads();
    if (!active) continue;
    const std::uint32_t w = sub.window;
    // Owned starts of this page: [0, last_start) relative to the page.
    const std::uint64_t owned_here = min(static_cast<std::uint64_t>(page_bytes), owned - page_start);
    for (std::uint64_t pos = 0; pos < owned_here && pos + w <= static_cast<std::uint64_t>(page_len);) {
      std::uint64_t D = sub.all_bits;
      std::uint32_t j = w, last = w;
      while (D) {
        D &= __ldg(B + page[pos + j - 1]);
        --j;
        if (D & sub.prefix_bits) {
          if (j > 0) {
            last = j;
          } else {
            for (std::uint64_t cand = D & sub.prefix_bits; cand; cand &= cand - 1) {
              const std::uint32_t k = static_cast<std::uint32_t>(__ffsll(static_cast<long long>(cand)) - 1) / w;
              const std::uint32_t id = __ldg(mb.members + sub.first + k);
              const std::uint64_t off = __ldg(mb.offsets + id);
              const std::uint64_t len = __ldg(mb.offsets + id + 1) - off;
              if (pos + len > static_cast<std::uint64_t>(page_len)) continue;
              bool ok = true;
              for (std::uint64_t q = 0; q < len && ok; ++q) {
                std::uint8_t c = page[pos + q];
                if (mb.case_insensitive) c = fold_byte(c);
                ok = c == __ldg(mb.bytes + off + q);
              }
              if (ok) {
                ++counted;
                if (out.hits) emit_hit(out, page_start + pos, id);
              }
            }
          }
        }
        D = (D << 1) & sub.keep_bits;
      }
      pos += last;
    }
  }
  if (!out.hits && counted) atomicAdd(out.counter, static_cast<unsigned long long>(counted));
}

}  // namespace warpmatch::cuda::detail
