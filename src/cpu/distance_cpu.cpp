// Edit distance on the CPU.
//
// Bit-parallel columns follow Myers (1999) as reformulated for global distance by Hyyrö
// (2003) and edlib (Šošić & Šikić 2017): the pattern (rows) is cut into 64-row blocks, each
// text byte (column) updates every active block with one word step, horizontal deltas
// carried from block to block. Ukkonen's band keeps only the diagonals an alignment of cost
// <= k can use; a block entering the band from below starts as "all +1" from its upper
// neighbour, a block leaving it at the top hands +1 to the next (edlib's rules: every value
// stays an upper bound, and is exact on any path of cost <= k). On one stripe the blocks
// also follow the computed values (edlib's block pruning, see run_columns), which ends a
// trial early once no path of cost <= k is left; without k, trials of growing k extrapolate
// from where the last one ended.
//
// Threads: wide bands only, the blocks are split into stripes, one per thread; stripe s
// computes its blocks column chunk by column chunk, after stripe s-1 published the bottom
// scores of the same chunk through a ring buffer (a pipelined wavefront over the table).
#include "cpu/distance_cpu.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <iterator>
#include <limits>
#include <memory>
#include <stdexcept>

#include "core/myers_step.hpp"
#include "core/parallel.hpp"

namespace warpmatch::cpu {
namespace {

using i64 = std::int64_t;
using u64 = std::uint64_t;
constexpr i64 kWord = 64;
constexpr i64 kInfinite = std::numeric_limits<i64>::max() / 4;

/// Diagonals d = i - j (row minus column) an alignment may use.
struct Band {
  i64 dlo = 0, dhi = 0;
};

/// Ukkonen: a path through cell (i, j) costs at least |d| + |delta - d| with d = i - j,
/// delta = m - n; keep the d with that bound <= k. Requires k >= |m - n|.
Band band_for(i64 m, i64 n, i64 k) {
  const i64 delta = m - n;
  const i64 slack = (k - (delta < 0 ? -delta : delta)) / 2;
  Band band{std::min<i64>(0, delta) - slack, std::max<i64>(0, delta) + slack};
  band.dlo = std::max(band.dlo, -n);  // clamp: no diagonal beyond the table
  band.dhi = std::min(band.dhi, m);
  return band;
}

/// A horizontal delta in {-1, 0, +1} as two bits: the carry from block to block is the
/// critical path of a column, and bits pass it on without compares. Blocks advance with
/// core::myers_step (edlib's calculateBlock) on 64-row words.
using Carry = core::MyersCarry<u64>;
using core::myers_step;

/// Byte -> dense code of the pattern's alphabet; bytes absent from the pattern share the
/// code `size` (a match vector of zeros), so Peq costs (sigma + 1) words per block.
struct Alphabet {
  std::array<std::uint16_t, 256> code{};
  int size = 0;
  explicit Alphabet(const std::uint8_t* a, i64 m) {
    std::array<bool, 256> seen{};
    for (i64 i = 0; i < m; ++i) seen[a[i]] = true;
    for (int c = 0; c < 256; ++c)
      if (seen[c]) code[c] = static_cast<std::uint16_t>(size++);
    for (int c = 0; c < 256; ++c)
      if (!seen[c]) code[c] = static_cast<std::uint16_t>(size);
  }
};

/// The pattern (rows) as match vectors: bit i % 64 of word [code][i / 64] is set where a[i]
/// has that code. Built once per pattern, shared by the trials of growing k.
struct Pattern {
  i64 m, blocks;
  Alphabet alphabet;
  std::vector<u64> peq;
  Pattern(const std::uint8_t* a, i64 rows)
      : m(rows), blocks((rows + kWord - 1) / kWord), alphabet(a, rows),
        peq(static_cast<std::size_t>(alphabet.size + 1) * blocks, 0) {
    for (i64 blk = 0; blk < blocks; ++blk)
      for (i64 i = kWord * blk; i < std::min(m, kWord * (blk + 1)); ++i)
        peq[alphabet.code[a[i]] * blocks + blk] |= u64{1} << (i - kWord * blk);
  }
  /// The match vector of text byte c for every block.
  const u64* eq(std::uint8_t c) const {
    return peq.data() + static_cast<std::size_t>(alphabet.code[c]) * blocks;
  }
};

/// The bit-vector column after the last text byte: enough to read any row's value.
struct Columns {
  i64 m = 0, n = 0, blocks = 0;
  struct Block {
    u64 pv, mv;  // vertical deltas +1 / -1 of the block's rows
    i64 score;   // value at the block's bottom row (row 64 (b + 1))
  };
  std::vector<Block> state;
  i64 first = 0, last = -1;  // blocks active in the final column
  bool over_k = false;       // pruning dropped every block: no path of cost <= k
  i64 stopped_at = 0;        // with over_k: the column where that was found

