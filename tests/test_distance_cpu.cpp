// Edit distance on the CPU (public API, backend cpu): every algorithm against the plain DP
// written here and edlib NW (test-only oracle), with and without k, alignments checked by
// applying the CIGAR; random, adversarial, known vectors and the lambda genome vs mutated
// copies; stripes over threads (ring buffer wrap-around included); batches; the CUDA batch,
// stripe and tile kernels emulated on the host.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "api/tuning_hooks.hpp"
#include "io/input.hpp"
#include "warpmatch/distance.hpp"

// The CUDA kernels, compiled for the host (see the emulation tests at the end), in a
// namespace of their own so that they never meet the CUDA build's launch stubs.
#include "support/cuda_host_shim.hpp"
#define kernels distance_kernel_emulation
#include "cuda/distance/kernels.cuh"
#undef kernels
namespace dk = warpmatch::cuda::distance_kernel_emulation;
namespace warpmatch::cuda::distance_kernel_emulation {
std::int32_t shared[3 * 1024 + 1];  // tiles_diagonal's dynamic shared memory, (3 B + 1) words
alignas(16) std::uint32_t stripe_shared[2048];  // myers_stripe's (Peq of <= 32 codes, text, deltas)
}  // namespace warpmatch::cuda::distance_kernel_emulation

#ifdef WARPMATCH_HAVE_EDLIB
#include <edlib.h>
#endif

using Bytes = std::vector<std::uint8_t>;
using warpmatch::ByteSpan;
using warpmatch::kDistanceOverK;

namespace {

ByteSpan span(const Bytes& b) { return {b.data(), b.size()}; }
Bytes bytes(std::string_view s) { return Bytes(s.begin(), s.end()); }

/// The oracle: plain O(mn) DP, two rows, written independently of the library.
std::int64_t oracle(const Bytes& a, const Bytes& b) {
  std::vector<std::int64_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = static_cast<std::int64_t>(j);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = static_cast<std::int64_t>(i);
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::int64_t bounded(std::int64_t d, std::int64_t k) { return k >= 0 && d > k ? kDistanceOverK : d; }

#ifdef WARPMATCH_HAVE_EDLIB
std::int64_t edlib_distance(const Bytes& a, const Bytes& b, std::int64_t k = -1) {
  const EdlibAlignResult r =
      edlibAlign(reinterpret_cast<const char*>(a.data()), static_cast<int>(a.size()),
                 reinterpret_cast<const char*>(b.data()), static_cast<int>(b.size()),
                 edlibNewAlignConfig(static_cast<int>(k), EDLIB_MODE_NW, EDLIB_TASK_DISTANCE, nullptr, 0));
  const std::int64_t d = r.editDistance;
  edlibFreeAlignResult(r);
  return d < 0 ? kDistanceOverK : d;
}
/// edlib's own alignment (EDLIB_TASK_PATH): its cost, counted from the path.
std::int64_t edlib_path_cost(const Bytes& a, const Bytes& b) {
  const EdlibAlignResult r =
      edlibAlign(reinterpret_cast<const char*>(a.data()), static_cast<int>(a.size()),
                 reinterpret_cast<const char*>(b.data()), static_cast<int>(b.size()),
                 edlibNewAlignConfig(-1, EDLIB_MODE_NW, EDLIB_TASK_PATH, nullptr, 0));
  std::int64_t cost = 0;
  for (int i = 0; i < r.alignmentLength; ++i) cost += r.alignment[i] != EDLIB_EDOP_MATCH;
  edlibFreeAlignResult(r);
  return cost;
}
#endif

Bytes random_bytes(std::mt19937_64& rng, std::size_t n, int alphabet) {
  Bytes s(n);
  for (auto& c : s) c = static_cast<std::uint8_t>(alphabet == 4 ? "ACGT"[rng() % 4] : rng() % alphabet);
  return s;
}

/// A copy of s with about `rate` of its positions edited (substitution, insertion, deletion).
Bytes mutate(std::mt19937_64& rng, const Bytes& s, double rate, int alphabet) {
  Bytes out;
  out.reserve(s.size() + s.size() / 8);
  std::uniform_real_distribution<double> u(0, 1);
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (u(rng) >= rate) {
      out.push_back(s[i]);
      continue;
    }
    const auto other = static_cast<std::uint8_t>(alphabet == 4 ? "ACGT"[rng() % 4] : rng() % alphabet);
    switch (rng() % 3) {
      case 0: out.push_back(other); break;                  // substitution
      case 1: out.push_back(s[i]); out.push_back(other); break;  // insertion
      default: break;                                       // deletion
    }
  }
  return out;
}

warpmatch::DistanceOptions cpu_options(const std::string& algo = "auto", std::int64_t k = -1,
                                       int threads = 0, bool align = false) {
  warpmatch::DistanceOptions o;
  o.backend = warpmatch::Backend::cpu;
  o.algorithm = algo;
  o.max_distance = k;
  o.threads = threads;
  o.report = align ? warpmatch::Report::cigar : warpmatch::Report::ends;
  return o;
}

std::int64_t cpu_distance(const Bytes& a, const Bytes& b, const std::string& algo, std::int64_t k = -1,
                          int threads = 0) {
  return warpmatch::edit_distance(span(a), span(b), cpu_options(algo, k, threads)).distance;
}

/// The alignment turns a into b, and its cost is the distance.
void expect_valid_alignment(const Bytes& a, const Bytes& b, const warpmatch::DistanceResult& r,
                            std::int64_t expected_distance) {
  ASSERT_EQ(r.distance, expected_distance);
  std::int64_t cost = -1;
  const std::string applied = warpmatch::apply_cigar(span(a), span(b), r.cigar, &cost);
  EXPECT_EQ(applied, std::string(b.begin(), b.end()));
  EXPECT_EQ(cost, expected_distance) << r.cigar.substr(0, 200);
}

const char* const kAlgorithms[] = {"myers", "dp"};

}  // namespace

