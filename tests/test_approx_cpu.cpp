// Approximate search on the CPU (src/api + src/core + src/cpu + the public API): the Myers bit-vector
// backend against the plain DP reference and against edlib (EDLIB_MODE_HW) as independent
// oracles; random inputs over alphabets 2/4/20/256, word-boundary pattern lengths, floods,
// periodic texts, chunk boundaries (forced tiny chunks), K = 0 and K >= m, the seed paper's
// example, real reads against the phage lambda genome, and every hit's start and CIGAR.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "api/segment_groups.hpp"
#include "api/tuning_hooks.hpp"
#include "core/approx_align.hpp"
#include "core/wavefront_hmm.hpp"
#include "io/input.hpp"
#include "cpu/approx_cpu.hpp"
#include "warpmatch/approx.hpp"

#ifdef WARPMATCH_HAVE_EDLIB
#include <edlib.h>
#endif

namespace core = warpmatch::core;
namespace cpu = warpmatch::cpu;
using warpmatch::ApproxMatch;
using warpmatch::ApproxMatcher;
using warpmatch::ApproxOptions;
using Bytes = std::vector<std::uint8_t>;

namespace {

Bytes random_bytes(std::mt19937_64& rng, std::size_t n, int alphabet) {
  Bytes b(n);
  std::uniform_int_distribution<int> pick(0, alphabet - 1);
  // Small alphabets use letters so failures print readably; 256 uses every byte value.
  for (auto& c : b) c = static_cast<std::uint8_t>(alphabet == 256 ? pick(rng) : 'a' + pick(rng));
  return b;
}

/// A copy of `source` with `edits` random substitutions, insertions and deletions.
Bytes mutate(std::mt19937_64& rng, Bytes source, int edits, int alphabet) {
  std::uniform_int_distribution<int> kind(0, 2), letter(0, alphabet - 1);
  for (int e = 0; e < edits && !source.empty(); ++e) {
    const std::size_t at = std::uniform_int_distribution<std::size_t>(0, source.size() - 1)(rng);
    const auto c = static_cast<std::uint8_t>(alphabet == 256 ? letter(rng) : 'a' + letter(rng));
    switch (kind(rng)) {
      case 0: source[at] = c; break;
      case 1: source.insert(source.begin() + static_cast<std::ptrdiff_t>(at), c); break;
      default: if (source.size() > 1) source.erase(source.begin() + static_cast<std::ptrdiff_t>(at));
    }
  }
  return source;
}

/// Text with mutated copies of the pattern planted at random places.
Bytes text_with_planted(std::mt19937_64& rng, const Bytes& pattern, std::size_t n, int alphabet,
                        int copies, int edits) {
  Bytes text = random_bytes(rng, n, alphabet);
  for (int i = 0; i < copies; ++i) {
    const Bytes copy = mutate(rng, pattern, edits, alphabet);
    if (copy.size() >= text.size()) continue;
    const std::size_t at = std::uniform_int_distribution<std::size_t>(0, text.size() - copy.size())(rng);
    std::copy(copy.begin(), copy.end(), text.begin() + static_cast<std::ptrdiff_t>(at));
  }
  return text;
}

Bytes bytes_of(std::string_view s) { return Bytes(s.begin(), s.end()); }

core::ApproxPattern make_pattern(const Bytes& p, bool case_insensitive = false) {
  core::ApproxPattern pat;
  pat.case_insensitive = case_insensitive;
  pat.bytes = p;
  if (case_insensitive)
    for (auto& c : pat.bytes) c = core::fold_ascii(c);
  return pat;
}

core::ApproxQuery make_query(core::ApproxMode mode, std::uint64_t k, std::uint64_t m,
                             std::uint64_t chunk = 0) {
  core::ApproxQuery q;
  q.mode = mode;
  q.k = static_cast<std::uint32_t>(std::min(k, m));
  q.chunk_ends = chunk;
  return q;
}

std::string describe(const Bytes& p, std::size_t n, std::uint64_t k, core::ApproxMode mode,
                     std::uint64_t chunk, int threads) {
  return "m=" + std::to_string(p.size()) + " n=" + std::to_string(n) + " k=" + std::to_string(k) +
         (mode == core::ApproxMode::best ? " best" : " all") + " chunk=" + std::to_string(chunk) +
         " threads=" + std::to_string(threads);
}

void expect_myers_equals_reference(const Bytes& p, const Bytes& text, std::uint64_t k,
                                   core::ApproxMode mode, std::uint64_t chunk, int threads) {
  const auto pat = make_pattern(p);
  const auto q = make_query(mode, k, p.size(), chunk);
  const auto want = core::reference_hits(pat, text, q);
  const auto got = cpu::approx_scan(pat, text, q, cpu::ApproxAlgorithm::myers, threads);
  ASSERT_EQ(got, want) << describe(p, text.size(), k, mode, chunk, threads);
}

#ifdef WARPMATCH_HAVE_EDLIB
/// edlib's answer in HW mode: best distance (-1 when > k) and its end positions (exclusive).
struct EdlibBest {
  int distance = -1;
  std::vector<std::uint64_t> ends;
};
EdlibBest edlib_best(const Bytes& p, const Bytes& text, int k) {
  const EdlibAlignResult r =
      edlibAlign(reinterpret_cast<const char*>(p.data()), static_cast<int>(p.size()),
                 reinterpret_cast<const char*>(text.data()), static_cast<int>(text.size()),
                 edlibNewAlignConfig(k, EDLIB_MODE_HW, EDLIB_TASK_DISTANCE, nullptr, 0));
  EXPECT_EQ(r.status, EDLIB_STATUS_OK);
  EdlibBest out;
  out.distance = r.editDistance;
  for (int i = 0; i < r.numLocations; ++i) out.ends.push_back(static_cast<std::uint64_t>(r.endLocations[i]) + 1);
  edlibFreeAlignResult(r);
  std::sort(out.ends.begin(), out.ends.end());
  return out;
}
int edlib_global(const Bytes& p, const std::uint8_t* t, std::size_t len) {
  const EdlibAlignResult r =
      edlibAlign(reinterpret_cast<const char*>(p.data()), static_cast<int>(p.size()),
                 reinterpret_cast<const char*>(t), static_cast<int>(len),
                 edlibNewAlignConfig(-1, EDLIB_MODE_NW, EDLIB_TASK_DISTANCE, nullptr, 0));
  const int d = r.editDistance;
  edlibFreeAlignResult(r);
  return d;
}
#endif

/// Every hit: the start is valid (edlib NW, when present, agrees the substring costs the
/// distance), no later start costs the same (checked against the reference DP), and the CIGAR
/// is a valid alignment costing exactly the distance.
void expect_hits_well_formed(const Bytes& p, const Bytes& text, const std::vector<ApproxMatch>& hits,
                             bool check_maximal_start) {
  const auto pat = make_pattern(p);
  for (const ApproxMatch& h : hits) {
    ASSERT_LE(h.start, h.end);
    ASSERT_LE(h.end, text.size());
    std::uint64_t cost = 0;
    ASSERT_TRUE(core::cigar_is_valid(pat, text, h.start, h.end, h.cigar, &cost))
        << "cigar " << h.cigar << " start " << h.start << " end " << h.end;
    ASSERT_EQ(cost, h.distance) << "cigar " << h.cigar;
#ifdef WARPMATCH_HAVE_EDLIB
    if (!(p.size() > 0 && h.end == h.start))
      ASSERT_EQ(edlib_global(p, text.data() + h.start, h.end - h.start), static_cast<int>(h.distance));
#endif
    if (check_maximal_start && h.start < h.end) {
      // ED(p, text[s:e]) for every s in (start, end]: none equals the distance.
      const Bytes window(text.begin() + static_cast<std::ptrdiff_t>(h.start) + 1,
                         text.begin() + static_cast<std::ptrdiff_t>(h.end));
      // Reverse DP: distances of all suffixes of the window against the whole pattern.
      Bytes rp(p.rbegin(), p.rend()), rw(window.rbegin(), window.rend());
      std::vector<std::uint32_t> col(rp.size() + 1);
      for (std::size_t i = 0; i <= rp.size(); ++i) col[i] = static_cast<std::uint32_t>(i);
      for (std::size_t j = 0; j < rw.size(); ++j) {
        std::uint32_t diag = col[0];
        col[0] = static_cast<std::uint32_t>(j + 1);
        for (std::size_t i = 1; i <= rp.size(); ++i) {
          const std::uint32_t up = col[i];
          col[i] = std::min({up + 1, col[i - 1] + 1, diag + (rp[i - 1] == rw[j] ? 0u : 1u)});
          diag = up;
        }
        ASSERT_NE(col[rp.size()], h.distance) << "a later start " << h.end - (j + 1) << " also costs "
                                              << h.distance << " (reported start " << h.start << ")";
      }
    }
  }
}

ApproxOptions options_k(std::int64_t k) {
  ApproxOptions o;
  o.k = k;
  o.backend = warpmatch::Backend::cpu;
  o.report = warpmatch::Report::cigar;
  return o;
}

}  // namespace

