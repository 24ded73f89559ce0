// Edit distance on the CPU.
//
// Bit-parallel columns follow Myers (1999) as reformulated for global distance by Hyyrö
// (2003) and edlib (Šošić & Šikić 2017): the pattern (rows) is cut into 64-row blocks, each
// text byte (column) updates every active block with one word step, horizontal deltas
// carried from block to block. Ukkonen's band keeps only the diagonals an alignment of cost
// <= k can use; a block entering the band from below starts as "all +1" from its upper
// neighbour, a block leaving it at the top hands +1 to the next (edlib's rules: every value
// stays an upper bound, and is exact on any path of cost <= k).
//
// Threads: the blocks are split into stripes, one per thread; stripe s computes its blocks
// column chunk by column chunk, after stripe s-1 published the bottom scores of the same
// chunk through a ring buffer (a pipelined wavefront over the table).
#include "cpu/distance_cpu.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <limits>
#include <memory>
#include <stdexcept>

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

/// One Myers/Hyyrö step of a 64-row block (edlib's calculateBlock): vertical deltas
/// (pv: +1, mv: -1) of column j-1 become those of column j; hin is the horizontal delta
/// entering above the block's top row, the return value the one leaving its bottom row.
inline int myers_step(u64& pv, u64& mv, u64 eq, int hin) {
  const u64 hin_neg = hin < 0 ? 1 : 0;
  const u64 xv = eq | mv;
  eq |= hin_neg;
  const u64 xh = (((eq & pv) + pv) ^ pv) | eq;
  u64 ph = mv | ~(xh | pv);
  u64 mh = pv & xh;
  const int hout = static_cast<int>(ph >> 63) - static_cast<int>(mh >> 63);
  ph <<= 1;
  mh <<= 1;
  mh |= hin_neg;
  ph |= hin > 0 ? 1 : 0;
  pv = mh | ~(xv | ph);
  mv = ph & xv;
  return hout;
}

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

/// The bit-vector column after the last text byte: enough to read any row's value.
struct Columns {
  i64 m = 0, n = 0, blocks = 0;
  std::vector<u64> pv, mv;
  std::vector<i64> score;  // value at the block's bottom row (row 64 (b + 1))
  i64 first = 0, last = -1;  // blocks active in the final column

