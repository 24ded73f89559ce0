// The CUDA kernels of the pigeonhole seed filter (host side: seed_filter.cu, which explains
// the route; the plan and its rules: src/core/seed_plan.hpp), in two phases so that a warp's
// threads do alike work. Find: one thread per text position hashes its q-byte key into the
// pieces' bitmap (most positions stop there), looks a set bit up in the buckets of exact keys,
// compares the rest of the piece, and appends one candidate (position, piece use) per pattern
// using the piece (one atomic per block and round; candidates in text order within a block).
// Verify: one thread per candidate runs the one Myers step over the pattern's window
// (Hamming: counts the mismatches), the same m + 3k steps for every thread of a set of equal
// lengths, where one thread per position had its warp wait for the lane with the most windows. A window starts
// 2k before the pattern's unedited start, so every end it reports (those within k of
// start + m, owned by this chunk) carries its true distance; an end found from several pieces
// is reported several times, with the same distance, and the host keeps one. CUDA built-ins
// from nvcc and <cooperative_groups.h> (seed_filter.cu includes it) or, in
// tests/test_approx_seed_emulation.cpp, from the host shim.
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
  // core::seed_top_words of the plan (null when it has none): the fast verification.
  const std::uint8_t* class_of;
  const std::uint32_t* peq_top;
  std::uint32_t classes;
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

/// A piece of pattern use_member[use] found at text position chunk.s_lo + at.
struct SeedCandidate {
  std::uint32_t at;
  std::uint32_t use;
};

/// Where a phase appends: items[0, capacity); count may exceed capacity (the host then
/// grows the buffer or splits the positions, and runs again).
template <class T>
struct SeedSinkOf {
  T* items;
  unsigned long long capacity;
  unsigned long long* count;
};
using SeedSink = SeedSinkOf<SeedHit>;
using SeedCandidateSink = SeedSinkOf<SeedCandidate>;

/// One atomic per group of converged threads; slots in lane order.
template <class T>
__device__ __forceinline__ void seed_append(const SeedSinkOf<T>& sink, const T& item) {
  const cooperative_groups::coalesced_group active = cooperative_groups::coalesced_threads();
  unsigned long long slot = 0;
  if (active.thread_rank() == 0) slot = atomicAdd(sink.count, static_cast<unsigned long long>(active.size()));
  slot = active.shfl(slot, 0) + active.thread_rank();
  if (slot < sink.capacity) sink.items[slot] = item;
}

__device__ __forceinline__ std::uint8_t seed_text_byte(const SeedChunk& c, std::int64_t i) {
  return c.text[i - c.base];
}

/// The columns a Myers verification of window w steps through: from j0 (2k before the
/// pattern's unedited start, clipped at 0) to `last`, reporting ends in [first, last] that
/// the chunk owns; empty when it owns none of the window's ends.
struct SeedVerifySpan {
  std::int64_t j0, first, last;
  bool empty;
};
__device__ __forceinline__ SeedVerifySpan seed_verify_span(const SeedChunk& c, const core::SeedWindow& w,
                                                           std::int64_t k) {
  SeedVerifySpan v{};
  v.first = w.first_end > c.e_lo + 1 ? w.first_end : c.e_lo + 1;
  if (v.first < 1) v.first = 1;
  v.last = w.last_end < c.e_hi ? w.last_end : c.e_hi;
  if (v.last > c.n) v.last = c.n;
  v.empty = v.first > v.last;
  v.j0 = w.start - 2 * k > 0 ? w.start - 2 * k : 0;
  return v;
}

/// The pattern `member`, whose piece at `offset` was found at text position s: its ends within
/// k of the unedited start + m that this chunk owns, with distance <= k. Word: 32 bits for
/// m <= 32 (half the operations of a step), else 64.
template <class Word>
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
    if (mismatches <= mb.k) seed_append(sink, {static_cast<unsigned long long>(end), member, mismatches});
    return;
  }
  const SeedVerifySpan v = seed_verify_span(c, w, k);
  if (v.empty) return;
  Word pv = ~Word{0}, mv = 0;
  auto score = static_cast<std::int64_t>(mb.m);
  const core::AtRow row{static_cast<int>(mb.m) - 1};
  for (std::int64_t j = v.j0; j < v.last; ++j) {  // column j: the end j + 1
    const core::MyersCarry<Word> h = core::myers_step(pv, mv, static_cast<Word>(peq[seed_text_byte(c, j)]),
                                                      core::MyersCarry<Word>{}, row);
    score += static_cast<std::int64_t>(h.plus) - static_cast<std::int64_t>(h.minus);
    if (j + 1 >= v.first && score <= k)
      seed_append(sink, {static_cast<unsigned long long>(j + 1), member, static_cast<unsigned int>(score)});
  }
}

/// Shared memory of a verify block: the class of each text byte, and each thread's words of
/// the member it verifies (class-major: lane i at word i of every class row, so a warp's
/// lanes read 32 banks whatever their classes).
struct SeedVerifyShared {
  std::uint8_t class_of[256];
  std::uint32_t words[core::SeedTopWords::kMaxClasses * kSeedThreads];
};