// The bit-parallel start (patterns up to 64 bytes) against the banded DP, at every end with a
// distance below m, for plain, case-folded and IUPAC patterns, over texts that hold copies.
TEST(ApproxCpu, BitParallelStartEqualsTheBandedDp) {
  std::mt19937_64 rng(3131);
  int checked = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int alphabet = trial % 3 == 0 ? 2 : trial % 3 == 1 ? 4 : 256;
    core::ApproxPattern p;
    p.iupac = trial % 5 == 1;
    p.case_insensitive = trial % 4 == 2;
    const std::size_t m = 1 + rng() % (trial % 10 == 0 ? 64 : 40);
    p.bytes = random_bytes(rng, m, alphabet);
    if (p.iupac)
      for (auto& c : p.bytes) c = "ACGTNRYacgt"[rng() % 11];
    if (p.case_insensitive)
      for (auto& c : p.bytes) c = core::fold_ascii(c);
    Bytes text = text_with_planted(rng, p.bytes, 40 + rng() % 200, alphabet, 2, static_cast<int>(m / 8 + 1));
    if (trial % 7 == 3)
      for (auto& c : text) c = static_cast<std::uint8_t>(std::toupper(c));
    const auto dist = core::reference_end_distances(p, text);
    for (std::size_t e = 1; e <= text.size(); ++e) {
      if (dist[e - 1] >= m) continue;
      ASSERT_EQ(core::recover_start(p, text, e, dist[e - 1]), core::recover_start_dp(p, text, e, dist[e - 1]))
          << "trial " << trial << " m " << m << " end " << e << " distance " << dist[e - 1];
      ++checked;
    }
  }
  EXPECT_GT(checked, 3000);
}

