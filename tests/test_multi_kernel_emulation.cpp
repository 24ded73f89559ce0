// The CUDA kernels of multi-pattern search (src/cuda/multi/kernels.cuh), compiled for the host
// under the shared kernel shim (tests/support/cuda_host_shim.hpp) and run block by block on
// chunks with and without overlap, against the CPU backend. This checks the kernels' tiling, funnel-shift windows, page and
// overlap arithmetic and subset mapping on any machine; the GPU tests (test_multi_cuda.cpp)
// check the real thing on a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <type_traits>
#include <vector>

#include "support/multi_emulation.hpp"
#include "test_multi_oracle.hpp"

using namespace warpmatch;
using namespace multi_emulation;

namespace {

std::vector<std::string> mixed_patterns(std::mt19937_64& rng, const std::string& text) {
  auto ps = multi_test::random_patterns(rng, 150, 4, 24, text);
  ps.push_back("A");
  ps.push_back("CG");
  ps.push_back("TTT");
  ps.push_back(text.substr(4090, 12));   // across the first tile boundary
  ps.push_back(text.substr(8191, 300));  // long, across the second
  ps.push_back(text.substr(text.size() - 5, 5));
  ps.push_back("CG");  // duplicate
  return ps;
}

}  // namespace

TEST(MultiKernelEmulation, TileKernelMatchesCpuOnWholeTextAndOnChunks) {
  std::mt19937_64 rng(201);
  const std::string text = multi_test::random_text(rng, 20000, 4);
  const auto patterns = mixed_patterns(rng, text);
  for (std::uint64_t owned : {std::uint64_t{20000}, std::uint64_t{4096}, std::uint64_t{8195},
                              std::uint64_t{1}, std::uint64_t{19999}})
    for (unsigned grid : {1u, 3u}) {
      const auto want = expected(patterns, text, owned, false);
      EXPECT_EQ(emulate_fast(patterns, text, owned, false, grid), want)
          << "owned " << owned << " grid " << grid;
    }
}

TEST(MultiKernelEmulation, TileKernelShortTextsBytesAndCaseFolding) {
  std::mt19937_64 rng(202);
  std::vector<std::string> bytes;
  for (int c = 0; c < 256; c += 5) bytes.push_back(std::string(1, static_cast<char>(c)));
  bytes.push_back(std::string("\0\0", 2));
  bytes.push_back(std::string("\xff\xff\xff\xff\xff\xff\xff\xff\xff", 9));
  bytes.push_back("aBcDeFgHiJ");
  std::string text = multi_test::random_text(rng, 9000, 256);
  text.replace(100, 10, "AbCdEfGhIj");
  for (std::size_t len : {1u, 2u, 3u, 7u, 8u, 9u, 4097u, 9000u}) {
    const std::string t = text.substr(0, len);
    EXPECT_EQ(emulate_fast(bytes, t, len, false, 2), expected(bytes, t, len, false)) << len;
    EXPECT_EQ(emulate_fast(bytes, t, len, true, 2), expected(bytes, t, len, true)) << len << " -i";
  }
}

TEST(MultiKernelEmulation, TileKernelWithGlobalBitmapForLargeSets) {
  std::mt19937_64 rng(203);
  const std::string text = multi_test::random_text(rng, 10000, 26);
  const auto patterns = multi_test::random_patterns(rng, 20000, 26, 16, text);
  const core::PatternSet set = core::make_pattern_set(patterns, false);
  ASSERT_GT(core::build_prefix_index(set).bits4, dev::kFastSharedBitmapBits);  // global path
  EXPECT_EQ(emulate_fast(patterns, text, 10000, false, 2), expected(patterns, text, 10000, false));
}

// ---- the queued scan kernel (sets without patterns shorter than 4) ----

constexpr FastKernel kScanKernels[] = {FastKernel::scan_block_queue, FastKernel::scan_warp_queue,
                                       FastKernel::scan_per_thread, FastKernel::scan_lane_filter,
                                       FastKernel::scan_pair, FastKernel::scan_pair_wide,
                                       FastKernel::scan_key8, FastKernel::scan_long_key};

std::vector<std::string> at_least_4(std::vector<std::string> ps) {
  std::erase_if(ps, [](const std::string& p) { return p.size() < 4; });
  return ps;
}

