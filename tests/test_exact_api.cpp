// Public API of exact search (include/warpmatch/exact.hpp): option validation, backend
// resolution, and that every backend/algorithm the build offers returns the same ordered
// matches as a naive oracle.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <span>
#include <string>

#include "warpmatch/warpmatch.hpp"

using warpmatch::as_bytes;
using warpmatch::Backend;
using warpmatch::ExactMatcher;
using warpmatch::ExactOptions;
using warpmatch::Match;

namespace {

std::vector<Match> oracle(std::string_view text, std::string_view pattern) {
  std::vector<Match> out;
  if (pattern.size() > text.size()) return out;
  for (std::size_t i = 0; i + pattern.size() <= text.size(); ++i)
    if (text.substr(i, pattern.size()) == pattern) out.push_back({.pattern = 0, .start = i, .end = i + pattern.size()});
  return out;
}

struct Variant {
  Backend backend;
  const char* algorithm;
};

std::vector<Variant> available_variants() {
  std::vector<Variant> v = {{Backend::cpu, "fast"}, {Backend::cpu, "naive"}};
  if (!warpmatch::cuda_devices().empty()) {
    v.push_back({Backend::cuda, "fast"});
    v.push_back({Backend::cuda, "firstlast"});
    v.push_back({Backend::cuda, "prefix"});
    v.push_back({Backend::cuda, "bf"});
  }
  return v;
}

std::string random_text(std::mt19937_64& rng, std::size_t n, int alphabet) {
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>('a' + rng() % alphabet);
  return s;
}

}  // namespace

TEST(ExactApi, EmptyPatternIsRejected) {
  EXPECT_THROW(ExactMatcher::compile(as_bytes(""), {}), warpmatch::InvalidArgument);
}

TEST(ExactApi, UnknownAlgorithmIsRejectedWithItsName) {
  ExactOptions o;
  o.backend = Backend::cpu;
  o.algorithm = "quantum";
  try {
    ExactMatcher::compile(as_bytes("x"), o);
    FAIL() << "expected InvalidArgument";
  } catch (const warpmatch::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("quantum"), std::string::npos);
  }
}

TEST(ExactApi, CudaWithoutGpuIsAClearError) {
  if (!warpmatch::cuda_devices().empty()) GTEST_SKIP() << "a GPU is present; nothing to check";
  ExactOptions o;
  o.backend = Backend::cuda;
  EXPECT_THROW(ExactMatcher::compile(as_bytes("x"), o), warpmatch::BackendUnavailable);
}

TEST(ExactApi, AutoPicksGpuWhenPresentElseCpu) {
  const auto m = ExactMatcher::compile(as_bytes("x"), {});
  EXPECT_EQ(m.backend(), warpmatch::cuda_devices().empty() ? Backend::cpu : Backend::cuda);
}

TEST(ExactApi, PatternLongerThanTextHasNoMatch) {
  for (const auto& v : available_variants()) {
    ExactOptions o{{v.backend}, v.algorithm};
    const auto m = ExactMatcher::compile(as_bytes("abcdef"), o);
    EXPECT_EQ(m.count(as_bytes("abc")), 0u);
    EXPECT_TRUE(m.find_all(as_bytes("abc")).empty());
    EXPECT_EQ(m.count({}), 0u);
  }
}

TEST(ExactApi, EveryVariantMatchesOracleOnRandomAndFloodText) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 40; ++round) {
    const int alphabet = round % 3 == 0 ? 2 : (round % 3 == 1 ? 4 : 26);
    std::string text = random_text(rng, 1 + rng() % 20000, alphabet);
    if (round == 5) text.assign(30000, 'a');
    const std::size_t m = 1 + rng() % 12;
    const std::size_t at = rng() % text.size();
    std::string pattern = text.substr(at, std::min(m, text.size() - at));
    if (round == 5) pattern = "aaa";
    const auto expected = oracle(text, pattern);
    for (const auto& v : available_variants()) {
      ExactOptions o{{v.backend}, v.algorithm};
      const auto matcher = ExactMatcher::compile(as_bytes(pattern), o);
      EXPECT_EQ(matcher.find_all(as_bytes(text)), expected)
          << backend_name(v.backend) << "/" << v.algorithm << " round " << round;
      EXPECT_EQ(matcher.count(as_bytes(text)), expected.size());
    }
  }
}

