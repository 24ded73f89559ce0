// Per-thread logic of the CUDA approximate-search kernels (kernels.cuh) and the host-side
// helpers dispatch.cu shares with them, written once as plain inline functions (host +
// device); tests/test_approx_emulation.cpp runs the kernels themselves on the CPU.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "core/approx_pattern.hpp"
#include "core/host_device.hpp"  // WARPMATCH_HD
#include "core/myers_step.hpp"
#include "warpmatch/common.hpp"  // InvalidArgument

namespace warpmatch::cuda::logic {

/// The horizontal delta between two 32-row blocks of a column, as two bits (plus: +1,
/// minus: -1). The kernels step their words with core::myers_step and read only the delta
/// leaving a word's top bit: they align the pattern to the bottom of its last word (see
/// EqTables). (Words: 32-bit on the GPU; the host's bound uses 64-bit words.)
using Carry = core::MyersCarry<std::uint32_t>;

/// Rows of word w that are pattern rows when `pad` dummy rows sit above the pattern (the
/// pattern then ends at bit 31 of the last word). A dummy row matches every byte and starts
/// with vertical delta 0, so it stays at distance 0 like the top row: it changes nothing.
WARPMATCH_HD std::uint32_t real_rows(std::uint32_t w, std::uint32_t pad) {
  const std::uint32_t first = 32 * w;
  if (pad >= first + 32) return 0;
  if (pad <= first) return 0xffffffffu;
  return 0xffffffffu << (pad - first);
}

/// Calls f(std::integral_constant<int, Q>) for the kernel instance Q in {1, 2, 4, ..., 32}
/// (words per thread or per lane). Host only.
template <class F>
void with_width(std::uint32_t q, F&& f) {
  switch (q) {
    case 1: f(std::integral_constant<int, 1>{}); break;
    case 2: f(std::integral_constant<int, 2>{}); break;
    case 4: f(std::integral_constant<int, 4>{}); break;
    case 8: f(std::integral_constant<int, 8>{}); break;
    case 16: f(std::integral_constant<int, 16>{}); break;
    case 32: f(std::integral_constant<int, 32>{}); break;
    default: throw InvalidArgument("pattern too long for the cuda myers kernels");
  }
}

inline std::uint32_t pow2_at_least(std::uint32_t need) {
  std::uint32_t q = 1;
  while (q < need) q *= 2;
  return q;
}

/// How the lane kernel lays one pattern over a warp: `lanes` lanes of `per_lane` words each
/// (a power of two <= 32), in a group of `group` lanes (a power of two <= 32) that pipelines
/// one text chunk, lane g holding words [g * per_lane, (g + 1) * per_lane); 32 / group groups
/// per warp. The pattern sits at the bottom of the lanes * per_lane words, below `pad` dummy
/// rows, so that the last lane's last word ends at row m. Fewer, fuller lanes spend more of
/// each step on the Myers words than on the pipeline's shuffle and bookkeeping, at the
/// price of a longer chain per step.
struct MyersShape {
  std::uint32_t m = 0;
  std::uint32_t words = 0;  // ceil(m / 32)
  std::uint32_t per_lane = 1, lanes = 1, group = 1, pad = 0;
};

/// max_lanes = 0: the default, measured on the H200 (bench approx, 4 Mi random '0'/'1'):
/// one word per lane up to 8 words, then at least two, at most 16 lanes (m = 512: 8 lanes of
/// 2 words, m = 1024: 16 lanes of 2 words; 1 word per lane was 1.2-1.3x slower).
inline MyersShape myers_shape(std::uint32_t m, std::uint32_t max_lanes = 0) {
  MyersShape s;
  s.m = m;
  s.words = (m + 31) / 32;
  if (max_lanes == 0) {
    s.per_lane = s.words <= 8 ? 1 : std::max<std::uint32_t>(2, pow2_at_least((s.words + 15) / 16));
  } else {
    s.per_lane = pow2_at_least((s.words + max_lanes - 1) / max_lanes);
  }
  if (s.per_lane > 32) s.per_lane = 32;
  s.lanes = (s.words + s.per_lane - 1) / s.per_lane;
  s.group = pow2_at_least(s.lanes);
  s.pad = 32 * s.lanes * s.per_lane - m;
  return s;
}

/// The piece of owned columns (ends - 1) that wavefront block `group_index` handles, in the
/// coordinates of the device text buffer: owned [own_begin, own_end), DP restarted at `from`.
struct ChunkSpan {
  std::uint64_t from = 0, own_begin = 0, own_end = 0;
  bool empty = true;
};

WARPMATCH_HD ChunkSpan chunk_of(std::uint64_t group_index, std::uint64_t own_lo,
                                std::uint64_t own_hi, std::uint64_t chunk_ends,
                                std::uint64_t overlap) {
  ChunkSpan c;
  c.own_begin = own_lo + group_index * chunk_ends;
  if (c.own_begin >= own_hi) return c;
  c.own_end = c.own_begin + chunk_ends < own_hi ? c.own_begin + chunk_ends : own_hi;
  c.from = c.own_begin > overlap ? c.own_begin - overlap : 0;
  c.empty = false;
  return c;
}

/// First column a Myers chunk owning [own_begin, ...) reads: `overlap` columns early, rounded
/// down to 16 bytes (the kernels read the text in aligned 16-byte blocks; starting earlier
/// only adds warm-up columns).
WARPMATCH_HD std::uint32_t myers_from(std::uint32_t own_begin, std::uint32_t overlap) {
  return (own_begin > overlap ? own_begin - overlap : 0u) & ~15u;
}

/// End of the owned columns of a chunk starting at own_begin (< own_hi).
WARPMATCH_HD std::uint32_t myers_own_end(std::uint32_t own_begin, std::uint32_t own_hi, std::uint32_t chunk) {
  return own_hi - own_begin < chunk ? own_hi : own_begin + chunk;
}

/// What lane g of the lane pipeline hands to lane g + 1 after a column: the Eq row of its
/// next column and the carry leaving its last word, in one 32-bit shuffle.
WARPMATCH_HD std::uint32_t pack_passed(std::uint32_t row, Carry c) { return (row << 2) | (c.plus << 1) | c.minus; }
WARPMATCH_HD std::uint32_t passed_row(std::uint32_t v) { return v >> 2; }
WARPMATCH_HD Carry passed_carry(std::uint32_t v) { return Carry{(v >> 1) & 1u, v & 1u}; }

/// The Myers kernels' Eq tables. Rows: the classes of text bytes matching the same pattern bytes
/// (core::ApproxPattern::matches; without IUPAC one distinct pattern byte each) in order of appearance,
/// then one row matching no byte (zero_row); code maps a text byte to its row. The pattern
/// sits at the bottom of its words, below `pad` dummy rows that every row matches (see
/// real_rows). A column of the zero row with no carry leaves the initial state unchanged:
/// the lane pipeline feeds it to lanes before their first column.
///  - thread table (m <= 1024): thread_width words (the kernel instance, a power of two),
///    pad = 32 thread_width - m; [rows][thread_stride], rows of >= 8 words padded by 4 so
///    that neighbouring rows start in other shared-memory banks;
///  - lane table (MyersShape): lanes * per_lane words, shape.pad; [rows][per_lane][32],
///    word w at (w % per_lane) * 32 + w / per_lane, so that lane g (words g * per_lane + q)
///    reads bank g.
struct EqTables {
  std::uint32_t zero_row = 0;
  std::vector<std::uint8_t> code;
  std::uint32_t thread_width = 0, thread_stride = 0, thread_pad = 0;  // width 0: m > 1024
  std::vector<std::uint32_t> thread_table;
  std::vector<std::uint32_t> lane_table;
  std::uint32_t rows() const { return zero_row + 1; }
};

inline EqTables make_eq_tables(const core::ApproxPattern& p, std::uint32_t max_thread_words,
                               const MyersShape& shape) {
  const auto m = static_cast<std::uint32_t>(p.size());
  EqTables t;
  // A row per class of text bytes that match the same distinct pattern bytes (one pattern
  // byte each without IUPAC), ordered by the first pattern position the class matches.
  std::vector<std::uint8_t> distinct;
  std::vector<int> index_of(256, -1);
  for (const std::uint8_t b : p.bytes)
    if (index_of[b] < 0) {
      index_of[b] = static_cast<int>(distinct.size());
      distinct.push_back(b);
    }
  std::vector<std::vector<bool>> class_of_row;  // which distinct pattern bytes each row matches
  std::vector<int> row_of_text(256, -1);
  std::vector<std::vector<bool>> signature(256, std::vector<bool>(distinct.size(), false));
  for (int c = 0; c < 256; ++c)
    for (std::size_t d = 0; d < distinct.size(); ++d)
      signature[c][d] = p.matches(distinct[d], static_cast<std::uint8_t>(c));
  for (std::size_t first = 0; first < distinct.size(); ++first)
    for (int c = 0; c < 256; ++c) {
      if (row_of_text[c] >= 0 || !signature[c][first]) continue;
      bool earlier = false;  // the class is ordered under its first matching pattern byte
      for (std::size_t d = 0; d < first && !earlier; ++d) earlier = signature[c][d];
      if (earlier) continue;
      int row = -1;
      for (std::size_t r = 0; r < class_of_row.size() && row < 0; ++r)
        if (class_of_row[r] == signature[c]) row = static_cast<int>(r);
      if (row < 0) {
        row = static_cast<int>(class_of_row.size());
        class_of_row.push_back(signature[c]);
      }
      row_of_text[c] = row;
    }
  t.zero_row = static_cast<std::uint32_t>(class_of_row.size());
  t.code.resize(256);
  // A byte matching no pattern byte maps to the zero row; then zero_row <= 255.
  for (int c = 0; c < 256; ++c)
    t.code[c] = static_cast<std::uint8_t>(row_of_text[c] < 0 ? t.zero_row : static_cast<std::uint32_t>(row_of_text[c]));
  auto row_matches = [&](std::uint32_t row, std::uint8_t pattern_byte) {
    return row < class_of_row.size() && class_of_row[row][index_of[pattern_byte]];
  };
  // Word w of table row `row` with `pad` dummy rows above the pattern.
  auto word = [&](std::uint32_t row, std::uint32_t w, std::uint32_t pad) {
    std::uint32_t v = ~real_rows(w, pad);
    for (std::uint32_t b = 0; b < 32; ++b) {
      const std::uint32_t bit = 32 * w + b;
      if (bit >= pad && row_matches(row, p.bytes[bit - pad])) v |= 1u << b;
    }
    return v;
  };
  if (shape.words <= max_thread_words) {
    t.thread_width = pow2_at_least(shape.words);
    t.thread_stride = t.thread_width + (t.thread_width >= 8 ? 4 : 0);
    t.thread_pad = 32 * t.thread_width - m;
    t.thread_table.assign(static_cast<std::size_t>(t.rows()) * t.thread_stride, 0);
    for (std::uint32_t r = 0; r < t.rows(); ++r)
      for (std::uint32_t w = 0; w < t.thread_width; ++w)
        t.thread_table[r * t.thread_stride + w] = word(r, w, t.thread_pad);
  }
  const std::uint32_t q = shape.per_lane;
  t.lane_table.assign(static_cast<std::size_t>(t.rows()) * q * 32, 0);
  for (std::uint32_t r = 0; r < t.rows(); ++r)
    for (std::uint32_t w = 0; w < shape.lanes * q; ++w)
      t.lane_table[(r * q + w % q) * 32 + w / q] = word(r, w, shape.pad);
  return t;
}

/// What one Myers thread (or lane group) reports, through emit(index, dist). All mode: every
/// owned end with dist <= k at once. Best mode: the thread keeps its minimum and its first
/// kKept ends there; at the end (finish_best) they go out only if that minimum is the
/// smallest published so far, so only a handful of candidates reach the host, which keeps
/// those equal to the final minimum. finish_best returns true when the thread had more ends
/// at a minimum that may be the final one than it keeps: the host then re-runs in all mode
/// with k = the minimum if it is (the kernels record the smallest such minimum).
struct EndReporter {
  static constexpr std::uint32_t kKept = 3;
  bool best;
  std::uint32_t limit;              // all mode: k; best mode: min(k, low)
  std::uint32_t low = 0xffffffffu;  // best mode: the minimum, its first ends, how many
  std::uint32_t ends[kKept] = {}, ties = 0;