TEST(ApproxCpu, PaperExampleAbabaInAaabbbaaHasDistanceOne) {
  ApproxOptions o = options_k(-1);
  o.best = true;
  for (const char* algo : {"myers", "dp"}) {
    o.algorithm = algo;
    const auto m = ApproxMatcher::compile(warpmatch::as_bytes("ababa"), o);
    const auto hits = m.find_all(warpmatch::as_bytes("aaabbbaa"));
    ASSERT_FALSE(hits.empty()) << algo;
    for (const auto& h : hits) EXPECT_EQ(h.distance, 1u) << algo;
  }
}

// Report: ends, then starts, then CIGARs; asking for less changes no end or distance, and the
// scan's ScanStats describes it.
TEST(ApproxCpu, ReportLevelsAddStartsThenCigars) {
  const Bytes text = bytes_of("xxGATTACAxxGATACAxx");
  ApproxOptions o = options_k(1);
  o.threads = 2;
  std::vector<std::vector<ApproxMatch>> by_level;
  for (const warpmatch::Report report : {warpmatch::Report::ends, warpmatch::Report::starts, warpmatch::Report::cigar}) {
    o.report = report;
    warpmatch::ScanStats stats;
    std::vector<ApproxMatch> hits;
    const auto m = ApproxMatcher::compile(bytes_of("GATTACA"), o);
    m.scan(text, [&](const ApproxMatch& h) { hits.push_back(h); return true; }, &stats);
    EXPECT_EQ(stats.matches, hits.size());
    EXPECT_EQ(stats.bytes, text.size());
    EXPECT_EQ(stats.device, m.device_label());
    by_level.push_back(hits);
  }
  const auto& ends = by_level[0];
  const auto& starts = by_level[1];
  const auto& cigars = by_level[2];
  ASSERT_FALSE(ends.empty());
  ASSERT_EQ(starts.size(), ends.size());
  ASSERT_EQ(cigars.size(), ends.size());
  for (std::size_t i = 0; i < ends.size(); ++i) {
    EXPECT_EQ(std::tie(ends[i].end, ends[i].distance), std::tie(cigars[i].end, cigars[i].distance));
    EXPECT_EQ(ends[i].start, 0u);
    EXPECT_TRUE(ends[i].cigar.empty());
    EXPECT_EQ(starts[i].start, cigars[i].start);
    EXPECT_GT(starts[i].start, 0u);  // every hit lies past "xx"
    EXPECT_TRUE(starts[i].cigar.empty());
    EXPECT_FALSE(cigars[i].cigar.empty());
  }
}

TEST(ApproxCpu, MyersEqualsReferenceOnRandomInputsAllAlphabets) {
  std::mt19937_64 rng(42);
  const std::size_t lengths[] = {1, 2, 5, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 200, 300};
  for (const int alphabet : {2, 4, 20, 256}) {
    for (const std::size_t m : lengths) {
      const Bytes p = random_bytes(rng, m, alphabet);
      const Bytes text = text_with_planted(rng, p, 1500, alphabet, 6, static_cast<int>(m / 8 + 1));
      for (const std::uint64_t k : {std::uint64_t{0}, std::uint64_t{1}, m / 10, m / 4, m / 2, m, m + 3}) {
        expect_myers_equals_reference(p, text, k, core::ApproxMode::all_within_k, 0, 1);
        expect_myers_equals_reference(p, text, k, core::ApproxMode::best, 0, 1);
      }
    }
  }
}

TEST(ApproxCpu, MyersEqualsReferenceAcrossForcedChunkBoundaries) {
  std::mt19937_64 rng(7);
  for (const std::size_t m : {3, 32, 64, 65, 129}) {
    for (const int alphabet : {2, 4}) {
      const Bytes p = random_bytes(rng, m, alphabet);
      const Bytes text = text_with_planted(rng, p, 1000, alphabet, 8, 2);
      for (const std::uint64_t chunk : {1, 7, 64, 100, 333}) {
        for (const std::uint64_t k : {std::uint64_t{0}, std::uint64_t{2}, m / 3, m}) {
          expect_myers_equals_reference(p, text, k, core::ApproxMode::all_within_k, chunk, 4);
          expect_myers_equals_reference(p, text, k, core::ApproxMode::best, chunk, 3);
        }
      }
    }
  }
}

TEST(ApproxCpu, MyersEqualsReferenceForLongPatterns) {
  std::mt19937_64 rng(11);
  for (const std::size_t m : {511, 1000, 2500, 5000}) {
    const Bytes p = random_bytes(rng, m, 4);
    const Bytes text = text_with_planted(rng, p, 3 * m, 4, 2, static_cast<int>(m / 20));
    for (const std::uint64_t k : {m / 50, m / 10, m / 2}) {
      expect_myers_equals_reference(p, text, k, core::ApproxMode::all_within_k, 0, 2);
      expect_myers_equals_reference(p, text, k, core::ApproxMode::all_within_k, 777, 4);
    }
    expect_myers_equals_reference(p, text, m, core::ApproxMode::best, 0, 2);
  }
}