TEST(MultiKernelEmulation, ScanKernelsMatchCpuOnWholeTextAndOnChunks) {
  std::mt19937_64 rng(205);
  const std::string text = multi_test::random_text(rng, 20000, 4);
  auto patterns = at_least_4(mixed_patterns(rng, text));
  patterns.push_back(text.substr(8190, 9));  // across the first 8192-start tile boundary
  patterns.push_back(text.substr(8160, 40));  // across a thread's 32 starts and the tile
  // DNA: most starts pass the 4-byte bitmap, so tiles overflow the queue and take rounds.
  for (std::uint64_t owned : {std::uint64_t{20000}, std::uint64_t{8192}, std::uint64_t{8195},
                              std::uint64_t{1}, std::uint64_t{31}, std::uint64_t{33},
                              std::uint64_t{19999}})
    for (unsigned grid : {1u, 3u}) {
      const auto want = expected(patterns, text, owned, false);
      for (const FastKernel kernel : kScanKernels)
        EXPECT_EQ(emulate_fast(patterns, text, owned, false, grid, kernel), want)
            << "owned " << owned << " grid " << grid << " kernel " << static_cast<int>(kernel);
    }
}

TEST(MultiKernelEmulation, ScanKernelsOnFloodsBytesAndCaseFolding) {
  // A flood: every start is a candidate and matches several patterns.
  const std::string flood(17000, 'a');
  const std::vector<std::string> runs = {"aaaa", "aaaaaaa", "aaaaaaaa", "aaaaaaaaaaaaaaaaaaaaa", "AAAAA"};
  for (const FastKernel kernel : kScanKernels) {
    EXPECT_EQ(emulate_fast(runs, flood, flood.size(), false, 2, kernel),
              expected(runs, flood, flood.size(), false));
    EXPECT_EQ(emulate_fast(runs, flood, flood.size(), true, 1, kernel),
              expected(runs, flood, flood.size(), true));
  }
  // Bytes 0 and 0xff, folding, and text lengths around the 36-byte register window.
  std::mt19937_64 rng(206);
  std::vector<std::string> bytes = {std::string("\0\0\0\0", 4), std::string("\0\0\0\0\0\0\0\0\0", 9),
                                    std::string("\xff\xff\xff\xff\xff\xff\xff\xff\xff", 9),
                                    std::string("\xff\xff\xff\xff", 4), "aBcDeFgHiJ", "WxYz"};
  for (int i = 0; i < 40; ++i) bytes.push_back(multi_test::random_text(rng, 4 + i % 9, 256));
  std::string text = multi_test::random_text(rng, 9000, 256);
  text.replace(100, 10, "AbCdEfGhIj");
  text.replace(200, 4, "wXyZ");
  text.replace(300, 12, std::string(12, '\0'));
  text.replace(8185, 12, std::string(12, '\xff'));
  for (std::size_t len : {4u, 7u, 8u, 9u, 35u, 36u, 37u, 4097u, 8193u, 9000u}) {
    const std::string t = text.substr(0, len);
    for (const FastKernel kernel : kScanKernels) {
      EXPECT_EQ(emulate_fast(bytes, t, len, false, 2, kernel), expected(bytes, t, len, false)) << len;
      EXPECT_EQ(emulate_fast(bytes, t, len, true, 2, kernel), expected(bytes, t, len, true))
          << len << " -i";
    }
  }
}

TEST(MultiKernelEmulation, ScanKernelsWithGlobalBitmapForLargeSets) {
  std::mt19937_64 rng(207);
  const std::string text = multi_test::random_text(rng, 10000, 26);
  const auto patterns = at_least_4(multi_test::random_patterns(rng, 30000, 26, 16, text));
  const core::PatternSet set = core::make_pattern_set(patterns, false);
  ASSERT_GT(core::build_prefix_index(set).bits4, dev::kFastSharedBitmapBits);  // global path
  for (const FastKernel kernel : kScanKernels)
    EXPECT_EQ(emulate_fast(patterns, text, 10000, false, 2, kernel), expected(patterns, text, 10000, false));
}

