// Multi-pattern exact search on the CUDA backend (fast, and the paper's mbndm under several
// thread configurations) against Hyperscan's literal mode / a plain double loop and against
// the CPU backend: random sets, adversarial sets, chunk and page boundaries (tiny streaming
// chunks), real words in real text, 100K and 1M pattern sets. Skips without a GPU.
#include <gtest/gtest.h>

#include <cctype>

#include "api/kernel_timing.hpp"
#include "api/tuning_hooks.hpp"
#include "core/multi_patterns.hpp"
#include "cuda/multi/multi_cuda.hpp"
#include "test_multi_oracle.hpp"
#include "warpmatch/multi.hpp"

using namespace warpmatch;
using multi_test::oracle_matches;

namespace {

#define REQUIRE_GPU()                                                              \
  do {                                                                             \
    if (cuda_devices().empty()) GTEST_SKIP() << "no CUDA GPU: multi-pattern GPU test skipped"; \
  } while (0)

MultiMatcher gpu_matcher(const std::vector<std::string>& patterns, const std::string& algo,
                         bool ci = false, tuning_hooks::MbndmGpuConfig cfg = {}) {
  MultiOptions opt;
  opt.backend = Backend::cuda;
  opt.algorithm = algo;
  opt.case_insensitive = ci;
  return tuning_hooks::compile_multi(patterns, opt, cfg);
}

std::vector<Match> gpu_matches(const std::vector<std::string>& patterns, const std::string& text,
                               const std::string& algo, bool ci = false, tuning_hooks::MbndmGpuConfig cfg = {}) {
  return gpu_matcher(patterns, algo, ci, cfg).find_all(as_bytes(text));
}

void expect_same(const std::vector<Match>& got, const std::vector<Match>& want,
                 const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(got[i], want[i]) << what << ": match " << i << " differs (pattern " << got[i].pattern
                               << " at " << got[i].start << " vs pattern " << want[i].pattern
                               << " at " << want[i].start << ")";
}

// Scans through the streaming pipeline with a small chunk so that matches straddle chunks.
std::vector<Match> streamed_matches(const std::vector<std::string>& patterns,
                                    const std::string& text, cuda::MultiAlgorithm algo,
                                    std::uint64_t chunk_bytes, bool ci = false) {
  const core::PatternSet set = core::make_pattern_set(patterns, ci);
  const core::PrefixIndex index = core::build_prefix_index(set);
  cuda::MultiLaunch launch;
  launch.chunk_bytes = chunk_bytes;
  launch.page_bytes = 256;
  launch.threads_per_block = 64;
  const auto tables = cuda::multi_upload(set, &index, algo, launch, 0);
  std::vector<Match> out;
  cuda::multi_scan(*tables, as_bytes(text), false, [&](std::span<const Match> batch) {
    out.insert(out.end(), batch.begin(), batch.end());
    return true;
  });
  EXPECT_EQ(cuda::multi_scan(*tables, as_bytes(text), true, {}), out.size());
  // Counted per pattern on the device (`find -c -f`): the listed matches' histogram.
  std::vector<std::uint64_t> want(set.size(), 0);
  for (const Match& m : out) ++want[m.pattern];
  EXPECT_EQ(cuda::multi_count_per_pattern(*tables, as_bytes(text)), want) << "chunk " << chunk_bytes;
  return out;
}

const char* kGpuAlgorithms[] = {"fast", "mbndm"};
const cuda::FastKernel kFastKernels[] = {cuda::FastKernel::automatic, cuda::FastKernel::tile,
                                         cuda::FastKernel::scan_block_queue,
                                         cuda::FastKernel::scan_warp_queue,
                                         cuda::FastKernel::scan_per_thread,
                                         cuda::FastKernel::scan_lane_filter,
                                         cuda::FastKernel::scan_pair,
                                         cuda::FastKernel::scan_key8,
                                         cuda::FastKernel::scan_long_key};

}  // namespace

