// The CUDA kernels of exact search (src/cuda/exact/kernels.cuh), compiled for the host under
// the shared kernel shim (tests/support/cuda_host_shim.hpp) and run block by block, against a
// naive search: the prefix and first/last-byte filters (count, per-segment count, ordered
// emit) and the paper's brute force (block totals, unordered appends), with and without case
// folding, on random, adversarial (floods, periodic text, pattern = text, occurrences across
// 16-byte vectors and 8 KiB segments, garbage in the padding after the text) and real inputs
// (/usr/share/dict/words). The dispatch's own parts (chunks, CUB scans and sorts) are replaced
// by plain host loops here; the GPU tests (test_exact_cuda.cpp) check the real thing on a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "support/exact_emulation.hpp"

namespace {

using namespace exact_emulation;

const char* name_of(ExactAlgorithm a) {
  switch (a) {
    case ExactAlgorithm::fast: return "fast";
    case ExactAlgorithm::first_last: return "first_last";
    case ExactAlgorithm::prefix: return "prefix";
    case ExactAlgorithm::bf: return "bf";
  }
  return "?";
}

/// Every kernel, on grids of one block, three blocks and one block per segment (warps then
/// stride over several segments, or own one each), against the oracle: over every start, and
/// as a chunk that owns only the starts before its last occurrence (which lies in the buffer
/// but must not be reported) or up to and including it.
void expect_kernels_match(const Bytes& text, const Bytes& pattern_bytes, bool case_insensitive,
                          const std::string& what) {
  const core::ExactPattern pattern = make_pattern(pattern_bytes, case_insensitive);
  if (text.size() < pattern.size()) return;
  const Starts all = naive(text, pattern);
  std::vector<std::uint64_t> owned = {text.size() - pattern.size() + 1};
  if (!all.empty()) owned.insert(owned.end(), {all.back(), all.back() + 1});
  for (const std::uint64_t npos : owned) {
    const Starts want(all.begin(), std::lower_bound(all.begin(), all.end(), npos));
    const auto wide = static_cast<unsigned>((kk::fast_segments(npos) + kk::kFastBlock / 32 - 1) / (kk::kFastBlock / 32));
    const std::string where = what + " n=" + std::to_string(text.size()) + " m=" + std::to_string(pattern.size()) +
                              (case_insensitive ? " -i" : "") + " npos " + std::to_string(npos) + " grid ";
    for (const unsigned grid : {1u, 3u, wide})
      for (const ExactAlgorithm algorithm : kFilters)
        EXPECT_EQ(run_filter(text, pattern, algorithm, grid, npos), want) << name_of(algorithm) << " " << where << grid;
    for (const unsigned grid : {1u, 5u}) EXPECT_EQ(run_bf(text, pattern, grid, npos), want) << "bf " << where << grid;
  }
}

Bytes random_bytes(std::mt19937_64& rng, std::size_t n, const std::string& alphabet) {
  Bytes b(n);
  for (auto& c : b) c = static_cast<std::uint8_t>(alphabet[rng() % alphabet.size()]);
  return b;
}

Bytes bytes_of(const std::string& s) { return Bytes(s.begin(), s.end()); }

const std::size_t kLengths[] = {1, 2, 3, 4, 5, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 300};

TEST(ExactEmulation, RandomTextsAndPatternsEqualNaive) {
  std::mt19937_64 rng(2026);
  for (int round = 0; round < 40; ++round) {
    const std::string alphabet = round % 3 == 0 ? "ab" : (round % 3 == 1 ? "acgt" : "aAbBcC xyz");
    const std::size_t n = rng() % 30000;
    const Bytes text = random_bytes(rng, n, alphabet);
    const std::size_t m = kLengths[rng() % std::size(kLengths)];
    Bytes pattern = random_bytes(rng, m, alphabet);
    if (round % 2 == 0 && n >= m) {  // a pattern that occurs
      const std::size_t at = rng() % (n - m + 1);
      pattern.assign(text.begin() + static_cast<std::ptrdiff_t>(at), text.begin() + static_cast<std::ptrdiff_t>(at + m));
    }
    expect_kernels_match(text, pattern, round % 4 == 3, "round " + std::to_string(round));
  }
}

TEST(ExactEmulation, FloodsAndPeriodicTextsEqualNaive) {
  // Every position a hit (emit order under a flood), and periods that put candidates in every
  // lane of every vector.
  for (const std::size_t m : {1, 2, 3, 4, 16, 17, 64, 65}) {
    expect_kernels_match(Bytes(20000 + m, 'a'), Bytes(m, 'a'), false, "flood");
    expect_kernels_match(Bytes(9000, 'A'), Bytes(m, 'a'), true, "folded flood");
  }
  std::string ab, abc;
  for (int i = 0; i < 6000; ++i) ab += "ab";
  for (int i = 0; i < 4000; ++i) abc += "abc";
  for (const std::string p : {"ab", "ba", "aba", "abab", "abababababababab", "bababababababababa", "abcabcabcabcabcabcabc"}) {
    expect_kernels_match(bytes_of(ab), bytes_of(p), false, "period 2");
    expect_kernels_match(bytes_of(abc), bytes_of(p), false, "period 3");
  }
}

TEST(ExactEmulation, PatternEqualToTextAndTextsAtSegmentBoundaries) {
  std::mt19937_64 rng(7);
  for (const std::size_t m : {1, 3, 16, 17, 64, 65, 200}) {
    const Bytes text = random_bytes(rng, m, "abc");
    expect_kernels_match(text, text, false, "pattern = text");
    Bytes longer = text;
    longer.back() ^= 1;
    expect_kernels_match(text, longer, false, "pattern = text with its last byte changed");
  }
  // npos right at, before and after whole vectors and whole 8 KiB segments, with the pattern
  // at the first and the last start and across vector and segment edges.
  const std::uint64_t seg = kk::kSegmentPositions;
  for (const std::size_t m : {2, 3, 5, 16, 17, 40}) {
    const Bytes pattern = random_bytes(rng, m, "xyz");
    for (const std::uint64_t npos : {seg - 1, seg, seg + 1, seg + 15, seg + 16, 2 * seg - 17, 2 * seg, 3 * seg + 5}) {
      Bytes text = random_bytes(rng, npos + m - 1, "abcxyz");
      auto plant = [&](std::uint64_t at) {
        if (at + m <= text.size()) std::copy(pattern.begin(), pattern.end(), text.begin() + static_cast<std::ptrdiff_t>(at));
      };
      plant(0);
      plant(npos - 1);
      for (std::uint64_t edge = 16; edge < npos; edge += 16 * 37) plant(edge - 1);
      for (std::uint64_t edge = seg; edge < npos; edge += seg) {
        plant(edge - m / 2 - 1);
        plant(edge);
      }
      expect_kernels_match(text, pattern, false, "boundaries npos " + std::to_string(npos));
    }
  }
}

TEST(ExactEmulation, DictionaryWordsInWordTextEqualNaive) {
  std::ifstream in("/usr/share/dict/words");
  std::vector<std::string> words;
  for (std::string w; std::getline(in, w);)
    if (!w.empty()) words.push_back(w);
  if (words.size() < 1000) GTEST_SKIP() << "no /usr/share/dict/words";
  std::mt19937_64 rng(11);
  std::string text;
  while (text.size() < 60000) text += words[rng() % 2000] + (rng() % 8 == 0 ? "\n" : " ");  // a dense prefix: many repeats
  const Bytes t = bytes_of(text);
  for (int i = 0; i < 24; ++i) {
    const std::string& w = words[rng() % (i % 2 ? words.size() : 2000)];
    expect_kernels_match(t, bytes_of(w), i % 3 == 0, "word '" + w + "'");
  }
  expect_kernels_match(t, bytes_of("the"), true, "word 'the'");
  expect_kernels_match(t, bytes_of(" a"), false, "word ' a'");
}

}  // namespace
