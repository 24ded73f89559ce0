// Longest common substring and MEMs on CUDA: the paper's diagonal kernel and the prefix-
// doubling suffix array, against the independent oracle (small) and the CPU suffix-array path
// (large). Skips visibly without a GPU.
#include <gtest/gtest.h>

#include "core/lcs_suffix.hpp"
#include "cpu/lcs_cpu.hpp"
#include "cuda/lcs/lcs_cuda.hpp"
#include "test_lcs_support.hpp"
#include "warpmatch/lcs.hpp"

using namespace lcs_test;
using warpmatch::Backend;
using warpmatch::LcsOptions;

namespace {

#define REQUIRE_GPU()                                                            \
  if (warpmatch::cuda_devices().empty()) GTEST_SKIP() << "no CUDA GPU: LCS GPU test skipped"

LcsOptions options_for(Backend backend, const std::string& algorithm, std::uint64_t max_matches = ~0ull) {
  LcsOptions o;
  o.backend = backend;
  o.algorithm = algorithm;
  o.max_matches = max_matches;
  return o;
}

void expect_same(const warpmatch::LcsResult& gpu, const warpmatch::LcsResult& cpu, const std::string& what) {
  EXPECT_EQ(gpu.length, cpu.length) << what;
  EXPECT_EQ(gpu.count, cpu.count) << what;
  EXPECT_EQ(gpu.total_pairs, cpu.total_pairs) << what;
  EXPECT_EQ(gpu.pairs, cpu.pairs) << what;
}

const std::vector<std::string> kGpuAlgorithms = {"suffix-array", "diagonal"};

}  // namespace

TEST(LcsCuda, RandomInputsOfAlphabets2And4And256MatchTheOracle) {
  REQUIRE_GPU();
  std::mt19937_64 rng(606);
  for (int alphabet : {2, 4, 256})
    for (int trial = 0; trial < 25; ++trial) {
      const Bytes a = random_bytes(rng, 1 + rng() % 300, alphabet);
      const Bytes b = random_bytes(rng, 1 + rng() % 300, alphabet);
      const OracleLcs o = oracle_lcs(a, b);
      for (const auto& algo : kGpuAlgorithms)
        expect_matches_oracle(warpmatch::longest_common_substring(span(a), span(b), options_for(Backend::cuda, algo)),
                              o, ~0ull, algo + " alphabet " + std::to_string(alphabet));
    }
}

TEST(LcsCuda, AdversarialInputsMatchTheOracle) {
  REQUIRE_GPU();
  for (const auto& [name, a, b] : adversarial_cases())
    for (const auto& algo : kGpuAlgorithms) {
      expect_matches_oracle(warpmatch::longest_common_substring(span(a), span(b), options_for(Backend::cuda, algo)),
                            oracle_lcs(a, b), ~0ull, algo + ": " + name);
      expect_matches_oracle(warpmatch::longest_common_substring(span(b), span(a), options_for(Backend::cuda, algo)),
                            oracle_lcs(b, a), ~0ull, algo + " swapped: " + name);
      expect_matches_oracle(warpmatch::longest_common_substring(span(a), span(b), options_for(Backend::cuda, algo, 2)),
                            oracle_lcs(a, b), 2, algo + " max 2: " + name);
    }
}

TEST(LcsCuda, EmptyAndOneByteInputs) {
  REQUIRE_GPU();
  const Bytes empty, x = bytes("x");
  for (const auto& algo : kGpuAlgorithms) {
    EXPECT_EQ(warpmatch::longest_common_substring(span(empty), span(x), options_for(Backend::cuda, algo)).length, 0u);
    const auto r = warpmatch::longest_common_substring(span(x), span(x), options_for(Backend::cuda, algo));
    EXPECT_EQ(r.length, 1u);
    EXPECT_EQ(r.pairs, (std::vector<warpmatch::LcsPair>{{0, 0}}));
  }
}