TEST(ExactApi, CaseInsensitiveFoldsAsciiLettersOnly) {
  const std::string text = "Hello HELLO hello hEllO h3llo @ELLO";
  for (const auto& v : available_variants()) {
    ExactOptions o{{v.backend}, v.algorithm};
    o.case_insensitive = true;
    const auto m = ExactMatcher::compile(as_bytes("HeLLo"), o);
    EXPECT_EQ(m.count(as_bytes(text)), 4u) << backend_name(v.backend) << "/" << v.algorithm;
  }
}

TEST(ExactApi, SinkReturningFalseStopsTheScan) {
  const std::string text(10000, 'a');
  for (const auto& v : available_variants()) {
    ExactOptions o{{v.backend}, v.algorithm};
    const auto m = ExactMatcher::compile(as_bytes("aa"), o);
    std::vector<Match> got;
    const auto delivered = m.scan(as_bytes(text), [&](const Match& x) {
      got.push_back(x);
      return got.size() < 5;
    });
    EXPECT_EQ(delivered, 5u);
    ASSERT_EQ(got.size(), 5u);
    for (std::uint64_t i = 0; i < 5; ++i) EXPECT_EQ(got[i], (Match{.pattern = 0, .start = i, .end = i + 2}));
  }
}

// scan_batches hands on scan's matches a batch at a time: batches of at most 64 Ki matches
// (a flood of 200,000), in order, and a sink returning false stops after its batch. The
// MultiMatcher's batches carry the user's patterns and strands (a sequence search of both
// strands, whose literals are the patterns and their reverse complements).
TEST(ExactApi, ScanBatchesAreScansMatchesInOrderAndStop) {
  const std::string flood(200'000, 'a');
  for (const auto& v : available_variants()) {
    const auto m = ExactMatcher::compile(as_bytes("a"), ExactOptions{{v.backend}, v.algorithm});
    std::vector<Match> got;
    std::size_t calls = 0;
    const auto delivered = m.scan_batches(as_bytes(flood), [&](std::span<const Match> batch) {
      EXPECT_FALSE(batch.empty());
      EXPECT_LE(batch.size(), std::size_t{1} << 16);
      got.insert(got.end(), batch.begin(), batch.end());
      return ++calls < 1000;
    });
    EXPECT_EQ(delivered, flood.size()) << backend_name(v.backend) << "/" << v.algorithm;
    EXPECT_EQ(got, oracle(flood, "a")) << backend_name(v.backend) << "/" << v.algorithm;
    EXPECT_GE(calls, 4u);
    std::size_t first = 0;
    calls = 0;
    EXPECT_EQ(m.scan_batches(as_bytes(flood), [&](std::span<const Match> batch) {
      first = batch.size();
      return ++calls == 0;
    }), first);
    EXPECT_EQ(calls, 1u);
  }
  std::mt19937_64 rng(11);
  const std::string genome = random_text(rng, 300'000, 4);
  std::string dna;
  for (const char c : genome) dna += "ACGT"[c - 'a'];
  const std::vector<std::string> kmers = {dna.substr(100, 6), dna.substr(5000, 7), "ACGTAC", "GGGG"};
  warpmatch::MultiOptions o;
  o.backend = Backend::cpu;
  o.strand = warpmatch::Strand::both;
  const auto set = warpmatch::MultiMatcher::compile(kmers, o);
  std::vector<Match> one_by_one, batched;
  set.scan(as_bytes(dna), [&](const Match& x) {
    one_by_one.push_back(x);
    return true;
  });
  set.scan_batches(as_bytes(dna), [&](std::span<const Match> batch) {
    batched.insert(batched.end(), batch.begin(), batch.end());
    return true;
  });
  EXPECT_GT(one_by_one.size(), 1000u);
  EXPECT_TRUE(std::any_of(one_by_one.begin(), one_by_one.end(), [](const Match& x) { return x.strand == '-'; }));
  EXPECT_TRUE(std::all_of(one_by_one.begin(), one_by_one.end(), [&](const Match& x) { return x.pattern < kmers.size(); }));
  EXPECT_EQ(batched, one_by_one);
  EXPECT_EQ(set.find_all(as_bytes(dna)), one_by_one);
}

TEST(ExactApi, NulBytesAreOrdinaryCharacters) {
  const std::string text("a\0b\0\0b\0", 7);
  const std::string pattern("\0b", 2);
  for (const auto& v : available_variants()) {
    ExactOptions o{{v.backend}, v.algorithm};
    EXPECT_EQ(ExactMatcher::compile(as_bytes(pattern), o).find_all(as_bytes(text)),
              oracle(text, pattern));
  }
}

TEST(ExactApi, StatsDescribeTheScan) {
  ExactOptions o;
  o.backend = Backend::cpu;
  o.threads = 2;
  const auto m = ExactMatcher::compile(as_bytes("ab"), o);
  warpmatch::ScanStats stats;
  EXPECT_EQ(m.count(as_bytes("xxabxxab"), &stats), 2u);
  EXPECT_EQ(stats.backend, Backend::cpu);
  EXPECT_EQ(stats.bytes, 8u);
  EXPECT_EQ(stats.matches, 2u);
  EXPECT_EQ(stats.algorithm, "fast");
  EXPECT_EQ(stats.device, "cpu (2 threads)");
  EXPECT_EQ(m.device_label(), "cpu (2 threads)");  // known at compile, without a scan
}

// Text in GPU memory (DeviceSpan) is for matchers on the cuda backend and for memory of their
// device only: a cpu matcher, and on a GPU host memory dressed as device text, are refused
// with InvalidArgument before any copy. (Scans of real device memory: python/tests/test_device_text.py.)
TEST(ExactApi, DeviceTextNeedsTheCudaBackendAndDeviceMemory) {
  const std::string host = "xxGATTACAxx";
  const warpmatch::DeviceSpan as_device{reinterpret_cast<const std::uint8_t*>(host.data()), host.size()};
  ExactOptions cpu;
  cpu.backend = Backend::cpu;
  const auto exact = ExactMatcher::compile(as_bytes("GATTACA"), cpu);
  warpmatch::MultiOptions multi_cpu;
  multi_cpu.backend = Backend::cpu;
  const auto multi = warpmatch::MultiMatcher::compile({"GATT", "ACA"}, multi_cpu);
  const auto never = [](const Match&) { return true; };
  EXPECT_THROW(exact.count_device_text(as_device), warpmatch::InvalidArgument);
  EXPECT_THROW(exact.scan_device_text(as_device, never), warpmatch::InvalidArgument);
  EXPECT_THROW(multi.count_device_text(as_device), warpmatch::InvalidArgument);
  EXPECT_THROW(multi.count_per_pattern_device_text(as_device), warpmatch::InvalidArgument);
  EXPECT_THROW(multi.scan_device_text(as_device, never), warpmatch::InvalidArgument);
  if (warpmatch::cuda_devices().empty()) return;
  ExactOptions gpu;
  gpu.backend = Backend::cuda;
  const auto on_gpu = ExactMatcher::compile(as_bytes("GATTACA"), gpu);
  try {
    on_gpu.count_device_text(as_device);
    ADD_FAILURE() << "host memory accepted as device text";
  } catch (const warpmatch::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("not in CUDA device memory"), std::string::npos) << e.what();
  }
  EXPECT_EQ(on_gpu.count_device_text(warpmatch::DeviceSpan{}), 0u);  // empty: nothing to check or scan
}