TEST(DistanceCpu, KnownVectors) {
  for (const char* algo : kAlgorithms) {
    EXPECT_EQ(cpu_distance(bytes("change"), bytes("hunger"), algo), 3) << algo;
    EXPECT_EQ(cpu_distance(bytes("kitten"), bytes("sitting"), algo), 3) << algo;
    EXPECT_EQ(cpu_distance(bytes("sitting"), bytes("kitten"), algo), 3) << algo;
    EXPECT_EQ(cpu_distance(bytes("flaw"), bytes("lawn"), algo), 2) << algo;
    EXPECT_EQ(cpu_distance(bytes("kitten"), bytes("sitting"), algo, 2), kDistanceOverK) << algo;
    EXPECT_EQ(cpu_distance(bytes("kitten"), bytes("sitting"), algo, 3), 3) << algo;
  }
  const auto r = warpmatch::edit_distance(warpmatch::as_bytes("change"), warpmatch::as_bytes("hunger"),
                                          cpu_options("auto", -1, 0, true));
  expect_valid_alignment(bytes("change"), bytes("hunger"), r, 3);
}

TEST(DistanceCpu, EmptyAndIdenticalAndOneSided) {
  const Bytes empty, x = bytes("GATTACA"), long_a(5000, 'A');
  for (const char* algo : kAlgorithms) {
    EXPECT_EQ(cpu_distance(empty, empty, algo), 0);
    EXPECT_EQ(cpu_distance(empty, x, algo), 7);
    EXPECT_EQ(cpu_distance(x, empty, algo), 7);
    EXPECT_EQ(cpu_distance(x, x, algo), 0);
    EXPECT_EQ(cpu_distance(long_a, long_a, algo), 0);
    EXPECT_EQ(cpu_distance(long_a, bytes("A"), algo), 4999);
    EXPECT_EQ(cpu_distance(bytes("B"), long_a, algo), 5000);
    EXPECT_EQ(cpu_distance(empty, x, algo, 6), kDistanceOverK);
    EXPECT_EQ(cpu_distance(x, x, algo, 0), 0);
  }
  expect_valid_alignment(empty, x, warpmatch::edit_distance(span(empty), span(x), cpu_options("auto", -1, 0, true)), 7);
  expect_valid_alignment(x, empty, warpmatch::edit_distance(span(x), span(empty), cpu_options("auto", -1, 0, true)), 7);
  const auto both_empty = warpmatch::edit_distance(span(empty), span(empty), cpu_options("auto", -1, 0, true));
  EXPECT_EQ(both_empty.distance, 0);
  EXPECT_EQ(both_empty.cigar, "");
}

TEST(DistanceCpu, RandomSmallAgainstPlainDpAllAlphabetsWithAndWithoutK) {
  std::mt19937_64 rng(1);
  for (int alphabet : {2, 4, 256}) {
    for (int trial = 0; trial < 150; ++trial) {
      // Up to 600 bytes: both sides of the unbanded table's 512 rows (8 words).
      const Bytes a = random_bytes(rng, rng() % 600, alphabet);
      const Bytes b = trial % 3 == 0 ? mutate(rng, a, 0.1, alphabet) : random_bytes(rng, rng() % 600, alphabet);
      const std::int64_t d = oracle(a, b);
      const std::int64_t k = static_cast<std::int64_t>(rng() % (d + 10));
      for (const char* algo : kAlgorithms) {
        ASSERT_EQ(cpu_distance(a, b, algo), d) << algo << " alphabet " << alphabet << " trial " << trial;
        ASSERT_EQ(cpu_distance(a, b, algo, k), bounded(d, k)) << algo << " k " << k << " trial " << trial;
      }
    }
  }
}

TEST(DistanceCpu, RandomLongUnequalAgainstEdlibWithAndWithoutK) {
#ifndef WARPMATCH_HAVE_EDLIB
  GTEST_SKIP() << "edlib not available: long random cases need the oracle";
#else
  std::mt19937_64 rng(2);
  const std::size_t sizes[][2] = {{1000, 3000}, {4096, 4033}, {20000, 20000}, {100000, 3000},
                                  {50000, 100000}, {100000, 100000}};
  for (int alphabet : {2, 4, 256}) {
    for (const auto& sz : sizes) {
      const Bytes a = random_bytes(rng, sz[0], alphabet);
      const Bytes b = rng() % 2 ? random_bytes(rng, sz[1], alphabet) : mutate(rng, a, 0.05, alphabet);
      const std::int64_t d = edlib_distance(a, b);
      ASSERT_EQ(cpu_distance(a, b, "myers", -1, 1), d) << sz[0] << "x" << b.size() << " alphabet " << alphabet;
      ASSERT_EQ(cpu_distance(a, b, "myers", -1, 4), d) << "4 threads";
      for (const std::int64_t k : {d - 1, d, d / 2, 2 * d + 7})
        ASSERT_EQ(cpu_distance(a, b, "myers", k, 3), bounded(d, k)) << "k " << k;
      ASSERT_EQ(edlib_distance(a, b, d - 1), kDistanceOverK) << "edlib with k = d - 1";
    }
  }
#endif
}