TEST(ApproxCpu, MyersEqualsReferenceOnFloodsAndPeriodicTexts) {
  const Bytes flood(3000, 'a');
  Bytes periodic, period_pattern;
  for (int i = 0; i < 3000; ++i) periodic.push_back("abcab"[i % 5]);
  for (int i = 0; i < 97; ++i) period_pattern.push_back("abcab"[i % 5]);
  for (const std::size_t m : {1, 31, 32, 33, 63, 64, 65, 127, 128, 129}) {
    const Bytes all_a(m, 'a');
    Bytes a_then_b(m, 'a');
    a_then_b.back() = 'b';
    for (const std::uint64_t k : {std::uint64_t{0}, std::uint64_t{1}, m / 2, m}) {
      for (const auto mode : {core::ApproxMode::all_within_k, core::ApproxMode::best}) {
        expect_myers_equals_reference(all_a, flood, k, mode, 0, 4);
        expect_myers_equals_reference(a_then_b, flood, k, mode, 0, 4);
        expect_myers_equals_reference(all_a, periodic, k, mode, 0, 4);
        expect_myers_equals_reference(period_pattern, periodic, k, mode, 50, 4);
      }
    }
  }
}

TEST(ApproxCpu, KZeroIsExactSearch) {
  std::mt19937_64 rng(3);
  const Bytes text = random_bytes(rng, 5000, 2);
  const Bytes p(text.begin() + 100, text.begin() + 110);
  const auto m = ApproxMatcher::compile(p, options_k(0));
  const auto hits = m.find_all(text);
  std::vector<std::uint64_t> exact_starts;
  for (std::size_t s = 0; s + p.size() <= text.size(); ++s)
    if (std::equal(p.begin(), p.end(), text.begin() + static_cast<std::ptrdiff_t>(s))) exact_starts.push_back(s);
  ASSERT_EQ(hits.size(), exact_starts.size());
  for (std::size_t i = 0; i < hits.size(); ++i) {
    EXPECT_EQ(hits[i].start, exact_starts[i]);
    EXPECT_EQ(hits[i].end, exact_starts[i] + p.size());
    EXPECT_EQ(hits[i].cigar, "10=");
  }
}

TEST(ApproxCpu, KAtLeastPatternLengthReportsEveryEndPosition) {
  const Bytes text = {'x', 'y', 'a', 'b', 'z'};
  for (const std::int64_t k : {3, 4, 100}) {
    const auto hits = ApproxMatcher::compile(warpmatch::as_bytes("abc"), options_k(k)).find_all(text);
    ASSERT_EQ(hits.size(), text.size()) << "k=" << k;
    for (std::size_t i = 0; i < hits.size(); ++i) {
      EXPECT_EQ(hits[i].end, i + 1);
      EXPECT_LE(hits[i].distance, 3u);
    }
    EXPECT_EQ(hits[3].distance, 1u);  // "ab" ends at 4
    EXPECT_EQ(hits[0].distance, 3u);
    EXPECT_EQ(hits[0].start, hits[0].end);  // distance m: the empty substring, largest start
    EXPECT_EQ(hits[0].cigar, "3I");
  }
}

TEST(ApproxCpu, InvalidArgumentsAreErrorsNamingTheProblem) {
  EXPECT_THROW(ApproxMatcher::compile(warpmatch::as_bytes("abc"), options_k(-2)), warpmatch::InvalidArgument);
  EXPECT_THROW(ApproxMatcher::compile(warpmatch::as_bytes("abc"), options_k(-1)), warpmatch::InvalidArgument);
  EXPECT_THROW(ApproxMatcher::compile(warpmatch::as_bytes(""), options_k(1)), warpmatch::InvalidArgument);
  try {
    ApproxMatcher::compile(std::vector<Bytes>{Bytes{'a'}, Bytes{}}, options_k(1));
    FAIL() << "empty second pattern accepted";
  } catch (const warpmatch::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("pattern 1"), std::string::npos) << e.what();
  }
  ApproxOptions o = options_k(1);
  o.algorithm = "nonsense";
  EXPECT_THROW(ApproxMatcher::compile(warpmatch::as_bytes("abc"), o), warpmatch::InvalidArgument);
  o.algorithm = "wavefront";  // a CUDA algorithm on --backend cpu
  EXPECT_THROW(ApproxMatcher::compile(warpmatch::as_bytes("abc"), o), warpmatch::InvalidArgument);
}

TEST(ApproxCpu, EmptyTextHasNoHits) {
  ApproxOptions o = options_k(5);
  EXPECT_TRUE(ApproxMatcher::compile(warpmatch::as_bytes("abc"), o).find_all({}).empty());
  o.best = true;
  EXPECT_TRUE(ApproxMatcher::compile(warpmatch::as_bytes("abc"), o).find_all({}).empty());
}

TEST(ApproxCpu, PatternLongerThanTextHasADistance) {
  ApproxOptions o = options_k(-1);
  o.best = true;
  const auto hits = ApproxMatcher::compile(warpmatch::as_bytes("AAAA"), o).find_all(warpmatch::as_bytes("AA"));
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].distance, 2u);
  EXPECT_EQ(hits[0].end, 2u);
  EXPECT_EQ(hits[0].start, 0u);
  EXPECT_EQ(hits[0].cigar, "2I2=");  // traceback from the end prefers the diagonal
}

TEST(ApproxCpu, CaseInsensitiveFoldsAsciiLettersOnly) {
  ApproxOptions o = options_k(0);
  o.case_insensitive = true;
  const auto hits = ApproxMatcher::compile(warpmatch::as_bytes("GaTtA"), o).find_all(warpmatch::as_bytes("xxgAttaxx"));
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].start, 2u);
  EXPECT_EQ(hits[0].cigar, "5=");
  o.case_insensitive = false;
  EXPECT_TRUE(ApproxMatcher::compile(warpmatch::as_bytes("GaTtA"), o).find_all(warpmatch::as_bytes("xxgAttaxx")).empty());
}

