// Edit-distance kernels. Included only by distance_dispatch.cu.
//
// tiles_diagonal: seed paper 001 ("Automatic parameter optimisation of edit distance on the
// GPU") — the DP table tiled into B x B blocks, one thread block per tile, the tiles of one
// anti-diagonal per launch; inside a tile thread t owns row t and the block sweeps the
// tile's own anti-diagonals (2B - 1 synchronised steps). Tile borders live in device memory:
// H[j] (bottom row of the last tile row computed in that column range), V[i] (right column
// of the last tile computed in that row range), corner[tr] (the top-left corner of the next
// tile in tile row tr, saved before H is overwritten).
//
// myers_tile_diagonal / batch: Myers/Hyyrö bit-parallel columns with 32-bit words. A group of
// G lanes owns G consecutive words (32 G rows) and runs the columns as a lane pipeline: lane l
// handles column s - l at step s, the horizontal delta leaving its word goes to lane l + 1
// by shuffle. Long pairs tile the table into (32 words) x (W columns) tiles, one warp each,
// computed as an anti-diagonal wavefront of tiles; bottom deltas in H, word states in
// global memory between tiles. Batches give each pair a group of 8, 16 or 32 lanes.
#pragma once

#include <cstdint>

namespace warpmatch::cuda::kernels {

/// One Myers/Hyyrö step of a 32-row word (same as the CPU's 64-bit one).
__device__ __forceinline__ int myers_step32(std::uint32_t& pv, std::uint32_t& mv, std::uint32_t eq, int hin) {
  const std::uint32_t hin_neg = hin < 0 ? 1u : 0u;
  const std::uint32_t xv = eq | mv;
  eq |= hin_neg;
  const std::uint32_t xh = (((eq & pv) + pv) ^ pv) | eq;
  std::uint32_t ph = mv | ~(xh | pv);
  std::uint32_t mh = pv & xh;
  const int hout = static_cast<int>(ph >> 31) - static_cast<int>(mh >> 31);
  ph <<= 1;
  mh <<= 1;
  mh |= hin_neg;
  ph |= hin > 0 ? 1u : 0u;
  pv = mh | ~(xv | ph);
  mv = ph & xv;
  return hout;
}

// ---- seed paper 001: plain-DP tiles ------------------------------------------------------

/// Tiles (tr, diag - tr) for tr = tr_first + blockIdx.x; blockDim.x == B.
/// Shared memory: (3 B + 1) int32.
__global__ void tiles_diagonal(const std::uint8_t* __restrict__ a, std::int64_t m,
                               const std::uint8_t* __restrict__ b, std::int64_t n, int B,
                               std::int64_t diag, std::int64_t tr_first, std::int32_t* __restrict__ H,
                               std::int32_t* __restrict__ V, std::int32_t* __restrict__ corner) {
  extern __shared__ std::int32_t shared[];
  std::int32_t* top = shared;            // top[c] = D[i0][j0 + c], c = 0..cols
  std::int32_t* buf0 = shared + B + 1;   // ping-pong: value of row t at the last step
  std::int32_t* buf1 = shared + 2 * B + 1;
  const std::int64_t tr = tr_first + blockIdx.x;
  const std::int64_t tc = diag - tr;
  const std::int64_t i0 = tr * B, j0 = tc * B;
  const int rows = static_cast<int>(min(static_cast<std::int64_t>(B), m - i0));
  const int cols = static_cast<int>(min(static_cast<std::int64_t>(B), n - j0));
  const int t = threadIdx.x;

  for (int c = t; c < cols; c += B) top[c + 1] = H[j0 + c + 1];
  if (t == 0) top[0] = corner[tr];
  const bool row_ok = t < rows;
  std::int32_t left = row_ok ? V[i0 + t + 1] : 0;          // D[i0 + t + 1][j0]
  std::int32_t up_left = row_ok ? (t == 0 ? 0 : V[i0 + t]) : 0;  // D[i0 + t][j0]
  const std::uint8_t a_char = row_ok ? a[i0 + t] : 0;
  __syncthreads();  // borders read before anyone overwrites V, H or corner
  if (t == 0) {
    up_left = top[0];
    corner[tr] = top[cols];  // D[i0][j0 + B]: the corner of tile (tr, tc + 1)
  }
  const int steps = rows + cols - 1;
  for (int s = 0; s < steps; ++s) {
    const int c = s - t;
    std::int32_t* cur = (s & 1) ? buf1 : buf0;
    const std::int32_t* prev = (s & 1) ? buf0 : buf1;
    if (row_ok && c >= 0 && c < cols) {
      const std::int32_t up = t == 0 ? top[c + 1] : prev[t - 1];
      const std::int32_t v = min(min(up, left) + 1, up_left + (a_char != b[j0 + c] ? 1 : 0));
      cur[t] = v;
      up_left = up;
      left = v;
      if (t == rows - 1) H[j0 + c + 1] = v;
      if (c == cols - 1) V[i0 + t + 1] = v;
    }
    __syncthreads();
  }
}

/// Border initialisation: H[j] = j, V[i] = i, corner[tr] = tr * B.
__global__ void tiles_init(std::int32_t* H, std::int64_t n, std::int32_t* V, std::int64_t m,
                           std::int32_t* corner, std::int64_t tile_rows, int B) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t x = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
       x <= max(max(n, m), tile_rows); x += stride) {
    if (x <= n) H[x] = static_cast<std::int32_t>(x);
    if (x <= m) V[x] = static_cast<std::int32_t>(x);
    if (x < tile_rows) corner[x] = static_cast<std::int32_t>(x * B);
  }
}

