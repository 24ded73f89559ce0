// Kernels of multi-pattern exact search. Included only by src/cuda/multi/dispatch.cu.
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
// under the shared shim tests/support/cuda_host_shim.hpp (fibers for CUDA threads, barriers
// for __syncthreads) to check their index arithmetic against the CPU backend.

#include <algorithm>
#include <cstdint>
#include <vector>

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
  const std::uint32_t* bit4_summary = nullptr;  // see bit4_word_summary (lane filter only)
  const std::uint32_t* short_gate = nullptr;    // see core::PrefixIndex (sets with q < 4)
  const std::uint64_t* key8 = nullptr;          // the 8-byte scan bitmap (core::PrefixIndex)
  const std::uint64_t* long_key = nullptr;      // the long-key scan bitmap (core::PrefixIndex)
  int bits3 = 0, bits4 = 0, bits8 = 0, key8_bits = 0, long_key_bits = 0, long_key_bytes = 0;
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
  // Count only: occurrences per pattern id as well (`find -c -f`: a count per pattern
  // without shipping every hit to the host and sorting it there).
  unsigned long long* per_pattern = nullptr;
};

__device__ __forceinline__ std::uint8_t fold_byte(std::uint8_t c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<std::uint8_t>(c + 32) : c;
}

__device__ __forceinline__ void emit_hit(const HitOutput& out, std::uint64_t local_start,
                                         std::uint32_t id) {
  const unsigned long long slot = atomicAdd(out.counter, 1ull);
  if (out.hits && slot < out.capacity) out.hits[slot] = (local_start << 32) | id;
}

/// A verified occurrence: listed (emit_hit counts it too), or counted for its pattern only
/// (the total of a count-only launch is added per warp or block by the caller).
__device__ __forceinline__ void record_hit(const HitOutput& out, std::uint64_t local_start,
                                           std::uint32_t id) {
  if (out.hits) emit_hit(out, local_start, id);
  else if (out.per_pattern) atomicAdd(out.per_pattern + id, 1ull);
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
        record_hit(out, pos, id);
      }
    }
    return found;
  }
}

/// The patterns of length >= 4 (classes q = 4 and q = 8) at a start whose 4-byte prefix
/// passed the 4-byte bitmap: the q = 4 table, then the 8-byte bitmap and the q = 8 table.
__device__ __forceinline__ std::uint32_t collect_long_prefixes(const DevicePrefixIndex& ix,
                                                               const std::uint8_t* text,
                                                               std::uint64_t pos, std::uint64_t word,
                                                               std::uint64_t avail,
                                                               const HitOutput& out) {
  std::uint32_t found = 0;
  if (ix.class_mask & 8) found += device_collect(ix, 3, word & 0xffffffffull, text, pos, word, avail, out);
  if ((ix.class_mask & 16) && avail >= 8) {
    const std::uint64_t h = core::prefix_hash(word) >> (64 - ix.bits8);
    if ((__ldg(ix.bit8 + (h >> 6)) >> (h & 63)) & 1)
      found += device_collect(ix, 4, word, text, pos, word, avail, out);
  }
  return found;
}

/// Every class at one start: each class's bitmap, then its table (bit4 in shared or global
/// memory, 64-bit words).
__device__ __forceinline__ std::uint32_t collect_all_classes(const DevicePrefixIndex& ix,
                                                             const std::uint64_t* bit4,
                                                             const std::uint8_t* text, std::uint64_t pos,
                                                             std::uint64_t word, std::uint64_t avail,
                                                             const HitOutput& out) {
  std::uint32_t found = 0;
  if ((ix.class_mask & 1) && ((__ldg(ix.bit1 + ((word & 0xff) >> 6)) >> (word & 63)) & 1))
    found += device_collect(ix, 0, word & 0xff, text, pos, word, avail, out);
  if ((ix.class_mask & 2) && avail >= 2 && ((__ldg(ix.bit2 + ((word & 0xffff) >> 6)) >> (word & 63)) & 1))
    found += device_collect(ix, 1, word & 0xffff, text, pos, word, avail, out);
  if ((ix.class_mask & 4) && avail >= 3) {
    const std::uint64_t h = core::prefix_hash(word & 0xffffff) >> (64 - ix.bits3);
    if ((__ldg(ix.bit3 + (h >> 6)) >> (h & 63)) & 1)
      found += device_collect(ix, 2, word & 0xffffff, text, pos, word, avail, out);
  }
  if ((ix.class_mask & 24) && avail >= 4) {
    const std::uint32_t h = core::prefix_hash4(word, ix.bits4);
    if ((bit4[h >> 6] >> (h & 63)) & 1) found += collect_long_prefixes(ix, text, pos, word, avail, out);
  }
  return found;
}

