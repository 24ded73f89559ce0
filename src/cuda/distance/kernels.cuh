// Edit-distance kernels. Included only by dispatch.cu (same folder).
//
// tiles_diagonal: seed paper 001 ("Automatic parameter optimisation of edit distance on the
// GPU") — the DP table tiled into B x B blocks, one thread block per tile, the tiles of one
// anti-diagonal per launch; inside a tile thread t owns row t and the block sweeps the
// tile's own anti-diagonals (2B - 1 synchronised steps). Tile borders live in device memory:
// H[j] (bottom row of the last tile row computed in that column range), V[i] (right column
// of the last tile computed in that row range), corner[tr] (the top-left corner of the next
// tile in tile row tr, saved before H is overwritten).
//
// myers_stripe / batch: Myers/Hyyrö bit-parallel columns with 32-bit words (core::myers_step).
// A group of G lanes owns G consecutive words (32 G rows) and runs the columns as a lane
// pipeline, the horizontal delta leaving a lane's word going to the next lane by shuffle. Long pairs cut
// the rows into stripes of 32 words, one persistent warp each, chained by their bottom
// deltas (see myers_stripe); batches give each pair a group of 8, 16 or 32 lanes or a thread.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "core/myers_step.hpp"

namespace warpmatch::cuda::kernels {

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

// ---- bit-parallel stripes: one persistent warp per stripe, one launch per pass ----------
//
// A stripe is 32 words (1024 rows, lane l owns word 32 s + l) that sweeps its whole column
// range in one warp. Lane l runs kLaneSkew columns behind lane l - 1, so the horizontal delta
// a lane hands down by shuffle is needed two steps later: the shuffle's latency overlaps the
// next step. Measured on the H200: a lone warp takes ~63 cycles a step (about 20 integer
// instructions, partly dependent); with the ~1000 stripes of a 1M x 1M pair resident at once
// (7-8 warps per SM) the SMs' integer pipes stretch it to ~100. Stripe s reads the
// bottom deltas of stripe s - 1 from a ring of tagged bytes (tag = column lap parity, so no
// fence or flag is needed: a byte is valid when its tag is the one expected) and writes its own
// bottom deltas into the ring read by stripe s + 1; the consumer publishes how far it has
// read (back-pressure, the ring holds kRingColumns columns). All stripes of a pass are
// co-resident (cooperative launch), so a wait always ends; a pass hands its last stripe's bottom
// row to the next pass through a full-length edge buffer.
//
// Band (Ukkonen): with a bound k, stripe s computes only the columns (c_lo, c_hi] that can lie
// on a path of cost <= k, starting from the over-estimate "vertical deltas +1" at c_lo and
// reading "+1" top deltas past the previous stripe's c_hi. Every value is then >= the true
// one and exact along an optimal path of cost <= k; D[m][n] = n + the sum over the stripes of
// the vertical deltas at each stripe's last column (the +1 extensions telescope). The band
// cuts the work, not the wavefront: stripe s starts 1024 columns right of stripe s - 1, so
// one pair still takes about m + (band width) steps.

constexpr int kStripeRows = 1024;          // 32 lanes x 32-bit words
constexpr int kLaneSkew = 2;               // columns between adjacent lanes (1 or 2)
constexpr int kStripeBlock = 32;           // steps per staging/publishing block (a multiple of 32)
constexpr int kRingColumns = 4096;         // tagged bottom deltas per stripe boundary (> 2 blocks)
constexpr int kStripeSharedPeqCodes = 32;  // up to this many codes Peq sits in shared

/// lane 31's delay behind lane 0, and the text codes a block's steps read (all lanes).
template <int kSkew> constexpr int pipeline_lag = kSkew * 31;
template <int kBlock> constexpr int text_stage = kBlock + 64;

/// Columns [lo, hi) of the text that stripe s processes: all of them, or the band's.
/// band < 0: no band; else the half-width e = (k - (n - m)) / 2 (n >= m).
__host__ __device__ inline void stripe_columns(std::int64_t s, std::int64_t m, std::int64_t n, std::int64_t band,
                                               std::int64_t* lo, std::int64_t* hi) {
  if (band < 0) {
    *lo = 0;
    *hi = n;
    return;
  }
  const std::int64_t i0 = s * kStripeRows;
  *lo = i0 - band > 0 ? i0 - band : 0;
  const std::int64_t end = i0 + kStripeRows + (n - m) + band;
  *hi = end < n ? end : n;
}

/// Ring byte for delta h at column j: 1..3 on even laps of the ring, 4..6 on odd ones; 0 = unwritten.
__device__ __forceinline__ std::uint8_t ring_tag(int h, std::int64_t j) {
  return static_cast<std::uint8_t>(2 + h + 3 * ((j / kRingColumns) & 1));
}

struct StripePass {
  const std::uint8_t* codes;       // text mapped to pattern codes, n
  std::int64_t m, n;               // pattern rows, text columns (m <= n)
  const std::uint32_t* peq;        // peq[code * words + w]
  int peq_codes;
  std::int64_t words;
  std::int64_t band;               // see stripe_columns
  std::int64_t stripe_first;       // stripes stripe_first .. + gridDim.x - 1 in this pass
  const std::int8_t* edge_in;      // bottom deltas of stripe stripe_first - 1 (nullptr: row 0)
  std::int8_t* edge_out;           // this pass's last stripe's bottom deltas (nullptr: not needed)
  std::uint8_t* ring;              // (gridDim.x - 1) x kRingColumns, zeroed before the pass
  long long* consumed;             // per ring: columns below this were read by the consumer, zeroed
  unsigned long long* vertical_sum;  // += each stripe's vertical deltas at its last column (mod 2^64)
};

__device__ __forceinline__ long long volatile_load(const long long* p) {
  return *static_cast<const volatile long long*>(p);
}

/// The lane's match word for text code `code`: Peq in shared is [code][lane] (128 bytes a
/// code), in global [code][word].
template <bool kPeqInShared>
__device__ __forceinline__ std::uint32_t lane_peq(const std::uint32_t* peq_lane, int peq_stride, int code) {
  if constexpr (kPeqInShared) return peq_lane[code * 32];
  else return __ldg(peq_lane + static_cast<std::int64_t>(code) * peq_stride);
}

/// Steps t0 .. t0 + kBlock - 1 of a stripe (lane l on column c_lo + t - kSkew l, offset
/// rel0 + u from c_lo at step t0 + u). kChecked: offsets outside [0, cols) keep the state
/// and hand down 0. from_above[t % kSkew]: the delta received by shuffle kSkew steps before.
/// Each 32-step chunk first loads its match words and lane 0's top deltas into registers,
/// so that no shared load waits behind the previous step's shared store of `out`.
template <bool kChecked, bool kPeqInShared, int kBlock, int kSkew>
__device__ __forceinline__ void stripe_block(std::uint32_t& pv, std::uint32_t& mv, int (&from_above)[kSkew],
                                             const std::uint8_t* text_lane, const std::int8_t* top,
                                             std::int8_t* out, const std::uint32_t* peq_lane, int peq_stride,
                                             int lane, std::int64_t rel0, std::int64_t cols) {
#pragma unroll 1
  for (int u0 = 0; u0 < kBlock; u0 += 32) {
    std::uint32_t eq[32], top4[8];
#pragma unroll
    for (int u = 0; u < 32; ++u) eq[u] = lane_peq<kPeqInShared>(peq_lane, peq_stride, text_lane[u0 + u]);
#pragma unroll
    for (int x = 0; x < 8; ++x) top4[x] = reinterpret_cast<const std::uint32_t*>(top + u0)[x];
#pragma unroll
    for (int u = 0; u < 32; ++u) {
      const int from_top = static_cast<std::int8_t>(top4[u / 4] >> (8 * (u % 4)));
      const int hin = lane == 0 ? from_top : from_above[u % kSkew];
      int h;
      if constexpr (kChecked) {
        std::uint32_t npv = pv, nmv = mv;
        h = core::myers_step(npv, nmv, eq[u], hin);
        const std::int64_t rel = rel0 + u0 + u;
        const bool inside = rel >= 0 && rel < cols;
        pv = inside ? npv : pv;
        mv = inside ? nmv : mv;
        h = inside ? h : 0;
      } else {
        h = core::myers_step(pv, mv, eq[u], hin);
      }
      if (lane == 31) out[u0 + u] = static_cast<std::int8_t>(h);
      from_above[u % kSkew] = __shfl_up_sync(0xffffffffu, h, 1);
    }
  }
}

template <bool kPeqInShared, int kBlock = kStripeBlock, int kSkew = kLaneSkew>
__global__ void __launch_bounds__(32) myers_stripe(const StripePass p) {
  constexpr int kPipelineLag = pipeline_lag<kSkew>, kTextStage = text_stage<kBlock>;
  extern __shared__ std::uint32_t stripe_shared[];
  std::uint32_t* speq = stripe_shared;  // [code][lane] when kPeqInShared
  std::uint8_t* text = reinterpret_cast<std::uint8_t*>(stripe_shared + (kPeqInShared ? p.peq_codes * 32 : 0));
  std::int8_t* top = reinterpret_cast<std::int8_t*>(text + kTextStage);  // lane 0's top deltas, per step
  std::int8_t* out = top + kBlock;                                        // lane 31's bottom deltas, per step

  const int lane = threadIdx.x;
  const std::int64_t q = blockIdx.x;  // stripe within the pass
  const std::int64_t s = p.stripe_first + q;
  const bool last_in_pass = q + 1 == gridDim.x;
  std::int64_t c_lo, c_hi;
  stripe_columns(s, p.m, p.n, p.band, &c_lo, &c_hi);
  const std::int64_t cols = c_hi - c_lo;
  // Top deltas come from stripe s - 1 for columns below its c_hi, "+1" beyond (and for row 0).
  std::int64_t top_hi = c_lo;
  if (s > 0) {
    std::int64_t lo_above;
    stripe_columns(s - 1, p.m, p.n, p.band, &lo_above, &top_hi);
  }
  const std::uint8_t* ring_in = q > 0 ? p.ring + (q - 1) * kRingColumns : nullptr;
  const std::int8_t* edge_in = q == 0 ? p.edge_in : nullptr;
  if (q == 0 && !edge_in) top_hi = c_lo;  // row 0: all +1
  std::uint8_t* ring_out = last_in_pass ? nullptr : p.ring + q * kRingColumns;
  std::int8_t* edge_out = last_in_pass ? p.edge_out : nullptr;

  const std::int64_t w = s * 32 + lane;
  const bool word_ok = w < p.words;
  const std::uint32_t* peq_lane;
  int peq_stride = 0;
  if constexpr (kPeqInShared) {
    for (int code = 0; code < p.peq_codes; ++code) speq[code * 32 + lane] = word_ok ? p.peq[code * p.words + w] : 0u;
    peq_lane = speq + lane;
  } else {
    peq_lane = p.peq + (word_ok ? w : 0);  // words past the pattern: eq garbage, rows masked at the end
    peq_stride = static_cast<int>(p.words);
  }
  if (ring_in && lane == 0) *reinterpret_cast<volatile long long*>(p.consumed + q - 1) = c_lo;

  // Staging of block t0 (steps t0 .. t0 + kBlock - 1): text codes of columns
  // c_lo + t0 - kPipelineLag + x for x < kTextStage, top deltas of columns c_lo + t0 + x.
  constexpr int kTextPerLane = kTextStage / 32, kTopPerLane = kBlock / 32;
  std::uint8_t text_next[kTextPerLane];
  std::uint8_t top_next[kTopPerLane];  // raw: a ring tag, or an edge / constant delta + 2
  auto fetch = [&](std::int64_t t0) {
#pragma unroll
    for (int i = 0; i < kTextPerLane; ++i) {
      const std::int64_t j = c_lo + t0 - kPipelineLag + lane + 32 * i;
      text_next[i] = j >= 0 && j < p.n ? p.codes[j] : 0;
    }
#pragma unroll
    for (int i = 0; i < kTopPerLane; ++i) {
      const std::int64_t j = c_lo + t0 + lane + 32 * i;
      if (j >= top_hi) top_next[i] = 3;  // +1
      else if (ring_in) top_next[i] = static_cast<const volatile std::uint8_t*>(ring_in)[j % kRingColumns];
      else top_next[i] = static_cast<std::uint8_t>(edge_in[j] + 2);
    }
  };
  auto commit = [&](std::int64_t t0) {  // waits for the ring's bytes, then stores the block
#pragma unroll
    for (int i = 0; i < kTopPerLane; ++i) {
      const std::int64_t j = c_lo + t0 + lane + 32 * i;
      int delta = top_next[i] - 2;
      if (ring_in && j < top_hi) {
        const std::uint8_t lap_base = static_cast<std::uint8_t>(3 * ((j / kRingColumns) & 1));
        std::uint8_t v = top_next[i];
        while (static_cast<std::uint8_t>(v - lap_base - 1) >= 3) {
          __nanosleep(64);
          v = static_cast<const volatile std::uint8_t*>(ring_in)[j % kRingColumns];
        }
        delta = v - lap_base - 2;
      }
      top[lane + 32 * i] = static_cast<std::int8_t>(delta);
    }
#pragma unroll
    for (int i = 0; i < kTextPerLane; ++i) text[lane + 32 * i] = text_next[i];
    __syncwarp();
    if (ring_in && lane == 0)
      *reinterpret_cast<volatile long long*>(p.consumed + q - 1) = c_lo + t0 + kBlock;
  };

  std::uint32_t pv = 0xffffffffu, mv = 0;  // column c_lo: vertical deltas +1
  int from_above[kSkew] = {};
  const std::int64_t steps = cols + kPipelineLag;
  fetch(0);
  commit(0);
  for (std::int64_t t0 = 0; t0 < steps; t0 += kBlock) {
    const bool more = t0 + kBlock < steps;
    if (more) fetch(t0 + kBlock);
    long long consumed = ring_out ? volatile_load(p.consumed + q) : 0;
    const std::uint8_t* text_lane = text + kPipelineLag - kSkew * lane;
    const std::int64_t rel0 = t0 - kSkew * lane;
    if (t0 >= kPipelineLag && t0 + kBlock <= cols)
      stripe_block<false, kPeqInShared, kBlock, kSkew>(pv, mv, from_above, text_lane, top, out, peq_lane, peq_stride,
                                                      lane, rel0, cols);
    else
      stripe_block<true, kPeqInShared, kBlock, kSkew>(pv, mv, from_above, text_lane, top, out, peq_lane, peq_stride,
                                                     lane, rel0, cols);
    __syncwarp();
    // Publish lane 31's columns c_lo + t0 - kPipelineLag + x that lie in [c_lo, c_hi).
    const std::int64_t first = c_lo + t0 - kPipelineLag;
    if (ring_out) {
      const std::int64_t need = first + kBlock - kRingColumns;  // ring slots free below this
      while (consumed < need) {
        __nanosleep(64);
        consumed = volatile_load(p.consumed + q);
      }
      volatile std::uint8_t* ring = ring_out;
#pragma unroll
      for (int i = 0; i < kTopPerLane; ++i) {
        const std::int64_t j = first + lane + 32 * i;
        if (j >= c_lo && j < c_hi) ring[j % kRingColumns] = ring_tag(out[lane + 32 * i], j);
      }
    } else if (edge_out) {
#pragma unroll
      for (int i = 0; i < kTopPerLane; ++i) {
        const std::int64_t j = first + lane + 32 * i;
        if (j >= c_lo && j < c_hi) edge_out[j] = out[lane + 32 * i];
      }
    }
    __syncwarp();  // `out` and the staging buffers are rewritten next
    if (more) commit(t0 + kBlock);
  }
  // Vertical deltas of the stripe's real rows at its last column.
  const std::int64_t rows = p.m - w * 32;
  const std::uint32_t valid = rows >= 32 ? 0xffffffffu : rows <= 0 ? 0u : (1u << rows) - 1u;
  int vsum = __popc(pv & valid) - __popc(mv & valid);
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) vsum += __shfl_xor_sync(0xffffffffu, vsum, off);
  if (lane == 0) atomicAdd(p.vertical_sum, static_cast<unsigned long long>(static_cast<long long>(vsum)));
}

