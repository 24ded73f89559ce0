// One compiled CUDA matcher scanned many times: its device tables are uploaded once and each
// scan borrows a pooled scratch (streams, device buffers, pinned staging) that grows with the
// texts and is reused by later scans (src/cuda/runtime/scratch_pool.hpp). These tests scan the
// same matcher with texts that grow and shrink (so scratches are grown, then reused larger
// than needed), stop scans early (a scratch returned with work cut short), and scan from
// several threads at once (several scratches), always against the CPU backend. GPU only;
// they skip without one.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "warpmatch/approx.hpp"
#include "warpmatch/exact.hpp"
#include "warpmatch/multi.hpp"

namespace {

using namespace warpmatch;
using Bytes = std::vector<std::uint8_t>;

#define SKIP_WITHOUT_GPU()                                                         \
  do {                                                                             \
    if (cuda_devices().empty()) GTEST_SKIP() << "no CUDA GPU: skipping GPU test"; \
  } while (0)

/// Text lengths in the order scanned: up, down, up again (a scratch grown by a large text
/// serves the small ones after it).
const std::size_t kSizes[] = {1, 100, 70000, 5, 3'000'000, 17, 0, 9'000'001, 1000, 64, 200'000, 3};

Bytes random_text(std::mt19937_64& rng, std::size_t n, const Bytes& plant) {
  Bytes t(n);
  for (auto& c : t) c = "ACGTacgt"[rng() % 8];
  for (std::size_t i = 0; n >= plant.size() && i < n / 5000 + 2; ++i)
    std::copy(plant.begin(), plant.end(), t.begin() + static_cast<std::ptrdiff_t>(rng() % (n - plant.size() + 1)));
  return t;
}

std::vector<Bytes> texts(std::uint64_t seed, const Bytes& plant) {
  std::mt19937_64 rng(seed);
  std::vector<Bytes> out;
  for (const std::size_t n : kSizes) out.push_back(random_text(rng, n, plant));
  return out;
}

/// Runs check(text) for every text from `threads` threads at once, each in its own order.
template <class Check>
void from_threads(const std::vector<Bytes>& all, int threads, Check&& check) {
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (std::size_t i = 0; i < all.size(); ++i) check(all[(i * 5 + static_cast<std::size_t>(t)) % all.size()]);
    });
  for (auto& th : pool) th.join();
}

/// Every text scanned twice in a row by the same GPU matcher (counted too where the matcher
/// counts), each against the CPU matcher, plus a scan stopped at its first hit (its scratch
/// goes back with work cut short); then every text from `threads` threads at once.
template <class Matcher>
void expect_reuse_equals_cpu(const Matcher& on_gpu, const Matcher& on_cpu, const std::vector<Bytes>& all, int threads,
                             const std::string& what) {
  for (int pass = 0; pass < 2; ++pass)
    for (const Bytes& t : all) {
      EXPECT_EQ(on_gpu.find_all(t), on_cpu.find_all(t)) << what << " n=" << t.size();
      if constexpr (requires { on_gpu.count(t); }) EXPECT_EQ(on_gpu.count(t), on_cpu.count(t)) << what << " n=" << t.size();
      std::uint64_t seen = 0;
      on_gpu.scan(t, [&](const auto&) { return ++seen < 1; });
    }
  from_threads(all, threads, [&](const Bytes& t) {
    EXPECT_EQ(on_gpu.find_all(t), on_cpu.find_all(t)) << what << " n=" << t.size() << " (threads)";
  });
}

TEST(CudaExact, CompiledMatcherReusedAcrossScansAndThreads) {
  SKIP_WITHOUT_GPU();
  for (const std::string pattern : std::vector<std::string>{"ACG", "acgtACGTAC", std::string(70, 'A') + "CGT"}) {
    ExactOptions gpu, cpu;
    gpu.backend = Backend::cuda;
    cpu.backend = Backend::cpu;
    gpu.case_insensitive = cpu.case_insensitive = pattern.size() == 10;
    const Bytes p(pattern.begin(), pattern.end());
    const auto on_gpu = ExactMatcher::compile(p, gpu);
    const auto on_cpu = ExactMatcher::compile(p, cpu);
    const auto all = texts(1, p);
    expect_reuse_equals_cpu(on_gpu, on_cpu, all, 4, pattern);
    // The same matcher with chunks of 100 000 bytes (read per scan): the large texts stream
    // through both slots of each scratch, their buffers smaller than the ones already held.
    ::setenv("WARPMATCH_CUDA_CHUNK_BYTES", "100000", 1);
    expect_reuse_equals_cpu(on_gpu, on_cpu, all, 4, pattern + " (100 000-byte chunks)");
    ::unsetenv("WARPMATCH_CUDA_CHUNK_BYTES");
  }
}