TEST(ApproxCpu, StartsAreLargestAndCigarsValidOnRandomInputs) {
  std::mt19937_64 rng(5);
  for (const int alphabet : {2, 4, 20, 256}) {
    for (const std::size_t m : {1, 4, 12, 40, 70}) {
      const Bytes p = random_bytes(rng, m, alphabet);
      const Bytes text = text_with_planted(rng, p, 400, alphabet, 4, 2);
      for (const std::int64_t k : {std::int64_t{0}, std::int64_t{2}, static_cast<std::int64_t>(m / 3),
                                   static_cast<std::int64_t>(m)}) {
        const auto hits = ApproxMatcher::compile(p, options_k(k)).find_all(text);
        expect_hits_well_formed(p, text, hits, /*check_maximal_start=*/true);
      }
    }
  }
}

TEST(ApproxCpu, MultiplePatternsAreReportedInCompileOrder) {
  std::vector<Bytes> patterns = {Bytes{'a', 'b', 'c'}, Bytes{'x', 'y'}, Bytes{'a', 'b', 'c'}};
  const Bytes text = {'x', 'y', 'a', 'b', 'c', 'x', 'y'};
  const auto hits = ApproxMatcher::compile(patterns, options_k(0)).find_all(text);
  ASSERT_EQ(hits.size(), 4u);
  EXPECT_EQ(hits[0].pattern, 0u);
  EXPECT_EQ(hits[0].end, 5u);
  EXPECT_EQ(hits[1].pattern, 1u);
  EXPECT_EQ(hits[1].end, 2u);
  EXPECT_EQ(hits[2].pattern, 1u);
  EXPECT_EQ(hits[2].end, 7u);
  EXPECT_EQ(hits[3].pattern, 2u);
}

TEST(ApproxCpu, MaxHitsAndBestOfClusterLimitTheOutput) {
  const Bytes text = bytes_of("zzzzGATTACAzzzzzzzzzzGATTACAzzzz");
  ApproxOptions o = options_k(2);
  const auto all = ApproxMatcher::compile(warpmatch::as_bytes("GATTACA"), o).find_all(text);
  ASSERT_GT(all.size(), 2u);
  o.best_of_cluster = true;
  const auto clustered = ApproxMatcher::compile(warpmatch::as_bytes("GATTACA"), o).find_all(text);
  ASSERT_EQ(clustered.size(), 2u);
  EXPECT_EQ(clustered[0].end, 11u);
  EXPECT_EQ(clustered[0].distance, 0u);
  EXPECT_EQ(clustered[1].end, 28u);
  o.best_of_cluster = false;
  o.max_hits = 3;
  EXPECT_EQ(ApproxMatcher::compile(warpmatch::as_bytes("GATTACA"), o).find_all(text).size(), 3u);
}

#ifdef WARPMATCH_HAVE_EDLIB
TEST(ApproxCpu, BestModeEqualsEdlibHwOnRandomInputs) {
  std::mt19937_64 rng(99);
  for (const int alphabet : {2, 4, 20, 256}) {
    for (const std::size_t m : {1, 8, 31, 32, 33, 64, 65, 150, 700, 2000}) {
      const Bytes p = random_bytes(rng, m, alphabet);
      const std::size_t n = std::max<std::size_t>(50, 4 * m);
      const Bytes text = text_with_planted(rng, p, n, alphabet, 2, static_cast<int>(m / 10 + 1));
      ApproxOptions o = options_k(-1);
      o.best = true;
      const auto hits = warpmatch::tuning_hooks::compile_approx(p, o, {.chunk_ends = (m % 2) ? 0u : 97u}).find_all(text);
      const EdlibBest want = edlib_best(p, text, -1);
      ASSERT_FALSE(hits.empty());
      std::vector<std::uint64_t> ends;
      for (const auto& h : hits) {
        EXPECT_EQ(static_cast<int>(h.distance), want.distance) << "m=" << m << " alphabet=" << alphabet;
        ends.push_back(h.end);
      }
      EXPECT_EQ(ends, want.ends) << "m=" << m << " alphabet=" << alphabet;
      expect_hits_well_formed(p, text, hits, /*check_maximal_start=*/m <= 150);
    }
  }
}

TEST(ApproxCpu, PatternLongerThanTextMatchesEdlib) {
  std::mt19937_64 rng(17);
  for (int trial = 0; trial < 30; ++trial) {
    const Bytes p = random_bytes(rng, 5 + trial * 3, 4);
    const Bytes text = random_bytes(rng, 1 + trial, 4);
    ApproxOptions o = options_k(-1);
    o.best = true;
    const auto hits = ApproxMatcher::compile(p, o).find_all(text);
    const EdlibBest want = edlib_best(p, text, -1);
    ASSERT_FALSE(hits.empty());
    EXPECT_EQ(static_cast<int>(hits[0].distance), want.distance);
    std::vector<std::uint64_t> ends;
    for (const auto& h : hits) ends.push_back(h.end);
    EXPECT_EQ(ends, want.ends);
    expect_hits_well_formed(p, text, hits, true);
  }
}

