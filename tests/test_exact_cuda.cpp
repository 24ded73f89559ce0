// CUDA backend of exact search (src/cuda): both algorithms, counting and reporting, against a
// naive oracle written here; chunk boundaries are exercised by forcing tiny chunks through
// WARPMATCH_CUDA_CHUNK_BYTES. Every GPU test skips visibly on a machine without a GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/exact_pattern.hpp"
#include "api/kernel_timing.hpp"
#include "cuda/exact/exact_cuda.hpp"
#include "cuda/runtime/devices.hpp"

namespace cu = warpmatch::cuda;
using Bytes = std::vector<std::uint8_t>;
using Starts = std::vector<std::uint64_t>;

namespace {

#define SKIP_WITHOUT_GPU()                                       \
  do {                                                           \
    if (cu::devices().empty()) GTEST_SKIP() << "no CUDA GPU: skipping GPU test"; \
  } while (0)

constexpr cu::ExactAlgorithm kAlgorithms[] = {cu::ExactAlgorithm::fast, cu::ExactAlgorithm::first_last,
                                              cu::ExactAlgorithm::prefix, cu::ExactAlgorithm::bf};

const char* name_of(cu::ExactAlgorithm a) {
  switch (a) {
    case cu::ExactAlgorithm::fast: return "fast";
    case cu::ExactAlgorithm::first_last: return "first_last";
    case cu::ExactAlgorithm::prefix: return "prefix";
    case cu::ExactAlgorithm::bf: return "bf";
  }
  return "?";
}

// The benchmarks' timing hook names the same kernels.
warpmatch::kernel_timing::ExactKernel timing_kernel(cu::ExactAlgorithm a) {
  using K = warpmatch::kernel_timing::ExactKernel;
  switch (a) {
    case cu::ExactAlgorithm::first_last: return K::first_last;
    case cu::ExactAlgorithm::prefix: return K::prefix;
    case cu::ExactAlgorithm::bf: return K::bf;
    case cu::ExactAlgorithm::fast: break;
  }
  return K::fast;
}

warpmatch::core::ExactPattern make_pattern(const Bytes& p, bool case_insensitive = false) {
  warpmatch::core::ExactPattern pat;
  pat.case_insensitive = case_insensitive;
  pat.bytes = p;
  if (case_insensitive)
    for (auto& c : pat.bytes) c = warpmatch::core::fold_ascii(c);
  return pat;
}

/// The oracle: compare at every start position.
Starts naive(const Bytes& text, const Bytes& pattern, bool case_insensitive = false) {
  Starts out;
  if (pattern.size() > text.size()) return out;
  auto f = [&](std::uint8_t c) { return case_insensitive ? warpmatch::core::fold_ascii(c) : c; };
  for (std::size_t i = 0; i + pattern.size() <= text.size(); ++i) {
    std::size_t j = 0;
    while (j < pattern.size() && f(text[i + j]) == f(pattern[j])) ++j;
    if (j == pattern.size()) out.push_back(i);
  }
  return out;
}

/// Sets WARPMATCH_CUDA_CHUNK_BYTES for one scope (0 = unset: the default chunking).
class ChunkBytes {
 public:
  explicit ChunkBytes(std::uint64_t bytes) {
    if (const char* old = std::getenv(kVar)) old_ = old;
    if (bytes)
      setenv(kVar, std::to_string(bytes).c_str(), 1);
    else
      unsetenv(kVar);
  }
  ~ChunkBytes() {
    if (old_)
      setenv(kVar, old_->c_str(), 1);
    else
      unsetenv(kVar);
  }

