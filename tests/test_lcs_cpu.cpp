// Longest common substring and MEMs on the CPU: every algorithm (suffix-array, diagonal, dp)
// against an independent O(mn) oracle on random and adversarial inputs; the suffix array on
// large inputs against a k-gram oracle; the paper's planted substring; phage lambda.
#include <gtest/gtest.h>

#include "core/lcs_suffix.hpp"
#include "cpu/lcs_cpu.hpp"
#include "test_lcs_support.hpp"
#include "warpmatch/lcs.hpp"

using namespace lcs_test;
using warpmatch::Backend;
using warpmatch::LcsOptions;

namespace {

LcsOptions cpu_options(const std::string& algorithm, int threads = 0,
                       std::uint64_t max_matches = ~0ull) {
  LcsOptions o;
  o.backend = Backend::cpu;
  o.algorithm = algorithm;
  o.threads = threads;
  o.max_matches = max_matches;
  return o;
}

const std::vector<std::string> kLcsAlgorithms = {"suffix-array", "diagonal", "dp"};

}  // namespace

TEST(LcsCpu, RandomInputsOfAlphabets2And4And256MatchTheOracle) {
  std::mt19937_64 rng(6);
  for (int alphabet : {2, 4, 256}) {
    for (int trial = 0; trial < 40; ++trial) {
      const Bytes a = random_bytes(rng, 1 + rng() % 90, alphabet);
      const Bytes b = random_bytes(rng, 1 + rng() % 90, alphabet);
      const OracleLcs o = oracle_lcs(a, b);
      for (const auto& algo : kLcsAlgorithms) {
        const auto r = warpmatch::longest_common_substring(span(a), span(b), cpu_options(algo, 3));
        expect_matches_oracle(r, o, ~0ull,
                              algo + " alphabet " + std::to_string(alphabet) + " trial " +
                                  std::to_string(trial));
      }
    }
  }
}

TEST(LcsCpu, AdversarialInputsMatchTheOracle) {
  for (const auto& [name, a, b] : adversarial_cases()) {
    const OracleLcs o = oracle_lcs(a, b);
    for (const auto& algo : kLcsAlgorithms) {
      expect_matches_oracle(warpmatch::longest_common_substring(span(a), span(b), cpu_options(algo)),
                            o, ~0ull, algo + ": " + name);
      expect_matches_oracle(warpmatch::longest_common_substring(span(b), span(a), cpu_options(algo)),
                            oracle_lcs(b, a), ~0ull, algo + " swapped: " + name);
    }
  }
}

TEST(LcsCpu, NoCommonByteGivesLengthZeroAndNoPairs) {
  const Bytes a = bytes("aaaa"), b = bytes("bbbb");
  for (const auto& algo : kLcsAlgorithms) {
    const auto r = warpmatch::longest_common_substring(span(a), span(b), cpu_options(algo));
    EXPECT_EQ(r.length, 0u) << algo;
    EXPECT_EQ(r.count, 0u) << algo;
    EXPECT_EQ(r.total_pairs, 0u) << algo;
    EXPECT_TRUE(r.pairs.empty()) << algo;
  }
}

TEST(LcsCpu, EmptyInputGivesLengthZero) {
  const Bytes a = bytes("abc"), empty;
  for (const auto& algo : kLcsAlgorithms) {
    EXPECT_EQ(warpmatch::longest_common_substring(span(a), span(empty), cpu_options(algo)).length, 0u);
    EXPECT_EQ(warpmatch::longest_common_substring(span(empty), span(a), cpu_options(algo)).length, 0u);
    EXPECT_EQ(warpmatch::longest_common_substring(span(empty), span(empty), cpu_options(algo)).count, 0u);
  }
  EXPECT_EQ(warpmatch::maximal_exact_matches(span(a), span(empty), 1, cpu_options("auto")).total, 0u);
}