TEST(MultiCuda, RandomSetsMatchHyperscanOverAlphabets) {
  REQUIRE_GPU();
  std::mt19937_64 rng(105);
  for (int alphabet : {2, 4, 26, 256})
    for (std::size_t count : {1u, 7u, 100u, 1000u}) {
      const std::string text = multi_test::random_text(rng, 1 << 16, alphabet);
      const auto patterns = multi_test::random_patterns(rng, count, alphabet, 64, text);
      const auto want = oracle_matches(patterns, text);
      for (const char* algo : kGpuAlgorithms)
        expect_same(gpu_matches(patterns, text, algo), want,
                    std::string(algo) + " alphabet " + std::to_string(alphabet) + " patterns " +
                        std::to_string(count));
    }
}

TEST(MultiCuda, MbndmThreadConfigurationsOfThePaperAllAgree) {
  REQUIRE_GPU();
  std::mt19937_64 rng(106);
  const std::string text = multi_test::random_text(rng, 300000, 26);
  auto patterns = multi_test::random_patterns(rng, 1000, 26, 4, text);
  for (auto& p : patterns) p = multi_test::random_text(rng, 4, 26);  // the paper's: length 4
  for (int i = 0; i < 200; ++i) patterns[i] = text.substr(rng() % (text.size() - 4), 4);
  const auto want = oracle_matches(patterns, text);
  ASSERT_GT(want.size(), 200u);
  for (int page : {1, 100, 1024, 2048, 8192})
    for (int threads : {32, 256, 512, 1024})
      for (int keywords : {1, 3, 16})
        for (int blocks : {0, 1, 7}) {
          if (blocks == 7 && (page != 1024 || keywords != 1)) continue;
          const tuning_hooks::MbndmGpuConfig cfg{page, threads, blocks, keywords};
          expect_same(gpu_matches(patterns, text, "mbndm", false, cfg), want,
                      "page " + std::to_string(page) + " threads " + std::to_string(threads) +
                          " keywords " + std::to_string(keywords) + " blocks " +
                          std::to_string(blocks));
        }
}

TEST(MultiCuda, AdversarialSetsAgreeWithTheDoubleLoop) {
  REQUIRE_GPU();
  const std::vector<std::string> patterns = {"a",   "aa",   "aaa",  "ab", "b",   "bab", "abab",
                                             "aa",  "a",    "bab",  "abababab", "babababa",
                                             "ba",  "abababababababababab"};
  for (const std::string text :
       {std::string("ababababababababababababab"), std::string(70000, 'a'), std::string("a"),
        std::string("ba"), std::string("aab") + std::string(5000, 'b')}) {
    const auto want = multi_test::naive_matches(patterns, text);
    for (const char* algo : kGpuAlgorithms)
      expect_same(gpu_matches(patterns, text, algo), want, std::string(algo) + " flood/prefix");
  }
  std::vector<std::string> bytes;
  for (int c = 0; c < 256; ++c) bytes.push_back(std::string(1, static_cast<char>(c)));
  bytes.push_back(std::string("\0\0", 2));
  bytes.push_back(std::string("\xff\xff\xff\xff\xff\xff\xff\xff\xff", 9));
  bytes.push_back(std::string("\0\xff\0", 3));
  std::string text(20000, '\0');
  for (std::size_t i = 10000; i < 15000; ++i) text[i] = '\xff';
  text[17000] = '\xff';
  const auto want = multi_test::naive_matches(bytes, text);
  for (const char* algo : kGpuAlgorithms)
    expect_same(gpu_matches(bytes, text, algo), want, std::string(algo) + " NUL/0xFF");
}

TEST(MultiCuda, LongPatternsAndTextEnds) {
  REQUIRE_GPU();
  std::mt19937_64 rng(107);
  const std::string text = multi_test::random_text(rng, 50000, 4);
  std::vector<std::string> patterns = {text.substr(100, 1000), text.substr(49000, 1000),
                                       text.substr(30000, 2000), text.substr(49990, 10),
                                       text.substr(49999, 1), text.substr(0, 3), text + "A",
                                       text.substr(4095, 9), text.substr(4093, 2)};
  const auto want = multi_test::naive_matches(patterns, text);
  expect_same(gpu_matches(patterns, text, "fast"), want, "fast long");
  // The paper's kernel holds page + maxPLength in shared memory: 2000-byte patterns fit.
  expect_same(gpu_matches(patterns, text, "mbndm"), want, "mbndm long");
  for (std::size_t len : {1u, 2u, 3u, 4u, 5u, 7u, 8u, 9u, 15u, 16u, 17u}) {
    const std::string tiny = text.substr(0, len);
    expect_same(gpu_matches(patterns, tiny, "fast"), multi_test::naive_matches(patterns, tiny),
                "fast text of " + std::to_string(len));
    expect_same(gpu_matches(patterns, tiny, "mbndm"), multi_test::naive_matches(patterns, tiny),
                "mbndm text of " + std::to_string(len));
  }
}

