// CUDA backend of approximate search (src/cuda): the Myers kernel and the paper's wavefront
// kernel against the CPU backend (itself checked against the plain DP and edlib) on random,
// adversarial and real inputs, both modes, forced tiny chunks (chunk boundaries), several
// piece counts D, many patterns in one call, and the public API's starts and CIGARs. Every
// test skips visibly on a machine without a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "core/approx_align.hpp"
#include "io/input.hpp"
#include "cpu/approx_cpu.hpp"
#include "cuda/approx/approx_cuda.hpp"
#include "cuda/runtime/devices.hpp"
#include "warpmatch/approx.hpp"

namespace core = warpmatch::core;
namespace cpu = warpmatch::cpu;
namespace cu = warpmatch::cuda;
using Bytes = std::vector<std::uint8_t>;

namespace {

#define SKIP_WITHOUT_GPU()                                                          \
  do {                                                                              \
    if (cu::devices().empty()) GTEST_SKIP() << "no CUDA GPU: skipping GPU test";    \
  } while (0)

Bytes random_bytes(std::mt19937_64& rng, std::size_t n, int alphabet) {
  Bytes b(n);
  std::uniform_int_distribution<int> pick(0, alphabet - 1);
  for (auto& c : b) c = static_cast<std::uint8_t>(alphabet == 256 ? pick(rng) : 'a' + pick(rng));
  return b;
}

Bytes planted(std::mt19937_64& rng, const Bytes& p, std::size_t n, int alphabet, int copies) {
  Bytes t = random_bytes(rng, n, alphabet);
  for (int i = 0; i < copies && p.size() + 2 < n; ++i) {
    Bytes copy = p;
    if (!copy.empty()) copy[rng() % copy.size()] = static_cast<std::uint8_t>('a' + rng() % 2);
    const std::size_t at = rng() % (n - copy.size());
    std::copy(copy.begin(), copy.end(), t.begin() + static_cast<std::ptrdiff_t>(at));
  }
  return t;
}

constexpr cu::ApproxAlgorithm kAlgorithms[] = {cu::ApproxAlgorithm::myers, cu::ApproxAlgorithm::myers_threads,
                                               cu::ApproxAlgorithm::myers_lanes, cu::ApproxAlgorithm::wavefront};

const char* name_of(cu::ApproxAlgorithm a) {
  switch (a) {
    case cu::ApproxAlgorithm::myers: return "myers";
    case cu::ApproxAlgorithm::myers_threads: return "myers_threads";
    case cu::ApproxAlgorithm::myers_lanes: return "myers_lanes";
    case cu::ApproxAlgorithm::wavefront: return "wavefront";
  }
  return "?";
}

core::ApproxQuery query_of(core::ApproxMode mode, std::uint64_t k, std::uint64_t m, std::uint64_t chunk = 0) {
  core::ApproxQuery q;
  q.mode = mode;
  q.k = static_cast<std::uint32_t>(std::min(k, m));
  q.chunk_ends = chunk;
  return q;
}

/// GPU answer (every kernel) == CPU answer for one pattern.
void expect_gpu_equals_cpu(const Bytes& p, const Bytes& text, std::uint64_t k, core::ApproxMode mode,
                           std::uint64_t chunk = 0, int blocks = 0) {
  core::ApproxPattern pat;
  pat.bytes = p;
  const core::ApproxQuery q = query_of(mode, k, p.size(), chunk);
  const auto want = cpu::approx_scan(pat, text, q, cpu::ApproxAlgorithm::myers, 0);
  for (const auto algo : kAlgorithms) {
    if (p.size() > cu::approx_max_pattern_length(algo)) continue;
    const auto got = cu::approx_scan({pat}, {q}, text, algo, blocks, 0);
    ASSERT_EQ(got.size(), 1u);
    ASSERT_EQ(got[0], want) << name_of(algo) << " m=" << p.size()
                            << " n=" << text.size() << " k=" << k
                            << (mode == core::ApproxMode::best ? " best" : " all") << " chunk=" << chunk
                            << " D=" << blocks;
  }
}

}  // namespace

