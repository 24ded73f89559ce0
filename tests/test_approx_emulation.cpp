// CPU emulation of the CUDA approximate-search kernels (src/cuda/approx_kernels.cuh): the
// same per-lane / per-thread logic (src/cuda/approx_device_logic.hpp) run lane by lane in
// lockstep, with __shfl_up_sync emulated, against the reference DP. Runs on every machine,
// so the kernels' index arithmetic (chunks, pipeline skew, word layout, the last word's bit,
// the wavefront's rolling diagonals) is checked even where no GPU is present.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <random>
#include <vector>

#include "core/approx_align.hpp"
#include "cuda/approx_device_logic.hpp"

namespace core = warpmatch::core;
namespace logic = warpmatch::cuda::logic;
using Bytes = std::vector<std::uint8_t>;

namespace {

std::uint32_t template_per_lane(std::uint32_t per_lane) {
  for (std::uint32_t q : {1u, 2u, 4u, 8u, 16u, 32u})
    if (per_lane <= q) return q;
  return 0;
}

/// myers_kernel<Q> for owned columns [0, n), one warp at a time, lanes in lockstep.
std::vector<std::uint32_t> emulate_myers(const core::ApproxPattern& p, const Bytes& text,
                                         std::uint64_t chunk, std::uint64_t overlap) {
  const auto m = static_cast<std::uint32_t>(p.size());
  const logic::MyersShape s = logic::myers_shape(m);
  const std::uint32_t Q = template_per_lane(s.per_lane);
  std::vector<std::uint32_t> peq(256 * static_cast<std::size_t>(s.words), 0);
  for (int c = 0; c < 256; ++c)
    for (std::uint32_t i = 0; i < m; ++i)
      if (p.bytes[i] == p.text_byte(static_cast<std::uint8_t>(c))) peq[c * s.words + i / 32] |= 1u << (i % 32);
  const std::uint64_t n = text.size();
  std::vector<std::uint32_t> dist(n, 0xdeadbeef);
  const std::uint64_t groups = (n + chunk - 1) / chunk;
  const std::uint64_t per_warp = 32 / s.group;
  const std::uint64_t warps = (groups + per_warp - 1) / per_warp;
  for (std::uint64_t warp = 0; warp < warps; ++warp) {
    struct Lane {
      logic::ChunkSpan ch;
      unsigned g = 0;
      std::vector<std::uint32_t> pv, mv;
      bool holds_last = false;
      int score = 0, carry = 0;
    };
    std::vector<Lane> lanes(32);
    unsigned warp_span = 0;
    for (unsigned lane = 0; lane < 32; ++lane) {
      Lane& L = lanes[lane];
      L.g = lane & (s.group - 1);
      L.ch = logic::chunk_of(warp * per_warp + lane / s.group, 0, n, chunk, overlap);
      warp_span = std::max(warp_span, L.ch.empty ? 0u : static_cast<unsigned>(L.ch.own_end - L.ch.from));
      L.pv.assign(Q, 0xffffffffu);
      L.mv.assign(Q, 0);
      L.holds_last = (s.words - 1) / Q == L.g;
      L.score = static_cast<int>(m);
    }
    if (warp_span == 0) continue;
    const unsigned steps = warp_span + s.group - 1;
    for (unsigned t = 0; t < steps; ++t) {
      std::vector<int> from_above(32);
      for (unsigned lane = 0; lane < 32; ++lane)  // __shfl_up_sync(mask, carry, 1, group)
        from_above[lane] = (lane % s.group) >= 1 ? lanes[lane - 1].carry : lanes[lane].carry;
      for (unsigned lane = 0; lane < 32; ++lane) {
        Lane& L = lanes[lane];
        const std::int64_t c = static_cast<std::int64_t>(L.ch.from) + t - L.g;
        if (L.ch.empty || c < static_cast<std::int64_t>(L.ch.from) || c >= static_cast<std::int64_t>(L.ch.own_end))
          continue;
        int h = L.g == 0 ? 0 : from_above[lane];
        const std::uint32_t* eq_row = peq.data() + static_cast<std::uint32_t>(text[c]) * s.words;
        for (std::uint32_t q = 0; q < Q; ++q) {
          const std::uint32_t w = L.g * Q + q;
          if (w < s.words) h = logic::advance_word(L.pv[q], L.mv[q], eq_row[w], h, logic::word_hbit(w, s.words, m));
        }
        L.carry = h;
        if (L.holds_last) {
          L.score += h;
          if (static_cast<std::uint64_t>(c) >= L.ch.own_begin) dist[c] = static_cast<std::uint32_t>(L.score);
        }
      }
    }
  }
  return dist;
}

/// wavefront_kernel for owned columns [0, n) in `pieces` pieces; also the pieces' minima.
std::vector<std::uint32_t> emulate_wavefront(const core::ApproxPattern& p, const Bytes& text,
                                             std::uint64_t pieces, std::uint64_t overlap,
                                             std::uint32_t* best) {
  const auto m = static_cast<std::uint32_t>(p.size());
  const std::uint64_t n = text.size();
  const std::uint64_t piece = (n + pieces - 1) / pieces;
  pieces = (n + piece - 1) / piece;
  const std::uint32_t threads = std::min<std::uint32_t>(1024, (m + 31) / 32 * 32);
  std::vector<std::uint32_t> dist(n, 0xdeadbeef);
  *best = UINT_MAX;
  for (std::uint64_t block = 0; block < pieces; ++block) {
    const logic::ChunkSpan ch = logic::chunk_of(block, 0, n, piece, overlap);
    if (ch.empty) continue;
    const std::uint32_t stride = m + 1;
    std::vector<std::uint16_t> diagonals(3 * stride, 0);
    const std::int64_t len = static_cast<std::int64_t>(ch.own_end - ch.from);
    for (std::int64_t d = 1; d <= static_cast<std::int64_t>(m) + len; ++d) {
      std::uint16_t* cur = diagonals.data() + (d % 3) * stride;
      const std::uint16_t* prev1 = diagonals.data() + ((d + 2) % 3) * stride;
      const std::uint16_t* prev2 = diagonals.data() + ((d + 1) % 3) * stride;
      for (std::uint32_t tid = 0; tid < threads; ++tid) {
        for (std::uint32_t i = tid + 1; i <= m; i += threads) {
          const std::int64_t j = d - static_cast<std::int64_t>(i);
          if (j < 0 || j > len) continue;
          const bool same = j >= 1 && p.bytes[i - 1] == p.text_byte(text[ch.from + j - 1]);
          const std::uint32_t v = logic::wavefront_cell(i, j, j >= 1 ? prev2[i - 1] : 0u, prev1[i - 1],
                                                        j >= 1 ? prev1[i] : 0u, same);
          cur[i] = static_cast<std::uint16_t>(v);
          if (i == m && j >= 1) {
            const std::uint64_t c = ch.from + static_cast<std::uint64_t>(j) - 1;
            if (c >= ch.own_begin) {
              dist[c] = v;
              *best = std::min(*best, v);
            }
          }
        }
      }
    }
  }
  return dist;
}

Bytes random_bytes(std::mt19937_64& rng, std::size_t n, int alphabet) {
  Bytes b(n);
  std::uniform_int_distribution<int> pick(0, alphabet - 1);
  for (auto& c : b) c = static_cast<std::uint8_t>('a' + pick(rng));
  return b;
}

/// Hits of a dist array for threshold k, as the device's compaction would select them.
std::vector<core::EndHit> hits_of(const std::vector<std::uint32_t>& dist, std::uint32_t k) {
  std::vector<core::EndHit> hits;
  for (std::size_t c = 0; c < dist.size(); ++c)
    if (dist[c] <= k) hits.push_back({c + 1, dist[c]});
  return hits;
}

}  // namespace