TEST(MultiCuda, StreamedChunksNeitherLoseNorRepeatMatches) {
  REQUIRE_GPU();
  std::mt19937_64 rng(108);
  const std::string text = multi_test::random_text(rng, 1 << 20, 4);
  auto patterns = multi_test::random_patterns(rng, 500, 4, 40, text);
  patterns.push_back(text.substr(4000 - 300, 600));
  patterns.push_back("A");
  const auto want = oracle_matches(patterns, text);
  for (std::uint64_t chunk : {4096ull, 4099ull, 65536ull + 13, 1ull << 20})
    for (auto algo : {cuda::MultiAlgorithm::fast, cuda::MultiAlgorithm::mbndm})
      expect_same(streamed_matches(patterns, text, algo, chunk), want,
                  "chunk " + std::to_string(chunk) +
                      (algo == cuda::MultiAlgorithm::fast ? " fast" : " mbndm"));
}

TEST(MultiCuda, ManyHitsGrowTheHitBuffer) {
  REQUIRE_GPU();
  // 3 patterns at every position of 3 MiB: 9 Mi hits, more than the initial 1 Mi capacity.
  const std::string text(3 << 20, 'a');
  const std::vector<std::string> patterns = {"a", "aa", "aaa"};
  for (const char* algo : kGpuAlgorithms) {
    const auto m = gpu_matcher(patterns, algo);
    std::uint64_t n = 0, last_start = 0;
    std::uint32_t last_pattern = 0;
    bool ordered = true;
    m.scan(as_bytes(text), [&](const Match& x) {
      if (n > 0 && (x.start < last_start || (x.start == last_start && x.pattern <= last_pattern)))
        ordered = false;
      last_start = x.start;
      last_pattern = x.pattern;
      ++n;
      return true;
    });
    EXPECT_TRUE(ordered) << algo;
    EXPECT_EQ(n, 3ull * text.size() - 3) << algo;
    EXPECT_EQ(m.count(as_bytes(text)), n) << algo;
  }
}

TEST(MultiCuda, CountsPerPatternLikeTheCpu) {
  REQUIRE_GPU();
  std::mt19937_64 rng(131);
  for (const bool ci : {false, true}) {
    std::string text = multi_test::random_text(rng, 3 << 20, 4);
    auto patterns = multi_test::random_patterns(rng, 700, 1, 30, text);
    patterns.push_back(patterns.front());  // a duplicate counts on its own
    patterns.push_back(std::string(200, 'Z'));  // never occurs
    if (ci) for (std::size_t i = 0; i < text.size(); i += 7) text[i] = static_cast<char>(std::tolower(text[i]));
    MultiOptions cpu_opt;
    cpu_opt.backend = Backend::cpu;
    cpu_opt.case_insensitive = ci;
    const auto want = MultiMatcher::compile(patterns, cpu_opt).count_per_pattern(as_bytes(text));
    for (const char* algo : kGpuAlgorithms)
      EXPECT_EQ(gpu_matcher(patterns, algo, ci).count_per_pattern(as_bytes(text)), want)
          << algo << (ci ? " -i" : "");
  }
  // A flood: every position, three patterns, the hot counters under contention.
  const std::string flood(5 << 20, 'a');
  for (const char* algo : kGpuAlgorithms)
    EXPECT_EQ(gpu_matcher({"a", "aa", "aaa"}, algo).count_per_pattern(as_bytes(flood)),
              (std::vector<std::uint64_t>{flood.size(), flood.size() - 1, flood.size() - 2}))
        << algo;
}