TEST(ApproxCpu, BestModeWithBoundMatchesEdlibK) {
  std::mt19937_64 rng(23);
  for (int trial = 0; trial < 40; ++trial) {
    const Bytes p = random_bytes(rng, 20 + trial, 4);
    const Bytes text = text_with_planted(rng, p, 800, 4, 1, trial % 7);
    const int k = trial % 6;
    ApproxOptions o = options_k(k);
    o.best = true;
    const auto hits = ApproxMatcher::compile(p, o).find_all(text);
    const EdlibBest want = edlib_best(p, text, k);
    if (want.distance < 0) {
      EXPECT_TRUE(hits.empty()) << "k=" << k;
      continue;
    }
    ASSERT_FALSE(hits.empty());
    EXPECT_EQ(static_cast<int>(hits[0].distance), want.distance);
  }
}

TEST(ApproxCpu, LambdaPhageReadsMatchEdlibAndReference) {
  const char* genome_path = "/usr/share/doc/bowtie2/examples/reference/lambda_virus.fa.gz";
  const char* reads_path = "/usr/share/doc/bowtie2/examples/reads/reads_1.fq.gz";
  warpmatch::io::Input genome_in = [&] {
    try {
      return warpmatch::io::Input::open(genome_path);
    } catch (const warpmatch::Error&) {
      return warpmatch::io::Input::from_bytes("none", {});
    }
  }();
  if (genome_in.records().empty() || genome_in.records()[0].sequence.empty())
    GTEST_SKIP() << "bowtie2-examples not installed: " << genome_path;
  const warpmatch::io::Input reads = warpmatch::io::Input::open(reads_path);
  const warpmatch::ByteSpan genome = genome_in.records()[0].sequence;
  const Bytes genome_bytes(genome.begin(), genome.end());
  int checked = 0;
  for (const auto& read : reads.records()) {
    if (checked == 12) break;
    if (read.sequence.size() < 30) continue;
    const Bytes p(read.sequence.begin(), read.sequence.begin() + 60 < read.sequence.end()
                                               ? read.sequence.begin() + 60 : read.sequence.end());
    ++checked;
    ApproxOptions o = options_k(-1);
    o.best = true;
    const auto best = ApproxMatcher::compile(p, o).find_all(genome);
    const EdlibBest want = edlib_best(p, genome_bytes, -1);
    ASSERT_FALSE(best.empty());
    EXPECT_EQ(static_cast<int>(best[0].distance), want.distance) << read.name;
    std::vector<std::uint64_t> ends;
    for (const auto& h : best) ends.push_back(h.end);
    EXPECT_EQ(ends, want.ends) << read.name;
    // All hits within a few edits: Myers on all cores against the one-thread DP.
    const std::uint64_t k = static_cast<std::uint64_t>(want.distance) + 3;
    expect_myers_equals_reference(p, genome_bytes, k, core::ApproxMode::all_within_k, 0, 4);
    const auto all = ApproxMatcher::compile(p, options_k(static_cast<std::int64_t>(k))).find_all(genome);
    expect_hits_well_formed(p, genome_bytes, all, false);
  }
  EXPECT_EQ(checked, 12);
}
#endif

TEST(ApproxCpu, DictionaryWordsCaseInsensitiveMatchReference) {
  warpmatch::io::Input words = [] {
    try {
      return warpmatch::io::Input::open("/usr/share/dict/words");
    } catch (const warpmatch::Error&) {
      return warpmatch::io::Input::from_bytes("none", {});
    }
  }();
  if (words.bytes().size() < 100000) GTEST_SKIP() << "no /usr/share/dict/words";
  const Bytes text(words.bytes().begin(), words.bytes().begin() + 200000);
  for (const char* word : {"Approximation", "strings", "zebra", "QUICKLY"}) {
    const Bytes p = bytes_of(word);
    const auto pat = make_pattern(p, /*case_insensitive=*/true);
    for (const std::uint32_t k : {0u, 1u, 2u}) {
      const auto q = make_query(core::ApproxMode::all_within_k, k, p.size());
      EXPECT_EQ(cpu::approx_scan(pat, text, q, cpu::ApproxAlgorithm::myers, 4),
                core::reference_hits(pat, text, q)) << word << " k=" << k;
    }
  }
}

TEST(ApproxCostModel, TheoremFourGrowsWithPatternAndTextAndRewardsThreads) {
  using warpmatch::core::predict_wavefront_ms;
  const warpmatch::core::HmmMachine gtx580{16, 32, 500, 30, 1544};  // the paper's GTX 580 (16 SMs)
  const std::uint64_t n = 1ull << 22;
  double previous = 0;
  for (const std::uint64_t m : {32, 64, 128, 256, 512, 1024}) {
    const double ms = predict_wavefront_ms(n, m, 128 * m, gtx580);
    EXPECT_GT(ms, previous) << "m=" << m;
    previous = ms;
  }
  EXPECT_LT(predict_wavefront_ms(n, 1024, 1 << 20, gtx580),
            predict_wavefront_ms(n, 1024, 1 << 12, gtx580));
  EXPECT_LT(predict_wavefront_ms(n, 512, 65536), predict_wavefront_ms(2 * n, 512, 65536));
}

