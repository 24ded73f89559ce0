// The CUDA seed filter's kernel (src/cuda/approx/seed_filter_kernels.cuh) compiled for the host
// under the shared kernel shim (tests/support/cuda_host_shim.hpp), driven as
// src/cuda/approx/seed_filter.cu drives it (chunks owning their ends, margins, hits sorted and
// made unique), against the plain DP (core::reference_hits) and the CPU filter. Chunks of a few
// dozen to hundreds of ends, passes of a few candidates and small grids put pieces, windows and
// ends on every seam; sets of 1-60 patterns of 12-64 bytes (32- and 64-bit Myers words) with
// duplicates and substrings, k up to a quarter of m, edit distance and Hamming, case folding,
// both strands, floods, N runs. The passes' sizing (kernels::seed_chunk_passes) on its own.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/exact_pattern.hpp"
#include "core/nucleotide.hpp"
#include "cpu/approx_set_cpu.hpp"
#include "support/approx_seed_emulation.hpp"
#include "warpmatch/sequence.hpp"

using namespace approx_seed_emulation;
namespace cpu = warpmatch::cpu;

namespace {

Bytes random_dna(std::mt19937_64& rng, std::size_t n) {
  Bytes b(n);
  for (auto& c : b) c = static_cast<std::uint8_t>("ACGT"[rng() & 3]);
  return b;
}

}  // namespace

TEST(ApproxSeedEmulation, KernelEqualsTheDpOracleAndTheCpuFilter) {
  std::mt19937_64 rng(20261126);
  int checked_sets = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const bool hamming = trial % 2 == 1, fold = trial % 4 < 2, both = trial % 3 == 0;
    std::vector<Bytes> user;
    const std::size_t count = 1 + rng() % (trial < 30 ? 12 : 60);
    for (std::size_t i = 0; i < count; ++i) {
      if (i > 0 && rng() % 8 == 0) {
        user.push_back(user[rng() % user.size()]);  // duplicate
      } else if (i > 0 && rng() % 8 == 0 && user.back().size() >= 16) {
        user.push_back(Bytes(user.back().begin() + 2, user.back().end() - 1));  // substring
      } else {
        user.push_back(random_dna(rng, 12 + rng() % 53));
      }
    }
    if (trial % 10 == 9) user[0] = Bytes(16 + rng() % 15, 'A');  // on the flood: a candidate and a hit everywhere
    std::vector<core::ApproxPattern> set;
    for (const Bytes& u : user)
      for (int strand = 0; strand < (both ? 2 : 1); ++strand) {
        core::ApproxPattern p;
        p.hamming = hamming;
        p.case_insensitive = fold;
        p.bytes = strand ? warpmatch::reverse_complement(u) : u;
        if (fold)
          for (auto& c : p.bytes) c = core::fold_ascii(c);
        set.push_back(p);
      }
    std::vector<core::ApproxQuery> q(set.size());
    for (std::size_t i = 0; i < q.size(); ++i) q[i].k = static_cast<std::uint32_t>(rng() % (set[i].size() / 4));
    Bytes text = trial % 10 == 9 ? Bytes(3000, 'A') : random_dna(rng, 2000 + rng() % 6000);
    for (int r = 0; r < 24; ++r) {  // copies, some edited, some lowercase
      const std::size_t u = rng() % user.size();
      const Bytes& p = user[u];
      if (p.size() >= text.size()) continue;
      const std::size_t at = rng() % (text.size() - p.size());
      for (std::size_t j = 0; j < p.size(); ++j) text[at + j] = rng() % 15 == 0 ? static_cast<std::uint8_t>("ACGT"[rng() & 3]) : p[j];
      if (r % 2 == 1) {  // exactly k substitutions: often one piece left whole, found at one start only
        std::copy(p.begin(), p.end(), text.begin() + static_cast<std::ptrdiff_t>(at));
        for (std::uint32_t e = 0; e < q[u * (both ? 2 : 1)].k; ++e) {
          std::uint8_t& b = text[at + rng() % p.size()];
          b = static_cast<std::uint8_t>(b == 'A' ? 'C' : 'A');
        }
      }
      if (fold && r % 3 == 0)
        for (std::size_t j = 0; j < p.size(); ++j) text[at + j] = static_cast<std::uint8_t>(text[at + j] | 0x20);
    }
    if (trial % 5 == 2) {  // a run of N, which no piece holds, across the middle
      const std::size_t run = 20 + rng() % 300, at = text.size() / 2 - run / 2;
      std::fill(text.begin() + static_cast<std::ptrdiff_t>(at), text.begin() + static_cast<std::ptrdiff_t>(at + run), 'N');
    }
    std::vector<std::uint32_t> members(set.size());
    for (std::uint32_t i = 0; i < members.size(); ++i) members[i] = i;
    const auto plan = core::plan_seeds(set, members, q);
    ASSERT_TRUE(plan) << "trial " << trial << ": every pattern qualifies (k <= m/4)";
    ++checked_sets;
    // Chunks of 100-1000 ends, some of 30 (every window across a seam); passes of 8-200
    // candidates (floods split into passes of a few starts).
    const std::int64_t chunk = trial % 7 == 3 ? 30 : 100 + static_cast<std::int64_t>(rng() % 900);
    const unsigned long long max_candidates = 8 + rng() % 193;
    const auto got =
        emulated_seed_scan(*plan, text, set.size(), chunk, 1 + rng() % 3, 32 * (1 + rng() % 4), max_candidates);
    const auto cpu_filter = cpu::ApproxSet(set, {}, cpu::SetRoute::seed_filter).scan(text, q, 2);
    std::size_t ends = 0;
    for (std::size_t i = 0; i < set.size(); ++i) {
      const auto want = core::reference_hits(set[i], text, q[i]);
      ASSERT_EQ(got[i], want) << "trial " << trial << (hamming ? " hamming" : " edit") << " pattern " << i << " k "
                              << q[i].k << " chunk " << chunk << " max candidates " << max_candidates;
      ASSERT_EQ(cpu_filter[i], want) << "trial " << trial << " (the CPU filter) pattern " << i;
      ends += want.size();
    }
    EXPECT_GT(ends, 0u) << "trial " << trial;
  }
  EXPECT_EQ(checked_sets, 40);
}