TEST(ApproxCuda, PaperExampleAbabaInAaabbbaaHasDistanceOne) {
  SKIP_WITHOUT_GPU();
  for (const char* algo : {"myers", "wavefront"}) {
    warpmatch::ApproxOptions o;
    o.best = true;
    o.backend = warpmatch::Backend::cuda;
    o.algorithm = algo;
    const auto hits = warpmatch::ApproxMatcher::compile(warpmatch::as_bytes("ababa"), o)
                          .find_all(warpmatch::as_bytes("aaabbbaa"));
    ASSERT_FALSE(hits.empty()) << algo;
    EXPECT_EQ(hits[0].distance, 1u) << algo;
  }
}

TEST(ApproxCuda, BothKernelsEqualCpuOnRandomInputsAllAlphabets) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(42);
  for (const int alphabet : {2, 4, 20, 256}) {
    for (const std::size_t m : {1, 2, 7, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 257, 1000, 1024, 1025}) {
      const Bytes p = random_bytes(rng, m, alphabet);
      const Bytes text = planted(rng, p, 3000 + 2 * m, alphabet, 5);
      for (const std::uint64_t k : {std::uint64_t{0}, std::uint64_t{1}, m / 8, m / 3, m, m + 2}) {
        expect_gpu_equals_cpu(p, text, k, core::ApproxMode::all_within_k);
      }
      expect_gpu_equals_cpu(p, text, m, core::ApproxMode::best);
      expect_gpu_equals_cpu(p, text, m / 4, core::ApproxMode::best);  // bounded best mode
    }
  }
}

TEST(ApproxCuda, ForcedTinyChunksAndPieceCountsCrossBoundaries) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(9);
  for (const std::size_t m : {3, 32, 33, 64, 65, 200, 1100}) {
    const Bytes p = random_bytes(rng, m, 2);
    const Bytes text = planted(rng, p, 2500, 2, 6);
    for (const std::uint64_t chunk : {1, 5, 64, 333}) {
      expect_gpu_equals_cpu(p, text, m / 5, core::ApproxMode::all_within_k, chunk);
      expect_gpu_equals_cpu(p, text, m, core::ApproxMode::best, chunk);
    }
    for (const int blocks : {1, 2, 16, 128, 2048}) {
      expect_gpu_equals_cpu(p, text, m / 5, core::ApproxMode::all_within_k, 0, blocks);
      expect_gpu_equals_cpu(p, text, m, core::ApproxMode::best, 0, blocks);
    }
  }
}

TEST(ApproxCuda, LongPatternsUpToTenThousand) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(10);
  for (const std::size_t m : {2049, 5000, 10000}) {
    const Bytes p = random_bytes(rng, m, 4);
    const Bytes text = planted(rng, p, 3 * m, 4, 2);
    expect_gpu_equals_cpu(p, text, m / 10, core::ApproxMode::all_within_k);
    expect_gpu_equals_cpu(p, text, m, core::ApproxMode::best);
  }
}

TEST(ApproxCuda, FloodsPeriodicTextsAndWordBoundaries) {
  SKIP_WITHOUT_GPU();
  const Bytes flood(5000, 'a');
  Bytes periodic;
  for (int i = 0; i < 5000; ++i) periodic.push_back("abcab"[i % 5]);
  for (const std::size_t m : {1, 31, 32, 33, 63, 64, 65, 127, 128, 129}) {
    const Bytes all_a(m, 'a');
    Bytes a_then_b(m, 'a');
    a_then_b.back() = 'b';
    for (const std::uint64_t k : {std::uint64_t{0}, std::uint64_t{1}, m / 2, m}) {
      for (const auto mode : {core::ApproxMode::all_within_k, core::ApproxMode::best}) {
        expect_gpu_equals_cpu(all_a, flood, k, mode);
        expect_gpu_equals_cpu(a_then_b, flood, k, mode);
        expect_gpu_equals_cpu(all_a, periodic, k, mode, 17);
      }
    }
  }
}

