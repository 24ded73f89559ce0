// Per-thread logic of the CUDA short-pattern set kernel (short_set_kernels.cuh; host side
// short_set.cu): many patterns of m <= 64 bytes run over one text tile per block, read once
// into shared memory as class codes. Written once as plain inline functions (host + device);
// tests/test_approx_set_emulation.cpp runs the kernel itself on the CPU against the
// reference DP.
//
// Layout. Text bytes are grouped in classes by how every pattern byte of the set matches them
// (core::ApproxPattern::matches: case folding and IUPAC built in); a class code is one byte.
// Patterns are bucketed by word (32-bit for m <= 32, 64-bit for 33..64), by kind (Myers edit
// distance, or Hamming with `planes` bit-sliced counters) and by mode (all ends / best), and
// each bucket is cut into groups whose match tables ([class][slot] words) fit a block's
// shared memory. Pattern position i sits at bit pad + i (pad = word bits - m) below `pad`
// dummy rows that match every byte, so that the last row is the word's top bit.
//
// Work. A block owns `tile` columns of one launch range and one group; an item is (slot,
// sub-range of the tile), lanes of a warp share the sub-range (text codes read as broadcasts)
// and read consecutive slots of a table row (no bank conflicts). An item restarts its DP
// `overlap` (the bucket's largest m + k) columns before its sub-range, which is exact for
// every end with distance <= k (see core::approx_overlap). Hits leave as one 64-bit key per
// (pattern, end, distance) (set_key): sorting the keys orders them by pattern, then end.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "core/approx_pattern.hpp"
#include "core/host_device.hpp"  // WARPMATCH_HD
#include "core/myers_step.hpp"
#include "core/text_classes.hpp"

