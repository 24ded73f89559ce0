// CPU exact search: fast (SIMD filter, threads) vs naive vs a brute-force oracle written here.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "core/exact_pattern.hpp"
#include "cpu/exact_cpu.hpp"
#include "cpu/exact_cpu_detail.hpp"

namespace {

using namespace warpmatch;
using cpu::ExactAlgorithm;
using cpu::detail::Isa;
using cpu::detail::ScanTuning;
using Starts = std::vector<std::uint64_t>;

std::uint8_t lower(std::uint8_t c) { return (c >= 'A' && c <= 'Z') ? static_cast<std::uint8_t>(c | 0x20) : c; }

core::ExactPattern make_pattern(std::string_view p, bool ci = false) {
  core::ExactPattern pat;
  pat.case_insensitive = ci;
  for (char ch : p) {
    const auto c = static_cast<std::uint8_t>(ch);
    pat.bytes.push_back(ci ? lower(c) : c);
  }
  return pat;
}

// Independent oracle: string_view::find for exact case, plain loops for caseless.
Starts oracle(std::string_view text, std::string_view pat, bool ci = false) {
  Starts out;
  if (pat.empty() || pat.size() > text.size()) return out;
  if (!ci) {
    for (std::size_t p = text.find(pat); p != std::string_view::npos; p = text.find(pat, p + 1))
      out.push_back(p);
    return out;
  }
  for (std::size_t s = 0; s + pat.size() <= text.size(); ++s) {
    std::size_t j = 0;
    while (j < pat.size() && lower(static_cast<std::uint8_t>(text[s + j])) ==
                                 lower(static_cast<std::uint8_t>(pat[j])))
      ++j;
    if (j == pat.size()) out.push_back(s);
  }
  return out;
}

struct Config {
  ExactAlgorithm algo = ExactAlgorithm::fast;
  int threads = 1;
  ScanTuning tuning{};
};

std::string describe(const Config& c) {
  return std::string(c.algo == ExactAlgorithm::naive ? "naive" : "fast") +
         " threads=" + std::to_string(c.threads) + " chunk=" + std::to_string(c.tuning.chunk_bytes) +
         " isa=" + (c.tuning.isa == Isa::sse ? "sse" : "auto") + " k=" + std::to_string(c.tuning.force_k) +
         (c.tuning.force_dense ? " dense" : "");
}

// Runs one scan collecting starts; checks the batches are non-empty, strictly ascending
// across batches, and that the return value is the number delivered.
Starts collect(const core::ExactPattern& pat, std::string_view text, const Config& c) {
  Starts got;
  std::size_t batches = 0;
  const std::uint64_t ret = cpu::detail::exact_scan_tuned(
      pat, as_bytes(text), c.algo, c.threads, false,
      [&](std::span<const std::uint64_t> s) {
        EXPECT_FALSE(s.empty());
        got.insert(got.end(), s.begin(), s.end());
        ++batches;
        return true;
      },
      c.tuning);
  EXPECT_EQ(ret, got.size());
  EXPECT_TRUE(std::adjacent_find(got.begin(), got.end(), std::greater_equal<>()) == got.end())
      << "not strictly ascending";
  return got;
}

std::uint64_t count(const core::ExactPattern& pat, std::string_view text, const Config& c) {
  return cpu::detail::exact_scan_tuned(
      pat, as_bytes(text), c.algo, c.threads, true,
      [](std::span<const std::uint64_t>) -> bool {
        ADD_FAILURE() << "sink called when counting";
        return false;
      },
      c.tuning);
}

// Checks one configuration against the expected starts, both counting and reporting.
void check(std::string_view text, std::string_view p, bool ci, const Starts& want, const Config& c) {
  const auto pat = make_pattern(p, ci);
  SCOPED_TRACE(describe(c) + " n=" + std::to_string(text.size()) + " m=" + std::to_string(p.size()) +
               (ci ? " ci" : ""));
  EXPECT_EQ(count(pat, text, c), want.size());
  EXPECT_EQ(collect(pat, text, c), want);
}

std::vector<Config> all_configs(bool with_threads) {
  std::vector<Config> cs;
  cs.push_back({ExactAlgorithm::naive, 1, {}});
  for (Isa isa : {Isa::sse, Isa::avx2}) {
    cs.push_back({ExactAlgorithm::fast, 1, {0, isa, 0, false}});
    cs.push_back({ExactAlgorithm::fast, 1, {0, isa, 0, true}});  // branch-free report loop
    if (with_threads) cs.push_back({ExactAlgorithm::fast, 3, {997, isa, 0, false}});
  }
  cs.push_back({ExactAlgorithm::fast, 0, {}});  // defaults, all threads
  return cs;
}

void check_all(std::string_view text, std::string_view p, bool ci, bool with_threads = true) {
  const Starts want = oracle(text, p, ci);
  for (const Config& c : all_configs(with_threads)) check(text, p, ci, want, c);
}

std::string random_text(std::mt19937_64& rng, std::size_t n, int alphabet, char base = 'a') {
  std::string s(n, '\0');
  for (auto& ch : s)
    ch = static_cast<char>(alphabet >= 256 ? static_cast<int>(rng() & 0xFF)
                                           : base + static_cast<int>(rng() % alphabet));
  return s;
}

// A pattern of length m: half the time a substring of the text (so it occurs), with a
// random byte changed now and then (near misses).
std::string pick_pattern(std::mt19937_64& rng, const std::string& text, std::size_t m, int alphabet) {
  if (text.size() >= m && rng() % 2 == 0) {
    std::string p = text.substr(rng() % (text.size() - m + 1), m);
    if (rng() % 4 == 0) p[rng() % m] = random_text(rng, 1, alphabet)[0];
    return p;
  }
  return random_text(rng, m, alphabet);
}

std::size_t random_length(std::mt19937_64& rng, std::size_t max) {
  // log-uniform-ish: many small texts, some large
  const int bits = static_cast<int>(rng() % 18);
  return std::min<std::size_t>(max, rng() % ((std::size_t{1} << bits) + 1));
}

TEST(ExactCpuRandom, DifferentialAlphabets) {
  for (int alphabet : {2, 4, 256}) {
    for (std::uint64_t seed = 1; seed <= 150; ++seed) {
      std::mt19937_64 rng(seed * 1000 + alphabet);
      const std::string text = random_text(rng, random_length(rng, 100000), alphabet);
      for (int rep = 0; rep < 4; ++rep) {
        std::size_t m = 1 + rng() % 70;
        if (rep == 3) m = std::vector<std::size_t>{100, 257, 1000}[rng() % 3];
        const std::string p = pick_pattern(rng, text, m, alphabet);
        check_all(text, p, false, /*with_threads=*/rep == 0);
        if (HasFailure()) return;
      }
    }
  }
}

TEST(ExactCpuRandom, EveryFilterWidth) {
  // Forces k = 1..8 filter bytes (exact when k == m, verified otherwise) on both ISAs.
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    std::mt19937_64 rng(seed);
    const int alphabet = seed % 3 == 0 ? 2 : seed % 3 == 1 ? 4 : 256;
    const std::string text = random_text(rng, 1 + rng() % 5000, alphabet);
    const std::size_t m = 1 + rng() % 12;
    const std::string p = pick_pattern(rng, text, m, alphabet);
    const bool ci = seed % 2 == 0;
    const Starts want = oracle(text, p, ci);
    for (int k = 1; k <= 8; ++k)
      for (Isa isa : {Isa::sse, Isa::avx2}) {
        check(text, p, ci, want, {ExactAlgorithm::fast, 1, {0, isa, k, false}});
        check(text, p, ci, want, {ExactAlgorithm::fast, 1, {0, isa, k, true}});
        check(text, p, ci, want, {ExactAlgorithm::fast, 2, {313, isa, k, false}});
      }
    if (HasFailure()) return;
  }
}