TEST(LcsCpu, MaxMatchesKeepsTheFirstPairsAndExactCounts) {
  // "ax" x 6 against "ay" x 5: L = 1 ... no, "a" and " " are common; the oracle decides.
  const Bytes a = bytes("ab ab ab ab ab ab"), b = bytes("ab-ab-ab-ab");
  const OracleLcs o = oracle_lcs(a, b);
  ASSERT_GT(o.pairs.size(), 5u);
  for (const auto& algo : kLcsAlgorithms) {
    for (std::uint64_t k : {0ull, 1ull, 5ull}) {
      const auto r = warpmatch::longest_common_substring(span(a), span(b), cpu_options(algo, 0, k));
      expect_matches_oracle(r, o, k, algo + " max " + std::to_string(k));
    }
  }
}

TEST(LcsCpu, RunInfoNamesBackendAlgorithmAndThreads) {
  const Bytes a = bytes("hello"), b = bytes("yellow");
  const auto r = warpmatch::longest_common_substring(span(a), span(b), cpu_options("auto", 2));
  EXPECT_EQ(r.stats.backend, Backend::cpu);
  EXPECT_EQ(r.stats.algorithm, "suffix-array");
  EXPECT_EQ(r.stats.device, "cpu (2 threads)");
  EXPECT_EQ(r.length, 4u);  // "ello"
}

TEST(LcsCpu, UnknownAlgorithmAndBadOptionsAreInvalidArguments) {
  const Bytes a = bytes("x");
  EXPECT_THROW(warpmatch::longest_common_substring(span(a), span(a), cpu_options("nope")),
               warpmatch::InvalidArgument);
  EXPECT_THROW(warpmatch::longest_common_substring(span(a), span(a), cpu_options("auto", -1)),
               warpmatch::InvalidArgument);
  EXPECT_THROW(warpmatch::maximal_exact_matches(span(a), span(a), 0, cpu_options("auto")),
               warpmatch::InvalidArgument);
  EXPECT_THROW(warpmatch::maximal_exact_matches(span(a), span(a), 1, cpu_options("dp")),
               warpmatch::InvalidArgument);
}