/// Count-only: one atomic per warp. With hits, emit_hit already counted each.
__device__ __forceinline__ void add_warp_count(const HitOutput& out, std::uint64_t counted) {
  if (out.hits) return;
  for (int d = 16; d > 0; d >>= 1) counted += __shfl_down_sync(0xffffffffu, counted, d);
  if ((threadIdx.x & 31) == 0 && counted) atomicAdd(out.counter, static_cast<unsigned long long>(counted));
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
        counted += collect_all_classes(ix, bit4, text, pos, word, readable - pos, out);
      }
    }
  }
  add_warp_count(out, counted);
}

// ---- fast, scan: register scan of 4-byte (or 8-byte) prefixes, candidates verified afterwards
//
// Sets with patterns shorter than 4 (kShort) add one direct probe per start: the short gate,
// 2^16 bits indexed by the start's first two bytes (core::PrefixIndex); its survivors are
// verified for every class. Each
// thread takes 32 consecutive starts: 36 text bytes in registers (two 16-byte loads and one
// 4-byte load, the next tile's already in flight), 32-bit windows by funnel shifts, one
// multiply-shift hash and one bitmap bit per start, no branches: a 32-bit candidate mask.
// Survivors (a fraction of a percent on random text) are verified after the scan of the
// tile — by their thread, or compacted into a shared-memory queue per warp or per block so
// that every lane verifies one — never inside the scan's unrolled loop.

constexpr int kScanThreads = 256;
constexpr int kScanStartsPerThread = 32;  // one bit each in a 32-bit candidate mask
constexpr int kScanTileStarts = kScanThreads * kScanStartsPerThread;  // 8192
constexpr int kScanWindowWords = kScanStartsPerThread / 4 + 1;       // + 3 bytes of look-ahead
/// The bytes of each start the scan's bitmap is keyed on: the 4-byte bitmap, the 8-byte scan
/// bitmap (core::PrefixIndex::key8) or the long-key one (up to 16 bytes, PrefixIndex::long_key).
enum class ScanKey { four, eight, long_key };
/// Words per thread of the scan: 8-byte keys need 7 bytes of look-ahead, long keys 15.
constexpr int scan_window_words(ScanKey key) {
  return key == ScanKey::four ? kScanWindowWords : key == ScanKey::eight ? kScanWindowWords + 1 : kScanWindowWords + 3;
}

/// The lane filter's summary of the 4-byte bitmap: bit i set iff 32-bit word i of the bitmap
/// is nonzero (at least one 32-bit word, unused high bits zero).
constexpr int scan_summary_words(int bits4) { return bits4 >= 10 ? 1 << (bits4 - 10) : 1; }
inline std::vector<std::uint32_t> bit4_word_summary(const std::vector<std::uint64_t>& bit4) {
  std::vector<std::uint32_t> summary(std::max<std::size_t>(1, (bit4.size() * 2 + 31) / 32), 0);
  for (std::size_t i = 0; i < bit4.size() * 2; ++i)
    if (static_cast<std::uint32_t>(bit4[i / 2] >> (32 * (i % 2)))) summary[i / 32] |= 1u << (i % 32);
  return summary;
}

/// The short gate (core::PrefixIndex::short_gate) in 32-bit words.
constexpr int kShortGateWords = 65536 / 32;

/// Where the scan's candidates are verified after each tile: from a shared-memory queue by
/// the whole block or by each warp (its own queue), or by each thread (its own starts).
enum class ScanVerify { block_queue, warp_queue, per_thread };

/// Threads sharing one queue, and its capacity: a group with more candidates verifies them
/// in several rounds (floods stay exact).
constexpr int scan_group_threads(ScanVerify v) { return v == ScanVerify::block_queue ? kScanThreads : 32; }
constexpr int scan_queue_capacity(ScanVerify v) { return v == ScanVerify::block_queue ? 1024 : 128; }
/// Resident blocks per SM the grid is sized for, and the register bound ptxas gets with it
/// (<= 40 registers at 6, <= 48 at 5: the queues' bookkeeping needs the latter unspilled;
/// 4 blocks with 64 registers measured no faster on the H200). Shared memory allows 6 with
/// a 2^18-bit bitmap (32 KiB + the queues' 4 KiB).
/// With the lane filter (its 32 summary copies double the shared bytes) 3 blocks fit.
constexpr int scan_blocks_per_sm(ScanVerify v, bool lane_filter = false) {
  return lane_filter ? 3 : v == ScanVerify::per_thread ? 6 : 5;
}
/// Shared words ahead of the bitmap: per group its queue, round counters and overflow flags.
constexpr int scan_shared_header_words(ScanVerify v) {
  return v == ScanVerify::per_thread ? 0
                                     : kScanThreads / scan_group_threads(v) * (scan_queue_capacity(v) + 4);
}

