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

#include "support/cuda_host_shim.hpp"

// The kernels go to their own namespace here, so that their host definitions never meet the
// CUDA build's launch stubs of the same names at link time.
#include "core/multi_pair_filter.hpp"
#include "core/multi_patterns.hpp"
#define detail multi_kernel_emulation
#include "cuda/multi/kernels.cuh"
#undef detail

namespace warpmatch::cuda::multi_kernel_emulation {
alignas(16) std::uint32_t shared_words[1 << 16];  // the kernels' dynamic shared memory
alignas(16) std::uint8_t page[1 << 18];
}  // namespace warpmatch::cuda::multi_kernel_emulation

#include "test_multi_oracle.hpp"
#include "warpmatch/multi.hpp"

using namespace warpmatch;
namespace dev = warpmatch::cuda::multi_kernel_emulation;

namespace {

std::vector<Match> decode(const std::vector<std::uint64_t>& keys, std::uint64_t count,
                          const core::PatternSet& set) {
  std::vector<std::uint64_t> sorted(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(count));
  std::sort(sorted.begin(), sorted.end());
  std::vector<Match> out;
  for (const auto k : sorted) {
    const auto id = static_cast<std::uint32_t>(k & 0xffffffffu);
    out.push_back({.pattern = id, .start = k >> 32, .end = (k >> 32) + set.length(id)});
  }
  return out;
}

// The CPU backend's matches with start < owned: what one chunk must report.
std::vector<Match> expected(const std::vector<std::string>& patterns, const std::string& text,
                            std::uint64_t owned, bool ci) {
  MultiOptions opt;
  opt.backend = Backend::cpu;
  opt.case_insensitive = ci;
  std::vector<Match> out;
  for (const Match& m : MultiMatcher::compile(patterns, opt).find_all(as_bytes(text)))
    if (m.start < owned) out.push_back(m);
  return out;
}

enum class FastKernel {
  tile, scan_block_queue, scan_warp_queue, scan_per_thread, scan_lane_filter, scan_pair, scan_pair_wide
};

std::vector<Match> emulate_fast(const std::vector<std::string>& patterns, const std::string& text,
                                std::uint64_t owned, bool ci, unsigned max_grid,
                                FastKernel kernel = FastKernel::tile) {
  const core::PatternSet set = core::make_pattern_set(patterns, ci);
  const core::PrefixIndex index = core::build_prefix_index(set);
  dev::DevicePrefixIndex ix;
  ix.class_mask = index.class_mask;
  ix.bit1 = index.bit1.data();
  ix.bit2 = index.bit2.data();
  ix.bit3 = index.bit3.data();
  ix.bit4 = index.bit4.data();
  ix.bit8 = index.bit8.data();
  ix.bits3 = index.bits3;
  ix.bits4 = index.bits4;
  ix.bits8 = index.bits8;
  for (int c = 0; c < core::kPrefixClasses; ++c) {
    ix.table[c] = index.table[c].empty() ? nullptr : index.table[c].data();
    ix.table_mask[c] = index.table[c].empty() ? 0 : index.table[c].size() - 1;
  }
  const std::vector<std::uint32_t> summary = dev::bit4_word_summary(index.bit4);
  ix.bit4_summary = summary.data();
  ix.short_gate = index.short_gate.data();
  ix.ids = index.ids.data();
  ix.head8 = index.head8.data();
  ix.offsets = set.offsets.data();
  ix.bytes = set.bytes.data();
  ix.case_insensitive = ci;
  // The chunk as the device holds it: owned starts plus the overlap, nothing more.
  const std::uint64_t readable = std::min<std::uint64_t>(text.size(), owned + set.max_length - 1);
  const std::vector<std::uint8_t> chunk(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(readable));
  std::vector<std::uint64_t> hits(1 << 20);
  unsigned long long counter = 0;
  dev::HitOutput out{&counter, hits.data(), hits.size()};
  const bool shared_bitmap = ix.bits4 <= dev::kFastSharedBitmapBits;
  auto launch_all = [&] {
    if (kernel == FastKernel::tile) {
      const std::uint64_t tiles = (owned + dev::kFastTileStarts - 1) / dev::kFastTileStarts;
      const auto grid = static_cast<unsigned>(std::min<std::uint64_t>(tiles, max_grid));
      emu::launch(grid, dev::kFastThreads, [&] {
        if (shared_bitmap) dev::multi_fast_kernel<true>(ix, chunk.data(), owned, readable, out);
        else dev::multi_fast_kernel<false>(ix, chunk.data(), owned, readable, out);
      });
    } else if (kernel == FastKernel::scan_pair || kernel == FastKernel::scan_pair_wide) {
      // As the dispatcher, with a small table (2^12 entries) so that more starts pass.
      const bool wide = kernel == FastKernel::scan_pair_wide;
      const core::PairFilter pair = core::build_pair_filter(set, 12, wide);
      const core::PairVerifyIndex verify = core::build_pair_verify_index(set);
      dev::DevicePairVerify pv;
      pv.slots = reinterpret_cast<const uint4*>(verify.slots.data());
      pv.members = verify.members.data();
      pv.slot_mask = static_cast<std::uint32_t>(verify.slots.size() - 1);
      pv.bits = verify.bits;
      const bool short_classes = (index.class_mask & 7) != 0;
      const std::uint64_t tiles = (owned + dev::kScanTileStarts - 1) / dev::kScanTileStarts;
      const auto grid = static_cast<unsigned>(std::min<std::uint64_t>(tiles, max_grid));
      auto run = [&](auto fold_tag, auto short_tag, auto wide_tag) {
        constexpr bool kFold = decltype(fold_tag)::value, kShort = decltype(short_tag)::value,
                       kWide = decltype(wide_tag)::value;
        emu::launch(grid, dev::kScanThreads, [&] {
          dev::multi_pair_scan_kernel<kFold, kShort, kWide, 5>(ix, pv, pair.words.data(), pair.bits, chunk.data(),
                                                               owned, readable, out);
        });
      };
      auto with_wide = [&](auto fold_tag, auto short_tag) {
        if (wide) run(fold_tag, short_tag, std::true_type{});
        else run(fold_tag, short_tag, std::false_type{});
      };
      if (ci && short_classes) with_wide(std::true_type{}, std::true_type{});
      else if (ci) with_wide(std::true_type{}, std::false_type{});
      else if (short_classes) with_wide(std::false_type{}, std::true_type{});
      else with_wide(std::false_type{}, std::false_type{});
    } else {
      // As the dispatcher: the short gate for sets with patterns shorter than 4, the lane
      // filter only with the shared bitmap and without them.
      const bool short_classes = (index.class_mask & 7) != 0;
      const std::uint64_t tiles = (owned + dev::kScanTileStarts - 1) / dev::kScanTileStarts;
      const auto grid = static_cast<unsigned>(std::min<std::uint64_t>(tiles, max_grid));
      auto run = [&](auto shared_tag, auto fold_tag) {
        constexpr bool kShared = decltype(shared_tag)::value, kFold = decltype(fold_tag)::value;
        using dev::ScanVerify;
        emu::launch(grid, dev::kScanThreads, [&] {
          if constexpr (kShared)
            if (kernel == FastKernel::scan_lane_filter && !short_classes)
              return dev::multi_scan_kernel<true, kFold, ScanVerify::warp_queue, true>(ix, chunk.data(), owned,
                                                                                       readable, out);
          if (short_classes) {
            if (kernel == FastKernel::scan_block_queue)
              dev::multi_scan_kernel<kShared, kFold, ScanVerify::block_queue, false, true>(ix, chunk.data(), owned,
                                                                                           readable, out);
            else if (kernel == FastKernel::scan_per_thread)
              dev::multi_scan_kernel<kShared, kFold, ScanVerify::per_thread, false, true>(ix, chunk.data(), owned,
                                                                                          readable, out);
            else
              dev::multi_scan_kernel<kShared, kFold, ScanVerify::warp_queue, false, true>(ix, chunk.data(), owned,
                                                                                          readable, out);
            return;
          }
          if (kernel == FastKernel::scan_block_queue)
            dev::multi_scan_kernel<kShared, kFold, ScanVerify::block_queue>(ix, chunk.data(), owned, readable, out);
          else if (kernel == FastKernel::scan_warp_queue || kernel == FastKernel::scan_lane_filter)
            dev::multi_scan_kernel<kShared, kFold, ScanVerify::warp_queue>(ix, chunk.data(), owned, readable, out);
          else
            dev::multi_scan_kernel<kShared, kFold, ScanVerify::per_thread>(ix, chunk.data(), owned, readable, out);
        });
      };
      if (shared_bitmap && ci) run(std::true_type{}, std::true_type{});
      else if (shared_bitmap) run(std::true_type{}, std::false_type{});
      else if (ci) run(std::false_type{}, std::true_type{});
      else run(std::false_type{}, std::false_type{});
    }
  };
  launch_all();
  EXPECT_LE(counter, hits.size());
  const std::vector<Match> found = decode(hits, counter, set);
  // Count only with a counter per pattern (`find -c -f` on the GPU): the same occurrences,
  // none of them leaving the kernel as a hit.
  std::vector<unsigned long long> per_pattern(set.size(), 0), want(set.size(), 0);
  unsigned long long total = 0;
  out = dev::HitOutput{&total, nullptr, 0, per_pattern.data()};
  launch_all();
  for (const Match& m : found) ++want[m.pattern];
  EXPECT_EQ(per_pattern, want);
  EXPECT_EQ(total, found.size());
  return found;
}

struct MbndmRun {
  std::vector<Match> matches;
  std::uint64_t counted = 0;  // the count-only launch
};

MbndmRun emulate_mbndm(const std::vector<std::string>& patterns, const std::string& text,
                       std::uint64_t owned, bool ci, int page_bytes, unsigned threads,
                       int keywords, unsigned total_blocks) {
  const core::PatternSet set = core::make_pattern_set(patterns, ci);
  const core::MbndmPlan plan = core::build_mbndm_plan(set, keywords, 64);
  dev::DeviceMbndm mb;
  mb.subsets = plan.subsets.data();
  mb.members = plan.members.data();
  mb.tables = plan.tables.data();
  mb.subset_count = static_cast<std::uint32_t>(plan.subsets.size());
  mb.offsets = set.offsets.data();
  mb.bytes = set.bytes.data();
  mb.case_insensitive = ci;
  const std::uint64_t readable = std::min<std::uint64_t>(text.size(), owned + set.max_length - 1);
  const std::vector<std::uint8_t> chunk(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(readable));
  // The dispatch's grid: subset blocks per group, groups striding over pages.
  const std::uint32_t subset_blocks = (mb.subset_count + threads - 1) / threads;
  const std::uint64_t pages = (owned + page_bytes - 1) / page_bytes;
  const std::uint64_t groups = std::max<std::uint64_t>(1, std::min<std::uint64_t>(pages, total_blocks / subset_blocks));
  const auto grid = static_cast<unsigned>(groups * subset_blocks);
  const int overlap = static_cast<int>(set.max_length);
  EXPECT_LE(static_cast<std::size_t>(page_bytes + overlap), sizeof(dev::page));
  MbndmRun run;
  std::vector<std::uint64_t> hits(1 << 20);
  unsigned long long counter = 0;
  const dev::HitOutput out{&counter, hits.data(), hits.size()};
  emu::launch(grid, threads, [&] {
    dev::multi_mbndm_kernel(mb, chunk.data(), owned, readable, page_bytes, overlap, subset_blocks, out);
  });
  run.matches = decode(hits, counter, set);
  unsigned long long only = 0;
  const dev::HitOutput count_only{&only, nullptr, 0};
  emu::launch(grid, threads, [&] {
    dev::multi_mbndm_kernel(mb, chunk.data(), owned, readable, page_bytes, overlap, subset_blocks,
                            count_only);
  });
  run.counted = only;
  std::vector<unsigned long long> per_pattern(set.size(), 0), want(set.size(), 0);
  unsigned long long total = 0;
  const dev::HitOutput count_per_pattern{&total, nullptr, 0, per_pattern.data()};
  emu::launch(grid, threads, [&] {
    dev::multi_mbndm_kernel(mb, chunk.data(), owned, readable, page_bytes, overlap, subset_blocks,
                            count_per_pattern);
  });
  for (const Match& m : run.matches) ++want[m.pattern];
  EXPECT_EQ(per_pattern, want);
  EXPECT_EQ(total, run.matches.size());
  return run;
}

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
                                       FastKernel::scan_pair, FastKernel::scan_pair_wide};

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
