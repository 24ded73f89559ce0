// The CPU pattern-set pass (src/cpu/approx_set_cpu.cpp, issue 15) against the plain DP
// oracle (core::reference_hits), pattern by pattern, on every instruction set this CPU has
// (SSE always; AVX2 and AVX-512 where present): random sets of 1-300 patterns of 8-64 bases
// (and a 2000-pattern set), duplicates, patterns that are substrings of others, k from 0 to
// m/2, floods, N runs, IUPAC codes with soft-masked text, reverse complements, Hamming and
// edit distance, best mode, lane and block seams (forced lane lengths down to 1 column),
// longer patterns mixed in (they run alone), and the public matcher's answer on a set equal
// to one matcher per pattern.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "core/approx_align.hpp"
#include "cpu/approx_set_cpu.hpp"
#include "warpmatch/approx.hpp"
#include "warpmatch/sequence.hpp"

namespace core = warpmatch::core;
namespace cpu = warpmatch::cpu;
using Bytes = std::vector<std::uint8_t>;

namespace {

std::vector<std::string> available_isas() {
  std::vector<std::string> out;
  for (const char* isa : {"sse", "avx2", "avx512"})
    if (cpu::approx_set_isa_available(isa)) out.emplace_back(isa);
  return out;
}

Bytes random_dna(std::mt19937_64& rng, std::size_t n) {
  static const char kBases[] = "ACGT";
  Bytes b(n);
  for (auto& c : b) c = static_cast<std::uint8_t>(kBases[rng() & 3]);
  return b;
}

/// A genome-like text: random bases with floods (one base repeated), N runs and soft-masked
/// (lowercase) stretches, and copies of some patterns (mutated) planted so that hits exist.
Bytes hostile_text(std::mt19937_64& rng, std::size_t n, const std::vector<Bytes>& plant) {
  Bytes t = random_dna(rng, n);
  std::uniform_int_distribution<std::size_t> at(0, n ? n - 1 : 0);
  for (int r = 0; r < 3 && n > 200; ++r) {  // floods and N runs
    const std::size_t s = at(rng), len = std::min<std::size_t>(n - s, 20 + rng() % 150);
    const std::uint8_t c = static_cast<std::uint8_t>("ANCT"[rng() & 3]);
    std::fill(t.begin() + static_cast<std::ptrdiff_t>(s), t.begin() + static_cast<std::ptrdiff_t>(s + len), c);
  }
  for (int r = 0; r < 2 && n > 100; ++r) {  // soft-masked stretch
    const std::size_t s = at(rng), len = std::min<std::size_t>(n - s, 60);
    for (std::size_t i = s; i < s + len; ++i) t[i] = static_cast<std::uint8_t>(t[i] | 0x20);
  }
  for (const Bytes& p : plant) {
    if (p.size() >= n) continue;
    const std::size_t s = std::uniform_int_distribution<std::size_t>(0, n - p.size())(rng);
    for (std::size_t i = 0; i < p.size(); ++i) {
      std::uint8_t c = p[i];
      if (std::string_view("ACGT").find(static_cast<char>(c)) == std::string_view::npos) c = 'G';  // an IUPAC code's base
      if (rng() % 10 == 0) c = static_cast<std::uint8_t>("ACGT"[rng() & 3]);  // a substitution
      t[s + i] = c;
    }
  }
  return t;
}

/// Patterns of 8..max_m bases; some duplicates, some substrings of others, some with IUPAC codes.
std::vector<Bytes> random_patterns(std::mt19937_64& rng, std::size_t count, std::size_t max_m, bool iupac) {
  std::vector<Bytes> out;
  for (std::size_t i = 0; i < count; ++i) {
    const int kind = static_cast<int>(rng() % 10);
    if (kind == 0 && !out.empty()) {
      out.push_back(out[rng() % out.size()]);  // duplicate
    } else if (kind == 1 && !out.empty() && out.back().size() > 9) {
      const Bytes& p = out[rng() % out.size()];
      const std::size_t len = 8 + rng() % (p.size() - 7);
      const std::size_t s = rng() % (p.size() - len + 1);
      out.emplace_back(p.begin() + static_cast<std::ptrdiff_t>(s), p.begin() + static_cast<std::ptrdiff_t>(s + len));
    } else {
      Bytes p = random_dna(rng, 8 + rng() % (max_m - 7));
      if (iupac)
        for (auto& c : p)
          if (rng() % 8 == 0) c = static_cast<std::uint8_t>("NRYSWKMBDHV"[rng() % 11]);
      out.push_back(std::move(p));
    }
  }
  return out;
}

struct SetCase {
  bool hamming = false;
  bool iupac = false;
  bool case_insensitive = false;
  bool best = false;
  bool both_strands = false;
};

std::vector<core::ApproxPattern> compile_set(const std::vector<Bytes>& user, const SetCase& sc) {
  std::vector<core::ApproxPattern> set;
  auto add = [&](Bytes bytes) {
    core::ApproxPattern p;
    p.hamming = sc.hamming;
    p.iupac = sc.iupac;
    p.case_insensitive = sc.case_insensitive;
    if (sc.case_insensitive)
      for (auto& c : bytes) c = core::fold_ascii(c);
    p.bytes = std::move(bytes);
    set.push_back(std::move(p));
  };
  for (const Bytes& b : user) {
    add(b);
    if (sc.both_strands) add(warpmatch::reverse_complement(b));
  }
  return set;
}

/// Every pattern's ends from the set pass equal the DP oracle's, on every instruction set.
void expect_set_equals_oracle(const std::vector<core::ApproxPattern>& set, const Bytes& text,
                              const std::vector<core::ApproxQuery>& queries, int threads, const std::string& what) {
  std::vector<std::vector<core::EndHit>> want;
  for (std::size_t i = 0; i < set.size(); ++i) want.push_back(core::reference_hits(set[i], text, queries[i]));
  for (const std::string& isa : available_isas()) {
    const cpu::ApproxSet compiled(set, isa);
    const auto got = compiled.scan(text, queries, threads);
    ASSERT_EQ(got.size(), set.size());
    for (std::size_t i = 0; i < set.size(); ++i)
      ASSERT_EQ(got[i], want[i]) << what << " isa " << isa << " pattern " << i << " '"
                                 << std::string(set[i].bytes.begin(), set[i].bytes.end()) << "' k " << queries[i].k
                                 << " text " << text.size();
  }
  // The pigeonhole seed filter where the set and queries qualify (the set pass otherwise).
  const auto got = cpu::ApproxSet(set, {}, cpu::SetRoute::seed_filter).scan(text, queries, threads);
  ASSERT_EQ(got.size(), set.size());
  for (std::size_t i = 0; i < set.size(); ++i)
    ASSERT_EQ(got[i], want[i]) << what << " seed filter, pattern " << i << " '"
                               << std::string(set[i].bytes.begin(), set[i].bytes.end()) << "' k " << queries[i].k
                               << " text " << text.size();
}

std::vector<core::ApproxQuery> queries_for(const std::vector<core::ApproxPattern>& set, std::mt19937_64& rng,
                                           bool best, std::uint64_t lane_length) {
  std::vector<core::ApproxQuery> q(set.size());
  for (std::size_t i = 0; i < set.size(); ++i) {
    q[i].mode = best ? core::ApproxMode::best : core::ApproxMode::all_within_k;
    q[i].k = static_cast<std::uint32_t>(rng() % (set[i].size() / 2 + 1));
    q[i].chunk_ends = lane_length;
  }
  return q;
}

}  // namespace