/// The 8 bytes at `pos` (zeros past `readable`; text 4-byte aligned): three aligned words and
/// two funnel shifts, bytewise only at the end of the text.
__device__ __forceinline__ std::uint64_t load_window8(const std::uint8_t* text, std::uint64_t pos,
                                                      std::uint64_t readable) {
  const std::uint64_t aligned = pos & ~std::uint64_t{3};
  if (aligned + 12 <= readable) {
    const auto* w = reinterpret_cast<const std::uint32_t*>(text + aligned);
    const std::uint32_t w0 = __ldg(w), w1 = __ldg(w + 1), w2 = __ldg(w + 2);
    const unsigned shift = 8 * static_cast<unsigned>(pos & 3);
    return (static_cast<std::uint64_t>(__funnelshift_r(w1, w2, shift)) << 32) | __funnelshift_r(w0, w1, shift);
  }
  std::uint64_t word = 0;
  for (int j = 0; j < 8; ++j)
    if (pos + j < readable) word |= static_cast<std::uint64_t>(text[pos + j]) << (8 * j);
  return word;
}

/// The 36 (kWords = 9), 40 (10) or 48 (12) bytes from `first` (a multiple of 32; text
/// 16-byte aligned) as little-endian words, zeros past `readable`.
template <int kWords>
__device__ __forceinline__ void load_scan_words(const std::uint8_t* text, std::uint64_t first,
                                                std::uint64_t readable, std::uint32_t (&w)[kWords]) {
  static_assert(kWords == 9 || kWords == 10 || kWords == 12, "32 starts and 4, 8 or 16 bytes of key");
  if (first + 4 * kWords <= readable) {
    const uint4 a = __ldg(reinterpret_cast<const uint4*>(text + first));
    const uint4 b = __ldg(reinterpret_cast<const uint4*>(text + first + 16));
    w[0] = a.x, w[1] = a.y, w[2] = a.z, w[3] = a.w;
    w[4] = b.x, w[5] = b.y, w[6] = b.z, w[7] = b.w;
    if constexpr (kWords == 12) {
      const uint4 c = __ldg(reinterpret_cast<const uint4*>(text + first + 32));
      w[8] = c.x, w[9] = c.y, w[10] = c.z, w[11] = c.w;
    } else if constexpr (kWords == 10) {
      const uint2 c = __ldg(reinterpret_cast<const uint2*>(text + first + 32));
      w[8] = c.x, w[9] = c.y;
    } else {
      w[8] = __ldg(reinterpret_cast<const std::uint32_t*>(text + first + 32));
    }
    return;
  }
  for (int k = 0; k < kWords; ++k) {
    std::uint32_t v = 0;
    for (int b = 0; b < 4; ++b) {
      const std::uint64_t g = first + 4 * k + b;
      if (g < readable) v |= static_cast<std::uint32_t>(text[g]) << (8 * b);
    }
    w[k] = v;
  }
}

/// Verifies the patterns at one candidate start: of length >= 4 only (it passed the 4-byte
/// bitmap), or with kShort of every class (it passed the 4-byte bitmap or the short gate).
template <bool kFold, bool kShort>
__device__ __forceinline__ std::uint32_t verify_start(const DevicePrefixIndex& ix,
                                                      const std::uint8_t* text, std::uint64_t pos,
                                                      std::uint64_t readable, const HitOutput& out) {
  std::uint64_t word = load_window8(text, pos, readable);
  if constexpr (kFold) word = core::fold_ascii_word(word);
  if constexpr (kShort) return collect_all_classes(ix, ix.bit4, text, pos, word, readable - pos, out);
  return collect_long_prefixes(ix, text, pos, word, readable - pos, out);
}