TEST(ExactCpuRandom, MultiMegabyte) {
  // Large enough for the sampled filter choice (>= 4 MiB) and the default multi-threading.
  std::mt19937_64 rng(7);
  for (int alphabet : {4, 26, 256}) {
    const std::string text = random_text(rng, (5u << 20) + 12345, alphabet);
    for (std::size_t m : {1u, 3u, 9u, 16u, 33u, 2000u}) {
      const bool ci = alphabet == 26 && m % 2 == 1;
      std::string p = pick_pattern(rng, text, m, alphabet);
      if (ci) std::transform(p.begin(), p.end(), p.begin(), [](char c) { return static_cast<char>(std::toupper(c)); });
      const Starts want = oracle(text, p, ci);
      for (int threads : {1, 2, 5, 0}) {
        check(text, p, ci, want, {ExactAlgorithm::fast, threads, {}});
        check(text, p, ci, want, {ExactAlgorithm::fast, threads, {1u << 20, Isa::sse, 0, false}});
      }
    }
  }
}

TEST(ExactCpuEdge, EmptyAndTinyInputs) {
  check_all("", "a", false);
  check_all("", "a", true);
  check_all("a", "a", false);
  check_all("a", "b", false);
  check_all("A", "a", true);
  check_all("a", "aa", false);
  check_all("ab", "ab", false);
  check_all("ab", "abc", false);
  for (std::size_t n = 0; n <= 40; ++n) check_all(std::string(n, 'x'), "x", false);
}