/// Shared memory of one myers_stripe block.
template <int kBlock = kStripeBlock>
std::size_t stripe_shared_bytes(bool peq_in_shared, int peq_codes) {
  return (peq_in_shared ? static_cast<std::size_t>(peq_codes) * 32 * 4 : 0) + text_stage<kBlock> + 2 * kBlock;
}

/// Host: the stripes' inputs for strings a (the pattern, the shorter) and b, bound k (< 0:
/// none; n - m <= k). Text bytes absent from the pattern share one code with a zero Peq row
/// (when all 256 byte values occur, no such code is needed and codes fit a byte).
struct StripeInput {
  std::int64_t m = 0, n = 0, words = 0;
  std::int64_t band = -1;  // see stripe_columns
  int peq_codes = 0;
  std::vector<std::uint32_t> peq;   // [code][word]
  std::vector<std::uint8_t> codes;  // the text as codes
};
inline StripeInput make_stripe_input(const std::uint8_t* a, std::int64_t m, const std::uint8_t* b, std::int64_t n,
                                     std::int64_t k) {
  StripeInput in;
  in.m = m;
  in.n = n;
  in.band = k >= 0 ? (k - (n - m)) / 2 : -1;
  if (in.band >= m) in.band = -1;  // the band covers the whole table
  in.words = (m + 31) / 32;
  std::array<int, 256> code{};
  std::array<bool, 256> seen{};
  for (std::int64_t i = 0; i < m; ++i) seen[a[i]] = true;
  int sigma = 0;
  for (int c = 0; c < 256; ++c)
    if (seen[c]) code[c] = sigma++;
  const int absent = std::min(sigma, 255);
  for (int c = 0; c < 256; ++c)
    if (!seen[c]) code[c] = absent;
  in.peq_codes = std::min(sigma + 1, 256);
  in.peq.assign(static_cast<std::size_t>(in.peq_codes) * in.words, 0);
  for (std::int64_t i = 0; i < m; ++i) in.peq[code[a[i]] * in.words + i / 32] |= 1u << (i % 32);
  in.codes.resize(n);
  for (std::int64_t j = 0; j < n; ++j) in.codes[j] = static_cast<std::uint8_t>(code[b[j]]);
  return in;
}