TEST(MultiCuda, CaseInsensitiveMatchesHyperscanCaseless) {
  REQUIRE_GPU();
  std::mt19937_64 rng(109);
  std::string text = multi_test::random_text(rng, 1 << 15, 26);
  for (std::size_t i = 0; i < text.size(); i += 3) text[i] = static_cast<char>(text[i] - 32);
  text += "[@`{ \xc1\xe1";
  auto patterns = multi_test::random_patterns(rng, 300, 26, 12, text);
  for (std::size_t i = 0; i < patterns.size(); i += 2)
    for (auto& c : patterns[i])
      if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
  patterns.push_back("[");
  patterns.push_back("\xe1");
  const auto want = oracle_matches(patterns, text, true);
  for (const char* algo : kGpuAlgorithms)
    expect_same(gpu_matches(patterns, text, algo, true), want, std::string(algo) + " -i");
}

TEST(MultiCuda, DictionaryWordsInEnglishTextLikeTheCpu) {
  REQUIRE_GPU();
  const auto words = multi_test::dictionary_words();
  const std::string text = multi_test::english_text();
  if (words.empty() || text.empty()) GTEST_SKIP() << "no /usr/share/dict/words or licence texts";
  const auto want = oracle_matches(words, text);
  expect_same(gpu_matches(words, text, "fast"), want, "fast words");
  const std::vector<std::string> some(words.begin(), words.begin() + std::min<std::size_t>(3000, words.size()));
  expect_same(gpu_matches(some, text, "mbndm"), oracle_matches(some, text), "mbndm words");
  MultiOptions cpu;
  cpu.backend = Backend::cpu;
  cpu.case_insensitive = true;
  expect_same(gpu_matches(words, text, "fast", true),
              MultiMatcher::compile(words, cpu).find_all(as_bytes(text)), "fast words -i vs cpu");
}

TEST(MultiCuda, HundredThousandAndMillionPatternSetsLikeTheCpu) {
  REQUIRE_GPU();
  std::mt19937_64 rng(110);
  const std::string text = multi_test::random_text(rng, 1 << 20, 26);
  const auto patterns = multi_test::random_patterns(rng, 100000, 26, 32, text);
  MultiOptions cpu;
  cpu.backend = Backend::cpu;
  const auto want = MultiMatcher::compile(patterns, cpu).find_all(as_bytes(text));
  ASSERT_GT(want.size(), 10000u);
  expect_same(gpu_matches(patterns, text, "fast"), want, "fast 100K");
  const std::string short_text = text.substr(0, 20000);
  expect_same(gpu_matches(patterns, short_text, "mbndm", false, {1024, 512, 0, 16}),
              MultiMatcher::compile(patterns, cpu).find_all(as_bytes(short_text)), "mbndm 100K");
  std::vector<std::string> million;
  million.reserve(1000000);
  for (int i = 0; i < 1000000; ++i) million.push_back(multi_test::random_text(rng, 4 + rng() % 29, 26));
  for (int i = 0; i < 1000; ++i) million[rng() % million.size()] = text.substr(rng() % (text.size() - 8), 1 + rng() % 8);
  expect_same(gpu_matches(million, text, "fast"),
              MultiMatcher::compile(million, cpu).find_all(as_bytes(text)), "fast 1M");
}

TEST(MultiCuda, BenchEntryPointsCountLikeTheScan) {
  REQUIRE_GPU();
  std::mt19937_64 rng(111);
  const std::string text = multi_test::random_text(rng, 5 << 20, 26);
  const auto patterns = multi_test::random_patterns(rng, 1000, 26, 8, text);
  MultiOptions cpu;
  cpu.backend = Backend::cpu;
  const std::uint64_t want = MultiMatcher::compile(patterns, cpu).count(as_bytes(text));
  for (auto kernel : {kernel_timing::MultiKernel::fast, kernel_timing::MultiKernel::mbndm}) {
    const kernel_timing::MultiTables tables(patterns, {kernel}, 0);
    EXPECT_EQ(tables.resident(as_bytes(text), 2).count, want);
    EXPECT_EQ(tables.host_fed(as_bytes(text), 2).count, want);
  }
}