// ---- bit-parallel tiles ------------------------------------------------------------------

constexpr int kMyersTileColumns = 1024;   // W: columns per tile
constexpr int kMyersWarpsPerBlock = 4;
constexpr int kSharedPeqCodes = 16;       // alphabets up to this many codes keep Peq in shared

/// Tiles (s, diag - s) for s = s_first + warp index; one warp per tile of 32 words x W columns.
/// codes: text mapped to the pattern's alphabet codes; peq[code * words + w];
/// pv/mv: word states at the last column computed; H: horizontal delta (+1/0/-1) leaving
/// the bottom of the last stripe computed, per column.
template <bool kPeqInShared>
__global__ void __launch_bounds__(32 * kMyersWarpsPerBlock)
myers_tile_diagonal(const std::uint8_t* __restrict__ codes, std::int64_t n,
                    const std::uint32_t* __restrict__ peq, int peq_codes, std::int64_t words,
                    std::int64_t diag, std::int64_t s_first, std::int64_t s_last,
                    std::uint32_t* __restrict__ pv_state, std::uint32_t* __restrict__ mv_state,
                    std::int8_t* __restrict__ H) {
  __shared__ std::uint8_t text[kMyersWarpsPerBlock][kMyersTileColumns];
  __shared__ std::int8_t hbuf[kMyersWarpsPerBlock][kMyersTileColumns];
  __shared__ std::uint32_t speq[kPeqInShared ? kMyersWarpsPerBlock : 1][kPeqInShared ? kSharedPeqCodes : 1][32];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const std::int64_t s = s_first + static_cast<std::int64_t>(blockIdx.x) * kMyersWarpsPerBlock + warp;
  if (s > s_last) return;  // whole warp leaves together: no shuffles with missing lanes
  const std::int64_t c = diag - s;
  const std::int64_t j0 = c * kMyersTileColumns;
  const int cols = static_cast<int>(min(static_cast<std::int64_t>(kMyersTileColumns), n - j0));
  const std::int64_t w = s * 32 + lane;
  const bool word_ok = w < words;
  const int last_lane = static_cast<int>(min(static_cast<std::int64_t>(31), words - 1 - s * 32));

  for (int x = lane; x < cols; x += 32) {
    text[warp][x] = codes[j0 + x];
    hbuf[warp][x] = s == 0 ? std::int8_t{1} : H[j0 + x];  // row 0: D[0][j] - D[0][j-1] = 1
  }
  if constexpr (kPeqInShared) {
    for (int code = 0; code < peq_codes; ++code) speq[warp][code][lane] = word_ok ? peq[code * words + w] : 0u;
  }
  std::uint32_t pv = word_ok ? pv_state[w] : 0u;
  std::uint32_t mv = word_ok ? mv_state[w] : 0u;
  __syncwarp();

  int from_above = 0;  // hout of lane - 1 at the previous step
  const int steps = cols + 31;
  for (int step = 0; step < steps; ++step) {
    const int j = step - lane;
    int hout = 0;
    if (j >= 0 && j < cols) {
      const int code = text[warp][j];
      std::uint32_t eq;
      if constexpr (kPeqInShared) eq = speq[warp][code][lane];
      else eq = word_ok ? __ldg(peq + code * words + w) : 0u;
      const int hin = lane == 0 ? hbuf[warp][j] : from_above;
      hout = myers_step32(pv, mv, eq, hin);
      if (lane == last_lane) hbuf[warp][j] = static_cast<std::int8_t>(hout);
    }
    from_above = __shfl_up_sync(0xffffffffu, hout, 1);
  }
  __syncwarp();
  for (int x = lane; x < cols; x += 32) H[j0 + x] = hbuf[warp][x];
  if (word_ok) {
    pv_state[w] = pv;
    mv_state[w] = mv;
  }
}