 private:
  static constexpr const char* kVar = "WARPMATCH_CUDA_CHUNK_BYTES";
  std::optional<std::string> old_;
};

/// Reports every start; fails the test if the batches are not strictly ascending overall.
Starts report(const Bytes& text, const warpmatch::core::ExactPattern& pattern,
              cu::ExactAlgorithm algo, std::uint64_t* returned = nullptr) {
  Starts got;
  const std::uint64_t n = cu::exact_scan(
      pattern, warpmatch::ByteSpan(text), algo, 0, /*count_only=*/false,
      [&](std::span<const std::uint64_t> batch) {
        EXPECT_FALSE(batch.empty()) << "empty batch handed to the sink";
        for (const std::uint64_t s : batch) {
          if (!got.empty()) {
            EXPECT_LT(got.back(), s) << "starts not ascending / duplicated";
          }
          got.push_back(s);
        }
        return true;
      });
  if (returned) *returned = n;
  EXPECT_EQ(n, got.size()) << "return value differs from the starts delivered";
  return got;
}

std::uint64_t count(const Bytes& text, const warpmatch::core::ExactPattern& pattern,
                    cu::ExactAlgorithm algo) {
  return cu::exact_scan(pattern, warpmatch::ByteSpan(text), algo, 0, /*count_only=*/true,
                        [](std::span<const std::uint64_t>) {
                          ADD_FAILURE() << "counting must not call the sink";
                          return true;
                        });
}

/// Both algorithms, both modes, against the oracle.
void expect_matches_oracle(const Bytes& text, const Bytes& pattern_bytes,
                           bool case_insensitive = false, const std::string& what = "") {
  const auto pattern = make_pattern(pattern_bytes, case_insensitive);
  const Starts want = naive(text, pattern_bytes, case_insensitive);
  for (const auto algo : kAlgorithms) {
    SCOPED_TRACE(std::string(name_of(algo)) + " n=" + std::to_string(text.size()) +
                 " m=" + std::to_string(pattern_bytes.size()) + " " + what);
    EXPECT_EQ(count(text, pattern, algo), want.size());
    EXPECT_EQ(report(text, pattern, algo), want);
  }
}

Bytes random_bytes(std::mt19937_64& rng, std::size_t n, int alphabet, std::uint8_t base = 0) {
  Bytes s(n);
  for (auto& c : s) c = static_cast<std::uint8_t>(base + rng() % alphabet);
  return s;
}

Bytes to_bytes(std::string_view s) { return Bytes(s.begin(), s.end()); }

}  // namespace

TEST(CudaExact, WithoutGpuScanThrowsBackendUnavailable) {
  if (!cu::devices().empty()) GTEST_SKIP() << "a CUDA GPU is present: nothing to check";
  const auto pattern = make_pattern(to_bytes("abc"));
  const Bytes text = to_bytes("xxabcxx");
  for (const auto algo : kAlgorithms) {
    EXPECT_THROW(cu::exact_scan(pattern, warpmatch::ByteSpan(text), algo, 0, true, {}),
                 warpmatch::BackendUnavailable);
    EXPECT_THROW(cu::exact_scan(pattern, warpmatch::ByteSpan(text), algo, 0, false,
                                [](std::span<const std::uint64_t>) { return true; }),
                 warpmatch::BackendUnavailable);
  }
}

TEST(CudaExact, RandomTextsOverAlphabets2And4And256MatchOracle) {
  SKIP_WITHOUT_GPU();
  const std::size_t sizes[] = {1, 15, 16, 17, 63, 100, 511, 4097, 65536 + 7};
  const std::size_t lengths[] = {1, 2, 3, 4, 7, 15, 16, 17, 18, 31, 33, 64, 65, 100};
  for (const int alphabet : {2, 4, 256}) {
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
      std::mt19937_64 rng(seed * 1000 + alphabet);
      for (const std::size_t n : sizes) {
        const Bytes text = random_bytes(rng, n, alphabet);
        for (const std::size_t m : lengths) {
          if (m > n + 1) continue;
          // Half the patterns are cut from the text (so they occur), half are random.
          Bytes pat;
          if (m <= n && rng() % 2) {
            const std::size_t at = rng() % (n - m + 1);
            pat.assign(text.begin() + at, text.begin() + at + m);
          } else {
            pat = random_bytes(rng, m, alphabet);
          }
          expect_matches_oracle(text, pat, false, "alphabet=" + std::to_string(alphabet));
        }
      }
    }
  }
}

TEST(CudaExact, MultiMegabyteTextsMatchOracleWithDefaultAndSmallChunks) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(42);
  const Bytes text = random_bytes(rng, (3u << 20) + 13, 4);
  for (const std::size_t m : {1, 6, 12, 16, 20, 40}) {
    const Bytes pat(text.begin() + 777777, text.begin() + 777777 + m);
    for (const std::uint64_t chunk : {0ull, (1ull << 20) + 3, 300001ull}) {
      ChunkBytes forced(chunk);
      expect_matches_oracle(text, pat, false, "chunk=" + std::to_string(chunk));
    }
  }
  const Bytes text256 = random_bytes(rng, (2u << 20) + 5, 256);
  const Bytes pat256(text256.begin() + 123456, text256.begin() + 123456 + 9);
  expect_matches_oracle(text256, pat256);
}