namespace {

// The benchmarks' timing hook's name of a fast kernel.
kernel_timing::MultiKernel timing_kernel(cuda::FastKernel kernel) {
  using K = kernel_timing::MultiKernel;
  switch (kernel) {
    case cuda::FastKernel::tile: return K::fast_tile;
    case cuda::FastKernel::scan_block_queue: return K::fast_scan_block_queue;
    case cuda::FastKernel::scan_warp_queue: return K::fast_scan_warp_queue;
    case cuda::FastKernel::scan_per_thread: return K::fast_scan_per_thread;
    case cuda::FastKernel::scan_lane_filter: return K::fast_scan_lane_filter;
    case cuda::FastKernel::scan_pair: return K::fast_scan_pair;
    case cuda::FastKernel::scan_key8: return K::fast_scan_key8;
    case cuda::FastKernel::scan_long_key: return K::fast_scan_long_key;
    case cuda::FastKernel::automatic: break;
  }
  return K::fast;
}

// One fast kernel through the pipeline (streamed in `chunk` bytes; 0 = default), its count
// and its resident count (the benchmarks' timing hook) checked against its matches.
std::vector<Match> scan_with_kernel(const std::vector<std::string>& patterns, const std::string& text,
                                    bool ci, cuda::FastKernel kernel, std::uint64_t chunk) {
  const core::PatternSet set = core::make_pattern_set(patterns, ci);
  const core::PrefixIndex index = core::build_prefix_index(set, /*long_key=*/true);
  cuda::MultiLaunch launch;
  launch.chunk_bytes = chunk;
  launch.fast_kernel = kernel;
  const auto tables = cuda::multi_upload(set, &index, cuda::MultiAlgorithm::fast, launch, 0);
  std::vector<Match> out;
  cuda::multi_scan(*tables, as_bytes(text), false, [&](std::span<const Match> batch) {
    out.insert(out.end(), batch.begin(), batch.end());
    return true;
  });
  const std::string what = "kernel " + std::to_string(static_cast<int>(kernel)) + " chunk " + std::to_string(chunk) +
                           " patterns " + std::to_string(patterns.size()) + (ci ? " folded" : "");
  EXPECT_EQ(cuda::multi_scan(*tables, as_bytes(text), true, {}), out.size()) << what;
  const kernel_timing::MultiTables timed(patterns, {timing_kernel(kernel), 0, 0, false, ci}, 0);
  EXPECT_EQ(timed.resident(as_bytes(text), 1).count, out.size()) << what << " (resident)";
  return out;
}

}  // namespace