TEST(ApproxCuda, PatternLongerThanTextAndTinyTexts) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(4);
  for (int trial = 0; trial < 20; ++trial) {
    const Bytes p = random_bytes(rng, 10 + trial * 7, 4);
    const Bytes text = random_bytes(rng, 1 + trial, 4);
    expect_gpu_equals_cpu(p, text, p.size(), core::ApproxMode::best);
    expect_gpu_equals_cpu(p, text, p.size() / 2, core::ApproxMode::all_within_k);
  }
}

TEST(ApproxCuda, ManyPatternsInOneCallEqualCpu) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(21);
  const Bytes text = random_bytes(rng, 20000, 4);
  std::vector<core::ApproxPattern> patterns;
  std::vector<core::ApproxQuery> queries;
  for (int i = 0; i < 40; ++i) {
    core::ApproxPattern p;
    const std::size_t m = 5 + (i * 37) % 300;
    const std::size_t at = rng() % (text.size() - m);
    p.bytes.assign(text.begin() + static_cast<std::ptrdiff_t>(at), text.begin() + static_cast<std::ptrdiff_t>(at + m));
    p.bytes[m / 2] ^= 1;
    patterns.push_back(p);
    queries.push_back(query_of(i % 3 == 0 ? core::ApproxMode::best : core::ApproxMode::all_within_k, 1 + i % 5, m));
  }
  for (const auto algo : kAlgorithms) {
    const auto got = cu::approx_scan(patterns, queries, text, algo, 0, 0);
    ASSERT_EQ(got.size(), patterns.size());
    for (std::size_t i = 0; i < patterns.size(); ++i)
      ASSERT_EQ(got[i], cpu::approx_scan(patterns[i], text, queries[i], cpu::ApproxAlgorithm::myers, 0))
          << name_of(algo) << " pattern " << i;
  }
}

TEST(ApproxCuda, PublicApiGivesIdenticalHitsStartsAndCigarsOnBothBackends) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(8);
  const Bytes text = random_bytes(rng, 50000, 4);
  const Bytes p(text.begin() + 1000, text.begin() + 1050);
  for (const char* algo : {"myers", "wavefront"}) {
    for (const bool best : {false, true}) {
      warpmatch::ApproxOptions o;
      o.k = best ? -1 : 8;
      o.best = best;
      o.report = warpmatch::Report::cigar;
      o.case_insensitive = true;
      o.backend = warpmatch::Backend::cpu;
      const auto want = warpmatch::ApproxMatcher::compile(p, o).find_all(text);
      o.backend = warpmatch::Backend::cuda;
      o.algorithm = algo;
      const auto got = warpmatch::ApproxMatcher::compile(p, o).find_all(text);
      ASSERT_EQ(got, want) << algo << (best ? " best" : " all");
    }
  }
}

TEST(ApproxCuda, LambdaPhageReadsEqualCpu) {
  SKIP_WITHOUT_GPU();
  const char* genome_path = "/usr/share/doc/bowtie2/examples/reference/lambda_virus.fa.gz";
  const char* reads_path = "/usr/share/doc/bowtie2/examples/reads/reads_1.fq.gz";
  std::vector<Bytes> reads;
  Bytes genome;
  try {
    const auto g = warpmatch::io::Input::open(genome_path);
    genome.assign(g.records()[0].sequence.begin(), g.records()[0].sequence.end());
    const auto r = warpmatch::io::Input::open(reads_path);
    for (const auto& rec : r.records()) {
      if (reads.size() == 30) break;
      reads.emplace_back(rec.sequence.begin(), rec.sequence.end());
    }
  } catch (const warpmatch::Error& e) {
    GTEST_SKIP() << "bowtie2-examples not available: " << e.what();
  }
  for (const Bytes& read : reads) {
    expect_gpu_equals_cpu(read, genome, read.size(), core::ApproxMode::best);
    expect_gpu_equals_cpu(read, genome, 10, core::ApproxMode::all_within_k);
  }
}

