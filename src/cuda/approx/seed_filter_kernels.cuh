// The CUDA kernel of the pigeonhole seed filter (host side: seed_filter.cu, which explains
// the route; the plan and its rules: src/core/seed_plan.hpp). One thread per text position:
// its q-byte key is hashed into the pieces' bitmap (most positions stop there), a set bit is
// looked up in the buckets of exact keys, the rest of the piece compared, and for every pattern
// using the piece the window around it is verified at once by the one Myers step (Hamming: the
// mismatches counted) — no candidate list. A window starts 2k before the pattern's unedited
// start, so every end it reports (those within k of start + m, owned by this launch) carries
// its true distance; an end found from several pieces is reported several times, with the
// same distance, and the host keeps one. CUDA built-ins from nvcc and <cooperative_groups.h>
// (seed_filter.cu includes it) or, in tests/test_approx_seed_emulation.cpp, from the host shim.
#pragma once

#include <cstdint>

#include "core/myers_step.hpp"
#include "core/seed_plan.hpp"

namespace warpmatch::cuda::kernels {

constexpr int kSeedThreads = 256;

/// A core::SeedPlan's arrays where the kernel reads them (device memory, or host memory in the
/// emulation).
struct SeedTables {
  const std::uint64_t* bitmap;
  const std::uint32_t* bucket_start;
  const std::uint64_t* entry_key;
  const std::uint32_t* entry_piece;
  const std::uint32_t* piece_offsets;
  const std::uint8_t* piece_bytes;
  const std::uint32_t* use_start;
  const std::uint32_t* use_member;
  const std::uint32_t* use_offset;
  const core::SeedPlan::Member* members;
  const std::uint64_t* peq;  // members x 256
  std::uint32_t q;
  int bitmap_shift, bucket_shift;
  bool fold;
};

/// One launch's share of the text: positions are absolute (in the whole text of n bytes).
struct SeedChunk {
  const std::uint8_t* text;  // the bytes of [base, base + bytes)
  std::int64_t base, bytes, n;
  std::int64_t s_lo, s_hi;   // piece starts tried, inclusive
  std::int64_t e_lo, e_hi;   // ends owned: (e_lo, e_hi]
};

/// The chunk owning ends (e_lo, min(n, e_lo + chunk_ends)]: the piece starts whose windows
/// reach those ends and the bytes [base, base + bytes) those windows and pieces read (text is
/// left to the caller). s_hi < s_lo: no piece, nothing to launch. Shared by the host side of
/// seed_filter.cu and its emulation.
inline SeedChunk seed_chunk(std::int64_t n, std::int64_t e_lo, std::int64_t chunk_ends, std::int64_t q,
                            std::int64_t max_m, std::int64_t max_k) {
  SeedChunk c{};
  c.n = n;
  c.e_lo = e_lo;
  c.e_hi = e_lo + chunk_ends < n ? e_lo + chunk_ends : n;
  c.s_lo = e_lo + 1 - max_m - max_k > 0 ? e_lo + 1 - max_m - max_k : 0;
  c.s_hi = n - q < c.e_hi + max_k ? n - q : c.e_hi + max_k;
  c.base = c.s_lo - max_m - 2 * max_k > 0 ? c.s_lo - max_m - 2 * max_k : 0;
  const std::int64_t reach = c.e_hi > c.s_hi + max_m ? c.e_hi : c.s_hi + max_m;
  c.bytes = (n < reach ? n : reach) - c.base;
  return c;
}

struct SeedHit {
  unsigned long long end;
  unsigned int member;
  unsigned int distance;
};

/// Where hits go: hits[0, capacity); count may exceed capacity (the host then re-runs).
struct SeedSink {
  SeedHit* hits;
  unsigned long long capacity;
  unsigned long long* count;
};

__device__ __forceinline__ void emit_seed_hit(const SeedSink& sink, const SeedHit& hit) {
  const cooperative_groups::coalesced_group active = cooperative_groups::coalesced_threads();
  unsigned long long slot = 0;
  if (active.thread_rank() == 0) slot = atomicAdd(sink.count, static_cast<unsigned long long>(active.size()));
  slot = active.shfl(slot, 0) + active.thread_rank();
  if (slot < sink.capacity) sink.hits[slot] = hit;
}

__device__ __forceinline__ std::uint8_t seed_text_byte(const SeedChunk& c, std::int64_t i) {
  return c.text[i - c.base];
}

/// The pattern `member`, whose piece at `offset` was found at text position s: its ends within
/// k of the unedited start + m that this launch owns, with distance <= k.
__device__ __forceinline__ void verify_seed(const SeedTables& t, const SeedChunk& c, std::uint32_t member,
                                            std::int64_t s, std::uint32_t offset, const SeedSink& sink) {
  const core::SeedPlan::Member mb = t.members[member];
  const core::SeedWindow w = core::seed_window(s, offset, mb.m, mb.k);
  const std::uint64_t* peq = t.peq + static_cast<std::size_t>(member) * 256;
  const auto k = static_cast<std::int64_t>(mb.k);
  if (mb.hamming) {
    const std::int64_t end = w.start + mb.m;
    if (w.start < 0 || end > c.n || end <= c.e_lo || end > c.e_hi) return;
    std::uint32_t mismatches = 0;
    for (std::uint32_t r = 0; r < mb.m && mismatches <= mb.k; ++r)
      mismatches += static_cast<std::uint32_t>(((peq[seed_text_byte(c, w.start + r)] >> r) & 1) ^ 1);
    if (mismatches <= mb.k) emit_seed_hit(sink, {static_cast<unsigned long long>(end), member, mismatches});
    return;
  }
  std::int64_t first = w.first_end > c.e_lo + 1 ? w.first_end : c.e_lo + 1;
  if (first < 1) first = 1;
  std::int64_t last = w.last_end < c.e_hi ? w.last_end : c.e_hi;
  if (last > c.n) last = c.n;
  if (first > last) return;
  std::int64_t j = w.start - 2 * k;
  if (j < 0) j = 0;
  std::uint64_t pv = ~std::uint64_t{0}, mv = 0;
  auto score = static_cast<std::int64_t>(mb.m);
  const core::AtRow row{static_cast<int>(mb.m) - 1};
  for (; j < last; ++j) {  // column j: the end j + 1
    const core::MyersCarry<std::uint64_t> h =
        core::myers_step(pv, mv, peq[seed_text_byte(c, j)], core::MyersCarry<std::uint64_t>{}, row);
    score += static_cast<std::int64_t>(h.plus) - static_cast<std::int64_t>(h.minus);
    if (j + 1 >= first && score <= k)
      emit_seed_hit(sink, {static_cast<unsigned long long>(j + 1), member, static_cast<unsigned int>(score)});
  }
}

__global__ void __launch_bounds__(kSeedThreads) seed_filter_kernel(SeedTables t, SeedChunk c, SeedSink sink) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t s = c.s_lo + static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; s <= c.s_hi;
       s += stride) {
    if (s + t.q > c.n) continue;
    std::uint64_t key = 0;
    for (std::uint32_t j = 0; j < t.q; ++j) {
      std::uint8_t b = seed_text_byte(c, s + j);
      if (t.fold && b >= 'A' && b <= 'Z') b = static_cast<std::uint8_t>(b + 32);
      key |= static_cast<std::uint64_t>(b) << (8 * j);
    }
    const std::uint64_t h = core::seed_hash(key);
    const std::uint64_t bit = h >> t.bitmap_shift;
    if (!((t.bitmap[bit >> 6] >> (bit & 63)) & 1)) continue;
    const std::uint64_t bucket = h >> t.bucket_shift;
    for (std::uint32_t e = t.bucket_start[bucket]; e < t.bucket_start[bucket + 1]; ++e) {
      if (t.entry_key[e] != key) continue;
      const std::uint32_t piece = t.entry_piece[e];
      const std::uint32_t from = t.piece_offsets[piece], len = t.piece_offsets[piece + 1] - from;
      if (s + len > c.n) continue;
      bool whole = true;
      for (std::uint32_t j = t.q; j < len && whole; ++j) {
        std::uint8_t b = seed_text_byte(c, s + j);
        if (t.fold && b >= 'A' && b <= 'Z') b = static_cast<std::uint8_t>(b + 32);
        whole = b == t.piece_bytes[from + j];
      }
      if (!whole) continue;
      for (std::uint32_t u = t.use_start[piece]; u < t.use_start[piece + 1]; ++u)
        verify_seed(t, c, t.use_member[u], s, t.use_offset[u], sink);
    }
  }
}

}  // namespace warpmatch::cuda::kernels