namespace warpmatch::cuda::logic {

/// Longest pattern of the set kernel, and the fields of a hit key.
inline constexpr std::uint32_t kSetMaxPattern = 64;
inline constexpr int kSetDistanceBits = 7;  // distance <= 64
inline constexpr int kSetEndBits = 30;      // end index within a device segment's owned ends
inline constexpr int kSetPatternShift = kSetDistanceBits + kSetEndBits;
inline constexpr std::uint64_t kSetMaxPatterns = std::uint64_t{1} << (64 - kSetPatternShift);
inline constexpr std::uint64_t kSetMaxSegmentEnds = std::uint64_t{1} << kSetEndBits;
inline constexpr std::uint32_t kNoMinimum = 0xffffffffu;

/// A hit as one sortable key: pattern id, then the owned end index, then the distance.
WARPMATCH_HD std::uint64_t set_key(std::uint32_t pattern, std::uint32_t end_index, std::uint32_t distance) {
  return (static_cast<std::uint64_t>(pattern) << kSetPatternShift) |
         (static_cast<std::uint64_t>(end_index) << kSetDistanceBits) | distance;
}
inline std::uint32_t key_pattern(std::uint64_t key) { return static_cast<std::uint32_t>(key >> kSetPatternShift); }
inline std::uint32_t key_end_index(std::uint64_t key) {
  return static_cast<std::uint32_t>((key >> kSetDistanceBits) & (kSetMaxSegmentEnds - 1));
}
inline std::uint32_t key_distance(std::uint64_t key) {
  return static_cast<std::uint32_t>(key & ((1u << kSetDistanceBits) - 1));
}

/// Whether the set kernel takes this pattern set (every m in 1..64, ids fit a key).
inline bool short_set_fits(const std::vector<core::ApproxPattern>& patterns) {
  if (patterns.empty() || patterns.size() >= kSetMaxPatterns) return false;
  return std::all_of(patterns.begin(), patterns.end(),
                     [](const core::ApproxPattern& p) { return p.size() >= 1 && p.size() <= kSetMaxPattern; });
}

/// Counter planes of a Hamming pattern with limit k: saturating counters of B bits
/// (B = bit_width(k)) start at 2^B - 1 - k, so that "more than k mismatches" is exactly
/// the sticky overflow bit.
inline int hamming_planes(std::uint32_t k) { return static_cast<int>(std::bit_width(k)); }

/// Text byte -> class code; classes of bytes that every pattern byte of the set matches the
/// same way. representative[c]: one text byte of class c.
struct SetClasses {
  std::vector<std::uint8_t> code = std::vector<std::uint8_t>(256, 0);
  std::vector<std::uint8_t> representative;
  std::uint32_t count() const { return static_cast<std::uint32_t>(representative.size()); }
};

/// The set's text classes (core::classify_text, shared with the CPU pass), with a byte of
/// each class to build the match tables from.
inline SetClasses make_set_classes(const std::vector<core::ApproxPattern>& patterns) {
  const core::TextClasses classes = core::classify_text(patterns);
  SetClasses out;
  for (int c = 0; c < 256; ++c) {
    const std::uint32_t cls = classes.class_of[c];  // ids in order of first byte: 0, 1, 2, ...
    if (cls == out.representative.size()) out.representative.push_back(static_cast<std::uint8_t>(c));
    out.code[c] = static_cast<std::uint8_t>(cls);
  }
  return out;
}

/// Patterns of one word size, kind and mode, cut into groups of `group_size` slots (the last
/// may be shorter). Table: per group [class][group_size] entries of `words` 32-bit words (one
/// 32- or 64-bit machine word, little-endian), unused slots zero.
struct SetBucket {
  bool wide = false;   // 64-bit words (some m > 32)
  int planes = -1;     // -1: Myers (edit distance); else Hamming counter planes
  bool best = false;   // best mode: a minimum pass, then hits at the minimum
  std::uint32_t overlap = 0;  // largest m + k of its patterns
  std::uint32_t group_size = 0;
  std::vector<std::uint32_t> ids;  // pattern index of each slot, groups consecutive
  std::vector<std::uint32_t> table;
  std::uint32_t words() const { return wide ? 2u : 1u; }
  std::uint32_t groups() const { return static_cast<std::uint32_t>((ids.size() + group_size - 1) / group_size); }
  std::uint32_t slots_of(std::uint32_t group) const {
    return std::min<std::uint32_t>(group_size, static_cast<std::uint32_t>(ids.size()) - group * group_size);
  }
};

struct SetPlan {
  SetClasses classes;
  std::vector<SetBucket> buckets;
  std::uint32_t overlap = 0;  // largest m + k of the set
};

/// The match word of pattern p for a text byte of class `representative`: Myers: the
/// pattern's match bits plus the dummy rows; Hamming: its mismatch bits (dummy rows 0).
inline std::uint64_t set_entry(const core::ApproxPattern& p, std::uint8_t representative, bool wide) {
  const std::uint32_t bits = wide ? 64 : 32, m = static_cast<std::uint32_t>(p.size()), pad = bits - m;
  std::uint64_t v = 0;
  for (std::uint32_t i = 0; i < m; ++i)
    if (p.matches(p.bytes[i], representative) != p.hamming) v |= std::uint64_t{1} << (pad + i);
  if (!p.hamming && pad) v |= (std::uint64_t{1} << pad) - 1;
  return v;
}

/// Buckets and tables of a set; groups hold at most table_bytes of table (>= 1 slot).
inline SetPlan plan_short_set(const std::vector<core::ApproxPattern>& patterns,
                              const std::vector<core::ApproxQuery>& queries, std::size_t table_bytes) {
  SetPlan plan;
  plan.classes = make_set_classes(patterns);
  const std::uint32_t classes = plan.classes.count();
  auto bucket_of = [&](std::size_t i) -> SetBucket& {
    const bool wide = patterns[i].size() > 32;
    const int planes = patterns[i].hamming ? hamming_planes(queries[i].k) : -1;
    const bool best = queries[i].mode == core::ApproxMode::best;
    for (auto& b : plan.buckets)
      if (b.wide == wide && b.planes == planes && b.best == best) return b;
    plan.buckets.push_back({});
    plan.buckets.back().wide = wide;
    plan.buckets.back().planes = planes;
    plan.buckets.back().best = best;
    return plan.buckets.back();
  };
  for (std::size_t i = 0; i < patterns.size(); ++i) {
    SetBucket& b = bucket_of(i);
    b.ids.push_back(static_cast<std::uint32_t>(i));
    const auto overlap = static_cast<std::uint32_t>(core::approx_overlap(patterns[i].size(), queries[i].k));
    b.overlap = std::max(b.overlap, overlap);
    plan.overlap = std::max(plan.overlap, overlap);
  }
  for (auto& b : plan.buckets) {
    const std::size_t per_slot = std::size_t{classes} * b.words() * 4;
    const std::size_t most = std::max<std::size_t>(1, table_bytes / per_slot);
    // Groups of even size: as few as the budget allows.
    const std::size_t groups = (b.ids.size() + most - 1) / most;
    b.group_size = static_cast<std::uint32_t>((b.ids.size() + groups - 1) / groups);
    b.table.assign(std::size_t{b.groups()} * classes * b.group_size * b.words(), 0);
    for (std::size_t s = 0; s < b.ids.size(); ++s) {
      const std::size_t group = s / b.group_size, slot = s % b.group_size;
      for (std::uint32_t c = 0; c < classes; ++c) {
        const std::uint64_t v = set_entry(patterns[b.ids[s]], plan.classes.representative[c], b.wide);
        const std::size_t at = ((group * classes + c) * b.group_size + slot) * b.words();
        b.table[at] = static_cast<std::uint32_t>(v);
        if (b.wide) b.table[at + 1] = static_cast<std::uint32_t>(v >> 32);
      }
    }
  }
  return plan;
}

/// How a block splits its tile: `subs` sub-ranges of `sub` columns (a multiple of 4).
struct SetGeometry {
  std::uint32_t tile = 0, sub = 0, subs = 1;
};

/// Sub-ranges per tile for a group of `slots` patterns and `threads` per block: enough items
/// (slot x sub-range) to fill the block's threads in whole rounds, weighing idle threads of
/// the last round against the warm-up (overlap) every sub-range repeats; sub-ranges of at
/// least min_sub columns.
inline SetGeometry set_geometry(std::uint32_t tile, std::uint32_t slots, std::uint32_t threads,
                                std::uint32_t overlap, std::uint32_t min_sub) {
  SetGeometry g;
  g.tile = std::max<std::uint32_t>(4, (tile + 3) & ~3u);
  min_sub = std::max<std::uint32_t>(4, (min_sub + 3) & ~3u);
  const std::uint32_t most = std::max<std::uint32_t>(1, g.tile / min_sub);
  double best = -1;
  for (std::uint32_t s = 1; s <= most; ++s) {
    const std::uint32_t sub = ((g.tile + s - 1) / s + 3) & ~3u;
    const std::uint32_t subs = (g.tile + sub - 1) / sub;
    const std::uint64_t items = std::uint64_t{slots} * subs;
    const std::uint64_t rounds = (items + threads - 1) / threads;
    // Useful columns over the columns the block's threads step through.
    const double cost = static_cast<double>(rounds) * (sub + overlap);
    const double value = static_cast<double>(g.tile) * slots / (cost * threads);
    if (value > best * 1.0001) {
      best = value;
      g.sub = sub;
      g.subs = subs;
    }
  }
  return g;
}

/// One launch's view of the device segment (columns are segment-local).
struct SetRange {
  std::uint32_t own_lo = 0, own_hi = 0;  // owned columns of the launch
  std::uint32_t segment_own_lo = 0;      // end indices of keys count from here
};

/// Columns [from, to) whose codes a block of tile `tile_index` holds: the tile's owned
/// columns with `overlap` before them, from rounded down to 4.
struct TileSpan {
  std::uint32_t from = 0, lo = 0, hi = 0;
  bool empty = true;
};
WARPMATCH_HD TileSpan tile_span(std::uint32_t tile_index, const SetRange& r, std::uint32_t tile,
                                std::uint32_t overlap) {
  TileSpan t;
  const std::uint64_t lo = r.own_lo + std::uint64_t{tile_index} * tile;
  if (lo >= r.own_hi) return t;
  t.lo = static_cast<std::uint32_t>(lo);
  t.hi = r.own_hi - t.lo < tile ? r.own_hi : t.lo + tile;
  t.from = (t.lo > overlap ? t.lo - overlap : 0u) & ~3u;
  t.empty = false;
  return t;
}

/// Thread `tid` of `threads` stores class codes of text[t.from, t.hi) at codes[0, ...), then
/// class 0 up to 8 bytes further (items read whole 4-byte words of codes past their end).
WARPMATCH_HD void load_tile_codes(std::uint32_t tid, std::uint32_t threads, const std::uint8_t* text,
                                  const std::uint8_t* class_of, const TileSpan& t, std::uint8_t* codes) {
  const std::uint32_t n = t.hi - t.from;
  for (std::uint32_t i = tid; i < n + 8; i += threads) codes[i] = i < n ? class_of[text[t.from + i]] : 0;
}

/// Bytes of tile codes a block needs for `tile` owned columns with `overlap` before them.
inline std::size_t tile_code_bytes(std::uint32_t tile, std::uint32_t overlap) {
  return std::size_t{tile} + overlap + 3 + 8;
}

/// Four class codes at p (4-byte aligned on the device), the first in the low byte.
WARPMATCH_HD std::uint32_t four_codes(const std::uint8_t* p) {
#if defined(__CUDA_ARCH__)
  return *reinterpret_cast<const std::uint32_t*>(p);
#else
  return static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
         static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24;
#endif
}

/// Hamming step: every counter moves up a row (a new window starts at the bottom with the
/// bias), then the mismatch bits x are added; overflow is sticky. Returns whether the window
/// ending here (top row) is within the limit.
template <class Word, int PLANES>
WARPMATCH_HD bool set_hamming_step(Word (&plane)[PLANES > 0 ? PLANES : 1], Word& overflow, Word x,
                                   std::uint32_t bias) {
  constexpr int kTop = sizeof(Word) * 8 - 1;
  Word carry = x;
  for (int j = 0; j < PLANES; ++j) {
    plane[j] = (plane[j] << 1) | static_cast<Word>((bias >> j) & 1u);
    const Word t = plane[j] & carry;
    plane[j] ^= carry;
    carry = t;
  }
  overflow = (overflow << 1) | carry;
  return ((overflow >> kTop) & 1u) == 0;
}

/// The mismatches of the window ending at the top row (after a step that returned true).
template <class Word, int PLANES>
WARPMATCH_HD std::uint32_t set_hamming_count(const Word (&plane)[PLANES > 0 ? PLANES : 1], std::uint32_t bias) {
  constexpr int kTop = sizeof(Word) * 8 - 1;
  std::uint32_t v = 0;
  for (int j = 0; j < PLANES; ++j) v |= static_cast<std::uint32_t>((plane[j] >> kTop) & 1u) << j;
  return v - bias;
}

/// Reads the match-table entries of one slot: `eq` its class-0 entry, `row_bytes` between
/// classes. On the device a class code (byte j of four codes) becomes one PRMT, one IMAD and
/// one LDS from a 32-bit shared address taken once; through the generic pointer nvcc re-derived
/// the shared window at every column (3 of the step's 27 instructions, job 10's hot loop).
template <class Word>
struct SetTableReader {
#if defined(__CUDA_ARCH__)
  std::uint32_t base, row_bytes;
  __device__ SetTableReader(const Word* eq, std::uint32_t row)
      : base(static_cast<std::uint32_t>(__cvta_generic_to_shared(eq))), row_bytes(row) {}
  __device__ __forceinline__ Word operator()(std::uint32_t four, std::uint32_t j) const {
    const std::uint32_t at = __byte_perm(four, 0u, 0x4440u + j) * row_bytes + base;
    if constexpr (sizeof(Word) == 8) {
      unsigned long long v;
      asm("ld.shared.u64 %0, [%1];" : "=l"(v) : "r"(at));
      return static_cast<Word>(v);
    } else {
      std::uint32_t v;
      asm("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(at));
      return static_cast<Word>(v);
    }
  }
#else
  const unsigned char* base;
  std::uint32_t row_bytes;
  SetTableReader(const Word* eq, std::uint32_t row) : base(reinterpret_cast<const unsigned char*>(eq)), row_bytes(row) {}
  Word operator()(std::uint32_t four, std::uint32_t j) const {
    return *reinterpret_cast<const Word*>(base + ((four >> (8 * j)) & 0xffu) * row_bytes);
  }
#endif
};

/// One item: pattern (m, limit, table entry `eq` of class 0 with `stride` words between
/// classes) over owned columns [lo, hi) of a tile whose codes start at column `base` (a
/// multiple of 4), DP restarted at `from` rounded down to 4 (earlier starts only add warm-up).
/// Codes are read four at a time; columns outside [lo, hi) are stepped but never reported (the
/// tile's codes run 8 bytes of class 0 past its end for the last block's extra columns).
/// emit(column, distance) for each owned end within the limit, or with MINIMUM_ONLY the
/// smallest such distance is returned (kNoMinimum when none). PLANES < 0: Myers edit
/// distance; else Hamming (ends need a whole window: column + 1 >= m).
template <class Word, int PLANES, bool MINIMUM_ONLY, class Emit>
WARPMATCH_HD std::uint32_t set_scan_item(const std::uint8_t* codes, std::uint32_t base, const Word* eq,
                                         std::uint32_t stride, std::uint32_t from, std::uint32_t lo,
                                         std::uint32_t hi, std::uint32_t m, std::uint32_t limit, Emit&& emit) {
  constexpr std::uint32_t kBits = sizeof(Word) * 8;
  std::uint32_t low = kNoMinimum;
  from &= ~3u;
  const SetTableReader<Word> entry(eq, stride * static_cast<std::uint32_t>(sizeof(Word)));
  if constexpr (PLANES < 0) {
    // Eight columns per round. The score is kept as t = score - (limit + 1), negative exactly
    // at a hit, so the common round (no hit) costs one OR per column and one branch per
    // round; a round with a hit re-reads its eight saved values.
    Word pv = ~Word(0) << (kBits - m), mv = 0;  // D[i][from - 1] = i; dummy rows 0
    int bias = static_cast<int>(limit) + 1;
    int t = static_cast<int>(m) - bias;
    for (std::uint32_t at = from; at < hi; at += 8) {
      const std::uint32_t four[2] = {four_codes(codes + (at - base)), four_codes(codes + (at - base) + 4)};
      int after[8];
      int below = 0;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
      for (std::uint32_t j = 0; j < 8; ++j) {
        core::myers_search_step(pv, mv, entry(four[j >> 2], j & 3u), t);
        after[j] = t;
        below |= t;
      }
      if (below < 0) {
        const int bias_of_round = bias;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
        for (std::uint32_t j = 0; j < 8; ++j) {
          const std::uint32_t c = at + j, d = static_cast<std::uint32_t>(after[j] + bias_of_round);
          if (after[j] + bias_of_round <= static_cast<int>(limit) && c >= lo && c < hi) {
            if constexpr (MINIMUM_ONLY) low = limit = d;
            else emit(c, d);
          }
        }
        if constexpr (MINIMUM_ONLY) {  // the limit fell to the minimum so far: rebase t
          bias = static_cast<int>(limit) + 1;
          t += bias_of_round - bias;
        }
      }
    }
  } else {
    const std::uint32_t bias = (1u << PLANES) - 1u - limit;  // limit <= 2^PLANES - 1
    Word plane[PLANES > 0 ? PLANES : 1];
    for (int j = 0; j < (PLANES > 0 ? PLANES : 1); ++j) plane[j] = ((bias >> j) & 1u) ? ~Word(0) : Word(0);
    Word overflow = 0;
    for (std::uint32_t at = from; at < hi; at += 4) {
      const std::uint32_t four = four_codes(codes + (at - base));
      for (std::uint32_t j = 0; j < 4; ++j) {
        if (set_hamming_step<Word, PLANES>(plane, overflow, entry(four, j), bias)) {
          const std::uint32_t c = at + j;
          if (c >= lo && c < hi && c + 1 >= m) {
            const std::uint32_t d = set_hamming_count<Word, PLANES>(plane, bias);
            if constexpr (MINIMUM_ONLY) low = d < low ? d : low;
            else emit(c, d);
          }
        }
      }
    }
  }
  return low;
}

/// Everything a block needs besides its shared memory (plain pointers: device or host).
template <class Word>
struct SetArgs {
  const Word* table = nullptr;             // the bucket's table (global)
  const std::uint32_t* ids = nullptr;      // the bucket's slots
  std::uint32_t slots = 0, group_size = 0, classes = 0, group_first = 0;
  const std::uint32_t* m_of = nullptr;     // per pattern id
  const std::uint32_t* k_of = nullptr;     // per pattern id
  const std::uint32_t* cap_of = nullptr;   // per pattern id: limit = min(k, cap) (best: the minimum)
  SetRange range;
  std::uint32_t overlap = 0;
  SetGeometry geometry;
  bool minimum_only = false;
};

/// Slots of group `group` of a launch.
template <class Word>
WARPMATCH_HD std::uint32_t set_group_slots(const SetArgs<Word>& a, std::uint32_t group) {
  const std::uint32_t first = group * a.group_size;
  return a.slots - first < a.group_size ? a.slots - first : a.group_size;
}

/// Thread `tid` of `threads` of block (tile_index, group): its items over the tile whose
/// codes and table slice (shared memory) are loaded. emit(pattern id, column, distance);
/// publish(pattern id, minimum) in minimum_only mode.
template <class Word, int PLANES, class Emit, class Publish>
WARPMATCH_HD void set_block_items(std::uint32_t tid, std::uint32_t threads, std::uint32_t tile_index,
                                  std::uint32_t group, const SetArgs<Word>& a, const std::uint8_t* codes,
                                  const Word* table, Emit&& emit, Publish&& publish) {
  const TileSpan t = tile_span(tile_index, a.range, a.geometry.tile, a.overlap);
  if (t.empty) return;
  const std::uint32_t slots = set_group_slots(a, group);
  const std::uint32_t items = slots * a.geometry.subs;
  for (std::uint32_t item = tid; item < items; item += threads) {
    const std::uint32_t slot = item % slots, sub = item / slots;
    const std::uint32_t lo = t.lo + sub * a.geometry.sub;
    if (lo >= t.hi) continue;
    const std::uint32_t hi = t.hi - lo < a.geometry.sub ? t.hi : lo + a.geometry.sub;
    const std::uint32_t from = lo > a.overlap ? lo - a.overlap : 0u;
    const std::uint32_t id = a.ids[group * a.group_size + slot];
    const std::uint32_t k = a.k_of[id], cap = a.cap_of[id];
    const std::uint32_t limit = k < cap ? k : cap;
    const auto emit_id = [&](std::uint32_t column, std::uint32_t distance) { emit(id, column, distance); };
    if (a.minimum_only) {
      const std::uint32_t low = set_scan_item<Word, PLANES, true>(codes, t.from, table + slot, a.group_size, from,
                                                                  lo, hi, a.m_of[id], limit, emit_id);
      if (low != kNoMinimum) publish(id, low);
    } else {
      set_scan_item<Word, PLANES, false>(codes, t.from, table + slot, a.group_size, from, lo, hi, a.m_of[id], limit,
                                         emit_id);
    }
  }
}

/// Host: keys sorted ascending (one launch range) appended to out[pattern] as end hits,
/// end = end_base + end index + 1 (end_base: text offset of the segment's first owned column).
inline void append_set_hits(const std::uint64_t* keys, std::size_t count, std::uint64_t end_base,
                            std::vector<std::vector<core::EndHit>>& out) {
  for (std::size_t i = 0; i < count; ++i)
    out[key_pattern(keys[i])].push_back({end_base + key_end_index(keys[i]) + 1, key_distance(keys[i])});
}

/// Host, after the last segment: a best-mode pattern keeps only its hits at the minimum.
inline void keep_best_hits(std::vector<core::EndHit>& hits) {
  if (hits.empty()) return;
  std::uint32_t low = hits.front().distance;
  for (const auto& h : hits) low = std::min(low, h.distance);
  std::erase_if(hits, [&](const core::EndHit& h) { return h.distance != low; });
}

}  // namespace warpmatch::cuda::logic
