// The CUDA LCS kernels (src/cuda/lcs/kernels.cuh, their per-thread logic in agent.hpp) compiled
// for the host under the shared kernel shim (tests/support/cuda_host_shim.hpp) and launched with
// the same host-side steps as src/cuda/lcs/dispatch.cu (CUB's radix sorts, scans and selects
// over the kernels' functors replaced by std::stable_sort and loops), against the independent
// oracle. Runs without a GPU, so the GPU paths are checked on every machine.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "support/lcs_emulation.hpp"
#include "test_lcs_support.hpp"

using namespace lcs_test;
using namespace lcs_emulation;

TEST(LcsEmulation, DeviceSuffixArrayOrderEqualsTheSortedSuffixes) {
  std::mt19937_64 rng(31);
  std::vector<Bytes> texts;
  for (int trial = 0; trial < 300; ++trial)
    texts.push_back(random_bytes(rng, 1 + rng() % 70, std::vector<int>{1, 2, 4, 256}[trial % 4]));
  // Alphabets of 255 and 256 byte values: 8- and 9-bit codes, 8 and 7 characters per key.
  for (const int sigma : {255, 256}) {
    Bytes t(static_cast<std::size_t>(sigma));
    std::iota(t.begin(), t.end(), std::uint8_t{0});
    std::shuffle(t.begin(), t.end(), rng);
    const Bytes copy(t.begin(), t.begin() + 40);
    t.insert(t.end(), copy.begin(), copy.end());
    t.insert(t.end(), copy.begin(), copy.begin() + 9);
    texts.push_back(t);
  }
  // Long repeats: many doubling rounds over shrinking sets of suffixes still sharing a group.
  texts.push_back(Bytes(700, 'a'));
  Bytes periodic, fibonacci_prev = bytes("a"), fibonacci = bytes("ab");
  for (int k = 0; k < 600; ++k) periodic.push_back("abc"[k % 3]);
  texts.push_back(periodic);
  while (fibonacci.size() < 1000) {
    Bytes next = fibonacci;
    next.insert(next.end(), fibonacci_prev.begin(), fibonacci_prev.end());
    fibonacci_prev = std::exchange(fibonacci, next);
  }
  texts.push_back(fibonacci);
  Bytes copies = random_bytes(rng, 400, 4, 'A');
  Bytes mutated_copy = copies;
  for (int k = 0; k < 3; ++k) mutated_copy[rng() % mutated_copy.size()] = 'T';
  copies.insert(copies.end(), mutated_copy.begin(), mutated_copy.end());
  texts.push_back(copies);
  for (const Bytes& t : texts) {
    std::vector<std::uint32_t> expected(t.size());
    std::iota(expected.begin(), expected.end(), 0u);
    std::sort(expected.begin(), expected.end(), [&](std::uint32_t x, std::uint32_t y) {
      return std::lexicographical_compare(t.begin() + x, t.end(), t.begin() + y, t.end());
    });
    EXPECT_EQ(emulated_suffix_array(t), expected) << "text of " << t.size() << " bytes";
  }
}

TEST(LcsEmulation, InitialKeysPackAsManyCompactedBytesAsFit) {
  auto chars_for = [](std::initializer_list<std::uint8_t> bytes) {
    std::uint32_t present[lt::kAlphabetWords] = {};
    for (const std::uint8_t c : bytes) present[c >> 5] |= 1u << (c & 31);
    return lt::initial_key_chars(present);
  };
  EXPECT_EQ(chars_for({'a'}), 56);
  EXPECT_EQ(chars_for({'A', 'C', 'G', 'T'}), 18);
  EXPECT_EQ(chars_for({0, 255, 7}), 28);
  Bytes all(256);
  std::iota(all.begin(), all.end(), std::uint8_t{0});
  std::uint32_t present[lt::kAlphabetWords] = {};
  for (const std::uint8_t c : all) present[c >> 5] |= 1u << (c & 31);
  EXPECT_EQ(lt::initial_key_chars(present), 6);
  EXPECT_EQ(lt::alphabet_code(present, 0), 1u);
  EXPECT_EQ(lt::alphabet_code(present, 255), 256u);
}