// Lane filter (kLaneFilter): the bitmap probes of random words conflict in shared-memory
// banks (about 3.5 wavefronts per warp-wide probe). First a conflict-free probe: the summary
// (one bit per bitmap word, 1/32 of its size) is held in 32 copies, lane l's in bank l; only
// starts whose bitmap word is nonzero (about 11% at 1000 patterns) probe the bitmap, with
// few lanes active per probe. Measured slower on the H200 (1000 literals over 1 GiB: 1.33
// against 0.92 ms for scan_warp_queue): bank conflicts are not what bounds the scan, and the
// 32 copies leave room for 3 blocks per SM instead of 5. Kept as a variant for comparison.
//
// kKey eight (sets with the 8-byte scan bitmap, core::PrefixIndex::key8: DNA): each start's
// 8-byte key from one more word and funnel shift, prefix_hash8 against that bitmap instead of
// bit4. kKey long_key (large sets whose 4- and 8-byte keys pass most starts,
// core::PrefixIndex::long_key): the start's first long_key_bytes (<= 16) bytes from four
// funnel shifts over three more words, prefix_hash_long against that bitmap (in global
// memory, read through the cache, beyond 2^18 bits).
template <bool kSharedBitmap, bool kFold, ScanVerify kVerify, bool kLaneFilter = false, bool kShort = false,
          ScanKey kKey = ScanKey::four>
