// The CUDA short-pattern set kernel (src/cuda/approx/short_set_kernels.cuh) compiled for the
// host under the shared kernel shim (tests/support/cuda_host_shim.hpp), with the same planning
// (src/cuda/approx/short_set_agent.hpp) and the host's side of short_set_scan (segments, the minimum
// pass, hit keys sorted and split per pattern, best mode's filter), against the plain DP
// (core::reference_hits). Small tiles, sub-ranges, segments and table budgets put hits on
// every seam; sets of 1-300 patterns of 8-64 bases, duplicates, substrings of others, k from 0
// to m/2, floods, N runs, IUPAC and case folding, both strands, edit distance and Hamming.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/nucleotide.hpp"
#include "support/approx_set_emulation.hpp"

using namespace approx_set_emulation;

namespace {

Bytes random_dna(std::mt19937_64& rng, std::size_t n, const char* alphabet = "ACGT") {
  const std::string a = alphabet;
  Bytes b(n);
  for (auto& c : b) c = static_cast<std::uint8_t>(a[rng() % a.size()]);
  return b;
}

/// A copy of text[at, at + m) with a few substitutions, insertions or deletions.
Bytes mutated_slice(std::mt19937_64& rng, const Bytes& text, std::size_t m) {
  const std::size_t at = rng() % (text.size() - m);
  Bytes p(text.begin() + static_cast<std::ptrdiff_t>(at), text.begin() + static_cast<std::ptrdiff_t>(at + m));
  for (int e = static_cast<int>(rng() % 3); e > 0; --e) p[rng() % p.size()] = "ACGT"[rng() % 4];
  return p;
}

void expect_equal_reference(const std::vector<core::ApproxPattern>& patterns,
                            const std::vector<core::ApproxQuery>& queries, const Bytes& text, const Knobs& knobs,
                            const std::string& what) {
  ASSERT_TRUE(logic::short_set_fits(patterns));
  const auto got = emulate_set(patterns, queries, text, knobs);
  ASSERT_EQ(got.size(), patterns.size());
  for (std::size_t i = 0; i < patterns.size(); ++i) {
    const auto want = core::reference_hits(patterns[i], text, queries[i]);
    ASSERT_EQ(got[i], want) << what << ": pattern " << i << " '" << std::string(patterns[i].bytes.begin(), patterns[i].bytes.end())
                            << "' m=" << patterns[i].size() << " k=" << queries[i].k
                            << (queries[i].mode == core::ApproxMode::best ? " best" : " all")
                            << (patterns[i].hamming ? " hamming" : "") << " n=" << text.size() << " tile=" << knobs.tile
                            << " segment=" << knobs.segment << " table=" << knobs.table_bytes;
  }
}

Knobs random_knobs(std::mt19937_64& rng) {
  Knobs k;
  k.tile = 4 + static_cast<std::uint32_t>(rng() % 400);
  k.min_sub = 4 + static_cast<std::uint32_t>(rng() % 100);
  k.threads = rng() % 2 ? 32 : 64 + static_cast<std::uint32_t>(rng() % 100);
  k.table_bytes = rng() % 2 ? 32 * 1024 : 64 + rng() % 2000;
  k.segment = rng() % 2 ? std::uint64_t{1} << 30 : 200 + rng() % 3000;
  return k;
}

}  // namespace

TEST(ApproxSetEmulation, KeysSortByPatternThenEnd) {
  const std::uint64_t a = logic::set_key(3, 17, 2), b = logic::set_key(3, 18, 0), c = logic::set_key(4, 0, 64);
  EXPECT_LT(a, b);
  EXPECT_LT(b, c);
  EXPECT_EQ(logic::key_pattern(c), 4u);
  EXPECT_EQ(logic::key_end_index(a), 17u);
  EXPECT_EQ(logic::key_distance(c), 64u);
  EXPECT_EQ(logic::key_pattern(logic::set_key(static_cast<std::uint32_t>(logic::kSetMaxPatterns - 1),
                                              static_cast<std::uint32_t>(logic::kSetMaxSegmentEnds - 1), 127)),
            logic::kSetMaxPatterns - 1);
}