TEST(LcsCuda, SuffixArrayEqualsLibdivsufsort) {
  REQUIRE_GPU();
  std::mt19937_64 rng(7);
  std::vector<Bytes> texts = {Bytes(100'000, 'a'), Bytes(1, 0), Bytes{255, 0, 255, 0, 0}};
  for (int alphabet : {2, 4, 256}) texts.push_back(random_bytes(rng, 2'000'000, alphabet));
  Bytes periodic;
  for (int i = 0; i < 70'000; ++i) periodic.insert(periodic.end(), {'a', 'b', 'a', 'c'});
  texts.push_back(periodic);
  for (const Bytes& t : texts) {
    double device_ms = -1;
    const auto gpu = warpmatch::cuda::lcs_suffix_array(span(t), 0, &device_ms);
    EXPECT_EQ(gpu, warpmatch::cpu::suffix_array(span(t))) << "text of " << t.size() << " bytes";
    EXPECT_GE(device_ms, 0.0);
  }
}

TEST(LcsCuda, LargeInputsMatchTheCpuSuffixArrayPath) {
  REQUIRE_GPU();
  std::mt19937_64 rng(66);
  std::vector<std::tuple<std::string, Bytes, Bytes>> cases;
  for (int alphabet : {2, 4, 256})
    cases.emplace_back("random " + std::to_string(alphabet), random_bytes(rng, 3'000'000, alphabet),
                       random_bytes(rng, 2'500'000, alphabet));
  cases.emplace_back("floods", Bytes(300'000, 'a'), Bytes(120'000, 'a'));
  const Bytes lambda = lambda_genome();
  if (!lambda.empty()) cases.emplace_back("lambda", lambda, mutated(lambda, 200, 7));
  for (const auto& [name, a, b] : cases) {
    const auto cpu = warpmatch::longest_common_substring(span(a), span(b), options_for(Backend::cpu, "auto", 500));
    const auto gpu = warpmatch::longest_common_substring(span(a), span(b), options_for(Backend::cuda, "auto", 500));
    expect_same(gpu, cpu, "suffix-array " + name);
    EXPECT_EQ(gpu.stats.backend, Backend::cuda) << gpu.stats.note;
    // Floods exceed the device LCP's work budget (the host LCP path runs); the others do not.
    if (name == "floods") EXPECT_NE(gpu.stats.note.find("LCP computed on the host"), std::string::npos);
    else EXPECT_EQ(gpu.stats.note, "") << name;
  }
}

TEST(LcsCuda, ManyOccurrencesMatchTheCpu) {
  // More run members than the device copies back with its summary (a second copy follows),
  // B inside A 5000 times, either way round.
  REQUIRE_GPU();
  std::mt19937_64 rng(68);
  const Bytes b = random_bytes(rng, 20, 256);
  Bytes a;
  for (int k = 0; k < 5000; ++k) {
    a.insert(a.end(), b.begin(), b.end());
    const Bytes gap = random_bytes(rng, 5, 256);
    a.insert(a.end(), gap.begin(), gap.end());
  }
  for (const auto& [x, y] : std::vector<std::pair<Bytes, Bytes>>{{a, b}, {b, a}}) {
    const auto cpu = warpmatch::longest_common_substring(span(x), span(y), options_for(Backend::cpu, "auto", 3000));
    const auto gpu = warpmatch::longest_common_substring(span(x), span(y), options_for(Backend::cuda, "auto", 3000));
    expect_same(gpu, cpu, "sizes " + std::to_string(x.size()) + " x " + std::to_string(y.size()));
    EXPECT_EQ(gpu.stats.note, "");
  }
}

TEST(LcsCuda, DiagonalMatchesTheCpuOnThePaperPlantedPairs) {
  REQUIRE_GPU();
  for (const auto& [m, n] : std::vector<std::pair<std::size_t, std::size_t>>{
           {3'310, 3'500}, {15'100, 15'600}, {56'600, 56'600}, {103'000, 104'000}, {150'000, 150'000}}) {
    const Planted p = planted(m, n, m);
    const auto cpu = warpmatch::longest_common_substring(span(p.a), span(p.b), options_for(Backend::cpu, "auto"));
    const auto diag = warpmatch::longest_common_substring(span(p.a), span(p.b), options_for(Backend::cuda, "diagonal"));
    const auto sa = warpmatch::longest_common_substring(span(p.a), span(p.b), options_for(Backend::cuda, "auto"));
    expect_same(diag, cpu, "diagonal " + std::to_string(m));
    expect_same(sa, cpu, "suffix-array " + std::to_string(m));
    EXPECT_GE(cpu.length, 16u);
  }
}

TEST(MemCuda, SuffixArrayMemsMatchTheOracleAndTheCpu) {
  REQUIRE_GPU();
  std::mt19937_64 rng(67);
  for (const auto& [name, a, b] : adversarial_cases())
    for (std::uint64_t min_len : {1ull, 3ull}) {
      const auto r = warpmatch::maximal_exact_matches(span(a), span(b), min_len, options_for(Backend::cuda, "auto"));
      EXPECT_EQ(r.mems, oracle_mems(a, b, min_len)) << name;
    }
  const Bytes a = random_bytes(rng, 400'000, 4), b = random_bytes(rng, 300'000, 4);
  const auto cpu = warpmatch::maximal_exact_matches(span(a), span(b), 12, options_for(Backend::cpu, "auto"));
  const auto gpu = warpmatch::maximal_exact_matches(span(a), span(b), 12, options_for(Backend::cuda, "auto"));
  EXPECT_EQ(gpu.total, cpu.total);
  EXPECT_EQ(gpu.mems, cpu.mems);
  EXPECT_THROW(warpmatch::maximal_exact_matches(span(a), span(b), 12, options_for(Backend::cuda, "diagonal")),
               warpmatch::InvalidArgument);
}

TEST(LcsCuda, CudaBackendWithoutGpuIsBackendUnavailable) {
  if (!warpmatch::cuda_devices().empty()) GTEST_SKIP() << "a GPU is present: nothing to check";
  const Bytes a = bytes("abc");
  EXPECT_THROW(warpmatch::longest_common_substring(span(a), span(a), options_for(Backend::cuda, "auto")),
               warpmatch::BackendUnavailable);
}

// One GPU must hold the suffix array (lcs has no split over several GPUs): past the memory
// left to it (here the device-memory cap, Execution::device_memory_limit), the cuda backend
// is an error naming the sizes and the limit, and the automatic backend computes on the CPU,
// saying why in ScanStats::note, with the CPU's results.
TEST(LcsCuda, SuffixArrayPastTheDeviceMemoryIsAnErrorOnCudaAndTheCpuOnAuto) {
  REQUIRE_GPU();
  std::mt19937_64 rng(1717);
  const Bytes a = random_bytes(rng, 5000, 4, 'a'), b = random_bytes(rng, 7000, 4, 'a');
  const std::uint64_t cap = std::uint64_t{32} << 20;  // under the estimate's 64 MiB of slack alone
  LcsOptions forced = options_for(Backend::cuda, "auto");
  forced.device_memory_limit = cap;
  try {
    warpmatch::longest_common_substring(span(a), span(b), forced);
    ADD_FAILURE() << "no error with a " << cap << "-byte cap";
  } catch (const warpmatch::DeviceOutOfMemory& e) {
    const std::string what = e.what();
    EXPECT_EQ(e.needed_bytes(), warpmatch::core::lcs_suffix_array_device_bytes(12000));
    EXPECT_LE(e.limit_bytes(), cap);
    for (const std::string& part : std::vector<std::string>{"inputs of 5000 + 7000 bytes", std::to_string(e.needed_bytes()) + " bytes",
                                   "device-memory cap of " + std::to_string(cap), "runs on one GPU"})
      EXPECT_NE(what.find(part), std::string::npos) << "'" << part << "' missing from: " << what;
  }
  EXPECT_THROW(warpmatch::maximal_exact_matches(span(a), span(b), 8, forced), warpmatch::DeviceOutOfMemory);

  LcsOptions automatic = options_for(Backend::automatic, "auto");
  automatic.device_memory_limit = cap;
  const auto on_cpu = warpmatch::longest_common_substring(span(a), span(b), options_for(Backend::cpu, "auto"));
  const auto fell_back = warpmatch::longest_common_substring(span(a), span(b), automatic);
  expect_same(fell_back, on_cpu, "automatic backend past the cap");
  EXPECT_EQ(fell_back.stats.backend, Backend::cpu);
  EXPECT_NE(fell_back.stats.note.find("inputs of 5000 + 7000 bytes"), std::string::npos) << fell_back.stats.note;
  EXPECT_NE(fell_back.stats.note.find("computed on the CPU instead"), std::string::npos) << fell_back.stats.note;
  const auto mems = warpmatch::maximal_exact_matches(span(a), span(b), 8, automatic);
  EXPECT_EQ(mems.stats.backend, Backend::cpu);
  EXPECT_EQ(mems.mems, warpmatch::maximal_exact_matches(span(a), span(b), 8, options_for(Backend::cpu, "auto")).mems);

  // Without the cap the GPU has room: it stays there, with nothing to note.
  forced.device_memory_limit = 0;
  const auto on_gpu = warpmatch::longest_common_substring(span(a), span(b), forced);
  EXPECT_EQ(on_gpu.stats.backend, Backend::cuda);
  EXPECT_EQ(on_gpu.stats.note, "");
  expect_same(on_gpu, on_cpu, "cuda backend within the cap");
}