TEST(DistanceCpu, PlainDpAgainstOracleMidSize) {
  std::mt19937_64 rng(3);
  const Bytes a = random_bytes(rng, 3000, 4), b = random_bytes(rng, 2500, 4);
  EXPECT_EQ(cpu_distance(a, b, "dp"), oracle(a, b));
  EXPECT_EQ(cpu_distance(a, b, "myers", -1, 2), oracle(a, b));
}

TEST(DistanceCpu, StripesOverThreadsMatchOneThreadAcrossRingWrap) {
  // 200 K columns wrap the stripes' ring buffer (64 chunks of 512 columns) several times.
  std::mt19937_64 rng(4);
  const Bytes a = random_bytes(rng, 40000, 4);
  const Bytes b = mutate(rng, random_bytes(rng, 200000, 4), 0.0, 4);
  const std::int64_t one = cpu_distance(a, b, "myers", -1, 1);
#ifdef WARPMATCH_HAVE_EDLIB
  EXPECT_EQ(one, edlib_distance(a, b));
#endif
  for (int threads : {2, 5, 16}) EXPECT_EQ(cpu_distance(a, b, "myers", -1, threads), one) << threads;
  const Bytes c = mutate(rng, a, 0.02, 4);
  const std::int64_t d = cpu_distance(a, c, "myers", -1, 1);
  for (int threads : {2, 7}) {
    EXPECT_EQ(cpu_distance(a, c, "myers", -1, threads), d);
    EXPECT_EQ(cpu_distance(a, c, "myers", d, threads), d);
    EXPECT_EQ(cpu_distance(a, c, "myers", d - 1, threads), kDistanceOverK);
  }
}

TEST(DistanceCpu, PeriodicAndAdversarialStrings) {
  auto repeat = [](std::string_view unit, std::size_t n) {
    Bytes s;
    while (s.size() < n) s.insert(s.end(), unit.begin(), unit.end());
    s.resize(n);
    return s;
  };
  const std::vector<std::pair<Bytes, Bytes>> cases = {
      {repeat("AC", 2000), repeat("CA", 2000)},
      {repeat("ACGT", 3001), repeat("ACG", 2999)},
      {repeat("A", 1500), repeat("B", 1500)},
      {repeat("AB", 129), repeat("AB", 4000)},
      {Bytes(64, 'x'), Bytes(65, 'x')},
      {Bytes(128, 'x'), Bytes(63, 'y')},
      {Bytes{0, 0, 0, 255}, Bytes{255, 0, 0}},
  };
  for (const auto& [a, b] : cases) {
    const std::int64_t d = oracle(a, b);
    for (const char* algo : kAlgorithms) {
      EXPECT_EQ(cpu_distance(a, b, algo), d) << algo << " " << a.size() << "x" << b.size();
      EXPECT_EQ(cpu_distance(a, b, algo, d), d);
      if (d > 0) EXPECT_EQ(cpu_distance(a, b, algo, d - 1), kDistanceOverK);
    }
    expect_valid_alignment(a, b, warpmatch::edit_distance(span(a), span(b), cpu_options("auto", -1, 2, true)), d);
  }
}

TEST(DistanceCpu, AlignmentsApplyAndCostTheDistanceRandom) {
  std::mt19937_64 rng(5);
  for (int alphabet : {2, 4, 256}) {
    for (int trial = 0; trial < 25; ++trial) {
      const std::size_t n = trial < 20 ? rng() % 700 : 5000 + rng() % 20000;
      const Bytes a = random_bytes(rng, n, alphabet);
      const Bytes b = trial % 2 ? mutate(rng, a, 0.08, alphabet) : random_bytes(rng, rng() % (n + 50), alphabet);
      const std::int64_t d = n < 3000 ? oracle(a, b) : cpu_distance(a, b, "myers");
      const auto r = warpmatch::edit_distance(span(a), span(b), cpu_options("auto", -1, 3, true));
      expect_valid_alignment(a, b, r, d);
#ifdef WARPMATCH_HAVE_EDLIB
      EXPECT_EQ(edlib_path_cost(a, b), d);
#endif
      const auto within = warpmatch::edit_distance(span(a), span(b), cpu_options("auto", d, 3, true));
      expect_valid_alignment(a, b, within, d);
      if (d > 0) {
        const auto over = warpmatch::edit_distance(span(a), span(b), cpu_options("auto", d - 1, 3, true));
        EXPECT_TRUE(over.over_k());
        EXPECT_EQ(over.cigar, "");
      }
    }
  }
}

// The plain DP's traceback, preferring the diagonal, then up ('I'), then left ('D').
std::string full_dp_cigar(const Bytes& a, const Bytes& b) {
  const std::size_t m = a.size(), n = b.size(), w = n + 1;
  std::vector<std::uint32_t> d((m + 1) * w);
  for (std::size_t i = 0; i <= m; ++i) d[i * w] = static_cast<std::uint32_t>(i);
  for (std::size_t j = 0; j <= n; ++j) d[j] = static_cast<std::uint32_t>(j);
  for (std::size_t i = 1; i <= m; ++i)
    for (std::size_t j = 1; j <= n; ++j)
      d[i * w + j] = std::min({d[(i - 1) * w + j] + 1, d[i * w + j - 1] + 1,
                               d[(i - 1) * w + j - 1] + (a[i - 1] == b[j - 1] ? 0u : 1u)});
  std::string rev;
  for (std::size_t i = m, j = n; i > 0 || j > 0;) {
    const std::uint32_t here = d[i * w + j];
    if (i > 0 && j > 0 && here == d[(i - 1) * w + j - 1] + (a[i - 1] == b[j - 1] ? 0u : 1u)) {
      rev += a[i - 1] == b[j - 1] ? '=' : 'X';
      --i, --j;
    } else if (i > 0 && here == d[(i - 1) * w + j] + 1) {
      rev += 'I', --i;
    } else {
      rev += 'D', --j;
    }
  }
  std::string cigar;
  for (std::size_t i = rev.size(); i > 0;) {
    std::size_t j = i;
    while (j > 0 && rev[j - 1] == rev[i - 1]) --j;
    cigar += std::to_string(i - j) + rev[i - 1];
    i = j;
  }
  return cigar;
}