  /// D[r][n]; kInfinite for rows outside the band (never on a path of cost <= k).
  i64 value_at(i64 r) const {
    if (r == 0) return n;
    const i64 b = (r - 1) / kWord;
    if (b < first || b > last) return kInfinite;
    return row_value(state[b], r);
  }
  /// D at row r (1-based) of the column whose block `s` holds it: from the block's bottom
  /// value, the vertical deltas of the rows below r undone.
  static i64 row_value(const Block& s, i64 r) {
    const int p = static_cast<int>((r - 1) % kWord);
    const u64 below = p == 63 ? 0 : ~u64{0} << (p + 1);
    return s.score - std::popcount(s.pv & below) + std::popcount(s.mv & below);
  }
};

struct alignas(64) Progress {
  std::atomic<i64> columns{0};
};

void wait_at_least(const std::atomic<i64>& a, i64 target) {
  for (i64 v = a.load(std::memory_order_acquire); v < target; v = a.load(std::memory_order_acquire))
    a.wait(v, std::memory_order_acquire);
}

/// Runs the bit-parallel columns of pattern a (m >= 1 rows) against text b (n columns)
/// inside the band; threads > 1 pipelines stripes of blocks.
///
/// With k >= 0 and one stripe, the active blocks also follow the computed values (edlib's
/// block pruning, with its bounds made exact): fix an optimal path P to (m, n_end) of cost
/// <= k. A cell (r, j) of P has cost(P) >= D[r][j] + |r - t_j|, t_j = m - n_end + j, and
/// values fall by at most 1 per row upwards, so a block whose every row r has
/// score - (bottom - r) + |r - t_j| > k holds no cell of P at column j (computed values are
/// upper bounds, exact on P's cells, by induction over the columns). Such blocks are dropped
/// at the bottom and for good at the top (P only moves down). P enters the rows below the
/// last block l at column j only through l's bottom cell: diagonally from column j - 1 or
/// down from column j. So blocks are added below (from their upper neighbour as "all +1")
/// while that cell's bound is <= k, and not otherwise. When every block is dropped, no path
/// costs <= k.
Columns run_columns(const Pattern& pattern, const std::uint8_t* b, i64 n, Band band, int threads,
                    i64 k = -1, i64 n_end = -1) {
  const i64 m = pattern.m, blocks = pattern.blocks;
  Columns out;
  out.m = m;
  out.n = n;
  out.blocks = blocks;
  out.state.resize(blocks);
  // Column 0: D[i][0] = i.
  for (i64 blk = 0; blk < blocks; ++blk) out.state[blk] = {~u64{0}, 0, kWord * (blk + 1)};

  auto first_block = [&](i64 j) { return (std::max<i64>(1, j + band.dlo) - 1) / kWord; };
  auto last_block = [&](i64 j) { return (std::clamp<i64>(j + band.dhi, 1, m) - 1) / kWord; };
  if (n == 0) {
    out.first = 0;
    out.last = blocks - 1;
    return out;
  }

  // Stripes only for wide bands and at least 4 threads, with enough blocks each that the
  // per-chunk hand-off is cheap against the work. Otherwise one stripe, which prunes (about
  // half the cells on random pairs, far more on similar ones) and waits for nobody: on the
  // 16-core host, 6 stripes of 25 blocks took 27.7 ms on the genome 10 %, k = 9700 row (edlib
  // on one core 25.0 ms); here, 2 stripes on random 100 K were slower than 1 pruned one.
  constexpr i64 kMinBandBlocksForStripes = 512;
  constexpr i64 kMinBlocksPerStripe = 64;
  constexpr i64 kMinStripes = 4;
  constexpr i64 kChunk = 512;       // columns per hand-off
  constexpr i64 kRingChunks = 64;   // how far a stripe may run ahead of the next one
  constexpr i64 kRing = kChunk * kRingChunks;
  const i64 band_blocks = std::min(blocks, (band.dhi - band.dlo) / kWord + 2);
  const i64 max_stripes = std::min<i64>({threads, band_blocks / kMinBlocksPerStripe, n / kChunk});
  const i64 stripes =
      band_blocks >= kMinBandBlocksForStripes && max_stripes >= kMinStripes ? max_stripes : 1;
  std::vector<Progress> progress(stripes);
  const bool prune = stripes == 1 && k >= 0;
  i64 live_first = 0;  // with prune: blocks above are dropped for good
  // ring[s]: bottom score of stripe s per column, read by stripe s + 1.
  // (Made only with stripes: the fill value alone is 256 KiB, zeroed, and was made for every
  // call, most of a short pair's alignment.)
  std::vector<std::vector<i64>> ring;
  if (stripes > 1) ring.assign(stripes - 1, std::vector<i64>(kRing));
  Columns::Block* st = out.state.data();

  // Pruning bounds (see above); t_j = m - n_end + j is the row where the remaining cost
  // |(m - r) - (n_end - j)| is zero.
  auto block_dead = [&](i64 blk, i64 j) {
    const i64 bottom = kWord * (blk + 1), target = m - n_end + j;
    const i64 r = std::clamp(target, bottom - (kWord - 1), std::min(m, bottom));  // best row
    return st[blk].score - (bottom - r) + std::abs(r - target) > k;
  };
  // Whether P may pass the bottom cell of block blk at column j, whose value is at least
  // `value`.
  auto bottom_open = [&](i64 blk, i64 value, i64 j) {
    const i64 bottom = kWord * (blk + 1);
    return bottom < m && value + std::abs(bottom - (m - n_end + j)) <= k;
  };

  auto run_stripe = [&](std::size_t stripe_index) {
    const i64 s = static_cast<i64>(stripe_index);
    const i64 lo = blocks * s / stripes, hi = blocks * (s + 1) / stripes;
    // Last block holding values of the previous column (initialised up to here).
    i64 live_last = std::max(lo - 1, std::min(last_block(1), hi - 1));
    i64 bin_prev = s == 0 ? 0 : kWord * lo;            // D[64 lo][0]
    const i64* ring_in = s > 0 ? ring[s - 1].data() : nullptr;
    i64* ring_out = s + 1 < stripes ? ring[s].data() : nullptr;
    // Blocks of column j: [first, last] of the band, within the stripe. With prune, the
    // bottom grows only through extend_below, from the last block: kept even where the band's
    // top has passed it.
    auto column_blocks = [&](i64 j) {
      const i64 f = std::max(first_block(j), live_first);
      if (!prune) return std::pair{f, last_block(j)};
      const i64 l = std::min(last_block(j), live_last);
      return std::pair{std::min(f, l), l};
    };
    // Blocks newly in the band start from their upper neighbour's previous column, all +1.
    auto enter_blocks = [&](i64 upto) {
      for (i64 blk = live_last + 1; blk <= upto; ++blk) {
        st[blk].pv = ~u64{0};
        st[blk].mv = 0;
        st[blk].score = (blk == lo ? bin_prev : st[blk - 1].score) + kWord;
      }
      live_last = std::max(live_last, upto);
    };
    // With prune, after column j computed blocks up to l: add blocks below while P may
    // pass the last one's bottom cell; previous = its value at column j - 1.
    auto extend_below = [&](i64 j, i64 l, i64 previous, const u64* eq) {
      bool open = bottom_open(l, previous, j - 1) || bottom_open(l, st[l].score, j);
      while (l < last_block(j) && open) {
        const Carry h = Carry::of(st[l].score - previous);  // leaves block l at column j
        previous += kWord;  // the new block's bottom at column j - 1, all +1 from above
        ++l;
        st[l].pv = ~u64{0};
        st[l].mv = 0;
        st[l].score = previous + myers_step(st[l].pv, st[l].mv, eq[l], h).value<i64>();
        open = bottom_open(l, st[l].score, j);  // only down: the block was not in column j - 1
      }
      live_last = l;
    };
    for (i64 c0 = 1; c0 <= n; c0 += kChunk) {
      const i64 c1 = std::min(n, c0 + kChunk - 1);
      if (s > 0) wait_at_least(progress[s - 1].columns, c1);
      if (ring_out) wait_at_least(progress[s + 1].columns, c1 - kRing);
      auto one_column = [&](i64 j) {
        const i64 bin = s == 0 ? j : ring_in[j % kRing];
        const auto [f, l] = column_blocks(j);
        const i64 fb = std::max(f, lo), lb = std::min(l, hi - 1);
        if (fb <= lb) {
          enter_blocks(lb);
          const u64* eq = pattern.eq(b[j - 1]);
          const i64 previous = st[lb].score;
          Carry h = Carry::of(fb == f ? 1 : bin - bin_prev);
          for (i64 blk = fb; blk <= lb; ++blk) {
            h = myers_step(st[blk].pv, st[blk].mv, eq[blk], h);
            st[blk].score += h.value<i64>();
          }
          if (prune) extend_below(j, lb, previous, eq);
          if (ring_out && lb == hi - 1) ring_out[j % kRing] = st[hi - 1].score;
        }
        bin_prev = bin;
      };
      // Columns j and j + 1 together: block k of column j and block k - 1 of column j + 1
      // are independent, so the two carry chains overlap (about twice the throughput of one
      // chain of dependent word steps). Unusual band shapes, and a column j that may need
      // extend_below, fall back to one column at a time.
      auto two_columns = [&](i64 j) {
        const auto [f0, l0] = column_blocks(j);
        const i64 fb0 = std::max(f0, lo), lb0 = std::min(l0, hi - 1);
        const i64 l1 = prune ? lb0 : last_block(j + 1);
        const i64 f1_band = std::max(first_block(j + 1), live_first);
        const i64 f1 = prune ? std::min(f1_band, l1) : f1_band;
        const i64 fb1 = std::max(f1, lo), lb1 = std::min(l1, hi - 1);
        if (!(fb0 <= lb0 && fb1 <= lb1 && fb0 <= fb1 && fb1 <= lb0 && lb0 <= lb1 && lb1 <= lb0 + 1)) {
          one_column(j);
          one_column(j + 1);
          return;
        }
        enter_blocks(lb0);
        // Column j's last bottom value is at least the previous one - 1, and the target row
        // moves by 1 per column: a bound of both ways of entering below.
        if (prune && lb0 < last_block(j) && bottom_open(lb0, st[lb0].score - 1, j)) {
          one_column(j);
          one_column(j + 1);
          return;
        }
        const i64 bin0 = s == 0 ? j : ring_in[j % kRing];
        const i64 bin1 = s == 0 ? j + 1 : ring_in[(j + 1) % kRing];
        const u64* eq0 = pattern.eq(b[j - 1]);
        const u64* eq1 = pattern.eq(b[j]);
        Carry h0 = Carry::of(fb0 == f0 ? 1 : bin0 - bin_prev);
        Carry h1 = Carry::of(fb1 == f1 ? 1 : bin1 - bin0);
        i64 k0 = fb0;
        for (; k0 <= fb1; ++k0) {  // column j alone until column j + 1 can start
          h0 = myers_step(st[k0].pv, st[k0].mv, eq0[k0], h0);
          st[k0].score += h0.value<i64>();
        }
        i64 k1 = fb1;
        for (; k0 <= lb0; ++k0, ++k1) {  // k1 == k0 - 1
          h0 = myers_step(st[k0].pv, st[k0].mv, eq0[k0], h0);
          st[k0].score += h0.value<i64>();
          h1 = myers_step(st[k1].pv, st[k1].mv, eq1[k1], h1);
          st[k1].score += h1.value<i64>();
        }
        if (ring_out && lb0 == hi - 1) ring_out[j % kRing] = st[hi - 1].score;  // column j's value
        bin_prev = bin0;
        enter_blocks(lb1);  // from column j's bottom score, still unchanged
        const i64 previous = st[lb1].score;
        for (; k1 <= lb1; ++k1) {
          h1 = myers_step(st[k1].pv, st[k1].mv, eq1[k1], h1);
          st[k1].score += h1.value<i64>();
        }
        if (prune) extend_below(j + 1, lb1, previous, eq1);
        if (ring_out && lb1 == hi - 1) ring_out[(j + 1) % kRing] = st[hi - 1].score;
        bin_prev = bin1;
      };
      // With prune, after column j: drop dead blocks at both ends; false when none is left.
      auto drop_dead = [&](i64 j) {
        live_first = std::max(live_first, first_block(j));
        if (live_first > live_last) return false;  // no live block left in the band
        while (live_last > live_first && block_dead(live_last, j)) --live_last;
        while (live_first < live_last && block_dead(live_first, j)) ++live_first;
        return live_first < live_last || !block_dead(live_first, j);
      };
      i64 j = c0;
      for (; j + 1 <= c1; j += 2) {
        two_columns(j);
        if (prune && !drop_dead(j + 1)) {
          out.over_k = true;
          out.stopped_at = j + 1;
          return;
        }
      }
      if (j <= c1) one_column(j);
      progress[s].columns.store(c1, std::memory_order_release);
      progress[s].columns.notify_all();
    }
    if (prune) out.last = live_last;
  };
  out.last = last_block(n);
  core::parallel_for(static_cast<std::size_t>(stripes), static_cast<int>(stripes), run_stripe);
  out.first = std::max(first_block(n), live_first);
  return out;
}

/// The distance, or kDistanceOverK beyond k; *reached = the column where a distance over k
/// became certain (n unless pruning found it earlier).
i64 banded_distance(const Pattern& pattern, const std::uint8_t* b, i64 n, i64 k, int threads,
                    i64* reached = nullptr) {
  const i64 m = pattern.m;
  if (reached) *reached = n;
  if (k < std::abs(m - n)) return kDistanceOverK;
  if (m == 0 || n == 0) return std::max(m, n);
  const Columns cols = run_columns(pattern, b, n, band_for(m, n, k), threads, k, n);
  if (cols.over_k) {
    if (reached) *reached = cols.stopped_at;
    return kDistanceOverK;
  }
  const i64 d = cols.value_at(m);
  return d <= k ? d : kDistanceOverK;
}

// Up to 8 words (m <= 512: reads of 2 x 300) the unbanded table beats the band's trials and
// allocations: random pairs of 300 bytes 9.7 -> 2.8 us, of 500 14.0 -> 7.5 us (edlib 10.2
// and 24 us); pairs 5 % apart of 500 bytes 8.4 -> 7.4 us (edlib 7.0).
constexpr i64 kSmallWords = 8;

/// Full bit-parallel table for 1 <= m <= 512 rows: Peq in a per-thread table that is
/// cleared again after use (only the pattern's entries), states in registers.
i64 small_distance(const std::uint8_t* a, i64 m, const std::uint8_t* b, i64 n) {
  thread_local std::array<u64, 256 * kSmallWords> peq_table{};
  // One thread-local lookup: in a shared object (the Python extension) each access to a
  // thread_local may call __tls_get_addr, 5 % of a batch of short pairs.
  std::array<u64, 256 * kSmallWords>& peq = peq_table;
  const i64 words = (m + kWord - 1) / kWord;
  for (i64 i = 0; i < m; ++i) peq[a[i] * kSmallWords + i / kWord] |= u64{1} << (i % kWord);
  u64 pv[kSmallWords], mv[kSmallWords];
  std::fill(pv, pv + kSmallWords, ~u64{0});
  std::fill(mv, mv + kSmallWords, u64{0});
  for (i64 j = 0; j < n; ++j) {
    const u64* eq = peq.data() + b[j] * kSmallWords;
    Carry h = Carry::of(1);  // row 0: D[0][j] - D[0][j - 1]
    for (i64 w = 0; w < words; ++w) h = myers_step(pv[w], mv[w], eq[w], h);
  }
  for (i64 i = 0; i < m; ++i) peq[a[i] * kSmallWords + i / kWord] = 0;
  // D[m][n] = D[0][n] + the vertical deltas of rows 1..m.
  i64 d = n;
  for (i64 w = 0; w < words; ++w) {
    const i64 rows = std::min(kWord, m - kWord * w);
    const u64 valid = rows >= kWord ? ~u64{0} : (u64{1} << rows) - 1;
    d += std::popcount(pv[w] & valid) - std::popcount(mv[w] & valid);
  }
  return d;
}

i64 myers_distance(ByteSpan a, ByteSpan b, i64 k, int threads) {
  if (a.size() > b.size()) std::swap(a, b);  // rows = the shorter string: smaller Peq
  const i64 m = static_cast<i64>(a.size()), n = static_cast<i64>(b.size());
  // Short patterns (batches of reads): the whole table in at most 8 words per column, no
  // band, no allocation.
  if (k < 0 && m >= 1 && m <= kSmallWords * kWord) return small_distance(a.data(), m, b.data(), n);
  // Trials of growing k from |m - n| + 64 up to the bound (edlib's doubling, also under a
  // caller's k: a trial's band is as wide as its k). A failed trial stops where its band
  // empties; with the edits spread evenly, its budget of e = k - |m - n| edits lasts about
  // n e / (d - |m - n|) columns: the next budget extrapolates that to n, with a margin of
  // two standard deviations of the edits counted (about e), at least doubled (O(n d / 64)
  // overall) and at most x16 (edits bunched at the start make the extrapolation too high).
  const i64 bound = k >= 0 ? std::min(k, n) : n;  // the distance never exceeds max(m, n)
  if (bound < n - m) return kDistanceOverK;
  const Pattern pattern(a.data(), m);
  for (i64 trial = std::min(bound, (n - m) + kWord);;) {
    i64 reached = n;
    const i64 d = banded_distance(pattern, b.data(), n, trial, threads, &reached);
    if (d != kDistanceOverK) return d;
    if (trial >= bound) {
      if (k >= 0) return kDistanceOverK;
      throw std::logic_error("edit distance: unbounded band reported over k");
    }
    const i64 budget = std::max<i64>(1, trial - (n - m));
    const double e = static_cast<double>(budget);
    const double estimate = e * static_cast<double>(n) / static_cast<double>(std::max<i64>(1, reached)) *
                            (1.0 + 2.0 / std::sqrt(e));
    trial = std::min(bound, (n - m) + std::clamp(static_cast<i64>(estimate), 2 * budget, 16 * budget));
  }
}

i64 dp_distance(ByteSpan a, ByteSpan b, i64 k) {
  if (a.size() > b.size()) std::swap(a, b);
  const i64 m = static_cast<i64>(a.size()), n = static_cast<i64>(b.size());
  std::vector<i64> row(m + 1);
  for (i64 i = 0; i <= m; ++i) row[i] = i;
  for (i64 j = 1; j <= n; ++j) {
    i64 diag = row[0];
    row[0] = j;
    i64 row_min = row[0];
    for (i64 i = 1; i <= m; ++i) {
      const i64 up = row[i];
      row[i] = std::min({up + 1, row[i - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
      row_min = std::min(row_min, row[i]);
    }
    if (k >= 0 && row_min > k) return kDistanceOverK;  // values never decrease along a path
  }
  return k >= 0 && row[m] > k ? kDistanceOverK : row[m];
}

/// Operations, one byte each ('=', 'X', 'I', 'D'), run-length encoded.
std::string run_length(const std::vector<char>& ops) {
  std::string cigar;
  for (std::size_t i = 0; i < ops.size();) {
    std::size_t j = i;
    while (j < ops.size() && ops[j] == ops[i]) ++j;
    cigar += std::to_string(j - i);
    cigar += ops[i];
    i = j;
  }
  return cigar;
}

/// Full DP with traceback for a small table; appends the operations.
i64 full_dp_ops(const std::uint8_t* a, i64 m, const std::uint8_t* b, i64 n, std::vector<char>& ops) {
  const i64 w = n + 1;
  std::vector<std::uint32_t> d(static_cast<std::size_t>((m + 1) * w));
  for (i64 i = 0; i <= m; ++i) d[i * w] = static_cast<std::uint32_t>(i);
  for (i64 j = 0; j <= n; ++j) d[j] = static_cast<std::uint32_t>(j);
  for (i64 i = 1; i <= m; ++i)
    for (i64 j = 1; j <= n; ++j)
      d[i * w + j] = std::min({d[(i - 1) * w + j] + 1, d[i * w + j - 1] + 1,
                               d[(i - 1) * w + j - 1] + (a[i - 1] == b[j - 1] ? 0u : 1u)});
  std::vector<char> rev;
  for (i64 i = m, j = n; i > 0 || j > 0;) {
    const std::uint32_t here = d[i * w + j];
    if (i > 0 && j > 0 && here == d[(i - 1) * w + j - 1] + (a[i - 1] == b[j - 1] ? 0u : 1u)) {
      rev.push_back(a[i - 1] == b[j - 1] ? '=' : 'X');
      --i, --j;
    } else if (i > 0 && here == d[(i - 1) * w + j] + 1) {
      rev.push_back('I');  // SAM: a byte of A (the query) absent from B
      --i;
    } else {
      rev.push_back('D');  // SAM: a byte of B (the reference) absent from A
      --j;
    }
  }
  ops.insert(ops.end(), rev.rbegin(), rev.rend());
  return d[m * w + n];
}

/// Full DP with traceback over the diagonals of `band` only, which hold every path of the
/// table's optimal cost when the band is band_for(m, n, that cost): (m + 1) x width cells
/// instead of the rectangle's (m + 1) x (n + 1). A 1000-byte pair 10 % apart, Hirschberg's
/// leaves as whole rectangles: 528 us, edlib 99 us (bench/python_calls.py, development machine).
/// Appends the operations; returns the cost.
i64 banded_dp_ops(const std::uint8_t* a, i64 m, const std::uint8_t* b, i64 n, Band band, std::vector<char>& ops) {
  const i64 w = band.dhi - band.dlo + 1;
  // Row i holds columns j = i - dhi ... i - dlo at x = j - i + dhi, with one cell of padding
  // each side: up (i - 1, j) is x + 1 of the row above, diagonal x, left (i, j - 1) x - 1.
  const i64 stride = w + 2;
  constexpr std::uint32_t kOut = 1u << 30;  // outside the band or the table: never taken
  std::vector<std::uint32_t> d(static_cast<std::size_t>((m + 1) * stride), kOut);
  auto cell = [&](i64 i, i64 j) -> std::uint32_t {
    const i64 x = j - i + band.dhi;
    return j < 0 || j > n || x < 0 || x >= w ? kOut : d[static_cast<std::size_t>(i * stride + x + 1)];
  };
  for (i64 j = 0; j <= std::min<i64>(n, -band.dlo); ++j)  // the first row
    d[static_cast<std::size_t>(1 + band.dhi + j)] = static_cast<std::uint32_t>(j);
  for (i64 i = 1; i <= m; ++i) {
    const i64 jlo = std::max<i64>(0, i - band.dhi), jhi = std::min<i64>(n, i - band.dlo);
    std::uint32_t* row = d.data() + i * stride + 1;  // row[x]: cell (i, x + i - dhi)
    const std::uint32_t* above = row - stride;      // above[x]: cell (i - 1, x + i - dhi - 1)
    const std::uint8_t ai = a[i - 1];
    const std::uint8_t* bj = b + (i - band.dhi) - 1;  // bj[x]: b[j - 1] for the x of column j
    i64 x = jlo - (i - band.dhi);
    const i64 x_end = jhi - (i - band.dhi);
    std::uint32_t left = kOut;
    if (jlo == 0) {  // the first column
      row[x] = static_cast<std::uint32_t>(i);
      left = row[x++];
    }
    // From above (up, diagonal) with no chain between cells (vectorised), then the left
    // neighbour as a running minimum: a chain of one add and one min per cell, where the
    // three-way minimum made it several (the leaves were most of an alignment's time).
    for (i64 y = x; y <= x_end; ++y)
      row[y] = std::min(above[y + 1] + 1, above[y] + (ai == bj[y] ? 0u : 1u));
    for (; x <= x_end; ++x) left = row[x] = std::min(row[x], left + 1);
  }
  std::vector<char> rev;
  for (i64 i = m, j = n; i > 0 || j > 0;) {
    const std::uint32_t here = cell(i, j);
    if (i > 0 && j > 0 && here == cell(i - 1, j - 1) + (a[i - 1] == b[j - 1] ? 0u : 1u)) {
      rev.push_back(a[i - 1] == b[j - 1] ? '=' : 'X');
      --i, --j;
    } else if (i > 0 && here == cell(i - 1, j) + 1) {
      rev.push_back('I');
      --i;
    } else {
      rev.push_back('D');
      --j;
    }
  }
  ops.insert(ops.end(), rev.rbegin(), rev.rend());
  return cell(m, n);
}

/// The band's bit-parallel columns with every column's blocks kept (edlib's alignment data),
/// for a traceback read from them: a 64th of banded_dp_ops' cell work. The values are
/// run_columns' without pruning: upper bounds of D (each is some path's cost), so one <= the
/// band's k is exact, and exact on every cell of an optimal path, which lies within the band.
/// m, n >= 1.
class KeptColumns {
 public:
  /// The most blocks kept (24 bytes each: 12 MiB; a 10 kB pair 10 % apart needs 7); a band
  /// that needs more is split first (Hirschberg: about 8 times a distance's work there).
  static constexpr i64 kMaxBlocks = 1 << 19;
  /// Up to this many, trials of growing k keep their columns (edit_alignment): a failed
  /// trial costs a whole unpruned band, cheaper than a separate pruned distance only while
  /// bands are short.
  static constexpr i64 kMaxTrialBlocks = 1 << 15;
  static i64 blocks_for(i64 n, Band band) { return n * ((band.dhi - band.dlo) / kWord + 2); }

  KeptColumns(const std::uint8_t* a, i64 m, const std::uint8_t* b, i64 n, Band band)
      : a_(a), b_(b), m_(m), n_(n), first_(static_cast<std::size_t>(n + 1)), at_(static_cast<std::size_t>(n + 2)) {
    const Pattern pattern(a, m);
    auto first_block = [&](i64 j) { return (std::max<i64>(1, j + band.dlo) - 1) / kWord; };
    auto last_block = [&](i64 j) { return (std::clamp<i64>(j + band.dhi, 1, m) - 1) / kWord; };
    std::vector<Columns::Block> st(static_cast<std::size_t>(pattern.blocks));
    for (i64 blk = 0; blk < pattern.blocks; ++blk) st[blk] = {~u64{0}, 0, kWord * (blk + 1)};  // D[i][0] = i
    kept_.reserve(static_cast<std::size_t>(blocks_for(n, band)));
    i64 live_last = last_block(1);  // blocks holding the previous column's values go up to here
    for (i64 j = 1; j <= n; ++j) {
      const i64 f = first_block(j), l = last_block(j);
      for (i64 blk = live_last + 1; blk <= l; ++blk)  // entering: from the block above, all +1
        st[blk] = {~u64{0}, 0, st[blk - 1].score + kWord};
      live_last = std::max(live_last, l);
      const u64* eq = pattern.eq(b[j - 1]);
      Carry h = Carry::of(1);
      for (i64 blk = f; blk <= l; ++blk) {
        h = myers_step(st[blk].pv, st[blk].mv, eq[blk], h);
        st[blk].score += h.value<i64>();
      }
      first_[j] = f;
      at_[j] = static_cast<i64>(kept_.size());
      kept_.insert(kept_.end(), st.begin() + f, st.begin() + l + 1);
    }
    at_[n + 1] = static_cast<i64>(kept_.size());
  }

  /// D[i][j] as computed; kInfinite outside the kept blocks.
  i64 value(i64 i, i64 j) const {
    if (j == 0) return i;
    if (i == 0) return j;
    const i64 blk = (i - 1) / kWord;
    if (blk < first_[j] || blk - first_[j] >= at_[j + 1] - at_[j]) return kInfinite;
    return Columns::row_value(kept_[static_cast<std::size_t>(at_[j] + blk - first_[j])], i);
  }

  /// The traceback from (m, n), whose value must be the distance: each step to the first of
  /// diagonal, up, left whose value plus the step's cost is the cell's, as banded_dp_ops'
  /// traceback, so it stays on exact cells and takes banded_dp_ops' steps. Appends the
  /// operations and returns true; false (nothing appended) where a step finds no
  /// predecessor, which the above rules out.
  bool traceback(std::vector<char>& ops) const {
    std::vector<char> rev;
    rev.reserve(static_cast<std::size_t>(m_ + n_));
    i64 i = m_, j = n_, here = value(m_, n_);
    while (i > 0 || j > 0) {
      if (i > 0 && j > 0) {
        const bool match = a_[i - 1] == b_[j - 1];
        if (const i64 diag = value(i - 1, j - 1); diag + (match ? 0 : 1) == here) {
          rev.push_back(match ? '=' : 'X');
          --i, --j, here = diag;
          continue;
        }
      }
      if (i > 0) {
        if (const i64 up = value(i - 1, j); up + 1 == here) {
          rev.push_back('I');
          --i, here = up;
          continue;
        }
      }
      if (j > 0) {
        if (const i64 left = value(i, j - 1); left + 1 == here) {
          rev.push_back('D');
          --j, here = left;
          continue;
        }
      }
      return false;
    }
    ops.insert(ops.end(), rev.rbegin(), rev.rend());
    return true;
  }

 private:
  const std::uint8_t *a_, *b_;
  i64 m_, n_;
  std::vector<i64> first_, at_;       // column j's blocks: first_[j].. kept from kept_[at_[j]]
  std::vector<Columns::Block> kept_;
};

/// Hirschberg: split the columns in half, find the row where an optimal path crosses the
/// middle column from forward and reverse bit-parallel columns (banded by the known cost d),
/// recurse on both halves. Linear memory; about twice the work of the distance.
void hirschberg(const std::uint8_t* a, i64 m, const std::uint8_t* b, i64 n, i64 d, Band band,
                int threads, std::vector<char>& ops) {
  if (m == 0) {
    ops.insert(ops.end(), static_cast<std::size_t>(n), 'D');
    return;
  }
  if (n == 0) {
    ops.insert(ops.end(), static_cast<std::size_t>(m), 'I');
    return;
  }
  // Leaves: the band's columns kept whole where they fit (each split halves them).
  // banded_dp_ops is the fallback, never taken while KeptColumns holds to its proof.
  if (KeptColumns::blocks_for(n, band) <= KeptColumns::kMaxBlocks || n == 1) {
    const KeptColumns columns(a, m, b, n, band);
    if (columns.value(m, n) != d || !columns.traceback(ops)) banded_dp_ops(a, m, b, n, band, ops);
    return;
  }
  const i64 mid = n / 2;
  i64 split = -1, left_cost = 0, right_cost = 0;
  {
    const Columns forward = run_columns(Pattern(a, m), b, mid, band, threads, d, n);
    const std::vector<std::uint8_t> ra(std::make_reverse_iterator(a + m), std::make_reverse_iterator(a));
    const std::vector<std::uint8_t> rb(std::make_reverse_iterator(b + n), std::make_reverse_iterator(b + mid));
    // Reversed coordinates: i' = m - i, j' = n - j, so d' = (m - n) - d.
    const Band reverse_band{(m - n) - band.dhi, (m - n) - band.dlo};
    const Columns reverse = run_columns(Pattern(ra.data(), m), rb.data(), n - mid, reverse_band, threads, d, n);
    if (forward.over_k || reverse.over_k)
      throw std::logic_error("hirschberg: pruning dropped a path of cost " + std::to_string(d));
    i64 best = kInfinite;
    for (i64 i = 0; i <= m; ++i) {
      const i64 f = forward.value_at(i);
      if (f >= kInfinite) continue;
      const i64 r = reverse.value_at(m - i);
      if (r >= kInfinite) continue;
      if (f + r < best) {
        best = f + r;
        split = i;
        left_cost = f;
        right_cost = r;
      }
    }
    if (best != d)
      throw std::logic_error("hirschberg: middle column gives " + std::to_string(best) +
                             ", expected " + std::to_string(d));
  }
  hirschberg(a, split, b, mid, left_cost, band_for(split, mid, left_cost), threads, ops);
  hirschberg(a + split, m - split, b + mid, n - mid, right_cost,
             band_for(m - split, n - mid, right_cost), threads, ops);
}

}  // namespace

std::int64_t edit_distance(ByteSpan a, ByteSpan b, std::int64_t k, DistanceAlgorithm algorithm,
                           int threads) {
  if (algorithm == DistanceAlgorithm::dp) return dp_distance(a, b, k);
  return myers_distance(a, b, k, threads);
}

DistanceResult edit_alignment(ByteSpan a, ByteSpan b, std::int64_t k, int threads) {
  DistanceResult result;
  const i64 m = static_cast<i64>(a.size()), n = static_cast<i64>(b.size());
  // Short pairs: trials of growing k (edlib's doubling) on kept columns, each one pass that
  // gives the distance (exact when <= the trial's k) and the traceback together. Longer ones:
  // the pruned distance first, then the columns of its band (one pass where they fit).
  const i64 gap = m > n ? m - n : n - m;
  const i64 bound = k >= 0 ? std::min<i64>(k, std::max(m, n)) : std::max(m, n);
  if (bound < gap) {
    result.distance = kDistanceOverK;
    return result;
  }
  for (i64 trial = std::min(bound, gap + kWord); m > 0 && n > 0;) {
    const Band band = band_for(m, n, trial);
    if (KeptColumns::blocks_for(n, band) > KeptColumns::kMaxTrialBlocks) break;
    const KeptColumns columns(a.data(), m, b.data(), n, band);
    const i64 d = columns.value(m, n);
    if (d <= trial) {
      std::vector<char> ops;
      ops.reserve(static_cast<std::size_t>(m + n));
      if (!columns.traceback(ops)) banded_dp_ops(a.data(), m, b.data(), n, band_for(m, n, d), ops);
      result.distance = d;
      result.cigar = run_length(ops);
      return result;
    }
    if (trial >= bound) {
      result.distance = kDistanceOverK;
      return result;
    }
    trial = std::min(bound, gap + 2 * (trial - gap));
  }
  result.distance = myers_distance(a, b, k, threads);
  if (result.over_k()) return result;
  std::vector<char> ops;
  ops.reserve(static_cast<std::size_t>(m + n));
  hirschberg(a.data(), m, b.data(), n, result.distance, band_for(m, n, result.distance), threads,
             ops);
  result.cigar = run_length(ops);
  return result;
}

DistanceResult edit_alignment_full_dp(ByteSpan a, ByteSpan b) {
  std::vector<char> ops;
  DistanceResult r;
  r.distance = full_dp_ops(a.data(), static_cast<i64>(a.size()), b.data(),
                           static_cast<i64>(b.size()), ops);
  r.cigar = run_length(ops);
  return r;
}

std::vector<DistanceResult> edit_distance_batch(std::span<const std::pair<ByteSpan, ByteSpan>> pairs,
                                                std::int64_t k, bool want_alignment,
                                                DistanceAlgorithm algorithm, int threads) {
  std::vector<DistanceResult> results(pairs.size());
  // Tasks of many small pairs each: one atomic increment per task, not per pair.
  constexpr std::size_t kPairsPerTask = 64;
  const std::size_t tasks = (pairs.size() + kPairsPerTask - 1) / kPairsPerTask;
  core::parallel_for(tasks, threads, [&](std::size_t t) {
    const std::size_t end = std::min(pairs.size(), (t + 1) * kPairsPerTask);
    for (std::size_t p = t * kPairsPerTask; p < end; ++p) {
      const auto& [a, b] = pairs[p];
      if (want_alignment) results[p] = edit_alignment(a, b, k, 1);
      else results[p].distance = edit_distance(a, b, k, algorithm, 1);
    }
  });
  return results;
}

}  // namespace warpmatch::cpu