TEST(ApproxCuda, PatternTooLongForAKernelIsAClearError) {
  SKIP_WITHOUT_GPU();
  warpmatch::ApproxOptions o;
  o.k = 1;
  o.backend = warpmatch::Backend::cuda;
  o.algorithm = "wavefront";
  const Bytes p(cu::approx_max_pattern_length(cu::ApproxAlgorithm::wavefront) + 1, 'a');
  EXPECT_THROW(warpmatch::ApproxMatcher::compile(p, o), warpmatch::InvalidArgument);
}

TEST(ApproxCuda, SmallDeviceSegmentsGiveTheSameHits) {
  SKIP_WITHOUT_GPU();
  std::mt19937_64 rng(31);
  const Bytes text = random_bytes(rng, 6000, 2);
  std::vector<core::ApproxPattern> patterns;
  std::vector<core::ApproxQuery> queries;
  for (const std::size_t m : {3, 40, 129, 300}) {
    core::ApproxPattern p;
    p.bytes.assign(text.begin() + 2000, text.begin() + 2000 + static_cast<std::ptrdiff_t>(m));
    patterns.push_back(p);
    queries.push_back(query_of(core::ApproxMode::all_within_k, m / 4, m));
    patterns.push_back(p);
    queries.push_back(query_of(core::ApproxMode::best, m, m));
  }
  for (const char* segment : {"97", "777", "1000"}) {
    ::setenv("WARPMATCH_APPROX_SEGMENT_ENDS", segment, 1);
    for (const auto algo : kAlgorithms) {
      const auto got = cu::approx_scan(patterns, queries, text, algo, 0, 0);
      for (std::size_t i = 0; i < patterns.size(); ++i)
        EXPECT_EQ(got[i], cpu::approx_scan(patterns[i], text, queries[i], cpu::ApproxAlgorithm::myers, 0))
            << name_of(algo) << " segment " << segment << " pattern " << i;
    }
  }
  ::unsetenv("WARPMATCH_APPROX_SEGMENT_ENDS");
}

TEST(ApproxCuda, MyersKernelsOnLongerTextsWithDefaultSplitEqualCpu) {
  SKIP_WITHOUT_GPU();
  // Texts long enough that the default split gives long, 16-byte aligned chunks of many
  // blocks, and odd lengths so that the last chunk ends inside a 16-byte block.
  std::mt19937_64 rng(77);
  for (const std::size_t m : {31, 32, 33, 64, 65, 256, 1024, 1500}) {
    const Bytes p = random_bytes(rng, m, 4);
    const Bytes text = planted(rng, p, (std::size_t{3} << 20) + 13 + m, 4, 40);
    expect_gpu_equals_cpu(p, text, m / 10, core::ApproxMode::all_within_k);
    expect_gpu_equals_cpu(p, text, 0, core::ApproxMode::all_within_k);
    expect_gpu_equals_cpu(p, text, m, core::ApproxMode::best);
  }
}

TEST(ApproxCuda, HitBufferOverflowIsRetriedWithRoomForAll) {
  SKIP_WITHOUT_GPU();
  ::setenv("WARPMATCH_APPROX_HIT_CAPACITY", "7", 1);
  const Bytes flood(20000, 'a');
  for (const std::size_t m : {5, 40, 1024}) {
    const Bytes all_a(m, 'a');
    expect_gpu_equals_cpu(all_a, flood, 2, core::ApproxMode::all_within_k);
    expect_gpu_equals_cpu(all_a, flood, m, core::ApproxMode::best);
  }
  ::unsetenv("WARPMATCH_APPROX_HIT_CAPACITY");
}
