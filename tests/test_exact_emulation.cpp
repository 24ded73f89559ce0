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
#include <cstring>
#include <fstream>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "core/exact_pattern.hpp"
#include "cuda/exact/exact_cuda.hpp"
#include "support/cuda_host_shim.hpp"

// The kernels go to their own namespace here, so that their host definitions never meet the
// CUDA build's launch stubs of the same names at link time.
#define kernels exact_kernel_emulation
#include "cuda/exact/kernels.cuh"
#undef kernels

namespace {

namespace kk = warpmatch::cuda::exact_kernel_emulation;
namespace core = warpmatch::core;
using warpmatch::cuda::ExactAlgorithm;
using Bytes = std::vector<std::uint8_t>;
using Starts = std::vector<std::uint64_t>;

constexpr ExactAlgorithm kFilters[] = {ExactAlgorithm::fast, ExactAlgorithm::first_last, ExactAlgorithm::prefix};

const char* name_of(ExactAlgorithm a) {
  switch (a) {
    case ExactAlgorithm::fast: return "fast";
    case ExactAlgorithm::first_last: return "first_last";
    case ExactAlgorithm::prefix: return "prefix";
    case ExactAlgorithm::bf: return "bf";
  }
  return "?";
}

core::ExactPattern make_pattern(const Bytes& bytes, bool case_insensitive) {
  core::ExactPattern p{.bytes = {}, .case_insensitive = case_insensitive};
  for (const std::uint8_t c : bytes) p.bytes.push_back(case_insensitive ? core::fold_ascii(c) : c);
  return p;
}

/// The oracle: compare at every start position.
Starts naive(const Bytes& text, const core::ExactPattern& pattern) {
  Starts out;
  for (std::uint64_t i = 0; i + pattern.size() <= text.size(); ++i)
    if (pattern.matches_at(warpmatch::ByteSpan(text), i)) out.push_back(i);
  return out;
}

/// The text as a chunk buffer on the device: whole 16-byte vectors plus the dispatch's 64
/// bytes of padding, filled here with copies of the pattern (a chunk buffer holds whatever an
/// earlier chunk left): the kernels must never report a start past npos.
struct DeviceText {
  DeviceText(const Bytes& text, const core::ExactPattern& pattern) {
    const std::size_t bytes = (text.size() + 15) / 16 * 16 + 64;
    vectors.resize(bytes / 16);
    auto* p = reinterpret_cast<std::uint8_t*>(vectors.data());
    for (std::size_t i = 0; i < bytes; ++i) p[i] = pattern.bytes[i % pattern.size()];
    if (!text.empty()) std::memcpy(p, text.data(), text.size());
  }
  const std::uint8_t* data() const { return reinterpret_cast<const std::uint8_t*>(vectors.data()); }
  std::uint64_t text_vecs() const { return vectors.size(); }
  std::vector<uint4> vectors;
};

kk::PatternParams params_of(const core::ExactPattern& pattern) {
  kk::PatternParams p = kk::make_pattern_params(pattern);
  if (pattern.size() > kk::kInlinePattern) p.global = pattern.bytes.data();
  return p;
}

/// A filter kernel's three passes on `grid` blocks over starts [0, npos) (a chunk may own
/// fewer starts than its buffer holds whole occurrences for): the total, then per-segment counts, their
/// exclusive prefix sum (CUB's scan on the device), the ordered emit. Checks that the passes
/// agree and returns the emitted starts.
Starts run_filter(const Bytes& text, const core::ExactPattern& pattern, ExactAlgorithm algorithm, unsigned grid,
                  std::uint64_t npos) {
  const DeviceText dt(text, pattern);
  const kk::PatternParams params = params_of(pattern);
  const auto m = static_cast<std::uint32_t>(pattern.size());
  const bool fold = pattern.case_insensitive;

  unsigned long long total = 0;
  const auto count = kk::fast_kernel<kk::FastMode::count_total>(algorithm, fold, m);
  emu::launch(grid, kk::kFastBlock, [&] { count(dt.data(), dt.text_vecs(), npos, params, &total, nullptr, nullptr, nullptr); });

  const std::uint64_t segments = kk::fast_segments(npos);
  std::vector<std::uint32_t> seg_counts(segments, 0xdeadbeefu), seg_offsets(segments + 1, 0);
  const auto per_segment = kk::fast_kernel<kk::FastMode::count_segments>(algorithm, fold, m);
  emu::launch(grid, kk::kFastBlock, [&] {
    per_segment(dt.data(), dt.text_vecs(), npos, params, nullptr, seg_counts.data(), nullptr, nullptr);
  });
  std::partial_sum(seg_counts.begin(), seg_counts.end(), seg_offsets.begin() + 1);
  EXPECT_EQ(seg_offsets[segments], total) << "per-segment counts differ from the total";

  std::vector<std::uint32_t> out(seg_offsets[segments]);
  const auto emit = kk::fast_kernel<kk::FastMode::emit>(algorithm, fold, m);
  emu::launch(grid, kk::kFastBlock, [&] {
    emit(dt.data(), dt.text_vecs(), npos, params, nullptr, nullptr, seg_offsets.data(), out.data());
  });
  return Starts(out.begin(), out.end());
}

/// The brute force on `grid` blocks: block totals summed (CUB's reduce on the device), then the
/// appends sorted (CUB's radix sort). Checks that the count matches the appends.
Starts run_bf(const Bytes& text, const core::ExactPattern& pattern, unsigned grid, std::uint64_t npos) {
  const DeviceText dt(text, pattern);
  const kk::PatternParams params = params_of(pattern);
  std::vector<unsigned long long> block_totals(grid, 0);
  const auto count = kk::bf_kernel(pattern.case_insensitive, false);
  emu::launch(grid, kk::kBfBlock, [&] { count(dt.data(), npos, params, block_totals.data(), nullptr, nullptr); });
  const unsigned long long total = std::accumulate(block_totals.begin(), block_totals.end(), 0ull);

  std::vector<std::uint32_t> out(npos);
  unsigned int cursor = 0;
  const auto emit = kk::bf_kernel(pattern.case_insensitive, true);
  emu::launch(grid, kk::kBfBlock, [&] { emit(dt.data(), npos, params, nullptr, out.data(), &cursor); });
  EXPECT_EQ(cursor, total) << "bf: appends differ from the block totals";
  out.resize(cursor);
  std::sort(out.begin(), out.end());
  return Starts(out.begin(), out.end());
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