TEST(ExactCpuEdge, MatchAtEveryEndPosition) {
  // Texts whose lengths are not multiples of 4/16/32/64, a match right at the end (tail
  // handling) and at the start.
  for (std::size_t n = 1; n <= 200; n += (n < 80 ? 1 : 7))
    for (std::size_t m : {1u, 2u, 3u, 5u, 8u, 15u, 16u, 17u, 31u, 32u, 33u, 40u}) {
      if (m > n) continue;
      std::string text(n, '.');
      const std::string p = std::string(m - 1, 'q') + "z";
      text.replace(n - m, m, p);
      text.replace(0, std::min(m, n - m), p.substr(0, std::min(m, n - m)));
      check_all(text, p, false, n % 5 == 0);
      check_all(text, "QZ", true, false);
      if (HasFailure()) return;
    }
}

TEST(ExactCpuEdge, NulAndHighBytes) {
  std::string text;
  for (int i = 0; i < 3000; ++i) text += std::string("\0\xff\x00\x80\xff", 5)[i % 5];
  text += std::string("\0\0\xff\xff\0", 5);
  for (const std::string& p : {std::string("\0", 1), std::string("\xff"), std::string("\0\xff", 2),
                              std::string("\xff\0\0", 3), std::string("\0\0\xff\xff\0", 5),
                              std::string("\x80\xff\0", 3)}) {
    check_all(text, p, false);
    check_all(text, p, true);
  }
}

TEST(ExactCpuCaseless, EveryByteValueSingle) {
  // Text holding every byte value (and again shifted); each 1-byte pattern must match the
  // bytes that fold to it, and only those (no folding of '@' '[' '`' '{' 0xC1 0xE1 ...).
  std::string text;
  for (int r = 0; r < 3; ++r)
    for (int b = 0; b < 256; ++b) text += static_cast<char>((b * 7 + r) & 0xFF);
  for (int b = 0; b < 256; ++b) {
    const std::string p(1, static_cast<char>(b));
    check_all(text, p, true, false);
    check_all(text, p + p, true, false);
  }
}

TEST(ExactCpuCaseless, NearLetterBytes) {
  const std::string near = std::string("@[`{AZazMm\xc1\xe1\xda\xfa\x80\x9f", 16);
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    std::mt19937_64 rng(seed);
    std::string text(1 + rng() % 3000, ' ');
    for (auto& c : text) c = near[rng() % near.size()];
    for (std::size_t m : {1u, 2u, 3u, 4u, 7u, 20u, 40u}) {
      std::string p(m, ' ');
      for (auto& c : p) c = near[rng() % near.size()];
      if (rng() % 2 && text.size() >= m) p = text.substr(rng() % (text.size() - m + 1), m);
      check_all(text, p, true, m == 3);
      if (HasFailure()) return;
    }
  }
  check_all("HeLLo hello HELLO hElLo", "hello", true);
  check_all("@@``[[{{", "`", true);  // '`' is not '@'
  check_all("\xc1\xe1\xc1", "\xe1", true);
}