TEST(MultiKernelEmulation, ScanKernelsWithShortPatternsMatchCpu) {
  std::mt19937_64 rng(208);
  const std::string text = multi_test::random_text(rng, 20000, 4);
  auto patterns = mixed_patterns(rng, text);
  for (std::size_t len : {1u, 2u, 3u}) {
    patterns.push_back(text.substr(8192 - len + 1, len));  // across the first tile's end
    patterns.push_back(text.substr(text.size() - len, len));
  }
  for (std::uint64_t owned : {std::uint64_t{20000}, std::uint64_t{8193}, std::uint64_t{1},
                              std::uint64_t{33}, std::uint64_t{19999}})
    for (unsigned grid : {1u, 3u}) {
      const auto want = expected(patterns, text, owned, false);
      for (const FastKernel kernel : kScanKernels)
        EXPECT_EQ(emulate_fast(patterns, text, owned, false, grid, kernel), want)
            << "owned " << owned << " grid " << grid << " kernel " << static_cast<int>(kernel);
    }
  // Case folding and bytes 0 / 0xff in short patterns; the global bitmap with a large set.
  std::string bytes_text = multi_test::random_text(rng, 9000, 256);
  bytes_text.replace(100, 3, "aBc");
  const std::vector<std::string> shorts = {std::string("\0", 1), std::string("\xff\xff", 2), "Abc", "q", "xY", "wxyz"};
  for (std::size_t len : {1u, 2u, 3u, 36u, 9000u}) {
    const std::string t = bytes_text.substr(0, len);
    for (const FastKernel kernel : kScanKernels) {
      EXPECT_EQ(emulate_fast(shorts, t, len, false, 2, kernel), expected(shorts, t, len, false)) << len;
      EXPECT_EQ(emulate_fast(shorts, t, len, true, 2, kernel), expected(shorts, t, len, true)) << len << " -i";
    }
  }
  const std::string large_text = multi_test::random_text(rng, 10000, 26);
  // Lengths >= 3 but a few (random sets of 30000 repeat the short ones: too many hits).
  auto large = multi_test::random_patterns(rng, 30000, 26, 16, large_text);
  std::erase_if(large, [](const std::string& p) { return p.size() < 3; });
  large.insert(large.end(), {"q", "jx", large_text.substr(9998, 2)});
  ASSERT_GT(core::build_prefix_index(core::make_pattern_set(large, false)).bits4, dev::kFastSharedBitmapBits);
  for (const FastKernel kernel : kScanKernels)
    EXPECT_EQ(emulate_fast(large, large_text, 10000, false, 2, kernel), expected(large, large_text, 10000, false));
}