  WARPMATCH_HD EndReporter(bool best_mode, std::uint32_t k) : best(best_mode), limit(k) {}

  /// An owned end with dist = score <= limit.
  template <class Emit>
  WARPMATCH_HD void report(std::uint32_t index, std::uint32_t score, Emit&& emit) {
    if (!best) {
      emit(index, score);
    } else if (score < low) {
      low = limit = score;
      ends[0] = index;
      ties = 1;
    } else {  // an if chain, not ends[ties]: constant indices keep the ends in registers
      static_assert(kKept == 3);
      if (ties == 1) ends[1] = index;
      else if (ties == 2) ends[2] = index;
      ++ties;
    }
  }

  /// Best mode, once per thread: `published` = min(the global minimum before this thread's
  /// atomicMin, low) (or its warp's minimum).
  template <class Emit>
  WARPMATCH_HD bool finish_best(std::uint32_t published, Emit&& emit) const {
    if (ties == 0 || low != published) return false;
    for (std::uint32_t i = 0; i < kKept; ++i)
      if (i < ties) emit(ends[i], low);
    return ties > kKept;
  }
};

/// Host only: the minimum distance over all ends in `piece` (Myers on 64-bit words, the
/// pattern at the bottom of its words below dummy rows, as in EqTables). The CUDA backend's
/// best mode takes it over the text's first bytes as an upper bound on the minimum.
inline std::uint32_t minimum_distance(const core::ApproxPattern& p, std::span<const std::uint8_t> piece) {
  const std::size_t m = p.size(), words = (m + 63) / 64, pad = 64 * words - m;
  std::vector<std::uint64_t> eq(256 * words, 0), pv(words, ~std::uint64_t{0}), mv(words, 0);
  for (std::size_t c = 0; c < 256; ++c) {
    eq[c * words] = (std::uint64_t{1} << pad) - 1;  // dummy rows match
    for (std::size_t i = 0; i < m; ++i)
      if (p.matches(p.bytes[i], static_cast<std::uint8_t>(c)))
        eq[c * words + (pad + i) / 64] |= std::uint64_t{1} << ((pad + i) % 64);
  }
  pv[0] = ~std::uint64_t{0} << pad;
  auto score = static_cast<std::int64_t>(m), low = score;
  for (const std::uint8_t c : piece) {
    const std::uint64_t* row = eq.data() + std::size_t{c} * words;
    Carry h;
    for (std::size_t w = 0; w < words; ++w) h = core::myers_step(pv[w], mv[w], row[w], h);
    score += h.value();
    low = std::min(low, score);
  }
  return static_cast<std::uint32_t>(low);
}

/// One cell of the paper's anti-diagonal wavefront: D[i][j] from D[i-1][j-1] (diagonal
/// d-2), D[i-1][j] and D[i][j-1] (diagonal d-1); column 0 is D[i][0] = i.
WARPMATCH_HD std::uint32_t wavefront_cell(std::uint32_t i, std::int64_t j, std::uint32_t up_left,
                                          std::uint32_t up, std::uint32_t left, bool same) {
  if (j == 0) return i;
  std::uint32_t v = up_left + (same ? 0u : 1u);
  if (up + 1 < v) v = up + 1;
  if (left + 1 < v) v = left + 1;
  return v;
}

}  // namespace warpmatch::cuda::logic