TEST(CudaExact, FloodGivesOneMatchPerPosition) {
  SKIP_WITHOUT_GPU();
  for (const std::size_t n : {3u, 4u, 17u, 1000u, 100003u, (1u << 20) + 1}) {
    const Bytes text(n, 'a');
    for (const auto algo : kAlgorithms) {
      SCOPED_TRACE(std::string(name_of(algo)) + " n=" + std::to_string(n));
      const auto pattern = make_pattern(to_bytes("aaa"));
      EXPECT_EQ(count(text, pattern, algo), n - 2);
      const Starts got = report(text, pattern, algo);
      ASSERT_EQ(got.size(), n - 2);
      for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], i);
    }
  }
  {
    ChunkBytes forced(4099);
    expect_matches_oracle(Bytes(50000, 'a'), to_bytes("aaa"), false, "chunk=4099");
    expect_matches_oracle(Bytes(50000, 'a'), Bytes(40, 'a'), false, "chunk=4099");
  }
}

TEST(CudaExact, PeriodicTextMatchesOracle) {
  SKIP_WITHOUT_GPU();
  std::string s;
  while (s.size() < 200000) s += "abcab";
  const Bytes text = to_bytes(s);
  for (const char* p : {"abcab", "abcababcab", "bca", "cabab", "ab", "abcabc"})
    expect_matches_oracle(text, to_bytes(p));
  std::string dna;
  while (dna.size() < 100000) dna += "ACGTTGCA";
  expect_matches_oracle(to_bytes(dna), to_bytes("GCAACGTTGCAACG"));
  expect_matches_oracle(to_bytes(dna), to_bytes("TTGCAACGTTGCAACGTTGCA"));
}

TEST(CudaExact, MatchesStraddlingChunkBoundariesAreFoundOnce) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(7);
  const Bytes small = random_bytes(rng, 3001, 2);
  const Bytes large = random_bytes(rng, 40000 + 9, 2);
  for (const std::uint64_t chunk : {1ull, 2ull, 3ull, 5ull, 7ull, 16ull, 17ull, 31ull, 100ull,
                                    1000ull, 4093ull, 8192ull, 10007ull}) {
    ChunkBytes forced(chunk);
    const Bytes& text = chunk < 100 ? small : large;
    for (const std::size_t m : {1, 2, 5, 16, 17, 33}) {
      const Bytes pat(text.begin() + 101, text.begin() + 101 + m);
      expect_matches_oracle(text, pat, false, "chunk=" + std::to_string(chunk));
    }
  }
  // A pattern longer than the chunk: every occurrence spans several chunks.
  ChunkBytes forced(64);
  const Bytes pat(large.begin() + 5000, large.begin() + 5000 + 300);
  expect_matches_oracle(large, pat, false, "chunk=64, m=300");
}

TEST(CudaExact, EdgeSizesEmptyOneByteAndPatternLongerThanText) {
  SKIP_WITHOUT_GPU();
  for (const auto algo : kAlgorithms) {
    SCOPED_TRACE(name_of(algo));
    const auto a = make_pattern(to_bytes("a"));
    EXPECT_EQ(count(Bytes{}, a, algo), 0u);
    EXPECT_TRUE(report(Bytes{}, a, algo).empty());
    EXPECT_EQ(count(to_bytes("a"), a, algo), 1u);
    EXPECT_EQ(report(to_bytes("a"), a, algo), Starts{0});
    EXPECT_EQ(count(to_bytes("b"), a, algo), 0u);
    const auto longer = make_pattern(to_bytes("abcdef"));
    EXPECT_EQ(count(to_bytes("abcde"), longer, algo), 0u);
    EXPECT_TRUE(report(to_bytes("abcde"), longer, algo).empty());
    EXPECT_EQ(report(to_bytes("abcdef"), longer, algo), Starts{0});
  }
  // Text lengths around the 16-byte vector and 8 KiB segment sizes.
  std::mt19937_64 rng(3);
  for (const std::size_t n : {31, 32, 33, 8191, 8192, 8193, 8192 * 3 + 5}) {
    const Bytes text = random_bytes(rng, n, 2);
    expect_matches_oracle(text, Bytes(text.end() - 5, text.end()));
    expect_matches_oracle(text, Bytes(text.begin(), text.begin() + 3));
  }
}

TEST(CudaExact, NulAndFfBytesAreOrdinaryCharacters) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(11);
  Bytes text = random_bytes(rng, 50000, 2);
  for (auto& c : text) c = c ? 0xff : 0x00;
  for (const Bytes& pat : {Bytes{0x00}, Bytes{0xff}, Bytes{0x00, 0xff, 0x00},
                           Bytes{0xff, 0xff, 0xff, 0xff, 0x00}, Bytes(17, 0x00),
                           Bytes{0x00, 0xff, 0xff, 0x00, 0x00, 0xff, 0x00, 0xff, 0xff, 0x00,
                                 0x00, 0xff, 0x00, 0xff, 0xff, 0x00, 0x00, 0xff}})
    expect_matches_oracle(text, pat);
  expect_matches_oracle(Bytes(1000, 0x00), Bytes(3, 0x00));
}