// Sets without patterns shorter than 4 (the lane filter's sets): every fast kernel must find
// the same, streamed in small chunks, counted, folded, flooded.
TEST(MultiCuda, AllFastKernelsAgreeOnSetsOfLength4Up) {
  REQUIRE_GPU();
  std::mt19937_64 rng(112);
  const auto scan = scan_with_kernel;
  auto at_least_4 = [](std::vector<std::string> ps) {
    std::erase_if(ps, [](const std::string& p) { return p.size() < 4; });
    return ps;
  };
  for (int alphabet : {2, 4, 26, 256})
    for (std::size_t count : {1u, 100u, 3000u, 40000u}) {
      if (count > (alphabet < 26 ? 100u : alphabet == 26 ? 40000u : 3000u)) continue;  // bounded hits
      const std::string text = multi_test::random_text(rng, (1 << 20) + 77, alphabet);
      auto patterns = at_least_4(multi_test::random_patterns(rng, count, alphabet, 40, text));
      patterns.push_back(text.substr(8190, 9));
      patterns.push_back(text.substr(text.size() - 4, 4));
      const auto want = oracle_matches(patterns, text);
      const std::string what = "alphabet " + std::to_string(alphabet) + " patterns " + std::to_string(count);
      for (std::uint64_t chunk : {0ull, 100000ull + 3})
        for (auto kernel : kFastKernels)
          expect_same(scan(patterns, text, false, kernel, chunk), want,
                      what + " kernel " + std::to_string(static_cast<int>(kernel)) + " chunk " +
                          std::to_string(chunk));
    }
  std::string mixed = multi_test::random_text(rng, 1 << 18, 26);
  for (std::size_t i = 0; i < mixed.size(); i += 3) mixed[i] = static_cast<char>(mixed[i] - 32);
  auto patterns = at_least_4(multi_test::random_patterns(rng, 500, 26, 20, mixed));
  for (std::size_t i = 0; i < patterns.size(); i += 2)
    for (auto& c : patterns[i]) c = static_cast<char>(c ^ 0x20);
  const auto folded = oracle_matches(patterns, mixed, true);
  ASSERT_GT(folded.size(), 100u);
  for (auto kernel : kFastKernels)
    expect_same(scan(patterns, mixed, true, kernel, 0), folded,
                "-i kernel " + std::to_string(static_cast<int>(kernel)));
  const std::string flood(3 << 20, 'a');
  const std::vector<std::string> runs = {"aaaa", "aaaaaaaaa", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"};
  for (auto kernel : kFastKernels)
    EXPECT_EQ(scan(runs, flood, false, kernel, 0).size(), 3 * flood.size() - 3 - 8 - 38);
}

// Large sets whose 4- and 8-byte keys pass most starts (the long-key scan bitmap, chosen
// automatically): 2*10^4 DNA k-mers of 12..30 and 10^5 a-z words of 6..12 against the
// hash-map oracle, streamed across chunk borders, folded, and counted per pattern as the CPU does.
TEST(MultiCuda, LongKeyScanAgreesOnLargeSets) {
  REQUIRE_GPU();
  std::mt19937_64 rng(116);
  struct Case {
    int alphabet;
    std::size_t count, min_len, max_len;
  };
  for (const Case c : {Case{4, 20000, 12, 30}, Case{26, 100000, 6, 12}}) {
    std::string text = multi_test::random_text(rng, (1 << 20) + 91, c.alphabet);
    auto patterns = multi_test::random_words(rng, c.count, c.alphabet, c.min_len, c.max_len);
    for (int i = 0; i < 200; ++i) {
      const std::size_t len = c.min_len + rng() % (c.max_len - c.min_len + 1);
      patterns[rng() % patterns.size()] = text.substr(rng() % (text.size() - len), len);
    }
    for (std::size_t at : {8185u, 100000u, 1000000u}) text.replace(at, patterns[at % 7].size(), patterns[at % 7]);
    text.replace(text.size() - patterns[0].size(), patterns[0].size(), patterns[0]);
    ASSERT_TRUE(core::build_prefix_index(core::make_pattern_set(patterns, false), true).long_key_scan());
    const auto want = multi_test::hashed_matches(patterns, text);
    const std::string what = "alphabet " + std::to_string(c.alphabet);
    ASSERT_GT(want.size(), 150u) << what;
    for (std::uint64_t chunk : {0ull, 100000ull + 3})
      for (auto kernel : {cuda::FastKernel::automatic, cuda::FastKernel::scan_long_key})
        expect_same(scan_with_kernel(patterns, text, false, kernel, chunk), want,
                    what + " kernel " + std::to_string(static_cast<int>(kernel)) + " chunk " + std::to_string(chunk));
    std::string mixed = text;
    for (std::size_t i = 0; i < mixed.size(); i += 1 + i % 3)
      mixed[i] = static_cast<char>(c.alphabet == 4 ? mixed[i] + 32 : mixed[i] - 32);
    expect_same(scan_with_kernel(patterns, mixed, true, cuda::FastKernel::automatic, 0),
                multi_test::hashed_matches(patterns, mixed, true), what + " folded");
    MultiOptions o;
    o.backend = Backend::cpu;
    const auto cpu_counts = MultiMatcher::compile(patterns, o).count_per_pattern(as_bytes(text));
    o.backend = Backend::cuda;
    const MultiMatcher gpu = MultiMatcher::compile(patterns, o);
    EXPECT_EQ(gpu.compile_stats().filter_key_bytes, static_cast<int>(c.min_len)) << what;
    EXPECT_EQ(gpu.count_per_pattern(as_bytes(text)), cpu_counts) << what;
  }
}

// DNA k-mers of length >= 8 (the 8-byte scan bitmap, chosen automatically): every fast kernel
// finds what the oracle finds, streamed across chunk borders, folded (soft-masked text), with
// the bitmap in shared and in global memory (10^4 patterns), and counted per pattern.
TEST(MultiCuda, AllFastKernelsAgreeOnDnaKmersOfTheEightByteScan) {
  REQUIRE_GPU();
  std::mt19937_64 rng(114);
  std::string text = multi_test::random_text(rng, (1 << 20) + 91, 4);
  std::vector<std::string> kmers;
  for (int i = 0; i < 1000; ++i) kmers.push_back(multi_test::random_text(rng, 8 + i % 25, 4));
  for (std::size_t at : {8185u, 100000u, 100003u, 1000000u}) text.replace(at, kmers[at % 7].size(), kmers[at % 7]);
  text.replace(text.size() - 8, 8, kmers[0]);
  ASSERT_TRUE(core::build_prefix_index(core::make_pattern_set(kmers, false)).key8_scan());
  const auto want = oracle_matches(kmers, text);
  ASSERT_GT(want.size(), 20u);
  for (std::uint64_t chunk : {0ull, 100000ull + 3})
    for (auto kernel : kFastKernels)
      expect_same(scan_with_kernel(kmers, text, false, kernel, chunk), want,
                  "kernel " + std::to_string(static_cast<int>(kernel)) + " chunk " + std::to_string(chunk));
  std::string soft = text;
  for (std::size_t i = 0; i < soft.size(); i += 1 + i % 5) soft[i] = static_cast<char>(soft[i] + 32);
  expect_same(scan_with_kernel(kmers, soft, true, cuda::FastKernel::automatic, 0), oracle_matches(kmers, soft, true),
              "folded");
  std::vector<std::string> many;
  for (int i = 0; i < 10000; ++i) many.push_back(multi_test::random_text(rng, 12, 4));
  for (int i = 0; i < 100; ++i) many.push_back(text.substr(rng() % (text.size() - 12), 12));
  const core::PrefixIndex large = core::build_prefix_index(core::make_pattern_set(many, false));
  ASSERT_TRUE(large.key8_scan());
  ASSERT_GT(large.key8_bits, 18);  // the global-memory bitmap
  expect_same(scan_with_kernel(many, text, false, cuda::FastKernel::scan_key8, 0), oracle_matches(many, text),
              "10^4 k-mers");
  // Counts per pattern on the device, as the CPU counts them.
  MultiOptions o;
  o.backend = Backend::cpu;
  const auto cpu_counts = MultiMatcher::compile(kmers, o).count_per_pattern(as_bytes(text));
  o.backend = Backend::cuda;
  EXPECT_EQ(MultiMatcher::compile(kmers, o).count_per_pattern(as_bytes(text)), cpu_counts);
}

// Sets with patterns of length 1..3 (the scan kernels' short gate): every fast kernel finds
// what the oracle finds, at tile and chunk borders, at the text's end, folded, flooded.
TEST(MultiCuda, AllFastKernelsAgreeOnSetsWithShortPatterns) {
  REQUIRE_GPU();
  std::mt19937_64 rng(113);
  for (int alphabet : {4, 26, 256})
    for (std::size_t count : {1u, 100u, 3000u}) {
      if (alphabet < 256 && count > 100) continue;  // bounded hits (repeated short patterns)
      const std::string text = multi_test::random_text(rng, (1 << 18) + 77, alphabet);
      auto patterns = multi_test::random_patterns(rng, count, alphabet, 12, text);
      for (std::size_t len : {1u, 2u, 3u}) {
        if (alphabet == 4 && len == 1) continue;
        patterns.push_back(text.substr(8192 - len + 1, len));  // across the first scan tile's end
        patterns.push_back(text.substr(text.size() - len, len));
      }
      const auto want = oracle_matches(patterns, text);
      const std::string what = "alphabet " + std::to_string(alphabet) + " patterns " + std::to_string(count);
      for (std::uint64_t chunk : {0ull, 50000ull + 3})
        for (auto kernel : kFastKernels)
          expect_same(scan_with_kernel(patterns, text, false, kernel, chunk), want,
                      what + " kernel " + std::to_string(static_cast<int>(kernel)) + " chunk " +
                          std::to_string(chunk));
    }
  std::string mixed = multi_test::random_text(rng, 1 << 16, 26);
  for (std::size_t i = 0; i < mixed.size(); i += 3) mixed[i] = static_cast<char>(mixed[i] - 32);
  std::vector<std::string> patterns = {"Q", "zX", "kQj", "AbCd"};
  for (const auto& p : multi_test::random_patterns(rng, 300, 26, 8, mixed)) patterns.push_back(p);
  const auto folded = oracle_matches(patterns, mixed, true);
  for (auto kernel : kFastKernels)
    expect_same(scan_with_kernel(patterns, mixed, true, kernel, 0), folded,
                "-i kernel " + std::to_string(static_cast<int>(kernel)));
  const std::string flood(1 << 20, 'a');
  const std::vector<std::string> runs = {"a", "aa", "aaa", "aaaaa"};
  for (auto kernel : kFastKernels)
    EXPECT_EQ(scan_with_kernel(runs, flood, false, kernel, 0).size(), 4 * flood.size() - 1 - 2 - 4);
}

// The pair scan under every table size and grid the launch settings allow: same matches
// (a small table lets more starts through to the queues); out-of-range settings refused.
TEST(MultiCuda, PairScanAgreesUnderTableSizesAndGrids) {
  REQUIRE_GPU();
  std::mt19937_64 rng(114);
  const std::string text = multi_test::random_text(rng, (1 << 20) + 5, 26);
  auto patterns = multi_test::random_patterns(rng, 2000, 26, 24, text);
  std::erase_if(patterns, [](const std::string& p) { return p.size() < 4; });
  const auto want = oracle_matches(patterns, text);
  const core::PatternSet set = core::make_pattern_set(patterns, false);
  const core::PrefixIndex index = core::build_prefix_index(set);
  auto launch_with = [](int bits, int blocks, bool wide = false) {
    cuda::MultiLaunch launch;
    launch.fast_kernel = cuda::FastKernel::scan_pair;
    launch.pair_bits = bits;
    launch.pair_blocks_per_sm = blocks;
    launch.pair_narrow = !wide;
    launch.chunk_bytes = 300001;
    return launch;
  };
  for (const bool wide : {false, true}) {
    for (int bits = 12; bits <= (wide ? 14 : 15); ++bits)
      for (int blocks : {1, 3, 4, 5, 6, 8}) {
        const auto tables =
            cuda::multi_upload(set, &index, cuda::MultiAlgorithm::fast, launch_with(bits, blocks, wide), 0);
        std::vector<Match> out;
        cuda::multi_scan(*tables, as_bytes(text), false, [&](std::span<const Match> batch) {
          out.insert(out.end(), batch.begin(), batch.end());
          return true;
        });
        const std::string what = std::string(wide ? "wide" : "narrow") + " bits " + std::to_string(bits) +
                                 " blocks " + std::to_string(blocks);
        expect_same(out, want, what);
        const kernel_timing::MultiTables timed(
            patterns, {kernel_timing::MultiKernel::fast_scan_pair, bits, blocks, /*pair_narrow=*/!wide}, 0);
        EXPECT_EQ(timed.resident(as_bytes(text), 1).count, want.size()) << what;
      }
    // Tables that do not fit, or grids out of range.
    for (auto [bits, blocks] : {std::pair{11, 5}, std::pair{wide ? 15 : 16, 5}, std::pair{13, -1}, std::pair{13, 9}})
      EXPECT_THROW(cuda::multi_upload(set, &index, cuda::MultiAlgorithm::fast, launch_with(bits, blocks, wide), 0),
                   InvalidArgument)
          << bits << " " << blocks << " wide " << wide;
  }
}

TEST(MultiCuda, BadThreadConfigurationIsAnInvalidArgument) {
  REQUIRE_GPU();
  EXPECT_THROW(gpu_matcher({"abc"}, "mbndm", false, {1024, 33, 0, 1}), InvalidArgument);
  // page + longest pattern must fit a block's shared memory (227 KiB opt-in on H100/H200).
  EXPECT_THROW(gpu_matcher({std::string(300000, 'x')}, "mbndm"), InvalidArgument);
  EXPECT_THROW(gpu_matcher({"abc"}, "naive"), InvalidArgument);
}