TEST(ExactCpuCaseless, UnfoldedCapitalNeverMatches) {
  // The interface promises folded bytes; a capital left in a caseless pattern matches
  // nothing, as ExactPattern::matches_at says.
  core::ExactPattern pat;
  pat.case_insensitive = true;
  pat.bytes = {'A', 'b'};
  const std::string text = "Ab ab AB aB";
  for (const Config& c : all_configs(true)) {
    EXPECT_EQ(count(pat, text, c), 0u) << describe(c);
    EXPECT_TRUE(collect(pat, text, c).empty()) << describe(c);
  }
}

TEST(ExactCpuAdversarial, Floods) {
  const std::string text(100003, 'a');
  for (std::string_view p : {"a", "aa", "aaa", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}) {
    const Starts want = oracle(text, p);
    ASSERT_EQ(want.size(), text.size() - p.size() + 1);
    for (const Config& c : all_configs(true)) check(text, p, false, want, c);
    check(text, p, true, want, {ExactAlgorithm::fast, 2, {4096, Isa::automatic, 0, false}});
    check(text, p, false, want, {ExactAlgorithm::fast, 2, {4096, Isa::automatic, 0, true}});
  }
  check_all(text, "aab", false);
  check_all(text, "baa", false);
  check_all(text, "AAA", true);
}

TEST(ExactCpuAdversarial, Periodic) {
  std::string text;
  while (text.size() < 50001) text += "ab";
  for (std::string_view p : {"abab", "baba", "aba", "ababababababababababababababababababab", "abba"})
    check_all(text, p, false);
  check_all(text, "BAbA", true);
}

TEST(ExactCpuChunks, MatchesStraddlingBoundaries) {
  // Occurrences planted across every chunk boundary, for several chunk sizes and threads;
  // text sizes around multiples of the chunk size.
  for (std::uint64_t chunk : {1u, 7u, 64u, 100u, 4096u}) {
    for (int threads : {1, 2, 3, 7}) {
      for (int delta : {-1, 0, 1, 37}) {
        const std::size_t n = std::max<std::int64_t>(1, static_cast<std::int64_t>(chunk * 5) + delta);
        for (std::string_view p : {"x", "xyz", "xyzxyzxyzxyz", "xyzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"}) {
          std::string text(n, '.');
          for (std::uint64_t b = chunk; b < n + chunk; b += chunk)
            for (std::size_t back = 1; back < p.size() && back <= b; back += 3) {
              const std::size_t s = b - back;
              if (s + p.size() <= n) text.replace(s, p.size(), p);
            }
          const Starts want = oracle(text, p);
          for (Isa isa : {Isa::sse, Isa::avx2})
            check(text, p, false, want, {ExactAlgorithm::fast, threads, {chunk, isa, 0}});
          if (HasFailure()) return;
        }
        // floods and periodic text cut everywhere
        const std::string flood(n, 'a');
        check(flood, "aaa", false, oracle(flood, "aaa"), {ExactAlgorithm::fast, threads, {chunk, Isa::automatic, 0, true}});
        std::string abab;
        while (abab.size() < n) abab += "ab";
        check(abab, "baba", false, oracle(abab, "baba"), {ExactAlgorithm::fast, threads, {chunk, Isa::automatic, 0, false}});
      }
    }
  }
}

// Early stop: the sink returns false once it has seen at least k starts.
void check_early_stop(const std::string& text, std::string_view p, const Config& c, std::size_t k) {
  SCOPED_TRACE(describe(c) + " k=" + std::to_string(k));
  const Starts want = oracle(text, p);
  const auto pat = make_pattern(p);
  Starts got;
  bool stopped = false;
  const std::uint64_t ret = cpu::detail::exact_scan_tuned(
      pat, as_bytes(text), c.algo, c.threads, false,
      [&](std::span<const std::uint64_t> s) {
        EXPECT_FALSE(stopped) << "sink called after it returned false";
        got.insert(got.end(), s.begin(), s.end());
        stopped = got.size() >= k;
        return !stopped;
      },
      c.tuning);
  EXPECT_EQ(ret, got.size());
  ASSERT_LE(got.size(), want.size());
  EXPECT_TRUE(std::equal(got.begin(), got.end(), want.begin())) << "not a prefix of all starts";
  if (k <= want.size()) {
    EXPECT_GE(got.size(), k);
    // Delivery is in batches of at most one chunk's starts: never a batch more than needed.
    if (c.tuning.chunk_bytes == 1) {
      EXPECT_EQ(got.size(), k);
    }
  } else {
    EXPECT_EQ(got.size(), want.size());
  }
}