TEST(ApproxCuda, CompiledMatcherReusedAcrossScansAndThreads) {
  SKIP_WITHOUT_GPU();
  // Each route of the CUDA backend: the short-pattern set kernel, Hamming, one launch per
  // pattern (a pattern of more than 64 bytes), the paper's wavefront kernel; all-hits and
  // best mode (whose later segments scan with other queries).
  struct Case {
    std::vector<std::string> patterns;
    std::string algorithm;
    bool hamming, best;
    std::int64_t k;
  };
  const std::string long_pattern = "ACGTTGCAACGTAGCTAGCTAGGATCCATGCATGCAAACCCGGGTTTACGTACGTAGCTAGCTAGCATCGATCGTAGCTAGCTAGCTAG";
  const Case cases[] = {
      {{"ACGTACGTAC", "GGATCCA", "TTTTAAAACC"}, "auto", false, false, 2},
      {{"ACGTACGTAC", "GGATCCA"}, "auto", false, true, -1},
      {{"ACGTACGTACGT", "GGATCCAT"}, "auto", true, false, 2},
      {{long_pattern, "ACGTACGTAC"}, "auto", false, false, 6},
      {{long_pattern}, "myers", false, true, -1},
      {{"ACGTACGTAC", "GGATCCA"}, "wavefront", false, false, 2},
  };
  for (const Case& c : cases) {
    ApproxOptions gpu;
    gpu.k = c.k;
    gpu.best = c.best;
    gpu.hamming = c.hamming;
    gpu.algorithm = c.algorithm;
    gpu.backend = Backend::cuda;
    ApproxOptions cpu = gpu;
    cpu.backend = Backend::cpu;
    cpu.algorithm = "auto";
    std::vector<Bytes> patterns;
    for (const auto& p : c.patterns) patterns.emplace_back(p.begin(), p.end());
    const auto on_gpu = ApproxMatcher::compile(patterns, gpu);
    const auto on_cpu = ApproxMatcher::compile(patterns, cpu);
    const std::string what = c.patterns.front().substr(0, 12) + " " + c.algorithm + (c.hamming ? " hamming" : "") +
                             (c.best ? " best" : "");
    auto all = texts(2, patterns.front());
    if (c.algorithm == "wavefront") all.resize(6);  // the paper's kernel computes every end: smaller texts
    expect_reuse_equals_cpu(on_gpu, on_cpu, all, 3, what);
  }
}

TEST(MultiCuda, CompiledMatcherReusedAcrossScansAndThreads) {
  SKIP_WITHOUT_GPU();
  const std::vector<std::string> patterns = {"ACG", "GATTACA", "acgtacgtacgtacgtacgt", "TTTT"};
  MultiOptions gpu, cpu;
  gpu.backend = Backend::cuda;
  cpu.backend = Backend::cpu;
  const auto on_gpu = MultiMatcher::compile(patterns, gpu);
  const auto on_cpu = MultiMatcher::compile(patterns, cpu);
  const std::string plant = "GATTACA";
  expect_reuse_equals_cpu(on_gpu, on_cpu, texts(3, Bytes(plant.begin(), plant.end())), 4, "multi");
}

TEST(CudaExact, MatcherCompiledForTheLastDeviceEqualsCpu) {
  SKIP_WITHOUT_GPU();
  // A matcher compiled for device d works on d only (per-device matchers of the multi-GPU
  // CLI); with one GPU this is device 0 and checks the same scans.
  const int last = static_cast<int>(cuda_devices().size()) - 1;
  ExactOptions gpu, cpu;
  gpu.backend = Backend::cuda;
  gpu.device = last;
  cpu.backend = Backend::cpu;
  const Bytes p = {'A', 'C', 'G', 'T', 'A'};
  const auto on_gpu = ExactMatcher::compile(p, gpu);
  const auto on_cpu = ExactMatcher::compile(p, cpu);
  EXPECT_EQ(on_gpu.device_label(), cuda_devices()[static_cast<std::size_t>(last)].name);
  for (const Bytes& t : texts(4, p)) EXPECT_EQ(on_gpu.find_all(t), on_cpu.find_all(t)) << "n=" << t.size();
}

}  // namespace