namespace {

/// A runner of seed_chunk_passes with `per_start` candidates and `hits_per_start` hits at every
/// piece start: records the passes it kept.
struct CountingRunner {
  unsigned long long per_start, hits_per_start;
  unsigned long long candidates = 2, hits = 2;
  std::vector<std::pair<std::int64_t, std::int64_t>> kept;
  std::pair<std::int64_t, std::int64_t> last{};
  unsigned long long candidate_capacity() const { return candidates; }
  unsigned long long hit_capacity() const { return hits; }
  void grow_candidates(unsigned long long n) { candidates = n; }
  void grow_hits(unsigned long long n) { hits = n; }
  kk::SeedCounts run(const kk::SeedChunk&, std::int64_t lo, std::int64_t hi) {
    last = {lo, hi};
    const auto starts = static_cast<unsigned long long>(hi - lo + 1);
    return {starts * per_start, starts * hits_per_start};
  }
  void keep_hits(unsigned long long count) {
    EXPECT_EQ(count, static_cast<unsigned long long>(last.second - last.first + 1) * hits_per_start);
    kept.push_back(last);
  }
};

}  // namespace

TEST(ApproxSeedEmulation, PassesCoverEveryStartOnceWithinTheBuffers) {
  kk::SeedChunk c{};
  c.s_lo = 1000;
  c.s_hi = 5999;
  std::int64_t span = 100000;  // the whole chunk at first
  CountingRunner r{3, 1};
  ASSERT_TRUE(kk::seed_chunk_passes(r, c, span, 600, 1u << 20));
  EXPECT_EQ(r.candidates, 600u);  // grown to the cap, then fewer starts a pass
  EXPECT_LE(span * 3, 600);
  ASSERT_FALSE(r.kept.empty());
  std::int64_t next = c.s_lo;
  for (const auto& [lo, hi] : r.kept) {
    EXPECT_EQ(lo, next);
    EXPECT_LE(static_cast<unsigned long long>(hi - lo + 1) * 3, 600u);
    next = hi + 1;
  }
  EXPECT_EQ(next, c.s_hi + 1);
  // The next chunk starts with the smaller span: no pass over the cap.
  const std::int64_t kept_span = span;
  r.kept.clear();
  c.s_lo = 6000;
  c.s_hi = 6999;
  ASSERT_TRUE(kk::seed_chunk_passes(r, c, span, 600, 1u << 20));
  EXPECT_EQ(span, kept_span);
  EXPECT_EQ(r.kept.front().first, 6000);
  EXPECT_EQ(r.kept.back().second, 6999);
  // Hits beyond their cap: a flood, given up (the set kernel takes the text).
  CountingRunner flood{1, 50};
  std::int64_t one = 10;
  EXPECT_FALSE(kk::seed_chunk_passes(flood, c, one, 600, 400));
  // A single start beyond the candidate cap still runs (its buffer grows past the cap).
  CountingRunner dense{900, 1};
  std::int64_t wide = 5;
  ASSERT_TRUE(kk::seed_chunk_passes(dense, c, wide, 600, 1u << 20));
  EXPECT_EQ(wide, 1);
  EXPECT_EQ(dense.kept.size(), 1000u);
}

TEST(ApproxSeedEmulation, SetsThatDoNotQualifyHaveNoPlan) {
  core::ApproxPattern p;
  p.bytes = Bytes(20, 'A');
  std::vector<core::ApproxQuery> q(1);
  q[0].k = 4;  // five pieces of 4 bytes: qualifies
  EXPECT_TRUE(core::plan_seeds({p}, {0}, q));
  q[0].k = 5;  // six pieces of 3 bytes: too short
  EXPECT_FALSE(core::plan_seeds({p}, {0}, q));
  q[0].k = 1;
  q[0].mode = core::ApproxMode::best;  // the minimum over the text: no bound to cut by
  EXPECT_FALSE(core::plan_seeds({p}, {0}, q));
  q[0].mode = core::ApproxMode::all_within_k;
  p.iupac = true;  // degenerate codes match sets, pieces match by equality
  EXPECT_FALSE(core::plan_seeds({p}, {0}, q));
  p.iupac = false;
  p.bytes = Bytes(65, 'A');  // beyond one Myers word
  EXPECT_FALSE(core::plan_seeds({p}, {0}, q));
}