__global__ void __launch_bounds__(kScanThreads, scan_blocks_per_sm(kVerify, kLaneFilter))
    multi_scan_kernel(DevicePrefixIndex ix, const std::uint8_t* __restrict__ text,
                      std::uint64_t owned, std::uint64_t readable, HitOutput out) {
  static_assert(kSharedBitmap || !kLaneFilter, "the lane filter needs the shared bitmap");
  static_assert(!(kLaneFilter && kShort), "the lane filter takes sets of length >= 4");
  static_assert(kKey == ScanKey::four || !(kShort || kLaneFilter), "8-byte and long keys: long sets, no lane filter");
  constexpr bool kKey8 = kKey == ScanKey::eight, kLongKey = kKey == ScanKey::long_key;
  constexpr int kWords = scan_window_words(kKey);
  const int bits = kLongKey ? ix.long_key_bits : kKey8 ? ix.key8_bits : ix.bits4;
  // Long keys: which bytes of each of a start's four words belong to its key.
  std::uint32_t key_mask[4] = {~0u, ~0u, ~0u, ~0u};
  if constexpr (kLongKey)
    for (int k = 0; k < 4; ++k) key_mask[k] = core::long_key_word_mask(ix.long_key_bytes, k);
  extern __shared__ std::uint32_t shared_words[];
  constexpr int kGroupThreads = scan_group_threads(kVerify), kCapacity = scan_queue_capacity(kVerify);
  const unsigned member = threadIdx.x % kGroupThreads;
  std::uint32_t* queue = shared_words + threadIdx.x / kGroupThreads * (kCapacity + 4);
  std::uint32_t* queued = queue + kCapacity;  // [round & 1]
  std::uint32_t* overflow = queued + 2;       // [round & 1]
  // The 4-byte (or 8-byte scan) bitmap as 32-bit words (little-endian: bit i is bit i & 31
  // of word i >> 5).
  const std::uint32_t* bitmap =
      reinterpret_cast<const std::uint32_t*>(kLongKey ? ix.long_key : kKey8 ? ix.key8 : ix.bit4);
  if constexpr (kSharedBitmap) {
    std::uint32_t* copy = shared_words + scan_shared_header_words(kVerify);
    for (int i = threadIdx.x; i < (1 << bits) / 32; i += blockDim.x) copy[i] = __ldg(bitmap + i);
    bitmap = copy;
  }
  // Word j of the summary, lane l's copy: shared word 32 j + l (bank l).
  const std::uint32_t* lane_summary = nullptr;
  if constexpr (kLaneFilter) {
    std::uint32_t* copies = shared_words + scan_shared_header_words(kVerify) + (1 << ix.bits4) / 32;
    for (int i = threadIdx.x; i < 32 * scan_summary_words(ix.bits4); i += blockDim.x)
      copies[i] = __ldg(ix.bit4_summary + (i >> 5));
    lane_summary = copies + (threadIdx.x & 31);
  }
  const std::uint32_t* short_gate = nullptr;
  if constexpr (kShort) {
    std::uint32_t* copy = shared_words + scan_shared_header_words(kVerify) +
                          (kSharedBitmap ? (1 << ix.bits4) / 32 : 0);
    for (int i = threadIdx.x; i < kShortGateWords; i += blockDim.x) copy[i] = __ldg(ix.short_gate + i);
    short_gate = copy;
  }
  if (kVerify != ScanVerify::per_thread && member < 4) queued[member] = 0;  // counters and flags
  __syncthreads();
  const int bit_shift = 32 - bits, word_shift = bit_shift + 5;
  std::uint64_t counted = 0;
  unsigned round = 0;
  const std::uint32_t local_first = kScanStartsPerThread * threadIdx.x;
  const std::uint64_t tiles = (owned + kScanTileStarts - 1) / kScanTileStarts;
  // Software pipeline: the next tile's words are in flight while this one is scanned.
  std::uint32_t w[kWords], next[kWords];
  if (blockIdx.x < tiles)
    load_scan_words(text, std::uint64_t{blockIdx.x} * kScanTileStarts + local_first, readable, next);
  for (std::uint64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const std::uint64_t tile_start = t * kScanTileStarts;
    const std::uint64_t first = tile_start + local_first;
    for (int k = 0; k < kWords; ++k) w[k] = next[k];
    if (t + gridDim.x < tiles)
      load_scan_words(text, (t + gridDim.x) * kScanTileStarts + local_first, readable, next);
    if constexpr (kFold)
      for (auto& x : w) x = static_cast<std::uint32_t>(core::fold_ascii_word(x));
    std::uint32_t candidates = 0;
#pragma unroll
    for (int b = 0; b < kScanStartsPerThread; ++b) {
      const std::uint32_t key = (b & 3) ? __funnelshift_r(w[b >> 2], w[(b >> 2) + 1], 8 * (b & 3))
                                        : w[b >> 2];
      // Bit prefix_hash4(key) = hash >> bit_shift: word hash >> word_shift, and the low 5
      // bits of hash >> bit_shift within it (the wrapping funnel shift masks them itself).
      std::uint32_t hash = key * core::kPrefixHash4Multiplier;
      if constexpr (kKey8) {  // prefix_hash8 before its final shift
        const std::uint32_t high = __funnelshift_r(w[(b >> 2) + 1], w[(b >> 2) + 2], 8 * (b & 3));
        hash = (hash ^ high) * core::kPrefixHash8Multiplier;
      }
      if constexpr (kLongKey) {  // prefix_hash_long before its final shift
        std::uint32_t word[4];
#pragma unroll
        for (int k = 0; k < 4; ++k)
          word[k] = ((b & 3) ? __funnelshift_r(w[(b >> 2) + k], w[(b >> 2) + k + 1], 8 * (b & 3)) : w[(b >> 2) + k]) &
                    key_mask[k];
        hash = core::prefix_hash_long_mix(word[0], word[1], word[2], word[3]);
      }
      const std::uint32_t word_index = hash >> word_shift;
      std::uint32_t passed = 0;
      if constexpr (kLaneFilter) {
        const std::uint32_t summary = lane_summary[32 * (word_index >> 5)];
        if (__funnelshift_r(summary, summary, word_index) & 1u) {
          const std::uint32_t word = bitmap[word_index];
          passed = __funnelshift_r(word, word, hash >> bit_shift) & 1u;
        }
      } else {
        const std::uint32_t word = kSharedBitmap ? bitmap[word_index] : __ldg(bitmap + word_index);
        passed = __funnelshift_r(word, word, hash >> bit_shift) & 1u;
      }
      if constexpr (kShort) {
        const std::uint32_t gate = short_gate[(key >> 5) & (kShortGateWords - 1)];
        passed |= __funnelshift_r(gate, gate, key) & 1u;  // bit key & 31
      }
      candidates |= passed << b;
    }
    if (first + kScanStartsPerThread > owned)
      candidates &= first >= owned ? 0u : (1u << (owned - first)) - 1;
    if constexpr (kVerify == ScanVerify::per_thread) {
      for (; candidates; candidates &= candidates - 1)
        counted += verify_start<kFold, kShort>(ix, text, first + __ffs(static_cast<int>(candidates)) - 1, readable, out);
    } else {
      // Rounds of up to kCapacity candidates per group; `more` is uniform in the group.
      for (;;) {
        const unsigned r = round & 1;
        if (candidates) {
          unsigned slot = atomicAdd(queued + r, static_cast<unsigned>(__popc(candidates)));
          for (; candidates && slot < kCapacity; candidates &= candidates - 1)
            queue[slot++] = local_first + static_cast<std::uint32_t>(__ffs(static_cast<int>(candidates)) - 1);
          if (candidates) overflow[r] = 1;
        }
        if constexpr (kVerify == ScanVerify::block_queue) __syncthreads();
        else __syncwarp();
        const unsigned n = min(queued[r], static_cast<unsigned>(kCapacity));
        const bool more = overflow[r] != 0;
        if (member == 0) queued[r ^ 1] = overflow[r ^ 1] = 0;  // the next round's
        for (unsigned i = member; i < n; i += kGroupThreads)
          counted += verify_start<kFold, kShort>(ix, text, tile_start + queue[i], readable, out);
        // The queue and this round's counter are free again.
        if constexpr (kVerify == ScanVerify::block_queue) __syncthreads();
        else __syncwarp();
        ++round;
        if (!more) break;
      }
    }
  }
  add_warp_count(out, counted);
}