// The progress counter a caller polls for a progress bar ends at text bytes x patterns, on every
// CPU path (chunked Myers over several threads, one thread, the plain DP), and watching it
// changes no hit.
TEST(ApproxCpu, ScanProgressEndsAtTextBytesTimesPatterns) {
  std::mt19937_64 rng(77);
  Bytes text(200000);
  for (auto& c : text) c = "ACGT"[rng() % 4];
  const std::vector<Bytes> patterns{Bytes(text.begin() + 1000, text.begin() + 1040),
                                    Bytes(text.begin() + 90000, text.begin() + 90100)};
  for (const char* algo : {"myers", "dp"}) {
    for (const int threads : {1, 3}) {
      ApproxOptions o;
      o.k = 3;
      o.backend = warpmatch::Backend::cpu;
      o.algorithm = algo;
      o.threads = threads;
      const ApproxMatcher matcher = ApproxMatcher::compile(patterns, o);
      const std::vector<ApproxMatch> plain = matcher.find_all(text);
      warpmatch::ScanProgress progress;
      std::vector<ApproxMatch> watched;
      matcher.scan(text, [&](const ApproxMatch& m) {
        watched.push_back(m);
        return true;
      }, nullptr, &progress);
      EXPECT_EQ(progress.done.load(), text.size() * patterns.size()) << algo << " threads " << threads;
      EXPECT_EQ(watched, plain) << algo << " threads " << threads;
      EXPECT_FALSE(plain.empty());
    }
  }
}

// Issue 16: a scan holds one segment's hits at a time. Tiny segments (the test hook) must give
// the one-segment result: the same hits, for one pattern in the same order; for several
// patterns segment by segment (pattern order within each), the same set.
TEST(ApproxSegments, TinySegmentsGiveTheOneSegmentHitsInEveryMode) {
  std::mt19937_64 rng(1616);
  for (int trial = 0; trial < 40; ++trial) {
    const int alphabet = trial % 2 ? 2 : 4;
    const std::size_t m = 1 + rng() % (trial % 5 == 0 ? 80 : 12);
    const Bytes pattern = random_bytes(rng, m, alphabet);
    const Bytes text = text_with_planted(rng, pattern, 200 + rng() % 3000, alphabet, 4, 2);
    for (const int mode : {0, 1, 2, 3}) {  // all hits, best, best with bound, best per cluster
      ApproxOptions o = options_k(static_cast<std::int64_t>(rng() % (m + 1)));
      if (mode == 1) o.k = -1;
      o.best = mode == 1 || mode == 2;
      o.best_of_cluster = mode == 3;
      o.report = warpmatch::Report::cigar;
      const auto whole = ApproxMatcher::compile(pattern, o).find_all(text);
      for (const std::uint64_t segment : {1ull, 7ull, 64ull, 1000ull}) {
        EXPECT_EQ(warpmatch::tuning_hooks::compile_approx(pattern, o, {.segment_ends = segment}).find_all(text), whole)
            << "trial " << trial << " mode " << mode << " segment " << segment;
      }
    }
  }
}

TEST(ApproxSegments, SeveralPatternsAreDeliveredSegmentBySegment) {
  std::mt19937_64 rng(1617);
  const std::vector<Bytes> patterns = {bytes_of("abab"), bytes_of("bba"), bytes_of("aaaaaaaa")};
  const Bytes text = random_bytes(rng, 5000, 2);
  ApproxOptions o = options_k(1);
  auto whole = ApproxMatcher::compile(patterns, o).find_all(text);
  const auto segmented = warpmatch::tuning_hooks::compile_approx(patterns, o, {.segment_ends = 512}).find_all(text);
  // Order: by segment of the end, then pattern, then end.
  for (std::size_t i = 1; i < segmented.size(); ++i) {
    const auto key = [](const ApproxMatch& h) {
      return std::tuple((h.end - 1) / 512, h.pattern, h.end);
    };
    EXPECT_LT(key(segmented[i - 1]), key(segmented[i])) << i;
  }
  auto sorted = segmented;
  const auto by_pattern = [](const ApproxMatch& a, const ApproxMatch& b) {
    return std::tie(a.pattern, a.end) < std::tie(b.pattern, b.end);
  };
  std::sort(sorted.begin(), sorted.end(), by_pattern);
  EXPECT_EQ(sorted, whole);
}

// On several threads the cpu scans groups of segments at once and cuts the hits back into
// segments: the delivery must equal one thread's segment-by-segment scan, hit for hit.
TEST(ApproxSegments, GroupsOfSegmentsOnSeveralThreadsDeliverInOneThreadsOrder) {
  std::mt19937_64 rng(1618);
  for (int trial = 0; trial < 6; ++trial) {
    std::vector<Bytes> patterns;
    for (int p = 0; p < 1 + trial * 7; ++p) patterns.push_back(random_bytes(rng, 6 + rng() % 20, 4));
    const Bytes text = text_with_planted(rng, patterns[0], 20000 + rng() % 5000, 4, 20, 2);
    ApproxOptions o = options_k(static_cast<std::int64_t>(trial % 3));
    o.report = warpmatch::Report::cigar;
    o.threads = 1;
    const auto one = warpmatch::tuning_hooks::compile_approx(patterns, o, {.segment_ends = 700}).find_all(text);
    o.threads = 4;
    EXPECT_EQ(warpmatch::tuning_hooks::compile_approx(patterns, o, {.segment_ends = 700}).find_all(text), one)
        << "trial " << trial;
  }
}