TEST(LcsCpu, LargeRandomInputsAgreeWithTheKgramOracleOnAnyThreadCount) {
  std::mt19937_64 rng(61);
  for (int alphabet : {2, 4, 256}) {
    const Bytes a = random_bytes(rng, 600'000, alphabet);
    const Bytes b = random_bytes(rng, 500'000, alphabet);
    const auto one = warpmatch::longest_common_substring(span(a), span(b), cpu_options("auto", 1, 100));
    const auto many = warpmatch::longest_common_substring(span(a), span(b), cpu_options("auto", 7, 100));
    const std::string what = "alphabet " + std::to_string(alphabet);
    expect_consistent_large(one, a, b, what);
    EXPECT_EQ(many.length, one.length) << what;
    EXPECT_EQ(many.count, one.count) << what;
    EXPECT_EQ(many.total_pairs, one.total_pairs) << what;
    EXPECT_EQ(many.pairs, one.pairs) << what;
  }
}

TEST(LcsCpu, LargeStructuredInputsSpanningManyScanBlocks) {
  // Floods and periodic strings of 300 K: answers known in closed form; the scan splits the
  // suffix array into blocks, so nearest-B searches cross block boundaries.
  for (int threads : {1, 5}) {
    const Bytes fa(300'000, 'a'), fb(120'000, 'a');
    auto r = warpmatch::longest_common_substring(span(fa), span(fb), cpu_options("auto", threads, 3));
    EXPECT_EQ(r.length, 120'000u);
    EXPECT_EQ(r.count, 1u);
    EXPECT_EQ(r.total_pairs, 180'001u);
    EXPECT_EQ(r.pairs, (std::vector<warpmatch::LcsPair>{{0, 0}, {1, 0}, {2, 0}}));
    r = warpmatch::longest_common_substring(span(fb), span(fa), cpu_options("auto", threads, 2));
    EXPECT_EQ(r.length, 120'000u);
    EXPECT_EQ(r.total_pairs, 180'001u);
    EXPECT_EQ(r.pairs, (std::vector<warpmatch::LcsPair>{{0, 0}, {0, 1}}));
    Bytes pa, pb;
    for (int i = 0; i < 100'000; ++i) pa.insert(pa.end(), {'a', 'b', 'c'});
    for (int i = 0; i < 50'000; ++i) pb.insert(pb.end(), {'b', 'c', 'a'});
    // B = (bca)^50000 occurs in A = (abc)^100000 at every a = 1 mod 3 up to 149998.
    r = warpmatch::longest_common_substring(span(pa), span(pb), cpu_options("auto", threads, 1));
    EXPECT_EQ(r.length, 150'000u);
    EXPECT_EQ(r.count, 1u);
    EXPECT_EQ(r.total_pairs, 50'000u);
    EXPECT_EQ(r.pairs, (std::vector<warpmatch::LcsPair>{{1, 0}}));
  }
}

TEST(LcsCpu, PaperPlantedSubstringIsFoundAtThePaperSizes) {
  // Table 3 of seed paper 004: 3.31K/3.50K, 15.1K/15.6K, 56.6K, 103K/104K, 150K/150K.
  const std::vector<std::pair<std::size_t, std::size_t>> sizes = {
      {3'310, 3'500}, {15'100, 15'600}, {56'600, 56'600}, {103'000, 104'000}, {150'000, 150'000}};
  for (const auto& [m, n] : sizes) {
    const Planted p = planted(m, n, m);
    const auto r = warpmatch::longest_common_substring(span(p.a), span(p.b), cpu_options("auto"));
    const std::string what = std::to_string(m) + " x " + std::to_string(n);
    expect_consistent_large(r, p.a, p.b, what);
    ASSERT_GE(r.length, 16u) << what;
    bool covers = false;
    for (const auto& q : r.pairs)
      covers |= q.a <= p.at_a && p.at_a + 16 <= q.a + r.length && q.b + (p.at_a - q.a) == p.at_b;
    EXPECT_TRUE(covers) << what;
    if (m <= 15'100) {  // the paper's own method, where affordable here
      const auto d = warpmatch::longest_common_substring(span(p.a), span(p.b), cpu_options("diagonal"));
      EXPECT_EQ(d.length, r.length) << what;
      EXPECT_EQ(d.count, r.count) << what;
      EXPECT_EQ(d.pairs, r.pairs) << what;
    }
  }
}

TEST(LcsCpu, PhageLambdaAgainstAMutatedCopy) {
  const Bytes lambda = lambda_genome();
  if (lambda.empty()) GTEST_SKIP() << "no phage lambda genome (install bowtie2-examples)";
  const Bytes copy = mutated(lambda, 200, 7);
  const auto sa = warpmatch::longest_common_substring(span(lambda), span(copy), cpu_options("auto", 4));
  expect_consistent_large(sa, lambda, copy, "lambda");
  const auto diag = warpmatch::longest_common_substring(span(lambda), span(copy), cpu_options("diagonal"));
  EXPECT_EQ(diag.length, sa.length);
  EXPECT_EQ(diag.count, sa.count);
  EXPECT_EQ(diag.total_pairs, sa.total_pairs);
  EXPECT_EQ(diag.pairs, sa.pairs);
  // MEMs of >= 30 bytes on a 20 K window: suffix array vs the maximal runs of every diagonal.
  const Bytes a(lambda.begin(), lambda.begin() + 20'000), b(copy.begin(), copy.begin() + 20'000);
  const auto mem_sa = warpmatch::maximal_exact_matches(span(a), span(b), 30, cpu_options("auto", 4, ~0ull));
  const auto mem_diag = warpmatch::maximal_exact_matches(span(a), span(b), 30, cpu_options("diagonal", 1, ~0ull));
  EXPECT_GT(mem_sa.total, 10u);
  EXPECT_EQ(mem_sa.total, mem_diag.total);
  EXPECT_EQ(mem_sa.mems, mem_diag.mems);
}

TEST(MemCpu, RandomAndAdversarialInputsMatchTheOracle) {
  std::mt19937_64 rng(66);
  std::vector<std::tuple<std::string, Bytes, Bytes>> cases = adversarial_cases();
  for (int alphabet : {2, 4, 256})
    for (int trial = 0; trial < 15; ++trial)
      cases.emplace_back("random " + std::to_string(alphabet),
                         random_bytes(rng, 1 + rng() % 120, alphabet),
                         random_bytes(rng, 1 + rng() % 120, alphabet));
  for (const auto& [name, a, b] : cases) {
    for (std::uint64_t min_len : {1ull, 2ull, 3ull, 5ull, 8ull}) {
      const auto expected = oracle_mems(a, b, min_len);
      for (const std::string algo : {"suffix-array", "diagonal"}) {
        const auto r = warpmatch::maximal_exact_matches(span(a), span(b), min_len,
                                                        cpu_options(algo, 2, ~0ull));
        EXPECT_EQ(r.total, expected.size()) << algo << ": " << name << " min " << min_len;
        EXPECT_EQ(r.mems, expected) << algo << ": " << name << " min " << min_len;
      }
    }
  }
}

TEST(MemCpu, MaxMatchesKeepsTheFirstMemsAndTheExactTotal) {
  const Bytes a = bytes("abcXabcYabcZabc"), b = bytes("abc-abc");
  const auto all = oracle_mems(a, b, 2);
  ASSERT_EQ(all.size(), 8u);
  const auto r = warpmatch::maximal_exact_matches(span(a), span(b), 2, cpu_options("auto", 0, 3));
  EXPECT_EQ(r.total, 8u);
  EXPECT_EQ(r.mems, std::vector<warpmatch::Mem>(all.begin(), all.begin() + 3));
}

// The suffix-array path runs on 32-bit arrays below 2 GiB of text and on 64-bit ones above:
// both give the oracle's answer, and the same as each other on inputs spanning many scan
// blocks (lambda against a mutated copy, repeats), for lcs and MEMs; the two suffix arrays
// are equal.
TEST(LcsCpu, ThirtyTwoAndSixtyFourBitSuffixArraysGiveTheSameAnswers) {
  namespace cpu = warpmatch::cpu;
  std::mt19937_64 rng(32);
  std::vector<std::tuple<std::string, Bytes, Bytes>> cases = adversarial_cases();
  for (int alphabet : {2, 4, 256})
    for (int trial = 0; trial < 10; ++trial)
      cases.emplace_back("random " + std::to_string(alphabet), random_bytes(rng, 1 + rng() % 120, alphabet),
                         random_bytes(rng, 1 + rng() % 120, alphabet));
  const Bytes lambda = lambda_genome();
  cases.emplace_back("lambda", lambda, mutated(lambda, 97, 5));
  Bytes repeats;
  for (int i = 0; i < 5000; ++i) repeats.insert(repeats.end(), {'A', 'C', 'G', 'T', 'T', static_cast<std::uint8_t>('A' + i % 3)});
  cases.emplace_back("repeats", repeats, Bytes(repeats.begin() + 1000, repeats.begin() + 9000));
  for (const auto& [name, a, b] : cases) {
    Bytes t = a;
    t.insert(t.end(), b.begin(), b.end());
    const std::vector<std::int32_t> sa32 = cpu::suffix_array32(span(t));
    const std::vector<std::int64_t> sa64 = cpu::suffix_array(span(t));
    ASSERT_TRUE(std::equal(sa32.begin(), sa32.end(), sa64.begin(), sa64.end())) << name;
    warpmatch::LcsResult narrow, wide;
    cpu::lcs(span(a), span(b), cpu::LcsAlgorithm::suffix_array, 1000, 3, narrow);
    cpu::lcs(span(a), span(b), cpu::LcsAlgorithm::suffix_array64, 1000, 3, wide);
    EXPECT_EQ(narrow.length, wide.length) << name;
    EXPECT_EQ(narrow.count, wide.count) << name;
    EXPECT_EQ(narrow.total_pairs, wide.total_pairs) << name;
    EXPECT_EQ(narrow.pairs, wide.pairs) << name;
    if (a.size() * b.size() < 100000) expect_matches_oracle(narrow, oracle_lcs(a, b), 1000, "32-bit: " + name);
    // Short MEMs of long inputs are quadratically many: long ones there.
    const std::vector<std::uint64_t> min_lens = a.size() > 1000 ? std::vector<std::uint64_t>{14, 24} : std::vector<std::uint64_t>{2, 5, 12};
    for (std::uint64_t min_len : min_lens) {
      warpmatch::MemResult m32, m64;
      cpu::mems(span(a), span(b), min_len, cpu::LcsAlgorithm::suffix_array, 5000, 3, m32);
      cpu::mems(span(a), span(b), min_len, cpu::LcsAlgorithm::suffix_array64, 5000, 3, m64);
      EXPECT_EQ(m32.total, m64.total) << name << " min " << min_len;
      EXPECT_EQ(m32.mems, m64.mems) << name << " min " << min_len;
    }
  }
}

// What one GPU must hold for the suffix-array path (core::lcs_device_fit): the estimate the
// api front compares with the device memory left before it builds anything, and the message
// naming the sizes and the limit (a forced cuda backend's error, the automatic backend's note).
TEST(LcsDeviceFit, EstimateIs37BytesPerInputBytePlusAnEighthAndSlack) {
  EXPECT_EQ(warpmatch::core::lcs_suffix_array_device_bytes(0), std::uint64_t{64} << 20);
  EXPECT_EQ(warpmatch::core::lcs_suffix_array_device_bytes(800), 800 * 37 + 100 + (std::uint64_t{64} << 20));
  const std::uint64_t gib = std::uint64_t{1} << 30;
  EXPECT_EQ(warpmatch::core::lcs_suffix_array_device_bytes(gib), gib * 37 + gib / 8 + (std::uint64_t{64} << 20));
}

TEST(LcsDeviceFit, ShortfallNamesTheInputsTheNeedAndWhatIsAvailable) {
  const auto need = warpmatch::core::lcs_suffix_array_device_bytes(3000);
  const auto fits = warpmatch::core::lcs_device_fit(1000, 2000, need);
  EXPECT_TRUE(fits.fits());
  EXPECT_EQ(fits.shortfall("GPU 0"), "");

  const auto short_by_one = warpmatch::core::lcs_device_fit(1000, 2000, need - 1);
  EXPECT_FALSE(short_by_one.fits());
  EXPECT_TRUE(short_by_one.fits_index());
  EXPECT_EQ(short_by_one.needed, need);
  const std::string text = short_by_one.shortfall("GPU 0");
  for (const std::string& part : std::vector<std::string>{"inputs of 1000 + 2000 bytes", std::to_string(need) + " bytes",
                                 std::to_string(need - 1) + " bytes) available", "on GPU 0", "64.1 MiB"})
    EXPECT_NE(text.find(part), std::string::npos) << "'" << part << "' missing from: " << text;
}

TEST(LcsDeviceFit, TextsPastThe32BitIndexNeverFitWhateverTheMemory) {
  const std::uint64_t max = warpmatch::core::kLcsDeviceMaxTextBytes;
  EXPECT_TRUE(warpmatch::core::lcs_device_fit(max - 10, 10, ~std::uint64_t{0}).fits());
  const auto over = warpmatch::core::lcs_device_fit(max - 10, 11, ~std::uint64_t{0});
  EXPECT_TRUE(over.fits_memory());
  EXPECT_FALSE(over.fits());
  EXPECT_NE(over.shortfall("GPU 1").find("32-bit index limit of " + std::to_string(max) + " bytes"), std::string::npos)
      << over.shortfall("GPU 1");
}
