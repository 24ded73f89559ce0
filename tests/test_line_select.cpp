// grep's line selection (ExactMatcher / MultiMatcher::first_match_per_line, core/line_select.hpp):
// the first match start of every line holding one below a limit, against an oracle built here
// from every match of a plain double loop and the line of each start. Random texts with many
// short lines, lines without a match, very long lines, no '\n' at all; patterns holding or
// starting with '\n'; case folding; every CPU algorithm; short texts cut into many runs of
// lines (the tuned entry) and a multi-megabyte one on several threads; the GPU where present.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "core/exact_pattern.hpp"
#include "core/line_select.hpp"
#include "cpu/exact_cpu_detail.hpp"
#include "test_multi_oracle.hpp"
#include "warpmatch/warpmatch.hpp"

using namespace warpmatch;
using Starts = std::vector<std::uint64_t>;

namespace {

/// The first of `starts` (ascending) on each line, those below `limit`.
Starts first_per_line_oracle(const std::string& text, const std::vector<Match>& matches, std::uint64_t limit) {
  Starts out;
  std::uint64_t line_of_last = ~0ull, line = 0, counted_to = 0;
  for (const Match& m : matches) {
    if (m.start >= limit) break;
    line += static_cast<std::uint64_t>(std::count(text.begin() + static_cast<std::ptrdiff_t>(counted_to),
                                                  text.begin() + static_cast<std::ptrdiff_t>(m.start), '\n'));
    counted_to = m.start;
    if (line != line_of_last) out.push_back(m.start);
    line_of_last = line;
  }
  return out;
}

/// Lines of random lengths (mean `line`, some empty) over `alphabet` letters.
std::string lines_text(std::mt19937_64& rng, std::size_t n, int alphabet, std::size_t line) {
  std::string s = multi_test::random_text(rng, n, alphabet);
  for (std::size_t i = rng() % (line + 1); i < n; i += 1 + rng() % (2 * line)) s[i] = '\n';
  if (rng() % 3 == 0 && n > 3) s[0] = s[1] = '\n';  // empty lines first
  return s;
}

std::string with_capitals(std::mt19937_64& rng, std::string s) {
  for (char& c : s)
    if (c >= 'a' && c <= 'z' && rng() % 2) c = static_cast<char>(c - 32);
  return s;
}

std::vector<Backend> backends() {
  std::vector<Backend> b = {Backend::cpu};
  if (!cuda_devices().empty()) b.push_back(Backend::cuda);
  return b;
}

const char* name_of(Backend b) { return b == Backend::cuda ? "cuda" : "cpu"; }

}  // namespace

TEST(LineSelect, ExactFirstPerLineIsTheFirstOccurrenceOfEachLine) {
  std::mt19937_64 rng(71);
  for (int round = 0; round < 60; ++round) {
    const int alphabet = round % 3 == 0 ? 2 : round % 3 == 1 ? 4 : 26;
    const std::size_t line = 1 + rng() % 120;
    std::string text = lines_text(rng, 1 + rng() % 5000, alphabet, line);
    const bool ci = round % 4 == 3;
    std::string pattern = text.size() > 30 && rng() % 2 ? text.substr(rng() % (text.size() - 30), 1 + rng() % 12)
                                                        : multi_test::random_text(rng, 1 + rng() % 6, alphabet);
    if (round % 7 == 0) pattern = "\n" + pattern;  // a line's last byte starts it
    if (ci) text = with_capitals(rng, text);
    std::string folded = text, folded_pattern = pattern;
    if (ci) {
      for (char& c : folded) c = multi_test::lower(c);
      for (char& c : folded_pattern) c = multi_test::lower(c);
    }
    const auto all = multi_test::naive_matches({folded_pattern}, folded);
    for (const std::uint64_t limit : {std::uint64_t{text.size()}, std::uint64_t{rng() % (text.size() + 1)}, std::uint64_t{0}}) {
      const Starts want = first_per_line_oracle(text, all, limit);
      const std::string what = "round " + std::to_string(round) + " pattern '" + pattern + "' limit " + std::to_string(limit);
      for (const Backend backend : backends())
        for (const char* algo : {"auto", "naive"}) {
          if (backend == Backend::cuda && std::string(algo) == "naive") continue;
          ExactOptions o;
          o.backend = backend;
          o.algorithm = algo;
          o.case_insensitive = ci;
          const auto m = ExactMatcher::compile(as_bytes(pattern), o);
          EXPECT_EQ(m.first_match_per_line(as_bytes(text), limit), want) << what << " " << name_of(backend) << " " << algo;
        }
      // Runs of a few bytes of lines on 3 threads: lines never split, runs joined in order.
      core::ExactPattern p;
      p.case_insensitive = ci;
      p.bytes.assign(folded_pattern.begin(), folded_pattern.end());
      cpu::detail::ScanTuning tuning;
      tuning.chunk_bytes = 1 + rng() % 64;
      EXPECT_EQ(cpu::detail::first_per_line_tuned(p, as_bytes(text), limit, core::kAllLines, cpu::ExactAlgorithm::fast, 3,
                                                  tuning),
                want)
          << what << " runs of " << tuning.chunk_bytes;
      // The first `most` lines (grep -m).
      const std::uint64_t most = rng() % 4;
      const Starts first_most(want.begin(), want.begin() + static_cast<std::ptrdiff_t>(std::min<std::uint64_t>(most, want.size())));
      for (const Backend backend : backends()) {
        ExactOptions o;
        o.backend = backend;
        o.case_insensitive = ci;
        EXPECT_EQ(ExactMatcher::compile(as_bytes(pattern), o).first_match_per_line(as_bytes(text), limit, most), first_most)
            << what << " most " << most << " " << name_of(backend);
      }
    }
  }
}