TEST(LcsEmulation, NearestBChainIsAssociative) {
  // The device runs the nearest-B scans as parallel scans, which regroup the operator freely.
  std::mt19937_64 rng(35);
  auto state = [&] {
    const bool seen = rng() % 2;
    const std::uint32_t lcp = rng() % 5 == 0 ? lt::kInfiniteLcp : static_cast<std::uint32_t>(rng() % 8);
    return lt::NearestB{seen ? 1u : 0u, lcp};
  };
  for (int trial = 0; trial < 2000; ++trial) {
    const lt::NearestB x = state(), y = state(), z = state();
    const lt::NearestB left = lt::chain(lt::chain(x, y), z), right = lt::chain(x, lt::chain(y, z));
    EXPECT_EQ(left.seen, right.seen);
    EXPECT_EQ(left.min_lcp, right.min_lcp);
  }
}

TEST(LcsEmulation, DeviceSuffixArrayPathMatchesTheOracle) {
  std::mt19937_64 rng(32);
  auto cases = adversarial_cases();
  for (int trial = 0; trial < 150; ++trial) {
    const int alphabet = std::vector<int>{2, 3, 4, 256}[trial % 4];
    cases.emplace_back("random " + std::to_string(alphabet), random_bytes(rng, 1 + rng() % 50, alphabet),
                       random_bytes(rng, 1 + rng() % 50, alphabet));
  }
  for (const auto& [name, a, b] : cases) {
    const OracleLcs o = oracle_lcs(a, b);
    for (const std::int64_t chunk : {std::int64_t{1}, std::int64_t{3}, lt::kPlcpChunk}) {
      const auto r = emulated_suffix_array_scan(a, b, chunk, lt::kPlcpBudget);
      ASSERT_TRUE(r.has_value());
      expect_matches_oracle(*r, o, ~0ull, name + " chunk " + std::to_string(chunk));
    }
  }
}

TEST(LcsEmulation, PlcpBudgetRunsOutOnlyOnRepeatsLongerThanTheBudget) {
  // A chunk costs about the PLCP at its start: a flood's PLCP reaches its length.
  EXPECT_FALSE(emulated_suffix_array_scan(Bytes(20000, 'a'), Bytes(10000, 'a'), lt::kPlcpChunk, lt::kPlcpBudget)
                   .has_value());
  const auto short_flood =
      emulated_suffix_array_scan(Bytes(3000, 'a'), Bytes(2000, 'a'), lt::kPlcpChunk, lt::kPlcpBudget);
  ASSERT_TRUE(short_flood.has_value());
  EXPECT_EQ(short_flood->length, 2000u);
  EXPECT_EQ(short_flood->total_pairs, 1001u);
  std::mt19937_64 rng(33);
  EXPECT_TRUE(emulated_suffix_array_scan(random_bytes(rng, 3000, 4), random_bytes(rng, 2000, 4), lt::kPlcpChunk,
                                         lt::kPlcpBudget)
                  .has_value());
}

TEST(LcsEmulation, DiagonalPathMatchesTheOracle) {
  std::mt19937_64 rng(34);
  auto cases = adversarial_cases();
  for (int trial = 0; trial < 150; ++trial) {
    const int alphabet = std::vector<int>{2, 3, 4, 256}[trial % 4];
    cases.emplace_back("random " + std::to_string(alphabet), random_bytes(rng, 1 + rng() % 60, alphabet),
                       random_bytes(rng, 1 + rng() % 60, alphabet));
  }
  std::uint64_t nonzero = 0;
  for (const auto& [name, a, b] : cases) {
    const auto r = emulated_diagonal(a, b);
    nonzero += r.length > 0;
    expect_matches_oracle(r, oracle_lcs(a, b), ~0ull, name);
  }
  EXPECT_GT(nonzero, 100u);  // the inputs exercise the emitting kernels
}