// ---- batches: one group of G lanes per pair ----------------------------------------------

struct BatchPair {
  std::int64_t a_offset, a_length;  // the pattern: the shorter string, <= 32 G bytes
  std::int64_t b_offset, b_length;  // the text
};

/// Match mask of byte c in the 32 pattern bytes packed in p[0..7] (byte r of the word is
/// byte r % 4 of p[r / 4]); bit r set when pattern row r equals c.
__device__ __forceinline__ std::uint32_t match_mask(const std::uint32_t (&p)[8], std::uint32_t c) {
  const std::uint32_t rep = c * 0x01010101u;
  std::uint32_t mask = 0;
#pragma unroll
  for (int q = 0; q < 8; ++q) {
    const std::uint32_t eq = __vcmpeq4(p[q], rep) & 0x80808080u;  // 0x80 in each equal byte
    mask |= ((eq * 0x00204081u) >> 28) << (4 * q);                 // gather the 4 high bits
  }
  return mask;
}

template <int G>
__global__ void __launch_bounds__(256)
myers_batch(const std::uint8_t* __restrict__ bytes, const BatchPair* __restrict__ pairs, std::int64_t count,
            std::int64_t* __restrict__ distances) {
  constexpr int kGroupsPerWarp = 32 / G;
  const std::int64_t warp_global = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const int lane = threadIdx.x & 31;
  const int group = lane / G, glane = lane % G;
  const std::int64_t pair_index = warp_global * kGroupsPerWarp + group;
  if (warp_global * kGroupsPerWarp >= count) return;  // whole warp: nothing to do
  const bool pair_ok = pair_index < count;
  BatchPair p{0, 0, 0, 0};
  if (pair_ok) p = pairs[pair_index];

  // The lane's word: pattern rows 32 glane .. 32 glane + 31.
  std::uint32_t packed[8];
  const std::int64_t row0 = 32 * static_cast<std::int64_t>(glane);
  const std::uint8_t* a = bytes + p.a_offset;
#pragma unroll
  for (int q = 0; q < 8; ++q) {
    std::uint32_t v = 0;
#pragma unroll
    for (int r = 0; r < 4; ++r) {
      const std::int64_t row = row0 + 4 * q + r;
      if (row < p.a_length) v |= static_cast<std::uint32_t>(a[row]) << (8 * r);
    }
    packed[q] = v;
  }
  const std::int64_t rows_here =
      max(static_cast<std::int64_t>(0), min(static_cast<std::int64_t>(32), p.a_length - row0));
  const std::uint32_t valid = rows_here >= 32 ? 0xffffffffu : ((1u << rows_here) - 1u);
  std::uint32_t pv = 0xffffffffu, mv = 0;

  // Every lane of the warp runs the longest group's step count (shuffles need them all).
  std::int64_t steps = p.b_length + G - 1;
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) steps = max(steps, static_cast<std::int64_t>(__shfl_xor_sync(0xffffffffu, steps, off)));
  const std::uint8_t* b = bytes + p.b_offset;
  int from_above = 0;
  for (std::int64_t step = 0; step < steps; ++step) {
    const std::int64_t j = step - glane;
    int hout = 0;
    if (j >= 0 && j < p.b_length) {
      const std::uint32_t eq = match_mask(packed, b[j]) & valid;
      const int hin = glane == 0 ? 1 : from_above;
      hout = myers_step32(pv, mv, eq, hin);
    }
    from_above = __shfl_up_sync(0xffffffffu, hout, 1, G);
  }
  // D[m][n] = D[0][n] + the vertical deltas of rows 1..m at column n.
  int vsum = __popc(pv & valid) - __popc(mv & valid);
#pragma unroll
  for (int off = G / 2; off > 0; off >>= 1) vsum += __shfl_xor_sync(0xffffffffu, vsum, off, G);
  if (pair_ok && glane == 0) distances[pair_index] = p.b_length + vsum;
}

// ---- batches: one THREAD per pair (short patterns over small alphabets) -------------------
//
// Why: with 100-300 byte strings a pair has only 4-10 32-bit words, so the lane-group
// pipeline above keeps a group of 8-16 lanes mostly idle (the G - 1 fill/drain steps, the
// lanes past the pattern's last word) and pays a shuffle plus an 8-compare match_mask per
// word and column. Here one thread owns a whole pair: the pattern (<= 320 rows, up to 10
// 32-bit words) and its Peq live in registers, the text is streamed 4 bytes per load (the
// host aligns every string to 4 bytes) and the horizontal carry goes from word to word in
// the same thread (no shuffles, no pipeline fill). Peq is built per thread for patterns of
// at most kThreadMaxSigma distinct bytes (DNA); a pattern with more writes kThreadNeedsGroup
// and the host reruns it on the lane-group kernel. Same recurrence, same result.
constexpr int kThreadMaxWords = 10;     // 320 pattern rows
constexpr int kThreadMaxSigma = 4;      // distinct pattern bytes whose Peq rows stay in registers
constexpr int kThreadBlock = 128;
constexpr std::int64_t kThreadNeedsGroup = -2;