TEST(ApproxSetCpu, RandomSetsEqualTheDpOracleOnEveryInstructionSet) {
  std::mt19937_64 rng(20261124);
  for (int trial = 0; trial < 60; ++trial) {
    SetCase sc;
    sc.hamming = trial % 2 == 1;
    sc.iupac = trial % 3 == 0;
    sc.case_insensitive = trial % 4 < 2;
    sc.best = trial % 5 == 4;
    sc.both_strands = trial % 3 != 2;
    const std::size_t count = 1 + rng() % (trial < 50 ? 40 : 300);
    const std::size_t max_m = trial % 7 == 0 ? 32 : 64;
    const std::vector<Bytes> user = random_patterns(rng, count, max_m, sc.iupac);
    const std::vector<core::ApproxPattern> set = compile_set(user, sc);
    const std::size_t n = trial % 6 == 0 ? rng() % 80 : 500 + rng() % 6000;
    const Bytes text = hostile_text(rng, n, {user.begin(), user.begin() + std::min<std::size_t>(user.size(), 8)});
    // Lane lengths: forced tiny (every seam), small, or the pass's own choice (0).
    const std::uint64_t lane = trial % 4 == 0 ? 1 + rng() % 7 : trial % 4 == 1 ? 20 + rng() % 200 : 0;
    const auto queries = queries_for(set, rng, sc.best, lane);
    expect_set_equals_oracle(set, text, queries, 1 + static_cast<int>(trial % 3),
                             "trial " + std::to_string(trial) + (sc.hamming ? " hamming" : " edit") +
                                 (sc.iupac ? " iupac" : "") + (sc.best ? " best" : ""));
  }
}