TEST(CudaExact, CaseInsensitiveFoldsAsciiLettersOnly) {
  SKIP_WITHOUT_GPU();
  // Letters of both cases plus the bytes next to 'A'..'Z' / 'a'..'z' and their high-bit
  // twins (0xC1 = 'A' | 0x80 must not fold).
  const std::uint8_t alphabet[] = {'a', 'A', 'b', 'B', 'z', 'Z', '@', '[', '`', '{',
                                   0xc1, 0xe1, 0xda, 0x00};
  std::mt19937_64 rng(5);
  for (const std::size_t n : {1000, 65536 + 3}) {
    Bytes text(n);
    for (auto& c : text) c = alphabet[rng() % (rng() % 4 ? 4 : std::size(alphabet))];
    for (const std::size_t m : {1, 2, 3, 8, 16, 17, 40, 70}) {
      Bytes pat(text.begin() + 37, text.begin() + 37 + m);
      // Mix the pattern's case so that folding is needed to find it.
      for (std::size_t i = 0; i < pat.size(); i += 2)
        if (pat[i] >= 'a' && pat[i] <= 'z') pat[i] -= 32;
      expect_matches_oracle(text, pat, true, "case-insensitive");
    }
  }
  expect_matches_oracle(to_bytes("Hello HELLO hello hElLo h\xc5llo"), to_bytes("hello"), true);
  expect_matches_oracle(to_bytes("@[`{ @[`{"), to_bytes("`{"), true);
}

TEST(CudaExact, ThousandBytePatternsMatchOracle) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(9);
  const Bytes pat = random_bytes(rng, 1000, 4);
  Bytes text = random_bytes(rng, 300000, 4);
  for (const std::size_t at : {0ul, 5000ul, 5001ul, 5999ul, 100000ul, 299000ul})
    std::copy(pat.begin(), pat.end(), text.begin() + at);
  expect_matches_oracle(text, pat);
  {
    ChunkBytes forced(4096 + 1);
    expect_matches_oracle(text, pat, false, "chunk=4097");
  }
  expect_matches_oracle(Bytes(20000, 'a'), Bytes(1000, 'a'));
  Bytes near(pat);
  near[500] ^= 1;  // first and last byte agree: the filter passes, verification must reject
  expect_matches_oracle(text, near);
}

TEST(CudaExact, SinkReturningFalseStopsTheScan) {
  SKIP_WITHOUT_GPU();
  const Bytes text(200000, 'a');
  const auto pattern = make_pattern(to_bytes("aa"));
  ChunkBytes forced(10000);  // several batches
  for (const auto algo : kAlgorithms) {
    SCOPED_TRACE(name_of(algo));
    int calls = 0;
    Starts got;
    const std::uint64_t n = cu::exact_scan(
        pattern, warpmatch::ByteSpan(text), algo, 0, false,
        [&](std::span<const std::uint64_t> batch) {
          ++calls;
          got.insert(got.end(), batch.begin(), batch.end());
          return false;
        });
    EXPECT_EQ(calls, 1);
    EXPECT_EQ(n, got.size());
    ASSERT_FALSE(got.empty());
    EXPECT_LT(got.size(), text.size() - 1);
    for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], i);
  }
}

TEST(CudaExact, BenchmarkEntriesCountLikeTheOracle) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(13);
  const Bytes text = random_bytes(rng, (1u << 20) + 77, 4);
  const Bytes pat(text.begin() + 4242, text.begin() + 4242 + 11);
  const auto want = naive(text, pat).size();
  for (const auto algo : kAlgorithms) {
    SCOPED_TRACE(name_of(algo));
    const auto kernel = timing_kernel(algo);
    const auto resident = warpmatch::kernel_timing::exact_resident(pat, warpmatch::ByteSpan(text), kernel, 0, 3);
    EXPECT_EQ(resident.count, want);
    EXPECT_GT(resident.median_ms, 0.0);
    // Host-fed reads from pinned memory: the pipeline's direct (no staging) path.
    const auto fed = warpmatch::kernel_timing::exact_host_fed(pat, warpmatch::ByteSpan(text), kernel, 0, 3);
    EXPECT_EQ(fed.count, want);
    EXPECT_GT(fed.median_ms, 0.0);
    ChunkBytes forced(100003);  // the direct path over several chunks
    EXPECT_EQ(warpmatch::kernel_timing::exact_host_fed(pat, warpmatch::ByteSpan(text), kernel, 0, 1).count, want);
  }
}