  /// D[r][n]; kInfinite for rows outside the band (never on a path of cost <= k).
  i64 value_at(i64 r) const {
    if (r == 0) return n;
    const i64 b = (r - 1) / kWord;
    if (b < first || b > last) return kInfinite;
    const int p = static_cast<int>((r - 1) % kWord);
    const u64 below = p == 63 ? 0 : ~u64{0} << (p + 1);
    return score[b] - std::popcount(pv[b] & below) + std::popcount(mv[b] & below);
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
/// inside the band; threads > 1 pipelines stripes of blocks. With k >= 0 (one stripe only),
/// top blocks are also dropped once no path of cost <= k to (m, n_end) can use them: their
/// every cell has value + |(m - i) - (n_end - j)| > k (values are exact on such paths), and
/// any later path through rows above would cross them (Ukkonen's cut-off, top side).
Columns run_columns(const std::uint8_t* a, i64 m, const std::uint8_t* b, i64 n, Band band,
                    int threads, i64 k = -1, i64 n_end = -1) {
  Columns out;
  out.m = m;
  out.n = n;
  const i64 blocks = (m + kWord - 1) / kWord;
  out.blocks = blocks;
  out.pv.assign(blocks, ~u64{0});
  out.mv.assign(blocks, 0);
  out.score.resize(blocks);
  for (i64 k = 0; k < blocks; ++k) out.score[k] = kWord * (k + 1);  // column 0: D[i][0] = i

  auto first_block = [&](i64 j) { return (std::max<i64>(1, j + band.dlo) - 1) / kWord; };
  auto last_block = [&](i64 j) { return (std::clamp<i64>(j + band.dhi, 1, m) - 1) / kWord; };
  if (n == 0) {
    out.first = 0;
    out.last = blocks - 1;
    return out;
  }

  const Alphabet alphabet(a, m);
  std::vector<u64> peq(static_cast<std::size_t>(alphabet.size + 1) * blocks, 0);
  for (i64 i = 0; i < m; ++i)
    peq[alphabet.code[a[i]] * blocks + i / kWord] |= u64{1} << (i % kWord);

  // Stripes: enough blocks each that the per-chunk hand-off is cheap against the work.
  constexpr i64 kMinBlocksPerStripe = 24;
  constexpr i64 kChunk = 512;       // columns per hand-off
  constexpr i64 kRingChunks = 64;   // how far a stripe may run ahead of the next one
  constexpr i64 kRing = kChunk * kRingChunks;
  i64 band_blocks = (band.dhi - band.dlo) / kWord + 2;
  const i64 stripes = std::max<i64>(
      1, std::min<i64>({threads, std::min(blocks, band_blocks) / kMinBlocksPerStripe,
                        n / kChunk}));
  std::vector<Progress> progress(stripes);
  // Dynamic top cut-off (one stripe): the first block that may still be on a path <= k.
  const bool prune_top = stripes == 1 && k >= 0;
  i64 live_first = 0;
  auto top_block_dead = [&](i64 blk, i64 j) {
    // Lower bound of value + remaining cost over the block's rows r in [64 blk + 1, 64 blk + 64]:
    // values fall by at most 1 per row upwards from the bottom score; the remaining cost
    // |(m - r) - (n_end - j)| is smallest at r = m - n_end + j.
    const i64 top = kWord * blk + 1, bottom = std::min(m, kWord * (blk + 1));
    const i64 best_row = std::clamp<i64>(m - n_end + j, top, bottom);
    const i64 remaining = std::abs((m - best_row) - (n_end - j));
    return out.score[blk] - (kWord - 1) + remaining > k;
  };
  // ring[s]: bottom score of stripe s per column, read by stripe s + 1.
  std::vector<std::vector<i64>> ring(stripes > 1 ? stripes - 1 : 0, std::vector<i64>(kRing));
  u64* pv = out.pv.data();
  u64* mv = out.mv.data();
  i64* score = out.score.data();

  auto run_stripe = [&](std::size_t stripe_index) {
    const i64 s = static_cast<i64>(stripe_index);
    const i64 lo = blocks * s / stripes, hi = blocks * (s + 1) / stripes;
    i64 activated = std::max(lo - 1, std::min(last_block(1), hi - 1));  // initialised up to here
    i64 bin_prev = s == 0 ? 0 : kWord * lo;            // D[64 lo][0]
    const i64* ring_in = s > 0 ? ring[s - 1].data() : nullptr;
    i64* ring_out = s + 1 < stripes ? ring[s].data() : nullptr;
    for (i64 c0 = 1; c0 <= n; c0 += kChunk) {
      const i64 c1 = std::min(n, c0 + kChunk - 1);
      if (s > 0) wait_at_least(progress[s - 1].columns, c1);
      if (ring_out) wait_at_least(progress[s + 1].columns, c1 - kRing);
      auto one_column = [&](i64 j) {
        const i64 bin = s == 0 ? j : ring_in[j % kRing];
        const i64 f = std::max(first_block(j), live_first), l = last_block(j);
        const i64 fb = std::max(f, lo), lb = std::min(l, hi - 1);
        if (fb <= lb) {
          for (i64 k = activated + 1; k <= lb; ++k) {
            pv[k] = ~u64{0};
            mv[k] = 0;
            score[k] = (k == lo ? bin_prev : score[k - 1]) + kWord;
          }
          activated = std::max(activated, lb);
          const u64* eq = peq.data() + static_cast<std::size_t>(alphabet.code[b[j - 1]]) * blocks;
          int h = fb == f ? 1 : static_cast<int>(bin - bin_prev);
          for (i64 k = fb; k <= lb; ++k) {
            h = myers_step(pv[k], mv[k], eq[k], h);
            score[k] += h;
          }
          if (ring_out && lb == hi - 1) ring_out[j % kRing] = score[hi - 1];
        }
        bin_prev = bin;
      };
      // Columns j and j + 1 together: block k of column j and block k - 1 of column j + 1
      // are independent, so the two carry chains overlap (about twice the throughput of one
      // chain of dependent word steps). Unusual band shapes fall back to one column at a time.
      auto two_columns = [&](i64 j) {
        const i64 f0 = std::max(first_block(j), live_first), l0 = last_block(j);
        const i64 f1 = std::max(first_block(j + 1), live_first), l1 = last_block(j + 1);
        const i64 fb0 = std::max(f0, lo), lb0 = std::min(l0, hi - 1);
        const i64 fb1 = std::max(f1, lo), lb1 = std::min(l1, hi - 1);
        if (!(fb0 <= lb0 && fb1 <= lb1 && fb0 <= fb1 && fb1 <= lb0 && lb0 <= lb1 && lb1 <= lb0 + 1)) {
          one_column(j);
          one_column(j + 1);
          return;
        }
        const i64 bin0 = s == 0 ? j : ring_in[j % kRing];
        const i64 bin1 = s == 0 ? j + 1 : ring_in[(j + 1) % kRing];
        for (i64 k = activated + 1; k <= lb0; ++k) {
          pv[k] = ~u64{0};
          mv[k] = 0;
          score[k] = (k == lo ? bin_prev : score[k - 1]) + kWord;
        }
        activated = std::max(activated, lb0);
        const u64* eq0 = peq.data() + static_cast<std::size_t>(alphabet.code[b[j - 1]]) * blocks;
        const u64* eq1 = peq.data() + static_cast<std::size_t>(alphabet.code[b[j]]) * blocks;
        int h0 = fb0 == f0 ? 1 : static_cast<int>(bin0 - bin_prev);
        int h1 = fb1 == f1 ? 1 : static_cast<int>(bin1 - bin0);
        i64 k0 = fb0;
        for (; k0 <= fb1; ++k0) {  // column j alone until column j + 1 can start
          h0 = myers_step(pv[k0], mv[k0], eq0[k0], h0);
          score[k0] += h0;
        }
        i64 k1 = fb1;
        for (; k0 <= lb0; ++k0, ++k1) {  // k1 == k0 - 1
          h0 = myers_step(pv[k0], mv[k0], eq0[k0], h0);
          score[k0] += h0;
          h1 = myers_step(pv[k1], mv[k1], eq1[k1], h1);
          score[k1] += h1;
        }
        if (ring_out && lb0 == hi - 1) ring_out[j % kRing] = score[hi - 1];  // column j's value
        if (lb1 > activated) {  // enters below: from column j's bottom score, still unchanged
          pv[lb1] = ~u64{0};
          mv[lb1] = 0;
          score[lb1] = score[lb1 - 1] + kWord;
          activated = lb1;
        }
        for (; k1 <= lb1; ++k1) {
          h1 = myers_step(pv[k1], mv[k1], eq1[k1], h1);
          score[k1] += h1;
        }
        if (ring_out && lb1 == hi - 1) ring_out[(j + 1) % kRing] = score[hi - 1];
        bin_prev = bin1;
      };
      i64 j = c0;
      for (; j + 1 <= c1; j += 2) {
        two_columns(j);
        if (prune_top) {  // blocks below stay: the last one active is never dropped
          live_first = std::max(live_first, first_block(j + 1));
          while (live_first < std::min(last_block(j + 1), hi - 1) && top_block_dead(live_first, j + 1))
            ++live_first;
        }
      }
      if (j <= c1) one_column(j);
      progress[s].columns.store(c1, std::memory_order_release);
      progress[s].columns.notify_all();
    }
  };
  core::parallel_for(static_cast<std::size_t>(stripes), static_cast<int>(stripes), run_stripe);
  out.first = std::max(first_block(n), live_first);
  out.last = last_block(n);
  return out;
}

i64 banded_distance(const std::uint8_t* a, i64 m, const std::uint8_t* b, i64 n, i64 k,
                    int threads) {
  if (k < std::abs(m - n)) return kDistanceOverK;
  if (m == 0 || n == 0) return std::max(m, n);
  const Columns cols = run_columns(a, m, b, n, band_for(m, n, k), threads, k, n);
  const i64 d = cols.value_at(m);
  return d <= k ? d : kDistanceOverK;
}

constexpr i64 kSmallWords = 4;

/// Full bit-parallel table for 1 <= m <= 256 rows: Peq in a per-thread table that is
/// cleared again after use (only the pattern's entries), states in registers.
i64 small_distance(const std::uint8_t* a, i64 m, const std::uint8_t* b, i64 n) {
  thread_local std::array<u64, 256 * kSmallWords> peq{};
  const i64 words = (m + kWord - 1) / kWord;
  for (i64 i = 0; i < m; ++i) peq[a[i] * kSmallWords + i / kWord] |= u64{1} << (i % kWord);
  u64 pv[kSmallWords] = {~u64{0}, ~u64{0}, ~u64{0}, ~u64{0}}, mv[kSmallWords] = {0, 0, 0, 0};
  for (i64 j = 0; j < n; ++j) {
    const u64* eq = peq.data() + b[j] * kSmallWords;
    int h = 1;  // row 0: D[0][j] - D[0][j - 1]
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
  const i64 longest = n;  // the distance never exceeds max(m, n)
  if (k >= 0) return banded_distance(a.data(), m, b.data(), n, std::min(k, longest), threads);
  // Short patterns (batches of reads): the whole table in at most 4 words per column, no
  // band, no allocation.
  if (m >= 1 && m <= kSmallWords * kWord) {
    const i64 d = small_distance(a.data(), m, b.data(), n);
    return k >= 0 && d > k ? kDistanceOverK : d;
  }
  // No bound: double k from |m - n| + 64 (edlib's strategy); O(n d / 64) overall.
  for (i64 trial = std::min(longest, (n - m) + kWord);; trial = std::min(longest, 2 * trial)) {
    const i64 d = banded_distance(a.data(), m, b.data(), n, trial, threads);
    if (d != kDistanceOverK) return d;
    if (trial >= longest) throw std::logic_error("edit distance: unbounded band reported over k");
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
      rev.push_back('D');
      --i;
    } else {
      rev.push_back('I');
      --j;
    }
  }
  ops.insert(ops.end(), rev.rbegin(), rev.rend());
  return d[m * w + n];
}

/// Hirschberg: split the columns in half, find the row where an optimal path crosses the
/// middle column from forward and reverse bit-parallel columns (banded by the known cost d),
/// recurse on both halves. Linear memory; about twice the work of the distance.
void hirschberg(const std::uint8_t* a, i64 m, const std::uint8_t* b, i64 n, i64 d, Band band,
                int threads, std::vector<char>& ops) {
  if (m == 0) {
    ops.insert(ops.end(), static_cast<std::size_t>(n), 'I');
    return;
  }
  if (n == 0) {
    ops.insert(ops.end(), static_cast<std::size_t>(m), 'D');
    return;
  }
  constexpr i64 kBaseCells = 1 << 16;
  if ((m + 1) * (n + 1) <= kBaseCells || n == 1) {
    full_dp_ops(a, m, b, n, ops);
    return;
  }
  const i64 mid = n / 2;
  i64 split = -1, left_cost = 0, right_cost = 0;
  {
    const Columns forward = run_columns(a, m, b, mid, band, threads, d, n);
    std::vector<std::uint8_t> ra(a, a + m), rb(b + mid, b + n);
    std::reverse(ra.begin(), ra.end());
    std::reverse(rb.begin(), rb.end());
    // Reversed coordinates: i' = m - i, j' = n - j, so d' = (m - n) - d.
    const Band reverse_band{(m - n) - band.dhi, (m - n) - band.dlo};
    const Columns reverse = run_columns(ra.data(), m, rb.data(), n - mid, reverse_band, threads, d, n);
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
  result.distance = myers_distance(a, b, k, threads);
  if (result.over_k()) return result;
  const i64 m = static_cast<i64>(a.size()), n = static_cast<i64>(b.size());
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