TEST(ApproxKernelEmulation, MyersPipelineEqualsReferenceForAllWordLayouts) {
  std::mt19937_64 rng(1234);
  // Word counts 1, 2, 3 (group 4), 32 (one per lane), 33, 65, 257 and 513 (several words per
  // lane: every template instance Q = 1 ... 32 of the kernel).
  for (const std::size_t m : {1, 5, 31, 32, 33, 64, 65, 96, 127, 1024, 1025, 2080, 8200, 16400}) {
    for (const int alphabet : {2, 4}) {
      if (m > 4000 && alphabet != 2) continue;
      core::ApproxPattern p;
      p.bytes = random_bytes(rng, m, alphabet);
      Bytes text = random_bytes(rng, std::max<std::size_t>(600, 2 * m + 100), alphabet);
      std::copy(p.bytes.begin(), p.bytes.end(), text.begin() + static_cast<std::ptrdiff_t>(text.size() / 3));
      const std::vector<std::uint32_t> want = core::reference_end_distances(p, text);
      // Best mode: overlap 2m makes every column exact.
      for (const std::uint64_t chunk : {std::uint64_t{1}, std::uint64_t{37}, std::uint64_t{256}, std::uint64_t{5000}}) {
        if ((chunk == 1 && m > 128) || (m > 4000 && chunk != 5000)) continue;  // slow to emulate
        ASSERT_EQ(emulate_myers(p, text, chunk, 2 * m), want) << "m=" << m << " chunk=" << chunk;
      }
      // All-hits mode: overlap m + k is exact for every end within k.
      for (const std::uint32_t k : {0u, 1u, static_cast<std::uint32_t>(m / 4)}) {
        if (m > 4000 && k > 0) continue;
        const auto got = hits_of(emulate_myers(p, text, m > 4000 ? 5000 : 41, m + k), k);
        ASSERT_EQ(got, hits_of(want, k)) << "m=" << m << " k=" << k;
      }
    }
  }
}

TEST(ApproxKernelEmulation, WavefrontEqualsReferenceForSeveralPieceCounts) {
  std::mt19937_64 rng(77);
  for (const std::size_t m : {1, 5, 32, 33, 100, 1030}) {
    core::ApproxPattern p;
    p.bytes = random_bytes(rng, m, 2);
    const Bytes text = random_bytes(rng, std::max<std::size_t>(500, 2 * m + 50), 2);
    const std::vector<std::uint32_t> want = core::reference_end_distances(p, text);
    const std::uint32_t want_best = *std::min_element(want.begin(), want.end());
    for (const std::uint64_t pieces : {1, 3, 16, 499}) {
      if (pieces == 499 && m > 100) continue;  // many tiny pieces of a long pattern: slow to emulate
      std::uint32_t best = 0;
      ASSERT_EQ(emulate_wavefront(p, text, pieces, 2 * m, &best), want) << "m=" << m << " D=" << pieces;
      ASSERT_EQ(best, want_best);
      const std::uint32_t k = static_cast<std::uint32_t>(m / 5);
      ASSERT_EQ(hits_of(emulate_wavefront(p, text, pieces, m + k, &best), k), hits_of(want, k));
    }
  }
}

TEST(ApproxKernelEmulation, PaperExampleOnTheWavefront) {
  core::ApproxPattern p;
  p.bytes = {'a', 'b', 'a', 'b', 'a'};
  const Bytes text = {'a', 'a', 'a', 'b', 'b', 'b', 'a', 'a'};
  std::uint32_t best = 0;
  emulate_wavefront(p, text, 2, 10, &best);
  EXPECT_EQ(best, 1u);
}
