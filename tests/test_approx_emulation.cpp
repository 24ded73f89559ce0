// CPU emulation of the CUDA approximate-search kernels (src/cuda/approx/kernels.cuh): the
// same per-lane / per-thread logic (src/cuda/approx/agent.hpp) run lane by lane in
// lockstep, with __shfl_up_sync emulated, against the reference DP. Runs on every machine,
// so the kernels' arithmetic (chunks and their 16-byte alignment, pipeline skew, the packed
// shuffle, Eq tables and dummy rows, best mode's candidates and overflow re-run, the host
// bound, the wavefront's rolling diagonals) is checked even where no GPU is present.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "core/approx_align.hpp"
#include "cuda/approx/agent.hpp"

namespace core = warpmatch::core;
namespace logic = warpmatch::cuda::logic;
using Bytes = std::vector<std::uint8_t>;

namespace {

/// What a Myers kernel leaves for the host: the emitted (end, dist), the minimum, the flag.
struct Emitted {
  std::vector<core::EndHit> hits;
  std::uint32_t low = UINT_MAX;
  std::uint32_t overflow = UINT_MAX;  // smallest minimum with more ends than a thread keeps
};

/// The host's side (finish_myers): best mode keeps the candidates equal to the minimum, or
/// re-runs in all mode with k = the minimum after an overflow; ends ascending.
template <class Run>
std::vector<core::EndHit> host_hits(bool best, std::uint32_t k, Run&& run) {
  Emitted e = run(best, k);
  if (best) {
    if (e.low > k) return {};
    if (e.overflow == e.low) e = run(false, e.low);
    else std::erase_if(e.hits, [&](const core::EndHit& h) { return h.distance != e.low; });
  }
  std::sort(e.hits.begin(), e.hits.end(), [](const auto& a, const auto& b) { return a.end < b.end; });
  return e.hits;
}

/// The 16-byte block of the text at `at` as the kernels read it (zeros past the end).
std::uint8_t text_at(const Bytes& text, std::uint64_t c) { return c < text.size() ? text[c] : 0; }

/// myers_lane_kernel<Q> over owned columns [0, n) with `chunk` owned columns per group, one
/// warp at a time, lanes in lockstep, __shfl_up_sync emulated.
Emitted emulate_lanes(const core::ApproxPattern& p, const Bytes& text, std::uint32_t chunk, std::uint32_t overlap,
                      std::uint32_t k, bool best, std::uint32_t max_lanes = 0) {
  const auto m = static_cast<std::uint32_t>(p.size());
  const logic::MyersShape s = logic::myers_shape(m, max_lanes);
  const logic::EqTables t = logic::make_eq_tables(p, 32, s);
  const std::uint32_t Q = s.per_lane;
  const auto n = static_cast<std::uint32_t>(text.size());
  const std::uint64_t groups = (n + chunk - 1) / chunk;
  const std::uint64_t per_warp = 32 / s.group;
  const std::uint64_t warps = (groups + per_warp - 1) / per_warp;
  Emitted e;
  const auto emit = [&](std::uint32_t index, std::uint32_t dist) { e.hits.push_back({index + 1ull, dist}); };
  for (std::uint64_t warp = 0; warp < warps; ++warp) {
    struct Lane {
      std::uint32_t g = 0, own_begin = 0, own_end = 0, from = 0, passed = 0, row = 0;
      logic::EndReporter out{false, 0};
      bool empty = true, holds_last = false;
      std::vector<std::uint32_t> pv, mv;
      int score = 0;
      std::int32_t column = 0;
    };
    std::vector<Lane> lanes(32);
    std::uint32_t steps = 0;
    for (std::uint32_t lane = 0; lane < 32; ++lane) {
      Lane& L = lanes[lane];
      L.g = lane & (s.group - 1);
      const std::uint64_t first = (warp * per_warp + lane / s.group) * chunk;
      L.empty = first >= n;
      L.own_begin = L.empty ? n : static_cast<std::uint32_t>(first);
      L.own_end = logic::myers_own_end(L.own_begin, n, chunk);
      L.from = logic::myers_from(L.own_begin, overlap);
      if (!L.empty) steps = std::max(steps, L.own_end - L.from + s.group - 1);
      L.pv.resize(Q);
      for (std::uint32_t q = 0; q < Q; ++q) L.pv[q] = logic::real_rows(L.g * Q + q, s.pad);
      L.mv.assign(Q, 0);
      L.holds_last = !L.empty && L.g == s.lanes - 1;
      L.score = static_cast<int>(m);
      L.passed = logic::pack_passed(L.g == 0 ? t.code[text_at(text, L.from)] : t.zero_row, logic::Carry{});
      L.row = logic::passed_row(L.passed);
      L.out = logic::EndReporter(best, k);
      L.column = static_cast<std::int32_t>(L.from) - static_cast<std::int32_t>(L.own_begin) -
                 static_cast<std::int32_t>(L.g);
    }
    for (std::uint32_t step = 0; step < (steps + 15) / 16 * 16; ++step) {
      std::vector<std::uint32_t> received(32);
      for (std::uint32_t lane = 0; lane < 32; ++lane)  // __shfl_up_sync(mask, passed, 1, group)
        received[lane] = (lane % s.group) >= 1 ? lanes[lane - 1].passed : lanes[lane].passed;
      for (std::uint32_t lane = 0; lane < 32; ++lane) {
        Lane& L = lanes[lane];
        const std::uint32_t input =
            L.g == 0 ? logic::pack_passed(t.code[text_at(text, L.from + step + 1)], logic::Carry{}) : received[lane];
        logic::Carry h = logic::passed_carry(input);
        for (std::uint32_t q = 0; q < Q; ++q)
          h = warpmatch::core::myers_step(L.pv[q], L.mv[q], t.lane_table[(L.row * Q + q) * 32 + L.g], h);
        L.row = logic::passed_row(input);  // the row of the next column
        L.passed = logic::pack_passed(L.row, h);
        L.score += h.value();
        if (L.holds_last && L.score <= static_cast<int>(L.out.limit) && L.column >= 0 &&
            L.column < static_cast<std::int32_t>(L.own_end - L.own_begin))
          L.out.report(L.own_begin + static_cast<std::uint32_t>(L.column), static_cast<std::uint32_t>(L.score), emit);
        ++L.column;
      }
    }
    if (best) {  // the warp's minimum into the global one, then each lane's candidates
      std::uint32_t warp_low = UINT_MAX;
      for (const Lane& L : lanes) warp_low = std::min(warp_low, L.out.low);
      const std::uint32_t published = std::min(warp_low, e.low);
      e.low = published;
      for (const Lane& L : lanes)
        if (L.out.finish_best(published, emit)) e.overflow = std::min(e.overflow, L.out.low);
    }
  }
  return e;
}

/// myers_thread_kernel<W> over owned columns [0, n), one thread at a time.
Emitted emulate_threads(const core::ApproxPattern& p, const Bytes& text, std::uint32_t chunk, std::uint32_t overlap,
                        std::uint32_t k, bool best) {
  const auto m = static_cast<std::uint32_t>(p.size());
  const logic::EqTables t = logic::make_eq_tables(p, 32, logic::myers_shape(m));
  const auto n = static_cast<std::uint32_t>(text.size());
  Emitted e;
  const auto emit = [&](std::uint32_t index, std::uint32_t dist) { e.hits.push_back({index + 1ull, dist}); };
  for (std::uint64_t first = 0; first < n; first += chunk) {
    const auto own_begin = static_cast<std::uint32_t>(first);
    const std::uint32_t own_end = logic::myers_own_end(own_begin, n, chunk);
    std::vector<std::uint32_t> pv(t.thread_width), mv(t.thread_width, 0);
    for (std::uint32_t q = 0; q < t.thread_width; ++q) pv[q] = logic::real_rows(q, t.thread_pad);
    int score = static_cast<int>(m);
    logic::EndReporter out(best, k);
    for (std::uint32_t at = logic::myers_from(own_begin, overlap); at < own_end; at += 16) {
      for (std::uint32_t c = at; c < at + 16; ++c) {
        const std::uint32_t* eq = t.thread_table.data() + t.code[text_at(text, c)] * t.thread_stride;
        logic::Carry h;
        for (std::uint32_t q = 0; q < t.thread_width; ++q) h = warpmatch::core::myers_step(pv[q], mv[q], eq[q], h);
        score += h.value();
        if (score <= static_cast<int>(out.limit) && c >= own_begin && c < own_end)
          out.report(c, static_cast<std::uint32_t>(score), emit);
      }
    }
    if (best) {
      e.low = std::min(e.low, out.low);
      if (out.finish_best(e.low, emit)) e.overflow = std::min(e.overflow, out.low);
    }
  }
  return e;
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

/// The reference answer: every end within k, or (best) the ends of the minimum if <= k.
std::vector<core::EndHit> reference_hits(const std::vector<std::uint32_t>& dist, std::uint32_t k, bool best) {
  if (!best) return hits_of(dist, k);
  const std::uint32_t low = *std::min_element(dist.begin(), dist.end());
  return low <= k ? hits_of(dist, low) : std::vector<core::EndHit>{};
}

TEST(ApproxKernelEmulation, MyersLanePipelineEqualsReferenceForAllWordLayouts) {
  std::mt19937_64 rng(1234);
  // Word counts 1, 2, 3 (group 4), 16, 32, 33, 65, 257 and 513: every template instance
  // Q = 1 ... 32 of the kernel, groups of 1 to 32 lanes.
  for (const std::size_t m : {1, 5, 31, 32, 33, 64, 65, 96, 127, 1024, 1025, 2080, 8200, 16400}) {
    for (const int alphabet : {2, 4}) {
      if (m > 4000 && alphabet != 2) continue;
      core::ApproxPattern p;
      p.bytes = random_bytes(rng, m, alphabet);
      Bytes text = random_bytes(rng, std::max<std::size_t>(600, 2 * m + 100), alphabet);
      std::copy(p.bytes.begin(), p.bytes.end(), text.begin() + static_cast<std::ptrdiff_t>(text.size() / 3));
      const std::vector<std::uint32_t> want = core::reference_end_distances(p, text);
      const auto mm = static_cast<std::uint32_t>(m);
      // Best mode: overlap 2m.
      for (const std::uint32_t chunk : {1u, 37u, 256u, 5000u}) {
        if ((chunk == 1 && m > 128) || (m > 4000 && chunk != 5000)) continue;  // slow to emulate
        const auto run = [&](bool best, std::uint32_t k) { return emulate_lanes(p, text, chunk, 2 * mm, k, best); };
        ASSERT_EQ(host_hits(true, mm, run), reference_hits(want, mm, true))
            << "m=" << m << " chunk=" << chunk;
      }
      // All-hits mode: overlap m + k is exact for every end within k.
      for (const std::uint32_t k : {0u, 1u, mm / 4}) {
        if (m > 4000 && k > 0) continue;
        const auto run = [&](std::uint32_t chunk) {
          return [&, chunk](bool best, std::uint32_t limit) {
            return emulate_lanes(p, text, chunk, mm + k, limit, best);
          };
        };
        ASSERT_EQ(host_hits(false, k, run(m > 4000 ? 5000 : 41)), reference_hits(want, k, false))
            << "m=" << m << " k=" << k;
        ASSERT_EQ(host_hits(true, k, run(77)), reference_hits(want, k, true)) << "m=" << m << " k=" << k;
      }
      // Other lane counts (more or fewer words per lane, dummy words above the pattern).
      for (const std::uint32_t max_lanes : {4u, 32u}) {
        const std::uint32_t chunk = m > 4000 ? 5000 : 37;
        const auto run = [&](bool best, std::uint32_t k) {
          return emulate_lanes(p, text, chunk, 2 * mm, k, best, max_lanes);
        };
        ASSERT_EQ(host_hits(true, mm, run), reference_hits(want, mm, true)) << "m=" << m << " lanes<=" << max_lanes;
      }
    }
  }
}

TEST(ApproxKernelEmulation, MyersThreadPerChunkEqualsReference) {
  std::mt19937_64 rng(4321);
  for (const std::size_t m : {1, 5, 31, 32, 33, 64, 65, 127, 256, 1000, 1024}) {
    for (const int alphabet : {2, 4, 20}) {
      core::ApproxPattern p;
      p.bytes = random_bytes(rng, m, alphabet);
      Bytes text = random_bytes(rng, 3 * m + 5000, alphabet);
      std::copy(p.bytes.begin(), p.bytes.end(), text.begin() + static_cast<std::ptrdiff_t>(text.size() / 3));
      const std::vector<std::uint32_t> want = core::reference_end_distances(p, text);
      const auto mm = static_cast<std::uint32_t>(m);
      for (const std::uint32_t chunk : {1u, 17u, 1000u, 100000u}) {
        if (chunk == 1 && m > 64) continue;  // slow to emulate
        const auto run = [&](std::uint32_t overlap) {
          return [&, overlap](bool best, std::uint32_t k) {
            return emulate_threads(p, text, chunk, overlap, k, best);
          };
        };
        ASSERT_EQ(host_hits(true, mm, run(2 * mm)), reference_hits(want, mm, true))
            << "m=" << m << " chunk=" << chunk;
        for (const std::uint32_t k : {0u, mm / 4}) {
          ASSERT_EQ(host_hits(false, k, run(mm + k)), reference_hits(want, k, false))
              << "m=" << m << " k=" << k << " chunk=" << chunk;
          ASSERT_EQ(host_hits(true, k, run(mm + k)), reference_hits(want, k, true))
              << "best m=" << m << " k=" << k << " chunk=" << chunk;
        }
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

TEST(ApproxKernelEmulation, MyersBestModeFloodOverflowsToTheAllModeRerun) {
  // Every end of a flood ties at the minimum: more than the two a thread keeps.
  const Bytes flood(3000, 'a');
  for (const std::size_t m : {3, 40, 100}) {
    core::ApproxPattern p;
    p.bytes.assign(m, 'a');
    const auto mm = static_cast<std::uint32_t>(m);
    const auto want = reference_hits(core::reference_end_distances(p, flood), mm, true);
    const auto lanes = [&](bool best, std::uint32_t k) { return emulate_lanes(p, flood, 700, 2 * mm, k, best); };
    const auto threads = [&](bool best, std::uint32_t k) { return emulate_threads(p, flood, 700, 2 * mm, k, best); };
    EXPECT_EQ(lanes(true, mm).overflow, 0u);
    EXPECT_EQ(host_hits(true, mm, lanes), want) << "m=" << m;
    EXPECT_EQ(host_hits(true, mm, threads), want) << "m=" << m;
  }
}

TEST(ApproxKernelEmulation, HostMinimumDistanceEqualsReference) {
  // The CUDA best mode's upper bound (64-bit words on the host) must be the exact minimum.
  std::mt19937_64 rng(99);
  for (const std::size_t m : {1, 2, 31, 63, 64, 65, 127, 128, 129, 300, 1024}) {
    for (const int alphabet : {2, 4, 26}) {
      core::ApproxPattern p;
      p.bytes = random_bytes(rng, m, alphabet);
      p.case_insensitive = alphabet == 26;
      Bytes text = random_bytes(rng, m + 256, alphabet);
      if (p.case_insensitive)
        for (std::size_t i = 0; i < text.size(); i += 3) text[i] = static_cast<std::uint8_t>(text[i] - 'a' + 'A');
      const auto want = core::reference_end_distances(p, text);
      EXPECT_EQ(logic::minimum_distance(p, text), std::min<std::uint32_t>(static_cast<std::uint32_t>(m),
                                                                         *std::min_element(want.begin(), want.end())))
          << "m=" << m << " alphabet=" << alphabet;
    }
  }
}

// IUPAC codes and case folding reach the Myers kernels only through their Eq tables (rows per
// class of text bytes, logic::make_eq_tables): both kernel layouts against the reference DP.
TEST(ApproxKernelEmulation, IupacEqTablesEqualReference) {
  std::mt19937_64 rng(1414);
  const std::string pattern_alphabet = "ACGTRYNnkACGT", text_alphabet = "ACGTNacgtACGT";
  for (const std::size_t m : {3, 20, 33, 70}) {
    for (const bool fold : {false, true}) {
      core::ApproxPattern p;
      p.iupac = true;
      p.case_insensitive = fold;
      for (std::size_t i = 0; i < m; ++i) p.bytes.push_back(static_cast<std::uint8_t>(pattern_alphabet[rng() % pattern_alphabet.size()]));
      if (fold)
        for (auto& c : p.bytes) c = core::fold_ascii(c);
      Bytes text(3000);
      for (auto& c : text) c = static_cast<std::uint8_t>(text_alphabet[rng() % text_alphabet.size()]);
      const std::vector<std::uint32_t> want = core::reference_end_distances(p, text);
      const auto mm = static_cast<std::uint32_t>(m);
      for (const std::uint32_t k : {0u, 2u, mm / 3}) {
        const auto threads = [&](bool best, std::uint32_t limit) { return emulate_threads(p, text, 97, mm + k, limit, best); };
        const auto lanes = [&](bool best, std::uint32_t limit) { return emulate_lanes(p, text, 61, mm + k, limit, best); };
        ASSERT_EQ(host_hits(false, k, threads), reference_hits(want, k, false)) << "m=" << m << " k=" << k;
        ASSERT_EQ(host_hits(false, k, lanes), reference_hits(want, k, false)) << "m=" << m << " k=" << k;
        ASSERT_EQ(host_hits(true, k, lanes), reference_hits(want, k, true)) << "m=" << m << " k=" << k;
      }
    }
  }
}