// Pairs whose band's columns fit one Hirschberg leaf (up to ~2000 bytes) are aligned from the
// kept bit-parallel columns: the same steps as the plain DP's traceback, so the same CIGAR.
TEST(DistanceCpu, OneLeafAlignmentsEqualThePlainDpTraceback) {
  std::mt19937_64 rng(11);
  for (int alphabet : {2, 4, 20, 256}) {
    for (int trial = 0; trial < 40; ++trial) {
      const std::size_t n = trial < 30 ? rng() % 300 : 300 + rng() % 1700;
      const Bytes a = random_bytes(rng, n, alphabet);
      const double rate = std::array{0.0, 0.01, 0.1, 0.3}[trial % 4];
      const Bytes b = trial % 5 == 4 ? random_bytes(rng, rng() % (n + 70), alphabet) : mutate(rng, a, rate, alphabet);
      const auto r = warpmatch::edit_distance(span(a), span(b), cpu_options("auto", -1, 1, true));
      EXPECT_EQ(r.cigar, full_dp_cigar(a, b)) << "alphabet " << alphabet << " trial " << trial << " n " << n;
      expect_valid_alignment(a, b, r, oracle(a, b));
    }
  }
}

TEST(DistanceCpu, AlignmentOfFullDpReferenceIsValid) {
  std::mt19937_64 rng(6);
  const Bytes a = random_bytes(rng, 400, 4), b = random_bytes(rng, 350, 4);
  const auto r = warpmatch::edit_distance(span(a), span(b), cpu_options("auto", -1, 1, true));
  expect_valid_alignment(a, b, r, oracle(a, b));
}

TEST(DistanceCpu, LambdaGenomeAgainstMutatedCopies) {
  const std::string path = "/usr/share/doc/bowtie2/examples/reference/lambda_virus.fa.gz";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "lambda genome not installed: " << path;
  const auto input = warpmatch::io::Input::open(path);
  const ByteSpan g = input.records().front().sequence;
  const Bytes genome(g.begin(), g.end());
  ASSERT_GT(genome.size(), 48000u);
  std::mt19937_64 rng(7);
  for (const double rate : {0.01, 0.10}) {
    const Bytes copy = mutate(rng, genome, rate, 4);
    const std::int64_t d = cpu_distance(genome, copy, "myers");
#ifdef WARPMATCH_HAVE_EDLIB
    EXPECT_EQ(d, edlib_distance(genome, copy)) << rate;
#endif
    EXPECT_GT(d, 0);
    EXPECT_EQ(cpu_distance(genome, copy, "myers", d, 8), d);
    EXPECT_EQ(cpu_distance(genome, copy, "myers", d - 1, 8), kDistanceOverK);
    const auto r = warpmatch::edit_distance(span(genome), span(copy), cpu_options("auto", -1, 0, true));
    expect_valid_alignment(genome, copy, r, d);
  }
}

/// Near-identical pairs: the CPU band follows the computed values (blocks dropped at both
/// ends, the bottom re-entered and extended within a column, trials stopped early and the
/// next k extrapolated). Edits spread evenly, bunched at either end, and long indels (a
/// vertical run of more than a block in one column), with k around the distance.
TEST(DistanceCpu, PrunedBandNearIdenticalAgainstPlainDp) {
  std::mt19937_64 rng(9);
  auto concat = [](std::initializer_list<Bytes> parts) {
    Bytes s;
    for (const Bytes& p : parts) s.insert(s.end(), p.begin(), p.end());
    return s;
  };
  for (int trial = 0; trial < 24; ++trial) {
    const int alphabet = trial % 3 == 2 ? 2 : 4;
    const std::size_t n = 1500 + rng() % 3500;
    const Bytes a = random_bytes(rng, n, alphabet);
    const Bytes head(a.begin(), a.begin() + n / 5), body(a.begin() + n / 5, a.end());
    const Bytes tail_start(a.begin(), a.begin() + 4 * n / 5), tail(a.begin() + 4 * n / 5, a.end());
    Bytes b;
    switch (trial % 6) {
      case 0: b = mutate(rng, a, 0.002, alphabet); break;
      case 1: b = mutate(rng, a, 0.03, alphabet); break;
      case 2: b = concat({mutate(rng, head, 0.15, alphabet), body}); break;       // bunched at the start
      case 3: b = concat({tail_start, mutate(rng, tail, 0.15, alphabet)}); break;  // bunched at the end
      case 4:  // a block of a missing from b (rows when b is the longer one: a vertical run)
        b = concat({head, Bytes(body.begin() + 150 + rng() % 150, body.end()), random_bytes(rng, 300, alphabet)});
        break;
      default:  // a block inserted into b, and a few edits
        b = mutate(rng, concat({head, random_bytes(rng, 100 + rng() % 200, alphabet), body}), 0.005, alphabet);
    }
    const std::int64_t d = oracle(a, b);
    ASSERT_EQ(cpu_distance(a, b, "myers", -1, 1), d) << "trial " << trial;
    ASSERT_EQ(cpu_distance(b, a, "myers", -1, 2), d) << "trial " << trial;
    for (const std::int64_t k : {d - 1, d, d + 1, 2 * d + 5, d + 700})
      ASSERT_EQ(cpu_distance(a, b, "myers", k, 1), bounded(d, k)) << "trial " << trial << " k " << k;
    expect_valid_alignment(a, b, warpmatch::edit_distance(span(a), span(b), cpu_options("auto", -1, 1, true)), d);
    expect_valid_alignment(a, b, warpmatch::edit_distance(span(a), span(b), cpu_options("auto", d, 1, true)), d);
  }
}

