// The CUDA approximate-search kernels (src/cuda/approx/kernels.cuh) compiled for the host under
// the shared kernel shim (tests/support/cuda_host_shim.hpp), launched as dispatch.cu launches
// them, with the host's side of finish_myers, against the reference DP. Runs on every machine,
// so the kernels' arithmetic (chunks and their 16-byte alignment, pipeline skew, the packed
// shuffle, Eq tables and dummy rows, best mode's candidates and overflow re-run, the host
// bound, the wavefront's rolling diagonals) is checked even where no GPU is present.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <random>
#include <utility>
#include <vector>

#include "core/approx_align.hpp"
#include "cuda/approx/agent.hpp"
#include "support/cuda_host_shim.hpp"
#define kernels approx_kernel_emulation
#include "cuda/approx/kernels.cuh"
#undef kernels

namespace core = warpmatch::core;
namespace logic = warpmatch::cuda::logic;
namespace kk = warpmatch::cuda::approx_kernel_emulation;

namespace warpmatch::cuda::approx_kernel_emulation {
uint4 shared_table[1 << 14];          // the Myers kernels' Eq table in shared memory (256 KiB)
std::uint16_t diagonals[3 * 32001];   // the wavefront's three anti-diagonals
}  // namespace warpmatch::cuda::approx_kernel_emulation
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

/// The text as the device holds it: 16-byte aligned, zeros up to the end of its last 16-byte
/// block (the kernels read whole blocks).
struct DeviceText {
  std::vector<uint4> blocks;
  std::uint32_t blocks_end;
  explicit DeviceText(const Bytes& text)
      : blocks((text.size() + 15) / 16 + 1, uint4{0, 0, 0, 0}), blocks_end(static_cast<std::uint32_t>((text.size() + 15) / 16 * 16)) {
    std::memcpy(blocks.data(), text.data(), text.size());
  }
  const std::uint8_t* data() const { return reinterpret_cast<const std::uint8_t*>(blocks.data()); }
};

/// A launch's hit sink, and what the host reads back from it.
struct Sink {
  std::vector<std::uint64_t> hits;
  std::uint32_t count = 0, best = UINT_MAX, overflow = UINT_MAX;
  explicit Sink(std::size_t capacity) : hits(capacity) {}
  kk::HitSink device() { return {hits.data(), static_cast<std::uint32_t>(hits.size()), &count, &best, &overflow}; }
  Emitted emitted() const {
    EXPECT_LE(count, hits.size());
    Emitted e;
    for (std::uint32_t i = 0; i < count; ++i) e.hits.push_back({(hits[i] >> 32) + 1, static_cast<std::uint32_t>(hits[i])});
    e.low = best;
    e.overflow = overflow;
    return e;
  }
};

/// kernels::myers_lane_kernel<Q, SHARED> over owned columns [0, n) with `chunk` owned columns
/// per group, launched as dispatch.cu's launch_myers does (the Eq table in shared memory when
/// `shared`).
Emitted emulate_lanes(const core::ApproxPattern& p, const Bytes& text, std::uint32_t chunk, std::uint32_t overlap,
                      std::uint32_t k, bool best, std::uint32_t max_lanes = 0, bool shared = true) {
  const auto m = static_cast<std::uint32_t>(p.size());
  const logic::MyersShape s = logic::myers_shape(m, max_lanes);
  const logic::EqTables t = logic::make_eq_tables(p, 32, s);
  const DeviceText dt(text);
  const auto n = static_cast<std::uint32_t>(text.size());
  const std::uint64_t groups = (n + chunk - 1) / chunk;
  const std::uint64_t per_warp = 32 / s.group;
  const std::uint64_t warps = (groups + per_warp - 1) / per_warp;
  const auto blocks = static_cast<unsigned>((warps * 32 + kk::kMyersLaneThreads - 1) / kk::kMyersLaneThreads);
  const auto table_words = static_cast<std::uint32_t>(t.lane_table.size());
  EXPECT_LE(table_words * 4, sizeof(kk::shared_table));
  Sink sink(n + 1);
  logic::with_width(s.per_lane, [&](auto w) {
    constexpr int Q = decltype(w)::value;
    emu::launch(blocks, kk::kMyersLaneThreads, [&] {
      const auto kernel = shared ? kk::myers_lane_kernel<Q, true> : kk::myers_lane_kernel<Q, false>;
      kernel(dt.data(), dt.blocks_end, 0, n, chunk, overlap, t.lane_table.data(), t.code.data(), table_words,
             t.zero_row, m, s.lanes, s.pad, s.group, k, best, sink.device());
    });
  });
  return sink.emitted();
}