/// verify_seed for a Myers member of m <= 32 through the plan's top-aligned words: the
/// member's few words copied to the thread's slot of shared memory, then per column a text
/// byte, its class and the word (two shared loads, no global one), eight columns a round with
/// the score kept as score - (k + 1), negative exactly at a hit, so a round without one costs
/// an OR per column and one branch. verify_seed read each column's word from the member's
/// 2 KiB of 256 words in global memory, two dependent loads a column for every candidate
/// (job 10: ~80 candidates per text position).
__device__ __forceinline__ void verify_seed_top(const SeedTables& t, const SeedChunk& c, std::uint32_t member,
                                                const core::SeedPlan::Member& mb, std::int64_t s,
                                                std::uint32_t offset, SeedVerifyShared& shared, const SeedSink& sink) {
  const SeedVerifySpan v = seed_verify_span(c, core::seed_window(s, offset, mb.m, mb.k), mb.k);
  if (v.empty) return;
  const std::int64_t j0 = v.j0;
  const auto columns = static_cast<std::int32_t>(v.last - j0);  // column i: the end j0 + i + 1
  const auto report_from = static_cast<std::int32_t>(v.first - 1 - j0);
  const std::uint8_t* text = c.text + (j0 - c.base);
  std::uint32_t* mine = shared.words + threadIdx.x;
  const std::uint32_t* words = t.peq_top + static_cast<std::size_t>(member) * t.classes;
  for (std::uint32_t cls = 0; cls < t.classes; ++cls) mine[cls * kSeedThreads] = words[cls];
  const std::uint32_t pad = 32 - mb.m;
  std::uint32_t pv = ~0u << pad, mv = 0;  // D[i][j0 - 1] = i; the rows below the pattern 0
  const int bias = static_cast<int>(mb.k) + 1;
  int score = static_cast<int>(mb.m) - bias;
  for (std::int32_t col = 0; col < columns; col += 8) {
    std::uint32_t eq[8];
#pragma unroll
    for (int u = 0; u < 8; ++u) {
      const std::uint8_t b = col + u < columns ? text[col + u] : std::uint8_t{0};
      eq[u] = mine[static_cast<std::uint32_t>(shared.class_of[b]) * kSeedThreads];
    }
    int after[8];
    int below = 0;
#pragma unroll
    for (int u = 0; u < 8; ++u) {
      core::myers_search_step(pv, mv, eq[u], score);
      after[u] = score;
      below |= score;
    }
    if (below < 0) {
#pragma unroll
      for (int u = 0; u < 8; ++u)
        if (after[u] < 0 && col + u >= report_from && col + u < columns)
          seed_append(sink, {static_cast<unsigned long long>(j0 + col + u + 1), member,
                             static_cast<unsigned int>(after[u] + bias)});
    }
  }
}

/// Calls fn(piece) for every piece of the plan that occurs at text position s: its q-byte key
/// (folded when case-insensitive) hashed into the bitmap, the bucket probed, the rest of the
/// piece compared (core::for_each_piece_at's rule, on the chunk's bytes).
template <class Fn>
__device__ __forceinline__ void seed_pieces_at(const SeedTables& t, const SeedChunk& c, std::int64_t s, Fn&& fn) {
  if (s + t.q > c.n) return;
  std::uint64_t key = 0;
  for (std::uint32_t j = 0; j < t.q; ++j) {
    std::uint8_t b = seed_text_byte(c, s + j);
    if (t.fold && b >= 'A' && b <= 'Z') b = static_cast<std::uint8_t>(b + 32);
    key |= static_cast<std::uint64_t>(b) << (8 * j);
  }
  const std::uint64_t h = core::seed_hash(key);
  const std::uint64_t bit = h >> t.bitmap_shift;
  if (!((t.bitmap[bit >> 6] >> (bit & 63)) & 1)) return;
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
    if (whole) fn(piece);
  }
}