TEST(DistanceCpu, BatchMatchesSinglePairsInOrder) {
  std::mt19937_64 rng(8);
  std::vector<Bytes> store;
  for (int i = 0; i < 600; ++i) {
    store.push_back(random_bytes(rng, 100 + rng() % 200, 4));
    store.push_back(i % 2 ? mutate(rng, store.back(), 0.1, 4) : random_bytes(rng, 100 + rng() % 200, 4));
  }
  store.push_back({});
  store.push_back(bytes("abc"));
  std::vector<std::pair<ByteSpan, ByteSpan>> pairs;
  for (std::size_t i = 0; i + 1 < store.size(); i += 2) pairs.emplace_back(span(store[i]), span(store[i + 1]));
  for (const std::int64_t k : {std::int64_t{-1}, std::int64_t{40}}) {
    for (const bool align : {false, true}) {
      warpmatch::ScanStats stats;
      const auto results = warpmatch::edit_distance_batch(pairs, cpu_options("auto", k, 4, align), &stats);
      ASSERT_EQ(results.size(), pairs.size());
      EXPECT_EQ(stats.pairs, pairs.size());
      for (std::size_t i = 0; i < pairs.size(); ++i) {
        const Bytes a(pairs[i].first.begin(), pairs[i].first.end()), b(pairs[i].second.begin(), pairs[i].second.end());
        const std::int64_t d = bounded(oracle(a, b), k);
        ASSERT_EQ(results[i].distance, d) << i;
        if (align && d != kDistanceOverK) expect_valid_alignment(a, b, results[i], d);
      }
    }
  }
}

// edit_distances: edit_distance_batch's distances, nothing else; alignments refused.
TEST(DistanceCpu, DistancesAloneEqualTheBatchsDistances) {
  std::mt19937_64 rng(81);
  std::vector<Bytes> store;
  for (int i = 0; i < 400; ++i) {
    store.push_back(random_bytes(rng, rng() % 300, 4));
    store.push_back(mutate(rng, store.back(), 0.15, 4));
  }
  std::vector<std::pair<ByteSpan, ByteSpan>> pairs;
  for (std::size_t i = 0; i + 1 < store.size(); i += 2) pairs.emplace_back(span(store[i]), span(store[i + 1]));
  for (const std::int64_t k : {std::int64_t{-1}, std::int64_t{0}, std::int64_t{12}}) {
    warpmatch::ScanStats stats;
    const auto distances = warpmatch::edit_distances(pairs, cpu_options("auto", k, 2, false), &stats);
    const auto batch = warpmatch::edit_distance_batch(pairs, cpu_options("auto", k, 2, false));
    ASSERT_EQ(distances.size(), pairs.size());
    EXPECT_EQ(stats.pairs, pairs.size());
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      ASSERT_EQ(distances[i], batch[i].distance) << i;
      const Bytes a(pairs[i].first.begin(), pairs[i].first.end()), b(pairs[i].second.begin(), pairs[i].second.end());
      ASSERT_EQ(distances[i], bounded(oracle(a, b), k)) << i;
    }
  }
  EXPECT_TRUE(warpmatch::edit_distances({}, cpu_options("auto", -1, 2, false)).empty());
  EXPECT_THROW(warpmatch::edit_distances(pairs, cpu_options("auto", -1, 2, true)), warpmatch::InvalidArgument);
}