// The 8-byte scan (sets of length >= 8 over a small alphabet: DNA): its 10-word register
// window, the second funnel shift and prefix_hash8 against the naive double loop, at thread, tile and chunk
// borders, folded, flooded, and with the bitmap in global memory.
TEST(MultiKernelEmulation, Key8ScanMatchesCpuOnDnaSets) {
  std::mt19937_64 rng(210);
  const std::string text = multi_test::random_text(rng, 20000, 4);
  std::vector<std::string> patterns;
  for (int i = 0; i < 300; ++i) patterns.push_back(multi_test::random_text(rng, 8 + i % 13, 4));
  for (std::size_t at : {0u, 25u, 31u, 8185u, 8190u, 16380u, 19980u}) patterns.push_back(text.substr(at, 8 + at % 5));
  patterns.push_back(text.substr(text.size() - 8, 8));
  patterns.push_back(text.substr(8160, 40));  // across a thread's 32 starts and the tile
  ASSERT_TRUE(core::build_prefix_index(core::make_pattern_set(patterns, false)).key8_scan());
  for (std::uint64_t owned : {std::uint64_t{20000}, std::uint64_t{8192}, std::uint64_t{8195},
                              std::uint64_t{1}, std::uint64_t{31}, std::uint64_t{33}, std::uint64_t{19993}})
    for (unsigned grid : {1u, 3u})
      EXPECT_EQ(emulate_fast(patterns, text, owned, false, grid, FastKernel::scan_key8),
                expected(patterns, text, owned, false, "naive"))
          << "owned " << owned << " grid " << grid;
  // Folded: soft-masked (lowercase) stretches of the genome, mixed-case patterns.
  std::string soft = text;
  for (std::size_t i = 0; i < soft.size(); i += 1 + i % 7) soft[i] = static_cast<char>(soft[i] + 32);
  std::vector<std::string> mixed = patterns;
  for (std::size_t i = 0; i < mixed.size(); i += 2) mixed[i][0] = static_cast<char>(mixed[i][0] + 32);
  for (std::size_t len : {8u, 9u, 39u, 40u, 41u, 8200u, 20000u}) {
    const std::string t = soft.substr(0, len);
    EXPECT_EQ(emulate_fast(mixed, t, len, true, 2, FastKernel::scan_key8), expected(mixed, t, len, true, "naive")) << len;
  }
  // A flood: every start passes and matches.
  const std::string flood(17000, 'A');
  const std::vector<std::string> runs = {"AAAAAAAA", "AAAAAAAAAAAAA", std::string(33, 'A')};
  EXPECT_EQ(emulate_fast(runs, flood, flood.size(), false, 2, FastKernel::scan_key8),
            expected(runs, flood, flood.size(), false, "naive"));
  // 10000 patterns: the bitmap is too large for shared memory.
  std::vector<std::string> many;
  for (int i = 0; i < 10000; ++i) many.push_back(multi_test::random_text(rng, 12, 4));
  const std::string head = text.substr(0, 6000);
  for (int i = 0; i < 50; ++i) many.push_back(head.substr(rng() % 5980, 12));
  const core::PrefixIndex large = core::build_prefix_index(core::make_pattern_set(many, false));
  ASSERT_TRUE(large.key8_scan());
  ASSERT_GT(large.key8_bits, dev::kFastSharedBitmapBits);
  EXPECT_EQ(emulate_fast(many, head, head.size(), false, 2, FastKernel::scan_key8),
            expected(many, head, head.size(), false, "naive"));
}

// The long-key scan (core::PrefixIndex::long_key): small sets over two letters (their 8-byte
// keys cover 1/8 of what two letters allow, 12 bytes are selective) and 2*10^4 DNA k-mers (the
// bitmap in global memory), across thread and tile borders, owned ends, folded and flooded.
TEST(MultiKernelEmulation, LongKeyScanMatchesCpuOnLargeAndBinarySets) {
  std::mt19937_64 rng(211);
  const std::string text = multi_test::random_text(rng, 20000, 2);
  auto patterns = multi_test::random_words(rng, 50, 2, 12, 20);
  for (std::size_t at : {0u, 25u, 31u, 8185u, 8190u, 16380u, 19980u}) patterns.push_back(text.substr(at, 12 + at % 5));
  patterns.push_back(text.substr(text.size() - 12, 12));
  patterns.push_back(text.substr(8160, 40));
  const core::PrefixIndex index = core::build_prefix_index(core::make_pattern_set(patterns, false), true);
  ASSERT_TRUE(index.long_key_scan());
  ASSERT_EQ(index.long_key_bytes, 12);
  for (std::uint64_t owned : {std::uint64_t{20000}, std::uint64_t{8192}, std::uint64_t{8195},
                              std::uint64_t{1}, std::uint64_t{31}, std::uint64_t{33}, std::uint64_t{19993}})
    for (unsigned grid : {1u, 3u})
      EXPECT_EQ(emulate_fast(patterns, text, owned, false, grid, FastKernel::scan_long_key),
                expected(patterns, text, owned, false, "naive"))
          << "owned " << owned << " grid " << grid;
  std::string folded = text;
  for (std::size_t i = 0; i < folded.size(); i += 1 + i % 7) folded[i] = static_cast<char>(folded[i] + 32);
  std::vector<std::string> mixed = patterns;
  for (std::size_t i = 0; i < mixed.size(); i += 2) mixed[i][0] = static_cast<char>(mixed[i][0] + 32);
  for (std::size_t len : {12u, 13u, 39u, 40u, 41u, 8200u, 20000u}) {
    const std::string t = folded.substr(0, len);
    EXPECT_EQ(emulate_fast(mixed, t, len, true, 2, FastKernel::scan_long_key), expected(mixed, t, len, true, "naive"))
        << len;
  }
  const std::string flood(17000, 'A');
  std::vector<std::string> runs = multi_test::random_words(rng, 60, 2, 14, 20);
  runs.push_back(std::string(14, 'A'));
  runs.push_back(std::string(33, 'A'));
  ASSERT_TRUE(core::build_prefix_index(core::make_pattern_set(runs, false), true).long_key_scan());
  EXPECT_EQ(emulate_fast(runs, flood, flood.size(), false, 2, FastKernel::scan_long_key),
            expected(runs, flood, flood.size(), false, "naive"));
  // 2*10^4 DNA k-mers: a bitmap of 2^21 bits, read from global memory.
  const std::string dna = multi_test::random_text(rng, 9000, 4);
  auto many = multi_test::random_words(rng, 20000, 4, 12, 30);
  for (int i = 0; i < 60; ++i) many[rng() % many.size()] = dna.substr(rng() % 8900, 12 + rng() % 19);
  const core::PrefixIndex large = core::build_prefix_index(core::make_pattern_set(many, false), true);
  ASSERT_TRUE(large.long_key_scan());
  ASSERT_GT(large.long_key_bits, dev::kFastSharedBitmapBits);
  const auto want = multi_test::hashed_matches(many, dna);
  ASSERT_GE(want.size(), 50u);
  EXPECT_EQ(emulate_fast(many, dna, dna.size(), false, 2, FastKernel::scan_long_key), want);
}