TEST(ApproxSegments, SinkStopAndMaxHitsEndTheScanInTheFirstSegment) {
  // 64 MiB of 'a' with "aaaa", k = 1: every end is a hit. Only the first segment may be
  // searched once the sink stops (progress tells how far the scan went).
  const Bytes text(64u << 20, 'a');
  ApproxOptions o = options_k(1);
  const auto matcher = ApproxMatcher::compile(bytes_of("aaaa"), o);
  warpmatch::ScanProgress progress;
  std::uint64_t seen = 0;
  matcher.scan(text, [&](const ApproxMatch&) { return ++seen < 3; }, nullptr, &progress);
  EXPECT_EQ(seen, 3u);
  EXPECT_LE(progress.done.load(), std::uint64_t{1} << 23);
  o.max_hits = 5;
  warpmatch::ScanProgress limited;
  EXPECT_EQ(ApproxMatcher::compile(bytes_of("aaaa"), o).scan(text, [](const ApproxMatch&) { return true; },
                                                            nullptr, &limited),
            5u);
  EXPECT_LE(limited.done.load(), std::uint64_t{1} << 23);
}

TEST(ApproxSegments, AFloodIsDeliveredInBatchesAcrossSegmentsAndStopsMidBatch) {
  // Every end of 64 MiB of 'a' is a hit of "aaaa" at k = 1 (end 3 too: "aaa" at distance 1),
  // delivered in batches of 4,096 with starts recovered; the sink stops at the first hit of
  // the second segment, inside a batch.
  const Bytes text(64u << 20, 'a');
  const auto matcher = ApproxMatcher::compile(bytes_of("aaaa"), options_k(1));
  std::uint64_t seen = 0, last_end = 0;
  bool ordered = true;
  matcher.scan(text, [&](const ApproxMatch& m) {
    ++seen;
    ordered = ordered && m.end == last_end + (seen == 1 ? 3 : 1) && m.start + 4 - m.distance == m.end;
    last_end = m.end;
    return m.end <= (std::uint64_t{1} << 23);
  });
  EXPECT_TRUE(ordered);
  EXPECT_EQ(seen, (std::uint64_t{1} << 23) - 1);  // ends 3 .. 2^23, then the one that stops
}

TEST(ApproxSegments, DenseHitsMakeSmallerGroups) {
  using warpmatch::api::kGroupHits;
  using warpmatch::api::next_group_segments;
  // Sparse hits: the largest group; a flood of 8 Mi hits a segment: two segments; denser
  // still: one per worker, never fewer, never more than the largest.
  EXPECT_EQ(next_group_segments(0, 1, 1, 4), 4u);
  EXPECT_EQ(next_group_segments(2500, 32, 4, 64), 64u);
  EXPECT_EQ(next_group_segments(std::uint64_t{8} << 20, 1, 1, 16), 2u);
  EXPECT_EQ(next_group_segments(kGroupHits * 3, 3, 1, 16), 1u);
  EXPECT_EQ(next_group_segments(kGroupHits * 8, 2, 4, 64), 4u);
  EXPECT_EQ(next_group_segments(kGroupHits * 8, 2, 4, 1), 1u);  // best mode: one segment
}

TEST(ApproxSegments, BestModeOverManySegmentsFindsTheLaterMinimum) {
  // The minimum lies in the last segment only; earlier segments hold worse hits.
  Bytes text = bytes_of(std::string(3000, 'x') + "GATTAXA" + std::string(3000, 'y') + "GATTACA" + "zz");
  ApproxOptions o;
  o.best = true;
  o.report = warpmatch::Report::cigar;
  const auto whole = ApproxMatcher::compile(bytes_of("GATTACA"), o).find_all(text);
  ASSERT_EQ(whole.size(), 1u);
  EXPECT_EQ(whole[0].distance, 0u);
  EXPECT_EQ(warpmatch::tuning_hooks::compile_approx(bytes_of("GATTACA"), o, {.segment_ends = 100}).find_all(text), whole);
}

// Text in GPU memory (DeviceSpan) is scanned only by a matcher on the cuda backend, and only
// from device memory: a cpu matcher, and on a GPU host memory dressed as device text, are
// refused with InvalidArgument before any copy. (Scans of real device memory against host
// text: python/tests/test_device_text.py.)
TEST(ApproxCpu, DeviceTextNeedsTheCudaBackendAndDeviceMemory) {
  const std::string host = "xxGATTACAxx";
  const warpmatch::DeviceSpan as_device{reinterpret_cast<const std::uint8_t*>(host.data()), host.size()};
  ApproxOptions o = options_k(1);
  o.backend = warpmatch::Backend::cpu;
  const auto on_cpu = ApproxMatcher::compile(warpmatch::as_bytes("GATTACA"), o);
  const auto never = [](const ApproxMatch&) { return true; };
  try {
    on_cpu.scan_device_text(as_device, never);
    ADD_FAILURE() << "a cpu matcher accepted device text";
  } catch (const warpmatch::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("approximate search"), std::string::npos) << e.what();
  }
  if (warpmatch::cuda_devices().empty()) return;
  o.backend = warpmatch::Backend::cuda;
  const auto on_gpu = ApproxMatcher::compile(warpmatch::as_bytes("GATTACA"), o);
  EXPECT_THROW(on_gpu.scan_device_text(as_device, never), warpmatch::InvalidArgument);
  EXPECT_EQ(on_gpu.scan_device_text(warpmatch::DeviceSpan{}, never), 0u);  // empty: no hits
}