TEST(ApproxSetEmulation, DnaSetHasFewClassesAndWholeTables) {
  std::vector<core::ApproxPattern> ps = {pattern_of({'A', 'C', 'G', 'T'}), pattern_of({'G', 'G', 'A'})};
  std::vector<core::ApproxQuery> qs = {query(core::ApproxMode::all_within_k, 1, 4), query(core::ApproxMode::all_within_k, 1, 3)};
  const logic::SetPlan plan = logic::plan_short_set(ps, qs, 32 * 1024);
  EXPECT_EQ(plan.classes.count(), 5u);  // A, C, G, T, everything else
  ASSERT_EQ(plan.buckets.size(), 1u);
  EXPECT_EQ(plan.buckets[0].group_size, 2u);
  EXPECT_EQ(plan.overlap, 5u);
  // IUPAC + case folding: N matches every base in either case, so they share a class.
  ps = {pattern_of({'A', 'N', 'g'}, false, true, true)};
  qs = {query(core::ApproxMode::all_within_k, 0, 3)};
  const logic::SetPlan iupac = logic::plan_short_set(ps, qs, 32 * 1024);
  EXPECT_EQ(iupac.classes.code['c'], iupac.classes.code['C']);
  EXPECT_EQ(iupac.classes.code['t'], iupac.classes.code['T']);
  EXPECT_NE(iupac.classes.code['a'], iupac.classes.code['c']);
  EXPECT_EQ(iupac.classes.code['n'], iupac.classes.code['c']);  // both match the N only
  EXPECT_NE(iupac.classes.code['x'], iupac.classes.code['c']);
}

TEST(ApproxSetEmulation, GeometryCoversTheTileInSubRangesOfFour) {
  for (std::uint32_t tile : {4u, 5u, 64u, 1000u, 8192u})
    for (std::uint32_t slots : {1u, 7u, 32u, 300u, 2000u})
      for (std::uint32_t overlap : {1u, 22u, 128u}) {
        const logic::SetGeometry g = logic::set_geometry(tile, slots, 256, overlap, 64);
        EXPECT_EQ(g.sub % 4, 0u);
        EXPECT_GE(std::uint64_t{g.sub} * g.subs, g.tile);
        EXPECT_LT(std::uint64_t{g.sub} * (g.subs - 1), g.tile);
        // Busy threads x useful columns >= 85 % of what the block steps through.
        const std::uint64_t rounds = (std::uint64_t{slots} * g.subs + 255) / 256;
        if (tile >= 1000 && overlap <= 22 && slots >= 300)
          EXPECT_GE(double(g.tile) * slots / (double(rounds) * (g.sub + overlap) * 256), 0.85) << tile << " " << slots;
      }
}

TEST(ApproxSetEmulation, HammingCountersSaturateExactlyAboveK) {
  // One Hamming pattern, every k: the window count against a direct count.
  std::mt19937_64 rng(5);
  const Bytes text = random_dna(rng, 600, "ACG");
  for (std::uint32_t m : {1u, 8u, 31u, 32u, 33u, 64u})
    for (std::uint32_t k = 0; k <= m; k += 1 + m / 9) {
      const std::vector<core::ApproxPattern> ps = {pattern_of(random_dna(rng, m), true)};
      for (const auto mode : {core::ApproxMode::all_within_k, core::ApproxMode::best})
        expect_equal_reference(ps, {query(mode, k, m)}, text, Knobs{}, "hamming k sweep");
    }
}

TEST(ApproxSetEmulation, RandomDnaSetsEqualTheDp) {
  std::mt19937_64 rng(15);
  for (int round = 0; round < 48; ++round) {
    const Bytes text = random_dna(rng, 1500 + rng() % 3000);
    const std::size_t count = round % 6 == 0 ? 1 + rng() % 300 : 1 + rng() % 40;
    std::vector<core::ApproxPattern> ps;
    std::vector<core::ApproxQuery> qs;
    const bool hamming = round % 3 == 2;
    const bool best = round % 4 == 3;
    for (std::size_t i = 0; i < count; ++i) {
      const std::size_t m = 8 + rng() % 57;
      Bytes p;
      if (!ps.empty() && rng() % 6 == 0) {
        p = ps[rng() % ps.size()].bytes;  // a duplicate
      } else if (!ps.empty() && rng() % 6 == 0 && ps.back().size() > 9) {
        const Bytes& whole = ps.back().bytes;  // a substring of another pattern
        const std::size_t len = 8 + rng() % (whole.size() - 8);
        const std::size_t at = rng() % (whole.size() - len + 1);
        p.assign(whole.begin() + static_cast<std::ptrdiff_t>(at), whole.begin() + static_cast<std::ptrdiff_t>(at + len));
      } else {
        p = rng() % 4 ? mutated_slice(rng, text, m) : random_dna(rng, m);
      }
      const auto k = static_cast<std::uint32_t>(rng() % (p.size() / 2 + 1));
      qs.push_back(query(best || rng() % 8 == 0 ? core::ApproxMode::best : core::ApproxMode::all_within_k,
                         best && rng() % 2 ? static_cast<std::uint32_t>(p.size()) : k, p.size()));
      ps.push_back(pattern_of(std::move(p), hamming));
    }
    expect_equal_reference(ps, qs, text, random_knobs(rng), "round " + std::to_string(round));
  }
}