// The pair filter (narrow and wide) never rejects a start where a pattern of length >= 4
// begins, as either start of a pair, and rejects most other starts.
TEST(MultiPairFilter, PassesEveryPatternPrefixAndRejectsMostOthers) {
  auto window = [](const std::string& s) {  // s[0..4], little-endian
    std::uint64_t w = 0;
    for (std::size_t j = 0; j < 5 && j < s.size(); ++j)
      w |= std::uint64_t{static_cast<std::uint8_t>(s[j])} << (8 * j);
    return w;
  };
  std::mt19937_64 rng(209);
  for (int alphabet : {2, 4, 26, 256})
    for (const bool wide : {false, true}) {
      const auto patterns = at_least_4(multi_test::random_patterns(rng, 1000, alphabet, 12, ""));
      const core::PairFilter filter =
          core::build_pair_filter(core::make_pattern_set(patterns, false), wide ? 12 : 13, wide);
      for (const std::string& p : patterns) {
        const std::string shifted = static_cast<char>(rng() & 0xff) + p;  // p at the second start
        EXPECT_TRUE(core::pair_filter_passes(filter, window(p), false)) << alphabet << " wide " << wide;
        EXPECT_TRUE(core::pair_filter_passes(filter, window(shifted), true)) << alphabet << " wide " << wide;
      }
      if (alphabet == 256) {  // random starts: each side's bits are ~600 / 2^17 dense
        int passed = 0;
        for (int i = 0; i < 100000; ++i) passed += core::pair_filter_passes(filter, rng() & 0xffffffffffull, i & 1);
        EXPECT_LT(passed, 2000) << "wide " << wide;
      }
    }
}

TEST(MultiKernelEmulation, MbndmKernelMatchesCpuUnderThreadConfigurations) {
  std::mt19937_64 rng(204);
  const std::string text = multi_test::random_text(rng, 9000, 4);
  const auto patterns = mixed_patterns(rng, text);
  struct Config {
    int page;
    unsigned threads;
    int keywords;
    unsigned blocks;
  };
  for (const Config c : {Config{1024, 64, 1, 8}, Config{100, 32, 1, 3}, Config{1, 32, 4, 64},
                         Config{4096, 64, 16, 1}, Config{333, 32, 3, 200}})
    for (std::uint64_t owned : {std::uint64_t{9000}, std::uint64_t{2048}, std::uint64_t{77}}) {
      const auto want = expected(patterns, text, owned, false);
      const MbndmRun run = emulate_mbndm(patterns, text, owned, false, c.page, c.threads,
                                         c.keywords, c.blocks);
      EXPECT_EQ(run.matches, want) << "page " << c.page << " threads " << c.threads
                                   << " keywords " << c.keywords << " owned " << owned;
      EXPECT_EQ(run.counted, want.size());
    }
  const auto folded = expected(patterns, text, 9000, true);
  EXPECT_EQ(emulate_mbndm(patterns, text, 9000, true, 512, 32, 2, 4).matches, folded);
}