TEST(ApproxSetCpu, TwoThousandPatternsOverAShortTextSplitTheSetAcrossThreads) {
  std::mt19937_64 rng(7);
  for (const bool hamming : {false, true}) {
    SetCase sc;
    sc.hamming = hamming;
    const std::vector<Bytes> user = random_patterns(rng, 2000, 24, false);
    const auto set = compile_set(user, sc);
    const Bytes text = hostile_text(rng, 3000, {user.begin(), user.begin() + 50});
    std::vector<core::ApproxQuery> q(set.size());
    for (auto& x : q) x.k = 2;
    expect_set_equals_oracle(set, text, q, 4, hamming ? "2000 hamming" : "2000 edit");
  }
}

// Best mode with no bound (k = m, the public API's default) over reads and longer texts: the
// pass lowers each job's limit to a batch's lowest score before recording hits, and must still
// report every end at the minimum (ties in several lanes, texts shorter than a pattern).
TEST(ApproxSetCpu, UnboundedBestModeEqualsTheOracleOnReads) {
  std::mt19937_64 rng(4242);
  for (int trial = 0; trial < 40; ++trial) {
    SetCase sc;
    sc.both_strands = trial % 2 == 0;
    const std::vector<Bytes> user = random_patterns(rng, 1 + rng() % 4, trial % 3 == 0 ? 32 : 64, false);
    const auto set = compile_set(user, sc);
    const std::size_t n = trial < 30 ? 1 + rng() % 300 : 2000 + rng() % 5000;
    const Bytes text = hostile_text(rng, n, {user.begin(), user.end()});
    std::vector<core::ApproxQuery> q(set.size());
    for (std::size_t i = 0; i < q.size(); ++i) {
      q[i].mode = core::ApproxMode::best;
      q[i].k = static_cast<std::uint32_t>(set[i].size());
      q[i].chunk_ends = trial % 4 == 1 ? 1 + rng() % 40 : 0;
    }
    expect_set_equals_oracle(set, text, q, 1 + trial % 2, "unbounded best, trial " + std::to_string(trial));
  }
}

// Issue 15's largest sets: 5000 patterns of 8-64 bases, k from 0 to m/2, against the DP oracle.
TEST(ApproxSetCpu, FiveThousandPatternsEqualTheOracle) {
  std::mt19937_64 rng(5001);
  SetCase sc;
  const std::vector<Bytes> user = random_patterns(rng, 5000, 64, false);
  const auto set = compile_set(user, sc);
  const Bytes text = hostile_text(rng, 1500, {user.begin(), user.begin() + 40});
  std::vector<core::ApproxQuery> q(set.size());
  for (std::size_t i = 0; i < q.size(); ++i) q[i].k = static_cast<std::uint32_t>(rng() % (set[i].size() / 2 + 1));
  expect_set_equals_oracle(set, text, q, 2, "5000 edit");
}