// ---- fast, pair scan: one shared-memory probe per two starts, verification batched -------
//
// Each warp takes 1024 consecutive starts per tile: lane l the 8-byte pieces l, l + 32,
// l + 64, l + 96 of it (coalesced 8-byte loads, the next tile's already in flight), plus
// the 4 bytes after each piece from lane l + 1 by one shuffle. The bitmap is the pair
// filter (core/multi_pair_filter.hpp): one shared-memory probe per two starts, 16 per
// thread and tile. Survivors (about twice the 4-byte bitmap's false positives) go to a
// per-warp queue in shared memory that is verified only once it holds a full warp's worth
// (32), so verification runs with all lanes busy; the remainder is carried to the next
// tile and flushed at the end. A group of candidates that does not fit the queue (floods)
// is verified by its threads directly. Survivors are verified against core::PairVerifyIndex
// (one slot, then members with their first 8 bytes inline), with the 4-byte bitmap tested
// alongside, or for sets with patterns shorter than 4 against every class.

constexpr int kPairQueueCapacity = 128;  // per warp; a flush leaves < 32 behind
constexpr int kPairPieces = 4;           // 8-byte pieces per lane and tile
constexpr int kPairWarpStarts = 32 * 8 * kPairPieces;  // 1024
/// Shared words ahead of the pair table: per warp its queue and its fill count.
constexpr int pair_shared_header_words() { return kScanThreads / 32 * (kPairQueueCapacity + 1); }

/// The pair scan's verification index in device memory (core::PairVerifyIndex).
struct DevicePairVerify {
  const uint4* slots = nullptr;  // core::PairVerifySlot
  const core::PairVerifyMember* members = nullptr;
  std::uint32_t slot_mask = 0;
  int bits = 0;
};

/// Every pattern of length >= 4 at `pos`, whose 8 bytes are `word` (folded when the set is).
__device__ __forceinline__ std::uint32_t pair_verify(const DevicePrefixIndex& ix, const DevicePairVerify& pv,
                                                     const std::uint8_t* text, std::uint64_t pos,
                                                     std::uint64_t word, std::uint64_t avail,
                                                     const HitOutput& out) {
  if (avail < 4) return 0;
  const auto key4 = static_cast<std::uint32_t>(word);
  const std::uint32_t h = core::prefix_hash4(key4, ix.bits4);
  std::uint32_t slot = core::pair_verify_slot(key4, pv.bits);
  uint4 e = __ldg(pv.slots + slot);  // in flight with the bitmap word
  if (!((__ldg(ix.bit4 + (h >> 6)) >> (h & 63)) & 1)) return 0;
  while (e.z != 0 && e.x != key4) {
    slot = (slot + 1) & pv.slot_mask;
    e = __ldg(pv.slots + slot);
  }
  std::uint32_t found = 0;
  for (std::uint32_t k = 0; k < e.z; ++k) {
    const core::PairVerifyMember m = pv.members[e.y + k];
    if (m.length > avail) continue;
    if (m.length <= 8) {
      if ((word & core::low_bytes_mask(static_cast<int>(m.length))) != m.head8) continue;
    } else {
      if (word != m.head8) continue;
      const std::uint8_t* p = ix.bytes + __ldg(ix.offsets + m.id);
      bool same = true;
      for (std::uint32_t j = 8; j < m.length && same; ++j) {
        std::uint8_t c = text[pos + j];
        if (ix.case_insensitive) c = fold_byte(c);
        same = c == __ldg(p + j);
      }
      if (!same) continue;
    }
    ++found;
    record_hit(out, pos, m.id);
  }
  return found;
}

/// One candidate start of the pair scan.
template <bool kFold, bool kShort>
__device__ __forceinline__ std::uint32_t verify_pair_candidate(const DevicePrefixIndex& ix,
                                                               const DevicePairVerify& pv,
                                                               const std::uint8_t* text, std::uint64_t pos,
                                                               std::uint64_t readable, const HitOutput& out) {
  std::uint64_t word = load_window8(text, pos, readable);
  if constexpr (kFold) word = core::fold_ascii_word(word);
  if constexpr (kShort) return collect_all_classes(ix, ix.bit4, text, pos, word, readable - pos, out);
  return pair_verify(ix, pv, text, pos, word, readable - pos, out);
}

