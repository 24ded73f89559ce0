// The CUDA approximate-search kernels (src/cuda/approx/kernels.cuh) compiled for the host under
// the shared kernel shim (tests/support/cuda_host_shim.hpp), launched as dispatch.cu launches
// them, with the host's side of finish_myers, against the reference DP. Runs on every machine,
// so the kernels' arithmetic (chunks and their 16-byte alignment, pipeline skew, the packed
// shuffle, Eq tables and dummy rows, best mode's candidates and overflow re-run, the host
// bound, the wavefront's rolling diagonals) is checked even where no GPU is present.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "support/approx_emulation.hpp"
#include "support/sanitizers.hpp"

using namespace approx_emulation;

namespace {

Bytes random_bytes(std::mt19937_64& rng, std::size_t n, int alphabet) {
  Bytes b(n);
  std::uniform_int_distribution<int> pick(0, alphabet - 1);
  for (auto& c : b) c = static_cast<std::uint8_t>('a' + pick(rng));
  return b;
}

}  // namespace

// Built with AddressSanitizer (the `debug` preset of CI's second pass): the largest pattern is
// left out there (its cases took 4 of that suite's 17 minutes on the 2-core CI machine); the
// default build runs it.
#if defined(WARPMATCH_UNDER_ASAN)
constexpr std::size_t kLargestPattern = 8200;
#else
constexpr std::size_t kLargestPattern = 16400;
#endif

TEST(ApproxKernelEmulation, MyersLanePipelineEqualsReferenceForAllWordLayouts) {
  std::mt19937_64 rng(1234);
  // Word counts 1, 2, 3 (group 4), 16, 32, 33, 65, 257 and 513: every template instance
  // Q = 1 ... 32 of the kernel, groups of 1 to 32 lanes.
  for (const std::size_t m : {1, 5, 31, 32, 33, 64, 65, 96, 127, 1024, 1025, 2080, 8200, 16400}) {
    if (m > kLargestPattern) continue;
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