TEST(ApproxSetEmulation, FloodsAndNRunsOnSeams) {
  std::mt19937_64 rng(25);
  Bytes flood(2500, 'A');
  Bytes nruns = random_dna(rng, 3000);
  for (std::size_t at = 100; at + 200 < nruns.size(); at += 700) std::fill_n(nruns.begin() + static_cast<std::ptrdiff_t>(at), 150, 'N');
  for (const Bytes* text : {&flood, &nruns})
    for (const bool hamming : {false, true}) {
      std::vector<core::ApproxPattern> ps;
      std::vector<core::ApproxQuery> qs;
      for (std::size_t m : {8, 20, 32, 33, 64}) {
        ps.push_back(pattern_of(Bytes(m, 'A'), hamming));
        qs.push_back(query(core::ApproxMode::all_within_k, static_cast<std::uint32_t>(m / 4), m));
        Bytes mixed(m, 'A');
        mixed[m / 2] = 'C';
        ps.push_back(pattern_of(mixed, hamming));
        qs.push_back(query(core::ApproxMode::best, static_cast<std::uint32_t>(m), m));
        ps.push_back(pattern_of(Bytes(m, 'N'), hamming));
        qs.push_back(query(core::ApproxMode::all_within_k, 1, m));
      }
      for (int trial = 0; trial < 3; ++trial) {
        Knobs knobs = random_knobs(rng);
        expect_equal_reference(ps, qs, *text, knobs, std::string(text == &flood ? "flood" : "N runs") + (hamming ? " hamming" : ""));
      }
    }
}

TEST(ApproxSetEmulation, IupacCaseFoldingAndBothStrands) {
  std::mt19937_64 rng(35);
  // Mixed-case text with N runs and a few IUPAC letters.
  Bytes text = random_dna(rng, 4000, "ACGTacgtN");
  for (int i = 0; i < 40; ++i) text[rng() % text.size()] = "RYKMSWnr"[rng() % 8];
  for (const bool hamming : {false, true})
    for (const bool folded : {false, true}) {
      std::vector<core::ApproxPattern> ps;
      std::vector<core::ApproxQuery> qs;
      for (int i = 0; i < 60; ++i) {
        const std::size_t m = 8 + rng() % 57;
        const std::size_t at = rng() % (text.size() - m);
        Bytes p(text.begin() + static_cast<std::ptrdiff_t>(at), text.begin() + static_cast<std::ptrdiff_t>(at + m));
        for (auto& c : p) {
          if (!folded) c = static_cast<std::uint8_t>(c & ~0x20);  // patterns in uppercase
          if (c == 'N' || c == 'n' || rng() % 10 == 0) c = "ACGTRYSWKMBDHVN"[rng() % 15];
        }
        Bytes minus(p.rbegin(), p.rend());  // the reverse complement: an extra pattern
        for (auto& c : minus) c = core::complement(c);
        const auto k = static_cast<std::uint32_t>(rng() % (m / 2 + 1));
        const auto mode = i % 5 == 0 ? core::ApproxMode::best : core::ApproxMode::all_within_k;
        ps.push_back(pattern_of(p, hamming, true, folded));
        qs.push_back(query(mode, k, m));
        ps.push_back(pattern_of(minus, hamming, true, folded));
        qs.push_back(query(mode, k, m));
      }
      expect_equal_reference(ps, qs, text, random_knobs(rng),
                             std::string("iupac") + (folded ? " folded" : "") + (hamming ? " hamming" : ""));
    }
}

TEST(ApproxSetEmulation, AnyBytesTextsAndShortTexts) {
  // Binary alphabets with many classes (tables of up to 256 rows), and texts shorter than the
  // patterns.
  std::mt19937_64 rng(45);
  for (int round = 0; round < 6; ++round) {
    Bytes text(round < 3 ? 5 + rng() % 40 : 2000);
    for (auto& c : text) c = static_cast<std::uint8_t>(rng() % (round % 2 ? 256 : 3));
    std::vector<core::ApproxPattern> ps;
    std::vector<core::ApproxQuery> qs;
    for (int i = 0; i < 30; ++i) {
      Bytes p(1 + rng() % 64);
      for (auto& c : p) c = static_cast<std::uint8_t>(rng() % (round % 2 ? 256 : 3));
      qs.push_back(query(i % 3 ? core::ApproxMode::all_within_k : core::ApproxMode::best,
                         static_cast<std::uint32_t>(rng() % (p.size() + 1)), p.size()));
      ps.push_back(pattern_of(std::move(p), round >= 4 && i % 2));
    }
    // A set mixes Hamming and edit patterns only here (the API never does); buckets keep them apart.
    expect_equal_reference(ps, qs, text, random_knobs(rng), "bytes round " + std::to_string(round));
  }
}