/// Host: the arguments of pass `pass`, stripes [first, first + count) of `stripes`, over the
/// device copies of the codes and Peq; `edges` holds two rows of n deltas (one read, one
/// written per pass), `ring` (count - 1) x kRingColumns and `consumed` count entries, both
/// zeroed before the pass.
inline StripePass make_stripe_pass(const StripeInput& in, const std::uint8_t* codes, const std::uint32_t* peq,
                                   std::int64_t stripes, std::int64_t first, std::int64_t count, std::int64_t pass,
                                   std::int8_t* edges, std::uint8_t* ring, long long* consumed,
                                   unsigned long long* vertical_sum) {
  StripePass p{};
  p.codes = codes;
  p.m = in.m;
  p.n = in.n;
  p.peq = peq;
  p.peq_codes = in.peq_codes;
  p.words = in.words;
  p.band = in.band;
  p.stripe_first = first;
  p.edge_in = pass > 0 ? edges + ((pass + 1) % 2) * in.n : nullptr;
  p.edge_out = first + count < stripes ? edges + (pass % 2) * in.n : nullptr;
  p.ring = ring;
  p.consumed = consumed;
  p.vertical_sum = vertical_sum;
  return p;
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
      hout = core::myers_step(pv, mv, eq, hin);
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
            h = core::myers_step(pv[w], mv[w], eq, h);
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

/// A cross product's pairs written on the device: pair i * nb + j is (strings[i], strings[na + j])
/// with the shorter string as the pattern, as the host packs a pair. `strings` holds
/// (offset, length) per string into the uploaded bytes: A's na strings, then B's nb. Only the
/// string table crosses the bus, not a 32-byte record per pair.
struct StringRef {
  std::int64_t offset, length;
};
__global__ void matrix_pairs(const StringRef* __restrict__ strings, std::int64_t na, std::int64_t nb,
                             BatchPair* __restrict__ pairs) {
  const std::int64_t index = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (index >= na * nb) return;
  StringRef x = strings[index / nb], y = strings[na + index % nb];
  if (x.length > y.length) {
    const StringRef t = x;
    x = y;
    y = t;
  }
  pairs[index] = BatchPair{x.offset, x.length, y.offset, y.length};
}

}  // namespace warpmatch::cuda::kernels
