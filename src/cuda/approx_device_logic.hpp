// Per-thread logic of the CUDA approximate-search kernels, written once as plain inline
// functions (host + device) so that tests/test_approx_emulation.cpp can run the very same
// index arithmetic on the CPU, lane by lane in lockstep, against the reference DP.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define WARPMATCH_HD __host__ __device__ __forceinline__
#else
#define WARPMATCH_HD inline
#endif

namespace warpmatch::cuda::logic {

/// One column step of a 32-row block of Myers' bit-vector algorithm (Hyyro's form): pv/mv
/// vertical +1/-1 deltas, eq the match mask of the text byte, hin in {-1, 0, +1} the
/// horizontal delta entering the top row. Returns the delta leaving row `hbit`.
WARPMATCH_HD int advance_word(std::uint32_t& pv, std::uint32_t& mv, std::uint32_t eq, int hin,
                              unsigned hbit) {
  const std::uint32_t hin_negative = hin < 0 ? 1u : 0u;
  const std::uint32_t xv = eq | mv;
  eq |= hin_negative;
  const std::uint32_t xh = (((eq & pv) + pv) ^ pv) | eq;
  std::uint32_t ph = mv | ~(xh | pv);
  std::uint32_t mh = pv & xh;
  const int hout = static_cast<int>((ph >> hbit) & 1u) - static_cast<int>((mh >> hbit) & 1u);
  ph <<= 1;
  mh <<= 1;
  mh |= hin_negative;
  ph |= hin > 0 ? 1u : 0u;
  pv = mh | ~(xv | ph);
  mv = ph & xv;
  return hout;
}

/// How the Myers kernel lays one pattern over a warp: `words` 32-bit words; a group of
/// `group` lanes (a power of two <= 32) pipelines one text chunk, lane g holding words
/// [g * per_lane, (g + 1) * per_lane); 32 / group groups per warp.
struct MyersShape {
  std::uint32_t m = 0;
  std::uint32_t words = 0;
  std::uint32_t group = 1;
  std::uint32_t per_lane = 1;
};

inline MyersShape myers_shape(std::uint32_t m) {
  MyersShape s;
  s.m = m;
  s.words = (m + 31) / 32;
  if (s.words <= 32) {
    while (s.group < s.words) s.group *= 2;
    s.per_lane = 1;
  } else {
    s.group = 32;
    s.per_lane = (s.words + 31) / 32;
  }
  return s;
}

/// The chunk of owned columns (ends - 1) that group `group_index` handles, in the
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

/// Highest bit of word w that is a real pattern row.
WARPMATCH_HD unsigned word_hbit(std::uint32_t w, std::uint32_t words, std::uint32_t m) {
  return w + 1 == words ? (m - 1) % 32 : 31;
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