TEST(DistanceApi, RejectsBadOptionsWithMessages) {
  const Bytes a = bytes("abc");
  auto expect_invalid = [&](warpmatch::DistanceOptions o, const std::string& needle,
                            warpmatch::tuning_hooks::DistanceKnobs knobs = {}) {
    try {
      warpmatch::tuning_hooks::edit_distance(span(a), span(a), o, knobs);
      ADD_FAILURE() << "no exception for " << needle;
    } catch (const warpmatch::InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_invalid(cpu_options("nonsense"), "nonsense");
  expect_invalid(cpu_options("tiles"), "tiles");
  expect_invalid(cpu_options(), "33", {.tile_size = 33});
  auto bad_threads = cpu_options();
  bad_threads.threads = -1;
  expect_invalid(bad_threads, "threads");
  if (warpmatch::cuda_devices().empty()) {
    warpmatch::DistanceOptions cuda;
    cuda.backend = warpmatch::Backend::cuda;
    EXPECT_THROW(warpmatch::edit_distance(span(a), span(a), cuda), warpmatch::BackendUnavailable);
    warpmatch::DistanceOptions tiles;
    tiles.algorithm = "tiles";  // auto backend + a CUDA-only algorithm asks for the GPU
    EXPECT_THROW(warpmatch::edit_distance(span(a), span(a), tiles), warpmatch::BackendUnavailable);
  }
  warpmatch::ScanStats stats;
  const auto r = warpmatch::edit_distance(span(a), warpmatch::as_bytes("abd"), cpu_options("dp"), &stats);
  EXPECT_EQ(r.distance, 1);
  EXPECT_EQ(stats.algorithm, "dp");
  EXPECT_EQ(stats.cells, 9u);
  EXPECT_EQ(stats.bytes, 6u);  // |A| + |B|
  EXPECT_EQ(stats.backend, warpmatch::Backend::cpu);
}

TEST(DistanceApi, ApplyCigarRejectsInvalidAlignments) {
  const Bytes a = bytes("abc"), b = bytes("abd");
  std::int64_t cost = 0;
  EXPECT_EQ(warpmatch::apply_cigar(span(a), span(b), "2=1X", &cost), "abd");
  EXPECT_EQ(cost, 1);
  EXPECT_EQ(warpmatch::apply_cigar(span(a), span(b), "2=1I1D", &cost), "abd");
  EXPECT_EQ(cost, 2);
  EXPECT_THROW(warpmatch::apply_cigar(span(a), span(b), "3=", &cost), warpmatch::InvalidArgument);
  EXPECT_THROW(warpmatch::apply_cigar(span(a), span(b), "2=", &cost), warpmatch::InvalidArgument);
  EXPECT_THROW(warpmatch::apply_cigar(span(a), span(b), "2=1Q", &cost), warpmatch::InvalidArgument);
  EXPECT_THROW(warpmatch::apply_cigar(span(a), span(b), "=", &cost), warpmatch::InvalidArgument);
  EXPECT_THROW(warpmatch::apply_cigar(span(a), span(b), "2=1X1D", &cost), warpmatch::InvalidArgument);
}

// ---- the GPU kernels, emulated -------------------------------------------------------------
// The real kernel text (src/cuda/distance/kernels.cuh, included at the top under the host shim
// tests/support/cuda_host_shim.hpp), launched as src/cuda/distance/dispatch.cu launches it,
// against the plain DP: the GPU tests only run where a GPU is.
namespace {

using Pairs = std::vector<std::pair<Bytes, Bytes>>;

/// The batch kernels' input as dispatch.cu lays it out: every string at a 4-byte aligned
/// offset (the thread kernel reads whole words), padding bytes that match nothing in particular.
struct BatchInput {
  Bytes bytes;
  std::vector<dk::BatchPair> pairs;
  explicit BatchInput(const Pairs& ps) {
    auto put = [&](const Bytes& s) {
      const auto at = static_cast<std::int64_t>(bytes.size());
      bytes.insert(bytes.end(), s.begin(), s.end());
      bytes.resize((bytes.size() + 3) & ~std::size_t{3}, 0xAB);
      return at;
    };
    for (const auto& [a, b] : ps) {
      const std::int64_t at_a = put(a), at_b = put(b);
      pairs.push_back({at_a, static_cast<std::int64_t>(a.size()), at_b, static_cast<std::int64_t>(b.size())});
    }
  }
};

/// kernels::myers_thread_batch over pairs (a = the shorter string, <= 320): distances, or
/// kThreadNeedsGroup for patterns of more than 4 distinct bytes.
std::vector<std::int64_t> emulate_thread_batch(const Pairs& ps) {
  const BatchInput in(ps);
  const auto n = static_cast<std::int64_t>(ps.size());
  std::vector<std::int64_t> dist(ps.size(), -7);
  emu::launch(static_cast<unsigned>((n + dk::kThreadBlock - 1) / dk::kThreadBlock), dk::kThreadBlock,
              [&] { dk::myers_thread_batch(in.bytes.data(), in.pairs.data(), n, dist.data()); });
  return dist;
}

/// kernels::myers_batch<G> over pairs (a = the shorter string, <= 32 G): a group of G lanes each.
template <int G>
std::vector<std::int64_t> emulate_group_batch(const Pairs& ps) {
  const BatchInput in(ps);
  const auto n = static_cast<std::int64_t>(ps.size());
  std::vector<std::int64_t> dist(ps.size(), -7);
  const std::int64_t warps = (n * G + 31) / 32;
  emu::launch(static_cast<unsigned>((warps * 32 + 255) / 256), 256,
              [&] { dk::myers_batch<G>(in.bytes.data(), in.pairs.data(), n, dist.data()); });
  return dist;
}

/// Seed paper 001's tiles (kernels::tiles_init, then tiles_diagonal per tile anti-diagonal).
std::int64_t emulate_tiles(const Bytes& a, const Bytes& b, int B) {
  const auto m = static_cast<std::int64_t>(a.size()), n = static_cast<std::int64_t>(b.size());
  const std::int64_t tile_rows = (m + B - 1) / B, tile_cols = (n + B - 1) / B;
  std::vector<std::int32_t> H(n + 1), V(m + 1), corner(tile_rows);
  emu::launch(3, 64, [&] { dk::tiles_init(H.data(), n, V.data(), m, corner.data(), tile_rows, B); });
  for (std::int64_t d = 0; d < tile_rows + tile_cols - 1; ++d) {
    const std::int64_t first = std::max<std::int64_t>(0, d - (tile_cols - 1));
    const std::int64_t last = std::min(d, tile_rows - 1);
    emu::launch(static_cast<unsigned>(last - first + 1), static_cast<unsigned>(B), [&] {
      dk::tiles_diagonal(a.data(), m, b.data(), n, B, d, first, H.data(), V.data(), corner.data());
    });
  }
  return H[n];
}

/// Bit-parallel stripes (kernels::myers_stripe), as dispatch.cu's run_myers_stripes: passes of
/// at most `per_pass` co-resident stripes chained through the edge rows, the stripes of a pass
/// through their rings. The distance (k >= 0: exact when <= k, else above k).
std::int64_t emulate_stripes(Bytes a, Bytes b, std::int64_t k, std::int64_t per_pass) {
  if (a.size() > b.size()) std::swap(a, b);  // rows = the shorter string
  const auto m = static_cast<std::int64_t>(a.size()), n = static_cast<std::int64_t>(b.size());
  const dk::StripeInput in = dk::make_stripe_input(a.data(), m, b.data(), n, k);
  const std::int64_t stripes = (m + dk::kStripeRows - 1) / dk::kStripeRows;
  per_pass = std::min(per_pass, stripes);
  const bool shared_peq = in.peq_codes <= dk::kStripeSharedPeqCodes;
  const std::size_t shared_bytes = dk::stripe_shared_bytes(shared_peq, in.peq_codes);
  EXPECT_LE(shared_bytes, sizeof(dk::stripe_shared));
  std::vector<std::uint8_t> ring(static_cast<std::size_t>(per_pass) * dk::kRingColumns);
  std::vector<long long> consumed(per_pass);
  std::vector<std::int8_t> edges(2 * n);
  unsigned long long sum = 0;
  for (std::int64_t first = 0, pass = 0; first < stripes; first += per_pass, ++pass) {
    const std::int64_t count = std::min(per_pass, stripes - first);
    std::fill(ring.begin(), ring.end(), 0);
    std::fill(consumed.begin(), consumed.end(), 0);
    const dk::StripePass p = dk::make_stripe_pass(in, in.codes.data(), in.peq.data(), stripes, first, count, pass,
                                                  edges.data(), ring.data(), consumed.data(), &sum);
    emu::launch_cooperative(
        static_cast<unsigned>(count), 32,
        [&] { shared_peq ? dk::myers_stripe<true>(p) : dk::myers_stripe<false>(p); },
        {{dk::stripe_shared, shared_bytes}});
  }
  return n + static_cast<std::int64_t>(sum);
}

}  // namespace

TEST(DistanceThreadKernelEmulation, SmallAlphabetsAgainstPlainDp) {
  std::mt19937_64 rng(2026);
  Pairs ps;
  std::vector<std::int64_t> want;
  for (int trial = 0; trial < 1500; ++trial) {
    const int alphabet = 1 + trial % 4;
    std::size_t la = rng() % 321, lb = rng() % 400;
    if (trial % 10 == 0) la = 320;
    if (trial % 10 == 1) la = 32 * (1 + rng() % 10);
    const Bytes a = random_bytes(rng, la, alphabet);
    const Bytes b = trial % 3 == 0 && la > 0 ? mutate(rng, a, 0.1, alphabet) : random_bytes(rng, lb, alphabet);
    const Bytes& pat = a.size() <= b.size() ? a : b;
    const Bytes& txt = a.size() <= b.size() ? b : a;
    if (pat.size() > 320) continue;
    ps.emplace_back(pat, txt);
    want.push_back(oracle(a, b));
  }
  const std::vector<std::int64_t> got = emulate_thread_batch(ps);
  for (std::size_t i = 0; i < ps.size(); ++i)
    ASSERT_EQ(got[i], want[i]) << i << " " << ps[i].first.size() << "x" << ps[i].second.size();
}

TEST(DistanceThreadKernelEmulation, TextBytesOutsideThePatternAndTooManyCodes) {
  std::mt19937_64 rng(7);
  Pairs ps;
  std::vector<std::int64_t> want;
  for (int trial = 0; trial < 300; ++trial) {
    const Bytes a = random_bytes(rng, 1 + rng() % 320, 4);        // ACGT
    const Bytes b = random_bytes(rng, a.size() + rng() % 300, 256);  // any byte
    ps.emplace_back(a, b);
    want.push_back(oracle(a, b));
    Bytes wide = random_bytes(rng, 5 + rng() % 315, 256);
    for (int s = 0; s < 5; ++s) wide[s] = static_cast<std::uint8_t>(s);  // 5 distinct codes
    ps.emplace_back(wide, b);
    want.push_back(dk::kThreadNeedsGroup);
  }
  const std::vector<std::int64_t> got = emulate_thread_batch(ps);
  for (std::size_t i = 0; i < ps.size(); ++i) ASSERT_EQ(got[i], want[i]) << i / 2;
}

// The lane-group batch kernel: G lanes of 32 rows each pipeline one pair (carries by shuffle),
// 32 / G pairs per warp; patterns of any bytes up to 32 G rows, pair lengths that differ
// within a warp (every lane runs the longest one's steps).
TEST(DistanceGroupKernelEmulation, LaneGroupsAgainstPlainDp) {
  std::mt19937_64 rng(2027);
  auto run = [&](auto group) {
    constexpr int G = decltype(group)::value;
    Pairs ps;
    for (int trial = 0; trial < 150; ++trial) {
      const int alphabet = trial % 3 == 0 ? 256 : 2 + trial % 4;
      std::size_t la = rng() % (32 * G + 1);
      if (trial % 7 == 0) la = 32 * G;
      if (trial % 7 == 1) la = 32 * (1 + rng() % G);
      const Bytes a = random_bytes(rng, la, alphabet);
      Bytes b = trial % 2 == 0 && la > 0 ? mutate(rng, a, 0.1, alphabet) : random_bytes(rng, rng() % 600, alphabet);
      if (b.size() < a.size()) b.resize(a.size(), 'x');  // the pattern is the shorter string
      ps.emplace_back(a, b);
    }
    const std::vector<std::int64_t> got = emulate_group_batch<G>(ps);
    for (std::size_t i = 0; i < ps.size(); ++i)
      ASSERT_EQ(got[i], oracle(ps[i].first, ps[i].second)) << "G " << G << " pair " << i;
  };
  run(std::integral_constant<int, 8>{});
  run(std::integral_constant<int, 16>{});
  run(std::integral_constant<int, 32>{});
}

// The stripes of long pairs: lanes skewed by shuffles, stripes chained through rings of
// tagged bytes (wrapping past 4096 columns) that co-resident blocks read while others write,
// passes chained through edge rows, Ukkonen's band, Peq in shared or global memory.
TEST(DistanceStripeKernelEmulation, StripesAgainstPlainDp) {
  std::mt19937_64 rng(2029);
  struct Case {
    std::size_t m, n;
    int alphabet;
    std::int64_t k, per_pass;
  };
  for (const Case c : {Case{100, 140, 4, -1, 1}, Case{1024, 1030, 2, -1, 1}, Case{1500, 5000, 4, -1, 2},
                       Case{2500, 2600, 4, -1, 3}, Case{2500, 2600, 4, -1, 1}, Case{2100, 4500, 40, -1, 3},
                       Case{2100, 2300, 4, 300, 3}, Case{3000, 3050, 2, 120, 2}, Case{1100, 1500, 256, -1, 2}}) {
    const Bytes a = random_bytes(rng, c.m, c.alphabet);
    Bytes b = mutate(rng, a, 0.05, c.alphabet);
    const Bytes tail = random_bytes(rng, c.n > b.size() ? c.n - b.size() : 0, c.alphabet);
    b.insert(b.end(), tail.begin(), tail.end());
    const std::int64_t want = oracle(a, b), got = emulate_stripes(a, b, c.k, c.per_pass);
    if (c.k < 0 || want <= c.k) EXPECT_EQ(got, want) << c.m << "x" << b.size() << " k " << c.k << " per pass " << c.per_pass;
    else EXPECT_GT(got, c.k) << c.m << "x" << b.size() << " k " << c.k;
  }
}

// Seed paper 001's tiles: border hand-over between tiles and launches, partial tiles at both
// ends, corners, tile sides of one and several warps.
TEST(DistanceTilesKernelEmulation, TilesAgainstPlainDp) {
  std::mt19937_64 rng(2028);
  for (int trial = 0; trial < 24; ++trial) {
    const int alphabet = trial % 2 == 0 ? 4 : 256;
    const Bytes a = random_bytes(rng, 1 + rng() % 300, alphabet);
    const Bytes b = trial % 3 == 0 ? mutate(rng, a, 0.2, alphabet) : random_bytes(rng, 1 + rng() % 300, alphabet);
    if (b.empty()) continue;
    for (const int B : {32, 64, 96})
      ASSERT_EQ(emulate_tiles(a, b, B), oracle(a, b)) << trial << " B " << B << " " << a.size() << "x" << b.size();
  }
}

// A cross product: every cell equals the plain-DP oracle (bounded by k), row-major, with
// empty strings, one-vs-many (one row) and an empty side.
TEST(DistanceCpu, MatrixEqualsTheOracleCellByCell) {
  std::mt19937_64 rng(62);
  std::vector<Bytes> a, b;
  for (int i = 0; i < 9; ++i) a.push_back(random_bytes(rng, i == 0 ? 0 : rng() % 120, i % 3 == 0 ? 256 : 4));
  for (int j = 0; j < 11; ++j) b.push_back(random_bytes(rng, j == 0 ? 0 : rng() % 150, 4));
  std::vector<ByteSpan> sa, sb;
  for (const auto& x : a) sa.emplace_back(x.data(), x.size());
  for (const auto& y : b) sb.emplace_back(y.data(), y.size());
  for (const std::int64_t k : {std::int64_t{-1}, std::int64_t{30}}) {
    warpmatch::DistanceOptions o;
    o.backend = warpmatch::Backend::cpu;
    o.max_distance = k;
    warpmatch::ScanStats stats;
    const auto m = warpmatch::edit_distance_matrix(sa, sb, o, &stats);
    ASSERT_EQ(m.size(), a.size() * b.size());
    EXPECT_EQ(stats.pairs, a.size() * b.size());
    for (std::size_t i = 0; i < a.size(); ++i)
      for (std::size_t j = 0; j < b.size(); ++j)
        ASSERT_EQ(m[i * b.size() + j], bounded(oracle(a[i], b[j]), k)) << i << "," << j << " k " << k;
    const auto one_row = warpmatch::edit_distance_matrix(std::span(sa).first(1), sb, o);
    EXPECT_EQ(one_row, std::vector<std::int64_t>(m.begin(), m.begin() + static_cast<std::ptrdiff_t>(b.size())));
  }
  EXPECT_TRUE(warpmatch::edit_distance_matrix({}, sb).empty());
  warpmatch::DistanceOptions aligned;
  aligned.report = warpmatch::Report::cigar;
  EXPECT_THROW(warpmatch::edit_distance_matrix(sa, sb, aligned), warpmatch::InvalidArgument);
}