/// kernels::myers_thread_kernel<W> over owned columns [0, n), `chunk` owned columns a thread.
Emitted emulate_threads(const core::ApproxPattern& p, const Bytes& text, std::uint32_t chunk, std::uint32_t overlap,
                        std::uint32_t k, bool best) {
  const auto m = static_cast<std::uint32_t>(p.size());
  const logic::EqTables t = logic::make_eq_tables(p, 32, logic::myers_shape(m));
  const DeviceText dt(text);
  const auto n = static_cast<std::uint32_t>(text.size());
  const std::uint64_t threads = (n + chunk - 1) / chunk;
  const auto blocks = static_cast<unsigned>((threads + kk::kMyersThreadThreads - 1) / kk::kMyersThreadThreads);
  EXPECT_LE(t.thread_table.size() * 4, sizeof(kk::shared_table));
  Sink sink(n + 1);
  logic::with_width(t.thread_width, [&](auto w) {
    constexpr int W = decltype(w)::value;
    emu::launch(blocks, kk::kMyersThreadThreads, [&] {
      kk::myers_thread_kernel<W>(dt.data(), dt.blocks_end, 0, n, chunk, overlap, t.thread_table.data(), t.code.data(),
                                 static_cast<std::uint32_t>(t.thread_table.size()), t.thread_stride, m, t.thread_pad,
                                 k, best, sink.device());
    });
  });
  return sink.emitted();
}

/// kernels::wavefront_kernel for owned columns [0, n) in `pieces` pieces (dispatch.cu's
/// run_wavefront); also the pieces' minimum.
std::vector<std::uint32_t> emulate_wavefront(const core::ApproxPattern& p, const Bytes& text,
                                             std::uint64_t pieces, std::uint64_t overlap,
                                             std::uint32_t* best) {
  const auto m = static_cast<std::uint32_t>(p.size());
  const std::uint64_t n = text.size();
  const std::uint64_t piece = (n + pieces - 1) / pieces;
  pieces = (n + piece - 1) / piece;
  const std::uint32_t threads = std::min<std::uint32_t>(1024, (m + 31) / 32 * 32);
  EXPECT_LE(3 * (m + 1), std::size(kk::diagonals));
  std::vector<std::uint8_t> fold(256);
  for (int c = 0; c < 256; ++c) fold[c] = p.text_byte(static_cast<std::uint8_t>(c));
  std::vector<std::uint32_t> dist(n, 0xdeadbeef), block_min(pieces, 0xdeadbeef);
  emu::launch(static_cast<unsigned>(pieces), threads, [&] {
    kk::wavefront_kernel(text.data(), 0, n, piece, overlap, p.bytes.data(), fold.data(), m, dist.data(),
                         block_min.data());
  });
  *best = *std::min_element(block_min.begin(), block_min.end());
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
      // Other lane counts (more or fewer words per lane, dummy words above the pattern), the
      // Eq table read from global memory with 32 lanes.
      for (const std::uint32_t max_lanes : {4u, 32u}) {
        const std::uint32_t chunk = m > 4000 ? 5000 : 37;
        const auto run = [&](bool best, std::uint32_t k) {
          return emulate_lanes(p, text, chunk, 2 * mm, k, best, max_lanes, max_lanes == 4);
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