TEST(ExactCpuStop, SinkStopsEarly) {
  std::mt19937_64 rng(3);
  const std::string text = random_text(rng, 300000, 2);
  const std::string small = text.substr(0, 5000);
  for (std::size_t k : {1u, 2u, 17u, 1000u, 100000u, 10000000u})
    for (int threads : {1, 2, 3, 7}) {
      check_early_stop(small, "abba", {ExactAlgorithm::fast, threads, {1, Isa::automatic, 0, false}}, k);
      check_early_stop(text, "abba", {ExactAlgorithm::fast, threads, {777, Isa::automatic, 0, false}}, k);
      check_early_stop(text, "abba", {ExactAlgorithm::fast, threads, {}}, k);
    }
  for (std::size_t k : {1u, 5000u, 10000000u})
    check_early_stop(text, "abba", {ExactAlgorithm::naive, 1, {}}, k);
}

TEST(ExactCpuStop, SinkExceptionPropagates) {
  const std::string text(1u << 16, 'a');
  const auto pat = make_pattern("aa");
  for (int threads : {1, 4}) {
    int calls = 0;
    EXPECT_THROW(cpu::detail::exact_scan_tuned(
                     pat, as_bytes(text), ExactAlgorithm::fast, threads, false,
                     [&](std::span<const std::uint64_t>) -> bool {
                       if (++calls == 3) throw std::runtime_error("sink");
                       return true;
                     },
                     {1000, Isa::automatic, 0, false}),
                 std::runtime_error);
  }
}

TEST(ExactCpuLarge, FloodReportedInOrderWithBoundedRounds) {
  // 24 MiB of 'a' and pattern "a": every position, in order, multi-threaded by default.
  const std::string text(24u << 20, 'a');
  const auto pat = make_pattern("a");
  std::uint64_t expect_next = 0;
  bool ok = true;
  const std::uint64_t ret = cpu::exact_scan(pat, as_bytes(text), ExactAlgorithm::fast, 0, false,
                                            [&](std::span<const std::uint64_t> s) {
                                              for (std::uint64_t x : s) ok &= (x == expect_next++);
                                              return true;
                                            });
  EXPECT_TRUE(ok);
  EXPECT_EQ(ret, text.size());
  EXPECT_EQ(expect_next, text.size());
  EXPECT_EQ(cpu::exact_scan(pat, as_bytes(text), ExactAlgorithm::fast, 0, true, {}), text.size());
}

TEST(ExactCpuFilter, ChoiceIsSensible) {
  // Short patterns are compared whole (no verification); k never exceeds m.
  const std::string english = "the quick brown fox jumps over the lazy dog ";
  const auto the = cpu::detail::choose_filter(make_pattern("the"), as_bytes(english));
  EXPECT_EQ(the.k, 3);
  EXPECT_TRUE(the.exact);
  const auto one = cpu::detail::choose_filter(make_pattern("q"), as_bytes(english));
  EXPECT_EQ(one.k, 1);
  EXPECT_TRUE(one.exact);
  // DNA: 2 bytes of a 4-letter alphabet would verify 1 start in 16; more are tested.
  std::mt19937_64 rng(1);
  std::string dna = random_text(rng, 1u << 20, 4);
  for (auto& c : dna) c = "ACGT"[c - 'a'];
  const auto d = cpu::detail::choose_filter(make_pattern("ACGTTGCAACGTAGGT"), as_bytes(dna));
  EXPECT_GE(d.k, 4);
  EXPECT_FALSE(d.exact);
  // A long English word: two rare bytes suffice.
  const auto w = cpu::detail::choose_filter(make_pattern("Sherlock Holmes"), as_bytes(english));
  EXPECT_EQ(w.k, 2);
  for (int i = 0; i < w.k; ++i) EXPECT_LT(w.offsets[i], 15u);
}