__global__ void __launch_bounds__(kThreadBlock)
myers_thread_batch(const std::uint8_t* __restrict__ bytes, const BatchPair* __restrict__ pairs,
                   std::int64_t count, std::int64_t* __restrict__ distances) {
  const std::int64_t index = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (index >= count) return;  // no shuffles here: threads may leave alone
  const BatchPair p = pairs[index];
  const int m = static_cast<int>(p.a_length);  // the shorter string, <= 32 kThreadMaxWords
  const std::int64_t n = p.b_length;
  if (m == 0) {
    distances[index] = n;
    return;
  }
  const std::uint8_t* __restrict__ a = bytes + p.a_offset;
  // Pattern alphabet (values > 255 never match a byte) and Peq rows, all in registers.
  std::uint32_t alpha[kThreadMaxSigma];
  std::uint32_t peq[kThreadMaxSigma][kThreadMaxWords];
#pragma unroll
  for (int s = 0; s < kThreadMaxSigma; ++s) {
    alpha[s] = 0x100u;
#pragma unroll
    for (int w = 0; w < kThreadMaxWords; ++w) peq[s][w] = 0;
  }
  int sigma = 0;
  bool fits = true;
#pragma unroll
  for (int w = 0; w < kThreadMaxWords; ++w) {
    const int rows = fits ? min(32, m - 32 * w) : 0;
    for (int r = 0; r < rows; ++r) {
      const std::uint32_t c = a[32 * w + r];
      int code = -1;
#pragma unroll
      for (int s = 0; s < kThreadMaxSigma; ++s)
        if (alpha[s] == c) code = s;
      if (code < 0) {
        if (sigma == kThreadMaxSigma) {
          fits = false;
          break;
        }
#pragma unroll
        for (int s = 0; s < kThreadMaxSigma; ++s)
          if (s == sigma) alpha[s] = c;
        code = sigma++;
      }
#pragma unroll
      for (int s = 0; s < kThreadMaxSigma; ++s)
        if (s == code) peq[s][w] |= 1u << r;
    }
  }
  if (!fits) {
    distances[index] = kThreadNeedsGroup;
    return;
  }
  const int words = (m + 31) / 32;
  std::uint32_t pv[kThreadMaxWords], mv[kThreadMaxWords];
#pragma unroll
  for (int w = 0; w < kThreadMaxWords; ++w) {
    pv[w] = 0xffffffffu;
    mv[w] = 0;
  }
  const std::uint32_t* __restrict__ b4 = reinterpret_cast<const std::uint32_t*>(bytes + p.b_offset);
  for (std::int64_t j0 = 0; j0 < n; j0 += 4) {
    const std::uint32_t chunk = __ldg(b4 + (j0 >> 2));
    const int here = static_cast<int>(min(static_cast<std::int64_t>(4), n - j0));
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      if (k < here) {
        const std::uint32_t c = (chunk >> (8 * k)) & 0xffu;
        std::uint32_t sel[kThreadMaxSigma];
#pragma unroll
        for (int s = 0; s < kThreadMaxSigma; ++s) sel[s] = alpha[s] == c ? 0xffffffffu : 0u;
        int h = 1;  // row 0: D[0][j] - D[0][j-1] = 1
#pragma unroll
        for (int w = 0; w < kThreadMaxWords; ++w) {
          if (w < words) {
            std::uint32_t eq = 0;
#pragma unroll
            for (int s = 0; s < kThreadMaxSigma; ++s) eq |= peq[s][w] & sel[s];
            h = myers_step32(pv[w], mv[w], eq, h);
          }
        }
      }
    }
  }
  // D[m][n] = D[0][n] + the vertical deltas of rows 1..m at column n.
  std::int64_t distance = n;
#pragma unroll
  for (int w = 0; w < kThreadMaxWords; ++w) {
    if (w < words) {
      const int rows = min(32, m - 32 * w);
      const std::uint32_t valid = rows >= 32 ? 0xffffffffu : ((1u << rows) - 1u);
      distance += __popc(pv[w] & valid) - __popc(mv[w] & valid);
    }
  }
  distances[index] = distance;
}

}  // namespace warpmatch::cuda::kernels