/// A lane's 8-byte pieces of one warp tile (zeros past `readable`; text 16-byte aligned) and
/// the 4 bytes after the tile (the same for every lane).
__device__ __forceinline__ void load_pair_pieces(const std::uint8_t* text, std::uint64_t warp_first,
                                                 std::uint64_t readable, unsigned lane,
                                                 uint2 (&piece)[kPairPieces], std::uint32_t& after_tile) {
  if (warp_first + kPairWarpStarts + 4 <= readable) {
#pragma unroll
    for (int j = 0; j < kPairPieces; ++j)
      piece[j] = __ldg(reinterpret_cast<const uint2*>(text + warp_first) + lane + 32 * j);
    after_tile = __ldg(reinterpret_cast<const std::uint32_t*>(text + warp_first + kPairWarpStarts));
    return;
  }
  auto bytes4 = [&](std::uint64_t at) {
    std::uint32_t v = 0;
    for (int b = 0; b < 4; ++b)
      if (at + b < readable) v |= static_cast<std::uint32_t>(text[at + b]) << (8 * b);
    return v;
  };
  for (int j = 0; j < kPairPieces; ++j) {
    const std::uint64_t at = warp_first + 8ull * (lane + 32 * j);
    piece[j] = make_uint2(bytes4(at), bytes4(at + 4));
  }
  after_tile = bytes4(warp_first + kPairWarpStarts);
}