// Short texts reuse the last pattern's filter choice per thread, keyed by the bytes: patterns
// of the same length (and the same bytes, one caseless) alternated over short texts must each
// get their own filter, and the choice must equal a fresh one.
TEST(ExactCpuFilter, ShortTextChoiceFollowsThePattern) {
  std::mt19937_64 rng(3);
  const std::vector<core::ExactPattern> patterns = {
      make_pattern("ACGTACGT"), make_pattern("TTTTAAAA"),         make_pattern("Sherlock"), make_pattern("eeeeeeee"),
      make_pattern("acgtacgt", true), make_pattern("ACGTACGT"), make_pattern("the quick"), make_pattern("q")};
  for (int round = 0; round < 200; ++round) {
    std::string text = random_text(rng, 1 + rng() % 400, 4);
    for (auto& c : text) c = "ACGTacgt"[(c - 'a') + 4 * (rng() % 2)];
    if (round % 7 == 0) text += "the quick brown fox";
    const core::ExactPattern& pat = patterns[round % patterns.size()];
    const std::string_view pv(reinterpret_cast<const char*>(pat.bytes.data()), pat.bytes.size());
    const Starts got = collect(pat, text, Config{});
    EXPECT_EQ(got, oracle(text, pv, pat.case_insensitive)) << "round " << round << " pattern " << pv;
  }
  // The kept choice equals the one computed for another thread's first call ("Sherlock" and
  // "eeeeeeee", one after the other, have the same length and different filters).
  const auto sherlock = cpu::detail::choose_filter(patterns[2], as_bytes(std::string(100, 'x')));
  const auto eeee = cpu::detail::choose_filter(patterns[3], as_bytes(std::string(100, 'x')));
  EXPECT_NE(sherlock.k, eeee.k);
  for (const auto& pat : patterns) {
    const auto mine = cpu::detail::choose_filter(pat, as_bytes(std::string(100, 'A')));
    cpu::detail::FilterChoice fresh;
    std::thread([&] { fresh = cpu::detail::choose_filter(pat, as_bytes(std::string(100, 'A'))); }).join();
    EXPECT_EQ(mine.k, fresh.k);
    EXPECT_EQ(mine.exact, fresh.exact);
    EXPECT_EQ(mine.offsets, fresh.offsets);
  }
}

// ---- a real genome ----------------------------------------------------------------------
std::string read_fasta_gz(const char* path) {
  gzFile f = gzopen(path, "rb");
  if (!f) return {};
  std::string raw;
  char buf[1 << 16];
  for (int got; (got = gzread(f, buf, sizeof buf)) > 0;) raw.append(buf, static_cast<std::size_t>(got));
  gzclose(f);
  std::string seq;
  std::size_t pos = 0;
  while (pos < raw.size()) {
    std::size_t eol = raw.find('\n', pos);
    if (eol == std::string::npos) eol = raw.size();
    if (raw[pos] != '>') {
      for (std::size_t i = pos; i < eol; ++i)
        if (raw[i] != '\r') seq += raw[i];
    }
    pos = eol + 1;
  }
  return seq;
}

TEST(ExactCpuGenome, LambdaVirusKmers) {
  const char* path = "/usr/share/doc/bowtie2/examples/reference/lambda_virus.fa.gz";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " not present: genome test skipped";
  const std::string genome = read_fasta_gz(path);
  ASSERT_GT(genome.size(), 40000u);
  std::mt19937_64 rng(11);
  for (int i = 0; i < 60; ++i) {
    const std::size_t m = 8 + rng() % 13;
    std::string p = genome.substr(rng() % (genome.size() - m + 1), m);
    if (i % 5 == 0) p[rng() % m] = "ACGT"[rng() % 4];
    const Starts want = oracle(genome, p);
    if (i % 5 != 0) {
      ASSERT_GE(want.size(), 1u);
    }
    for (const Config& c : all_configs(true)) check(genome, p, false, want, c);
    std::string lowered = p;
    for (auto& ch : lowered) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    check(genome, lowered, true, want, {ExactAlgorithm::fast, 2, {5000, Isa::automatic, 0, false}});
    if (HasFailure()) return;
  }
}

}  // namespace