/// Phase 1 over piece starts [lo, hi] of the chunk (c.s_lo <= lo, hi <= c.s_hi): every
/// (position, piece use) whose piece occurs there exactly. A block takes blockDim consecutive
/// starts a round (blockDim a multiple of 32): each thread counts its uses, the counts are
/// scanned over the warp and the block, one atomic reserves the block's slots, and the threads
/// write their uses (a thread that found several pieces walks them again) — a third of the
/// starts hold a use in the issue's case, so one atomic per group of converged threads was tens of millions a pass on
/// one counter; this way candidates also stay in text order within a block.
__global__ void __launch_bounds__(kSeedThreads)
    seed_find_kernel(SeedTables t, SeedChunk c, std::int64_t lo, std::int64_t hi, SeedCandidateSink sink) {
  static __shared__ unsigned long long warp_slot[kSeedThreads / 32];
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t first = lo + static_cast<std::int64_t>(blockIdx.x) * blockDim.x; first <= hi; first += stride) {
    const std::int64_t s = first + threadIdx.x;
    std::uint32_t uses = 0, pieces = 0, only = 0;  // only: the piece, when just one occurs here
    if (s <= hi)
      seed_pieces_at(t, c, s, [&](std::uint32_t piece) {
        uses += t.use_start[piece + 1] - t.use_start[piece];
        only = piece;
        ++pieces;
      });
    std::uint32_t through = uses;  // this lane's and the lower lanes' uses
    for (unsigned d = 1; d < 32; d <<= 1) {
      const std::uint32_t below = __shfl_up_sync(0xffffffffu, through, d);
      if (lane >= d) through += below;
    }
    if (lane == 31) warp_slot[warp] = through;
    __syncthreads();
    if (threadIdx.x == 0) {
      unsigned long long total = 0;
      for (unsigned w = 0; w < warps; ++w) {
        const unsigned long long n = warp_slot[w];
        warp_slot[w] = total;
        total += n;
      }
      const unsigned long long base = total ? atomicAdd(sink.count, total) : 0;
      for (unsigned w = 0; w < warps; ++w) warp_slot[w] += base;
    }
    __syncthreads();
    unsigned long long slot = warp_slot[warp] + (through - uses);
    const auto write_uses = [&](std::uint32_t piece) {
      for (std::uint32_t u = t.use_start[piece]; u < t.use_start[piece + 1]; ++u, ++slot)
        if (slot < sink.capacity) sink.items[slot] = {static_cast<std::uint32_t>(s - c.s_lo), u};
    };
    if (pieces == 1) {
      write_uses(only);
    } else if (pieces > 1) {  // rare outside floods: the pieces found again
      seed_pieces_at(t, c, s, write_uses);
    }
    __syncthreads();  // warp_slot read before the next round writes it
  }
}

/// Phase 2: every candidate phase 1 left (none when they outgrew the buffer: the host runs
/// again), one per thread.
__global__ void __launch_bounds__(kSeedThreads)
    seed_verify_kernel(SeedTables t, SeedChunk c, const SeedCandidate* candidates,
                       const unsigned long long* candidate_count, unsigned long long capacity, SeedSink sink) {
  static __shared__ SeedVerifyShared shared;
  const unsigned long long count = *candidate_count;
  if (count > capacity) return;
  const bool top = t.peq_top != nullptr;  // uniform: the barrier below is reached by all or none
  if (top) {
    for (unsigned i = threadIdx.x; i < 256; i += blockDim.x) shared.class_of[i] = t.class_of[i];
    __syncthreads();
  }
  const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride) {
    const SeedCandidate cand = candidates[i];
    const std::uint32_t member = t.use_member[cand.use];
    const std::int64_t s = c.s_lo + static_cast<std::int64_t>(cand.at);
    const core::SeedPlan::Member mb = t.members[member];
    if (top && mb.m <= 32 && !mb.hamming)
      verify_seed_top(t, c, member, mb, s, t.use_offset[cand.use], shared, sink);
    else if (mb.m <= 32)
      verify_seed<std::uint32_t>(t, c, member, s, t.use_offset[cand.use], sink);
    else
      verify_seed<std::uint64_t>(t, c, member, s, t.use_offset[cand.use], sink);
  }
}

/// What a pass of both phases left: candidates and hits counted (each may exceed its buffer).
struct SeedCounts {
  unsigned long long candidates = 0, hits = 0;
};

/// The passes over one chunk's piece starts, shared by seed_filter.cu and its emulation: `span`
/// starts a pass (kept by the caller across chunks: it only shrinks). A pass whose candidates
/// outgrow the buffer runs again with a larger one, up to max_candidates, then over fewer
/// starts; one whose hits outgrow theirs runs again with a larger one, up to max_hits: beyond
/// that the chunk is a flood and the result is false (the caller takes the set kernel).
/// Runner: capacities `candidate_capacity()`, `hit_capacity()`; `grow_candidates(n)`,
/// `grow_hits(n)`; `SeedCounts run(chunk, lo, hi)` (both phases over starts [lo, hi], the
/// counts back); `keep_hits(count)` (the pass's hits are final).
template <class Runner>
bool seed_chunk_passes(Runner& runner, const SeedChunk& c, std::int64_t& span, unsigned long long max_candidates,
                       unsigned long long max_hits) {
  for (std::int64_t lo = c.s_lo; lo <= c.s_hi;) {
    const std::int64_t hi = c.s_hi - lo < span ? c.s_hi : lo + span - 1;
    const SeedCounts got = runner.run(c, lo, hi);
    if (got.candidates > runner.candidate_capacity()) {
      if (got.candidates <= max_candidates || hi == lo) {
        runner.grow_candidates(got.candidates);
      } else {  // fewer starts a pass from now on, about 3/4 of the largest buffer's worth
        runner.grow_candidates(max_candidates);
        const auto starts = static_cast<unsigned long long>(hi - lo + 1);
        const auto fit = static_cast<std::int64_t>(starts * max_candidates / got.candidates * 3 / 4);
        span = fit > 1 ? fit : 1;
      }
      continue;
    }
    if (got.hits > runner.hit_capacity()) {
      if (got.hits > max_hits) return false;
      runner.grow_hits(got.hits);
      continue;
    }
    runner.keep_hits(got.hits);
    lo = hi + 1;
  }
  return true;
}

}  // namespace warpmatch::cuda::kernels