// Lines far longer than the search's first blocks (which double up to 1 MiB), a text without
// '\n', a match on the last possible start, and a dense flood (every byte matches).
TEST(LineSelect, ExactLongLinesFloodsAndTextEnds) {
  std::mt19937_64 rng(72);
  std::string text = multi_test::random_text(rng, 3 << 20, 4);
  for (char& c : text) c = c == 'd' ? 'c' : c;  // no 'd' but where planted
  text[100] = 'd';
  text[(1 << 20) + 5] = '\n';
  text[(1 << 20) + 9] = 'd';
  text[(2 << 20) + 77] = 'd';  // same line as the one before: not reported
  text[text.size() - 1] = 'd';
  text[text.size() - 2] = '\n';
  const auto m = ExactMatcher::compile(as_bytes("d"), ExactOptions{{.backend = Backend::cpu, .threads = 4}});
  EXPECT_EQ(m.first_match_per_line(as_bytes(text), text.size()), (Starts{100, (1 << 20) + 9, text.size() - 1}));
  EXPECT_EQ(m.first_match_per_line(as_bytes(text), text.size() - 1), (Starts{100, (1 << 20) + 9}));
  std::string no_lines = text;
  std::replace(no_lines.begin(), no_lines.end(), '\n', 'a');
  EXPECT_EQ(m.first_match_per_line(as_bytes(no_lines), no_lines.size()), (Starts{100}));
  std::string flood(100000, 'x');
  for (std::size_t i = 50; i < flood.size(); i += 100) flood[i] = '\n';
  const auto x = ExactMatcher::compile(as_bytes("xx"), ExactOptions{{.backend = Backend::cpu}});
  Starts want{0};
  for (std::size_t i = 51; i + 1 < flood.size(); i += 100) want.push_back(i);
  EXPECT_EQ(x.first_match_per_line(as_bytes(flood), flood.size()), want);
}

TEST(LineSelect, MultiFirstPerLineIsTheFirstMatchOfEachLine) {
  std::mt19937_64 rng(73);
  for (int round = 0; round < 40; ++round) {
    const int alphabet = round % 2 ? 4 : 26;
    std::string text = lines_text(rng, 1 + rng() % 6000, alphabet, 1 + rng() % 100);
    auto patterns = multi_test::random_patterns(rng, 1 + rng() % (round % 5 == 0 ? 300 : 12), alphabet, 16, text);
    if (round % 6 == 0) patterns.push_back("\n" + multi_test::random_text(rng, 2, alphabet));
    const bool ci = round % 4 == 1;
    if (ci) text = with_capitals(rng, text);
    const auto all = multi_test::naive_matches(patterns, text, ci);
    for (const std::uint64_t limit : {std::uint64_t{text.size()}, std::uint64_t{rng() % (text.size() + 1)}}) {
      const Starts want = first_per_line_oracle(text, all, limit);
      for (const Backend backend : backends())
        for (const char* algo : {"fast", "mbndm", "naive"}) {
          if (backend == Backend::cuda && std::string(algo) == "naive") continue;
          MultiOptions o;
          o.backend = backend;
          o.algorithm = algo;
          o.case_insensitive = ci;
          const auto m = MultiMatcher::compile(patterns, o);
          EXPECT_EQ(m.first_match_per_line(as_bytes(text), limit), want)
              << "round " << round << " " << patterns.size() << " patterns, limit " << limit << " " << name_of(backend)
              << " " << algo;
          const std::uint64_t most = rng() % 4;
          EXPECT_EQ(m.first_match_per_line(as_bytes(text), limit, most),
                    Starts(want.begin(), want.begin() + static_cast<std::ptrdiff_t>(std::min<std::uint64_t>(most, want.size()))))
              << "round " << round << " most " << most << " " << name_of(backend) << " " << algo;
        }
    }
  }
}

// Several megabytes on 4 threads: the text is cut into runs of whole lines searched apart.
TEST(LineSelect, MultiOnSeveralThreadsJoinsRunsInOrder) {
  std::mt19937_64 rng(74);
  const std::string text = lines_text(rng, 3 << 20, 26, 80);
  const auto patterns = multi_test::random_words(rng, 200, 26, 2, 5);
  const Starts want = first_per_line_oracle(text, multi_test::hashed_matches(patterns, text), text.size());
  ASSERT_GT(want.size(), 1000u);
  MultiOptions o;
  o.backend = Backend::cpu;
  o.threads = 4;
  EXPECT_EQ(MultiMatcher::compile(patterns, o).first_match_per_line(as_bytes(text), text.size()), want);
}

TEST(LineSelect, LineFirstsKeepsOneStartPerLineBelowTheLimit) {
  const std::string text = "ab\ncd\n\nef";
  core::LineFirsts firsts(as_bytes(text), 8);
  EXPECT_TRUE(firsts.take(Starts{0, 1, 2}));  // 2 is line 1's '\n'
  EXPECT_TRUE(firsts.take(Starts{4, 6}));
  EXPECT_FALSE(firsts.take(Starts{7, 8}));  // 8 is past the limit
  EXPECT_EQ(firsts.firsts(), (Starts{0, 4, 6, 7}));
}