TEST(ApproxSetCpu, FloodsMatchEverywhereAndLongPatternsRunAlone) {
  std::mt19937_64 rng(3);
  Bytes flood(5000, 'A');
  std::fill(flood.begin() + 2000, flood.begin() + 2100, 'N');
  for (const bool hamming : {false, true}) {
    SetCase sc;
    sc.hamming = hamming;
    sc.iupac = true;
    // AAAA.. hits at every end; NNNN.. (IUPAC N) everywhere; a 100- and a 65-base pattern
    // (edit distance: beyond the word, so cpu::approx_scan runs them alone); exact-length 32 and 64.
    std::vector<Bytes> user = {Bytes(8, 'A'), Bytes(20, 'N'), Bytes(100, 'A'), Bytes(65, 'A'), random_dna(rng, 32),
                               Bytes(32, 'A'), Bytes(64, 'A'), Bytes(33, 'A')};
    const auto set = compile_set(user, sc);
    for (const std::uint32_t k : {0u, 1u, 3u}) {
      std::vector<core::ApproxQuery> q(set.size());
      for (auto& x : q) x.k = std::min<std::uint32_t>(k, 8);
      expect_set_equals_oracle(set, flood, q, 2, "flood k " + std::to_string(k));
      for (auto& x : q) x.mode = core::ApproxMode::best;
      expect_set_equals_oracle(set, flood, q, 2, "flood best k " + std::to_string(k));
    }
  }
}

TEST(ApproxSetCpu, AnyByteValuesUseTheGatherLookupAndStillAgree) {
  // Arbitrary binary patterns: many text classes (beyond a register's table) and, for
  // Hamming, many slots; text of all 256 byte values.
  std::mt19937_64 rng(11);
  for (const bool hamming : {false, true}) {
    std::vector<core::ApproxPattern> set;
    for (int i = 0; i < 12; ++i) {
      core::ApproxPattern p;
      p.hamming = hamming;
      p.bytes.resize(5 + rng() % 60);
      for (auto& c : p.bytes) c = static_cast<std::uint8_t>(rng());
      set.push_back(p);
    }
    Bytes text(4000);
    for (auto& c : text) c = static_cast<std::uint8_t>(rng() % 40);  // dense enough for hits
    for (auto& p : set)
      for (auto& c : p.bytes) c = static_cast<std::uint8_t>(c % 40);
    std::vector<core::ApproxQuery> q(set.size());
    for (std::size_t i = 0; i < q.size(); ++i) q[i].k = static_cast<std::uint32_t>(set[i].size() / 2);
    expect_set_equals_oracle(set, text, q, 2, hamming ? "binary hamming" : "binary edit");
  }
}

TEST(ApproxSetCpu, PublicMatcherOnASetEqualsOneMatcherPerPattern) {
  // What the CLI and Python call: one matcher over a set (one pass) against a matcher per
  // pattern, starts and CIGARs included, both strands with IUPAC codes.
  std::mt19937_64 rng(5);
  const std::vector<Bytes> user = random_patterns(rng, 30, 30, true);
  const Bytes text = hostile_text(rng, 20000, user);
  for (const bool hamming : {false, true}) {
    warpmatch::ApproxOptions o;
    o.k = 3;
    o.backend = warpmatch::Backend::cpu;
    o.iupac = true;
    o.case_insensitive = true;
    o.hamming = hamming;
    o.strand = warpmatch::Strand::both;
    o.report = warpmatch::Report::cigar;
    const auto all = warpmatch::ApproxMatcher::compile(user, o).find_all(text);
    std::vector<warpmatch::ApproxMatch> one_by_one;
    for (std::size_t i = 0; i < user.size(); ++i)
      for (auto m : warpmatch::ApproxMatcher::compile(user[i], o).find_all(text)) {
        m.pattern = static_cast<std::uint32_t>(i);
        one_by_one.push_back(m);
      }
    ASSERT_EQ(all.size(), one_by_one.size());
    for (std::size_t i = 0; i < all.size(); ++i) {
      EXPECT_EQ(all[i].pattern, one_by_one[i].pattern);
      EXPECT_EQ(all[i].strand, one_by_one[i].strand);
      EXPECT_EQ(all[i].start, one_by_one[i].start);
      EXPECT_EQ(all[i].end, one_by_one[i].end);
      EXPECT_EQ(all[i].distance, one_by_one[i].distance);
      EXPECT_EQ(all[i].cigar, one_by_one[i].cigar);
    }
  }
}