template <bool kFold, bool kShort, bool kWide, int kMinBlocks>
__global__ void __launch_bounds__(kScanThreads, kMinBlocks)
    multi_pair_scan_kernel(DevicePrefixIndex ix, DevicePairVerify pv, const std::uint32_t* pair_words,
                           int pair_bits, const std::uint8_t* __restrict__ text, std::uint64_t owned,
                           std::uint64_t readable, HitOutput out) {
  extern __shared__ std::uint32_t shared_words[];
  const unsigned lane = threadIdx.x & 31, warp = threadIdx.x / 32;
  std::uint32_t* queue = shared_words + warp * (kPairQueueCapacity + 1);
  std::uint32_t* queued = queue + kPairQueueCapacity;
  std::uint32_t* table = shared_words + pair_shared_header_words();
  constexpr int kEntryWords = kWide ? 2 : 1;
  {
    // The table (a multiple of 16 bytes), 16 bytes per load and 8 loads in flight
    // per thread: a plain copy loop waits for each load and costs a 64 MiB chunk ~15 %.
    const auto* from = reinterpret_cast<const uint4*>(pair_words);
    auto* to = reinterpret_cast<uint4*>(table);
    const int vectors = (kEntryWords << pair_bits) / 4;
    for (int base = 0; base < vectors; base += 8 * kScanThreads) {
      uint4 v[8];
#pragma unroll
      for (int k = 0; k < 8; ++k) {
        const int i = base + k * kScanThreads + static_cast<int>(threadIdx.x);
        if (i < vectors) v[k] = __ldg(from + i);
      }
#pragma unroll
      for (int k = 0; k < 8; ++k) {
        const int i = base + k * kScanThreads + static_cast<int>(threadIdx.x);
        if (i < vectors) to[i] = v[k];
      }
    }
  }
  const std::uint32_t* short_gate = nullptr;
  if constexpr (kShort) {
    std::uint32_t* copy = table + (kEntryWords << pair_bits);
    for (int i = threadIdx.x; i < kShortGateWords; i += blockDim.x) copy[i] = __ldg(ix.short_gate + i);
    short_gate = copy;
  }
  if (lane == 0) *queued = 0;
  __syncthreads();
  const int index_shift = 32 - pair_bits;
  // Starts 2p and 2p + 1 of a piece: bytes 2p .. 2p + 4. The entry of bytes 2p+1..2p+3
  // (`middle`, its 4th byte multiplied away), then the bit of byte 2p (`before`) and of
  // byte 2p+4 (`after`), of which only the low bits count; bit 0 / bit 1 of the result.
  auto probe = [&](std::uint32_t middle, std::uint32_t before, std::uint32_t after) {
    const std::uint32_t entry = (middle * core::kPairHashMultiplier) >> index_shift;
    std::uint32_t passed;
    if constexpr (kWide) {
      const uint2 e = reinterpret_cast<const uint2*>(table)[entry];
      passed = (__funnelshift_r(e.x, e.x, before) & 1u) | (__funnelshift_r(e.y, e.y, after) & 2u);
    } else {
      const std::uint32_t word = table[entry];
      passed = ((word >> (before & 15)) & 1u) | ((word >> (16 + (after & 15))) << 1 & 2u);
    }
    if constexpr (kShort) {  // the short gate of both starts: their first two bytes
      const std::uint32_t two0 = before & 0xffff, two1 = middle & 0xffff;
      passed |= (short_gate[two0 >> 5] >> (two0 & 31)) & 1u;
      passed |= (short_gate[two1 >> 5] >> (two1 & 31)) << 1 & 2u;
    }
    return passed;
  };
  std::uint64_t counted = 0;
  const std::uint64_t tiles = (owned + kScanTileStarts - 1) / kScanTileStarts;
  const std::uint32_t warp_offset = warp * kPairWarpStarts;
  uint2 piece[kPairPieces], next[kPairPieces];
  std::uint32_t after_tile = 0, next_after = 0;
  if (blockIdx.x < tiles)
    load_pair_pieces(text, std::uint64_t{blockIdx.x} * kScanTileStarts + warp_offset, readable, lane, next, next_after);
  for (std::uint64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const std::uint64_t warp_first = t * kScanTileStarts + warp_offset;
    for (int j = 0; j < kPairPieces; ++j) piece[j] = next[j];
    after_tile = next_after;
    if (t + gridDim.x < tiles)
      load_pair_pieces(text, (t + gridDim.x) * kScanTileStarts + warp_offset, readable, lane, next, next_after);
    if constexpr (kFold) {
      for (auto& x : piece) {
        x.x = static_cast<std::uint32_t>(core::fold_ascii_word(x.x));
        x.y = static_cast<std::uint32_t>(core::fold_ascii_word(x.y));
      }
      after_tile = static_cast<std::uint32_t>(core::fold_ascii_word(after_tile));
    }
    // Bit 8 j + b: start b of piece j, at warp_first + 8 (lane + 32 j) + b.
    std::uint32_t candidates = 0;
#pragma unroll
    for (int j = 0; j < kPairPieces; ++j) {
      // The 4 bytes after piece j: lane + 1's first word (lane 31: piece j + 1's of lane 0).
      const std::uint32_t next_first = j + 1 < kPairPieces ? piece[(j + 1) % kPairPieces].x : after_tile;
      const std::uint32_t give = lane == 0 ? next_first : piece[j].x;
      const std::uint32_t lo = piece[j].x, hi = piece[j].y;
      const std::uint32_t tail = __shfl_sync(0xffffffffu, give, (lane + 1) & 31);
      std::uint32_t bits = probe(__funnelshift_r(lo, hi, 8), lo, hi);
      bits |= probe(__funnelshift_r(lo, hi, 24), lo >> 16, hi >> 16) << 2;
      bits |= probe(__funnelshift_r(hi, tail, 8), hi, tail) << 4;
      bits |= probe(__funnelshift_r(hi, tail, 24), hi >> 16, tail >> 16) << 6;
      candidates |= bits << (8 * j);
    }
    if (warp_first + kPairWarpStarts > owned) {  // the text's end: only owned starts
      for (int j = 0; j < kPairPieces; ++j) {
        const std::uint64_t first = warp_first + 8ull * (lane + 32 * j);
        const std::uint32_t keep = first >= owned ? 0u : first + 8 <= owned ? 0xffu : (1u << (owned - first)) - 1;
        candidates &= ~(0xffu << (8 * j)) | (keep << (8 * j));
      }
    }
    // Append to the warp's queue; what does not fit is verified here by its thread.
    auto start_of = [&](std::uint32_t bit) {
      return static_cast<std::uint32_t>(warp_first) + 8 * (lane + 32 * (bit >> 3)) + (bit & 7);
    };
    if (candidates) {
      unsigned slot = atomicAdd(queued, static_cast<unsigned>(__popc(candidates)));
      for (; candidates && slot < kPairQueueCapacity; candidates &= candidates - 1)
        queue[slot++] = start_of(static_cast<std::uint32_t>(__ffs(static_cast<int>(candidates)) - 1));
      for (; candidates; candidates &= candidates - 1)
        counted += verify_pair_candidate<kFold, kShort>(
            ix, pv, text, start_of(static_cast<std::uint32_t>(__ffs(static_cast<int>(candidates)) - 1)), readable, out);
    }
    __syncwarp();
    const unsigned n = min(*queued, static_cast<unsigned>(kPairQueueCapacity));
    const bool last_tile = t + gridDim.x >= tiles;
    if (n >= 32 || (last_tile && n > 0)) {
      const unsigned done = last_tile ? n : n & ~31u;  // whole rounds of 32; all at the end
      for (unsigned i = lane; i < done; i += 32)
        counted += verify_pair_candidate<kFold, kShort>(ix, pv, text, queue[i], readable, out);
      const std::uint32_t carried = lane < n - done ? queue[done + lane] : 0;
      __syncwarp();
      if (lane < n - done) queue[lane] = carried;
      if (lane == 0) *queued = n - done;
    }
    __syncwarp();
  }
  add_warp_count(out, counted);
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
                record_hit(out, page_start + pos, id);
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
