// The CUDA seed filter's kernel (src/cuda/approx/seed_filter_kernels.cuh) compiled for the host
// under the shared kernel shim (tests/support/cuda_host_shim.hpp), driven as
// src/cuda/approx/seed_filter.cu drives it (chunks owning their ends, margins, hits sorted and
// made unique), against the plain DP (core::reference_hits) and the CPU filter. Chunks of a few
// hundred ends and small grids put pieces, windows and ends on every seam; sets of 1-60
// patterns of 12-64 bytes with duplicates and substrings, k up to a quarter of m, edit distance
// and Hamming, case folding, both strands, floods.
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
    for (int r = 0; r < 12; ++r) {  // copies, some edited, some lowercase
      const Bytes& p = user[rng() % user.size()];
      if (p.size() >= text.size()) continue;
      const std::size_t at = rng() % (text.size() - p.size());
      for (std::size_t j = 0; j < p.size(); ++j) text[at + j] = rng() % 15 == 0 ? static_cast<std::uint8_t>("ACGT"[rng() & 3]) : p[j];
      if (fold && r % 3 == 0)
        for (std::size_t j = 0; j < p.size(); ++j) text[at + j] = static_cast<std::uint8_t>(text[at + j] | 0x20);
    }
    std::vector<std::uint32_t> members(set.size());
    for (std::uint32_t i = 0; i < members.size(); ++i) members[i] = i;
    const auto plan = core::plan_seeds(set, members, q);
    ASSERT_TRUE(plan) << "trial " << trial << ": every pattern qualifies (k <= m/4)";
    ++checked_sets;
    const std::int64_t chunk = 100 + static_cast<std::int64_t>(rng() % 900);
    const auto got = emulated_seed_scan(*plan, text, set.size(), chunk, 1 + rng() % 3, 32 * (1 + rng() % 4));
    const auto cpu_filter = cpu::ApproxSet(set, {}, cpu::SetRoute::seed_filter).scan(text, q, 2);
    std::size_t ends = 0;
    for (std::size_t i = 0; i < set.size(); ++i) {
      const auto want = core::reference_hits(set[i], text, q[i]);
      ASSERT_EQ(got[i], want) << "trial " << trial << (hamming ? " hamming" : " edit") << " pattern " << i << " k "
                              << q[i].k << " chunk " << chunk;
      ASSERT_EQ(cpu_filter[i], want) << "trial " << trial << " (the CPU filter) pattern " << i;
      ends += want.size();
    }
    EXPECT_GT(ends, 0u) << "trial " << trial;
  }
  EXPECT_EQ(checked_sets, 40);
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