TEST(ApproxSetCpu, AnInstructionSetTheCpuLacksIsRefused) {
  core::ApproxPattern p;
  p.bytes = {'A', 'C'};
  EXPECT_THROW(cpu::ApproxSet({p}, "neon"), warpmatch::InvalidArgument);
  if (!cpu::approx_set_isa_available("avx512")) EXPECT_THROW(cpu::ApproxSet({p}, "avx512"), warpmatch::InvalidArgument);
  EXPECT_STREQ(cpu::ApproxSet({p}, "sse").isa(), "sse");
}

// The seed filter (src/cpu/approx_seed_filter.cpp) where it qualifies (no IUPAC, every end
// within k, k + 1 pieces of >= 4 bytes): against the DP oracle on small texts with low k (the
// random trials above mostly draw k too high for it), and against the set pass on texts of
// several 1 MiB blocks with hits planted across the block seams, duplicates and substrings in
// the set, both strands, case-insensitive or not, edit distance and Hamming.
TEST(ApproxSetCpu, SeedFilterEqualsTheOracleAndTheSetPassAcrossBlockSeams) {
  std::mt19937_64 rng(20261126);
  for (int trial = 0; trial < 24; ++trial) {
    SetCase sc;
    sc.hamming = trial % 2 == 1;
    sc.case_insensitive = trial % 4 < 2;
    sc.both_strands = trial % 3 == 0;
    const std::vector<Bytes> user = random_patterns(rng, 1 + rng() % (trial < 12 ? 30 : 200), 12 + rng() % 53, false);
    const auto set = compile_set(user, sc);
    std::vector<core::ApproxQuery> q(set.size());
    for (std::size_t i = 0; i < set.size(); ++i) q[i].k = static_cast<std::uint32_t>(rng() % std::min<std::size_t>(4, set[i].size() / 4));
    const std::string what = "trial " + std::to_string(trial) + (sc.hamming ? " hamming" : " edit");
    // Small: the oracle.
    expect_set_equals_oracle(set, hostile_text(rng, 3000 + rng() % 5000, user), q, 2, what);
    // Large: the set pass, with copies of patterns planted across the 1 MiB block seams.
    Bytes text = hostile_text(rng, (std::size_t{5} << 19) + rng() % 1000, user);
    for (std::size_t seam = std::size_t{1} << 20; seam < text.size(); seam += std::size_t{1} << 20)
      for (int r = 0; r < 6; ++r) {
        const Bytes& p = user[rng() % user.size()];
        const std::size_t at = seam - p.size() + rng() % (p.size() + 1);
        for (std::size_t j = 0; j < p.size() && at + j < text.size(); ++j)
          text[at + j] = r % 2 == 1 && rng() % 12 == 0 ? static_cast<std::uint8_t>("ACGT"[rng() & 3]) : p[j];
      }
    const auto filtered = cpu::ApproxSet(set, {}, cpu::SetRoute::seed_filter).scan(text, q, 1 + trial % 3);
    const auto pass = cpu::ApproxSet(set, {}, cpu::SetRoute::set_pass).scan(text, q, 2);
    const auto automatic = cpu::ApproxSet(set).scan(text, q, 2);
    std::size_t ends = 0;
    for (std::size_t i = 0; i < set.size(); ++i) {
      ASSERT_EQ(filtered[i], pass[i]) << what << " pattern " << i << " k " << q[i].k;
      ASSERT_EQ(automatic[i], pass[i]) << what << " pattern " << i << " (automatic route)";
      ends += pass[i].size();
    }
    EXPECT_GT(ends, 0u) << what;
  }
}
