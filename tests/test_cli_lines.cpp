// -n (--line-number) and --lines on find and approx (cli/line_index.hpp, cli/line_options.hpp):
// GNU grep (LC_ALL=C grep -a -F) is the oracle for the lines and their numbers, and for -n -b -o
// where grep -o reports every occurrence (patterns that cannot overlap themselves); a plain
// reference over the whole text (every occurrence, its line = 1 + the '\n' bytes before its
// start) elsewhere. Texts have short, long and empty lines, CRLF, NUL and 0xff bytes, several
// and overlapping occurrences per line, with and without a final '\n'. Streamed inputs (a pipe,
// stdin, gzip) in windows of 64 bytes or less give byte for byte what the mapped file gives:
// lines span many windows.
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "cli_test_support.hpp"
#include "compression_test_support.hpp"

using warpmatch_test::CliResult;
using warpmatch_test::levenshtein;
using warpmatch_test::quote;

namespace {

char fold(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool word_byte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

struct Options {
  bool ignore_case = false;
  bool word = false;
};

// Every occurrence's start (overlapping ones too), ascending.
std::vector<std::size_t> occurrences(const std::string& text, const std::string& pattern, Options o = {}) {
  std::vector<std::size_t> starts;
  for (std::size_t s = 0; s + pattern.size() <= text.size(); ++s) {
    bool equal = true;
    for (std::size_t i = 0; i < pattern.size() && equal; ++i)
      equal = o.ignore_case ? fold(text[s + i]) == fold(pattern[i]) : text[s + i] == pattern[i];
    const std::size_t end = s + pattern.size();
    if (equal && o.word && ((s > 0 && word_byte(text[s - 1])) || (end < text.size() && word_byte(text[end]))))
      equal = false;
    if (equal) starts.push_back(s);
  }
  return starts;
}

std::size_t line_of(const std::string& text, std::size_t start) {
  return 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(start), '\n'));
}

struct Line {
  std::size_t number = 0, offset = 0;
  std::string text;
};

// The lines holding the given starts, each once, in order.
std::vector<Line> lines_of(const std::string& text, const std::vector<std::size_t>& starts) {
  std::vector<Line> lines;
  for (const std::size_t s : starts) {
    const std::size_t number = line_of(text, s);
    if (!lines.empty() && lines.back().number == number) continue;
    const std::size_t begin = s == 0 ? 0 : text.rfind('\n', s - 1) == std::string::npos ? 0 : text.rfind('\n', s - 1) + 1;
    const std::size_t end = std::min(text.find('\n', s), text.size());
    lines.push_back({number, begin, text.substr(begin, end - begin)});
  }
  return lines;
}

std::string print_lines(const std::vector<Line>& lines, bool numbers, std::size_t max = SIZE_MAX) {
  std::string out;
  for (std::size_t i = 0; i < lines.size() && i < max; ++i)
    out += (numbers ? std::to_string(lines[i].number) + ":" : "") + lines[i].text + "\n";
  return out;
}

// find -n's lines: LINE:START:MATCH (the pattern is printable: MATCH is not escaped).
std::string print_numbered_hits(const std::string& text, const std::vector<std::size_t>& starts, std::size_t m) {
  std::string out;
  for (const std::size_t s : starts)
    out += std::to_string(line_of(text, s)) + ":" + std::to_string(s) + ":" + text.substr(s, m) + "\n";
  return out;
}

// Random lines over `alphabet`: empty, short and long ones, some ending in "\r\n".
std::string random_lines(std::mt19937_64& rng, std::size_t n, const std::string& alphabet) {
  std::string s;
  while (s.size() < n) {
    const std::size_t kind = rng() % 10;
    const std::size_t length = kind == 0 ? 0 : kind < 8 ? rng() % 40 : 200 + rng() % 900;
    for (std::size_t i = 0; i < length; ++i) s += alphabet[rng() % alphabet.size()];
    s += rng() % 4 == 0 ? "\r\n" : "\n";
  }
  return s;
}

struct ApproxHit {
  std::size_t start = 0, end = 0, distance = 0, line = 0;
  auto operator<=>(const ApproxHit&) const = default;
};

// approx -k k: every end e with a distance <= k, its start the largest one at that distance.
std::vector<ApproxHit> approx_hits(const std::string& text, const std::string& pattern, std::size_t k) {
  std::vector<ApproxHit> hits;
  const std::size_t m = pattern.size();
  for (std::size_t e = 1; e <= text.size(); ++e) {
    std::size_t best = m + 1, start = 0;
    for (std::size_t s = e >= m + k ? e - m - k : 0; s <= e; ++s) {
      const std::size_t d = levenshtein(pattern, text.substr(s, e - s));
      if (d <= best) best = d, start = s;
    }
    if (best <= k) hits.push_back({start, e, best, line_of(text, start)});
  }
  return hits;
}

class CliLines : public warpmatch_test::CliTest {
 protected:
  CliLines() : CliTest("warpmatch_cli_lines_") {}

  // find and approx read every input as text, as the grep oracle's -a: the random texts hold
  // NUL bytes, and without -a their lines would give way to grep's binary note (tested in
  // CliFiles.BinaryInputsPrintGrepsBinaryFileMatches).
  static std::vector<std::string> as_text(std::vector<std::string> args) {
    if (!args.empty() && (args[0] == "find" || args[0] == "approx")) args.insert(args.begin() + 1, "-a");
    return args;
  }
  CliResult run(const std::vector<std::string>& args, std::string_view stdin_data = {}) {
    return CliTest::run(as_text(args), stdin_data);
  }
  CliResult piped(const std::string& path, const std::vector<std::string>& args) {
    return CliTest::piped(path, as_text(args));
  }

  // GNU grep -a -F (binary bytes as text, fixed strings) in the C locale.
  CliResult grep(std::vector<std::string> args) {
    args.insert(args.begin(), {"-a", "-F"});
    return gnu_grep(args);
  }

  // `args` (a command, then its arguments) run with -j 1 and with -j 6 print the same bytes,
  // JSON's summary line left out (its times differ); returns the -j 1 output.
  std::string same_on_one_and_six_threads(const std::vector<std::string>& args) {
    std::string where;
    for (const auto& a : args) where += a + " ";
    std::vector<std::string> one = args, six = args;
    one.insert(one.begin() + 1, {"-j", "1"});
    six.insert(six.begin() + 1, {"-j", "6"});
    const CliResult serial = run(one);
    EXPECT_EQ(serial.status, 0) << where << serial.err;
    const auto without_summary = [](const std::string& out) { return out.substr(0, out.rfind("{\"type\":\"summary\"")); };
    EXPECT_EQ(without_summary(run(six).out), without_summary(serial.out)) << where;
    return serial.out;
  }

  // `find -j T ARGS FILE` prints `want` for T = 2, 3, 8 (windows in rounds of parts), and so
  // does the pipe in windows of 256 KiB and 1 MiB (lines cut between windows, rounds and
  // parts) for T in `pipe_threads`.
  void expect_on_threads_and_pipes(const std::vector<std::string>& args, const std::string& path,
                                   const std::string& want, const std::vector<std::string>& pipe_threads = {"2", "3", "8"}) {
    std::string where;
    for (const auto& a : args) where += a + " ";
    for (const std::string threads : {"2", "3", "8"}) {
      std::vector<std::string> mapped = {"find", "-j", threads};
      mapped.insert(mapped.end(), args.begin(), args.end());
      mapped.push_back(path);
      EXPECT_TRUE(warpmatch_test::same_output(run(mapped).out, want)) << where << "-j " << threads;
    }
    for (const std::string& threads : pipe_threads)
      for (const std::string window : {"256K", "1M"}) {
        std::vector<std::string> streamed = {"find", "-j", threads, "--window", window};
        streamed.insert(streamed.end(), args.begin(), args.end());
        EXPECT_TRUE(warpmatch_test::same_output(piped(path, streamed).out, want))
            << where << "pipe, window " << window << ", -j " << threads;
      }
  }

  // same_on_one_and_six_threads of each command, `path` added.
  void same_on_one_and_six_threads(const std::vector<std::vector<std::string>>& commands, const std::string& path) {
    for (std::vector<std::string> args : commands) {
      args.push_back(path);
      same_on_one_and_six_threads(args);
    }
  }
};

}  // namespace

// --- find against GNU grep -----------------------------------------------------------------------

TEST_F(CliLines, FindLinesAndNumbersAreGrepsOnRandomTexts) {
  // Patterns that cannot overlap themselves (grep -o then reports every occurrence); the
  // alphabet has '\r', NUL and 0xff bytes.
  std::mt19937_64 rng(2026);
  const std::string alphabet = std::string("abcab ab\r") + '\0' + '\xff';
  const std::vector<std::string> patterns = {"ab", "abc", "b a", "c", "a\r"};
  for (int round = 0; round < 4; ++round) {
    std::string text = random_lines(rng, 6000, alphabet);
    if (round % 2) text += "ab cab";  // a last line without '\n'
    const auto path = file("r.txt", text);
    for (const std::string& p : patterns) {
      const std::string where = "round " + std::to_string(round) + " '" + p + "'";
      const std::vector<std::size_t> starts = occurrences(text, p);
      ASSERT_FALSE(starts.empty()) << where;
      if (p.find('\r') == std::string::npos) {  // find -o escapes MATCH's '\r' as "\r", grep does not
        const CliResult numbered = run({"find", "-n", p, path.string()});
        EXPECT_TRUE(warpmatch_test::same_output(numbered.out, grep({"-n", "-b", "-o", "-e", p, path.string()}).out)) << where;
        EXPECT_TRUE(warpmatch_test::same_output(numbered.out, print_numbered_hits(text, starts, p.size()))) << where;
      }
      const CliResult lines = run({"find", "--lines", p, path.string()});
      EXPECT_TRUE(warpmatch_test::same_output(lines.out, grep({"-e", p, path.string()}).out)) << where;
      EXPECT_TRUE(warpmatch_test::same_output(lines.out, print_lines(lines_of(text, starts), false))) << where;
      EXPECT_EQ(lines.status, 0);
      EXPECT_TRUE(warpmatch_test::same_output(run({"find", "-n", "--lines", p, path.string()}).out, grep({"-n", "-e", p, path.string()}).out))
          << where;
      EXPECT_TRUE(warpmatch_test::same_output(run({"find", "-c", "--lines", p, path.string()}).out, grep({"-c", "-e", p, path.string()}).out))
          << where;
      EXPECT_TRUE(warpmatch_test::same_output(run({"find", "-m", "3", "-n", "--lines", p, path.string()}).out, grep({"-m", "3", "-n", "-e", p, path.string()}).out))
          << where;
    }
  }
}

TEST_F(CliLines, OverlappingAndRepeatedOccurrences) {
  // "aa" in "aaaa": three occurrences on one line, one line; -n numbers each occurrence
  // (grep -o would skip the overlapping ones).
  const std::string text = "aaaa\nb\n\naa xaa\r\naaa";
  const auto path = file("o.txt", text);
  EXPECT_TRUE(warpmatch_test::same_output(run({"find", "-n", "aa", path.string()}).out, "1:0:aa\n1:1:aa\n1:2:aa\n4:8:aa\n4:12:aa\n5:16:aa\n5:17:aa\n"));
  EXPECT_TRUE(warpmatch_test::same_output(run({"find", "--lines", "aa", path.string()}).out, "aaaa\naa xaa\r\naaa\n"));
  EXPECT_TRUE(warpmatch_test::same_output(run({"find", "--lines", "-n", "aa", path.string()}).out, grep({"-n", "aa", path.string()}).out));
  EXPECT_TRUE(warpmatch_test::same_output(run({"find", "-c", "--lines", "aa", path.string()}).out, "3\n"));
  EXPECT_TRUE(warpmatch_test::same_output(run({"find", "-c", "aa", path.string()}).out, "7\n"));  // without --lines: occurrences
  // A pattern holding '\n' selects the line of its start.
  EXPECT_TRUE(warpmatch_test::same_output(run({"find", "--lines", "-n", "b\n\n", path.string()}).out, "2:b\n"));
  EXPECT_TRUE(warpmatch_test::same_output(run({"find", "-n", "\naa", path.string()}).out, "3:7:\\naa\n4:15:\\naa\n"));
  // No hit: exit 1, nothing printed.
  const CliResult none = run({"find", "--lines", "zz", path.string()});
  EXPECT_EQ(none.status, 1);
  EXPECT_TRUE(warpmatch_test::same_output(none.out, ""));
}

TEST_F(CliLines, WordsCaseAndPatternSets) {
  std::mt19937_64 rng(7);
  const std::string text = random_lines(rng, 5000, "abAB_ -.\t");
  const auto path = file("w.txt", text);
  for (const std::string& p : {"ab", "a", "Ba"}) {
    EXPECT_TRUE(warpmatch_test::same_output(run({"find", "-w", "--lines", "-n", p, path.string()}).out, grep({"-w", "-n", "-e", p, path.string()}).out))
        << p;
    EXPECT_TRUE(warpmatch_test::same_output(run({"find", "-i", "--lines", p, path.string()}).out, grep({"-i", "-e", p, path.string()}).out)) << p;
    EXPECT_TRUE(warpmatch_test::same_output(run({"find", "-i", "-w", "-c", "--lines", p, path.string()}).out, grep({"-i", "-w", "-c", "-e", p, path.string()}).out))
        << p;
    EXPECT_TRUE(warpmatch_test::same_output(run({"find", "-w", "-n", p, path.string()}).out, print_numbered_hits(text, occurrences(text, p, {.word = true}), std::string(p).size())))
        << p;
  }
  // -w changes the selection (the test can fail).
  EXPECT_NE(run({"find", "-w", "--lines", "ab", path.string()}).out, run({"find", "--lines", "ab", path.string()}).out);
  // A pattern set: a line is printed once whichever patterns occur in it.
  EXPECT_TRUE(warpmatch_test::same_output(run({"find", "--lines", "-n", "-e", "ab", "-e", "B_", "-e", "a.", path.string()}).out, grep({"-n", "-e", "ab", "-e", "B_", "-e", "a.", path.string()}).out));
  EXPECT_TRUE(warpmatch_test::same_output(run({"find", "-c", "--lines", "-e", "ab", "-e", "B_", path.string()}).out, grep({"-c", "-e", "ab", "-e", "B_", path.string()}).out));
}

// --- streamed inputs ------------------------------------------------------------------------------

TEST_F(CliLines, StreamedInputsInTinyWindowsPrintWhatTheMappedFilePrints) {
  // Long lines (up to ~1 KiB) span many 64-byte windows; the last line has no '\n'.
  std::mt19937_64 rng(11);
  const std::string text = random_lines(rng, 8000, "abcab ab\r") + "x ab abc";
  const auto path = file("s.txt", text);
  const auto gz = file("s.txt.gz", warpmatch_test::gzip_member(text));
  const std::vector<std::vector<std::string>> cases = {
      {"find", "-n", "ab"},
      {"find", "--lines", "ab"},
      {"find", "--lines", "-n", "abc"},
      {"find", "--lines", "-n", "-m", "5", "b a"},
      {"find", "--lines", "-c", "c"},
      {"find", "--lines", "-n", "-e", "abc", "-e", "b\r"},
      {"approx", "-k", "1", "-n", "abca"},
      {"approx", "-k", "1", "--lines", "-n", "abca"},
  };
  for (const auto& args : cases) {
    std::string where;
    for (const auto& a : args) where += a + " ";
    std::vector<std::string> mapped = args;
    mapped.push_back(path.string());
    const CliResult want = run(mapped);
    ASSERT_EQ(want.status, 0) << where << want.err;
    ASSERT_FALSE(want.out.empty()) << where;
    for (const std::string& window : {"64", "3"}) {
      std::vector<std::string> streamed = args;
      streamed.insert(streamed.begin() + 1, {"--window", window});
      EXPECT_TRUE(warpmatch_test::same_output(piped(path.string(), streamed).out, want.out)) << "pipe, window " << window << ": " << where;
      std::vector<std::string> zipped = streamed;
      zipped.push_back(gz.string());
      EXPECT_TRUE(warpmatch_test::same_output(run(zipped).out, want.out)) << "gzip, window " << window << ": " << where;
    }
    std::vector<std::string> from_stdin = args;
    from_stdin.insert(from_stdin.begin() + 1, {"--window", "64"});
    from_stdin.push_back("-");
    EXPECT_TRUE(warpmatch_test::same_output(run(from_stdin, text).out, want.out)) << "stdin: " << where;
  }
  // And the mapped output is grep's.
  EXPECT_TRUE(warpmatch_test::same_output(run({"find", "--lines", "-n", "abc", path.string()}).out, grep({"-n", "abc", path.string()}).out));
}

// A window with thousands of selected lines forms and prints them on all threads, in rounds of
// parts of ~1 MiB (LineSelector::Parts): 6 MB of lines, most holding a hit, so every -j from
// 2 up cuts rounds into parts, and the pipe's windows of 256 KiB and 1 MiB cut lines (one of
// 40 KB among them) between windows, rounds and parts. GNU grep is the oracle; -j 1 (one
// thread, no parts) prints the same for --json, -w and approx.
TEST_F(CliLines, ManySelectedLinesPrintedOnAllThreadsAreGrepsLines) {
  std::mt19937_64 rng(77);
  std::string text = random_lines(rng, 3'000'000, std::string("abcab ab\r") + '\0');
  text += std::string(40'000, 'b') + "abc" + std::string(100, 'c') + "\n";  // a long line with a hit
  text += random_lines(rng, 3'000'000, "abcab ab") + "ab c";                   // no '\n' at the end
  const auto path = file("many.txt", text);
  const std::string where_file = path.string();
  const CliResult want = grep({"-n", "-e", "abc", where_file});
  ASSERT_EQ(want.status, 0);
  expect_on_threads_and_pipes({"--lines", "-n", "abc"}, where_file, want.out);
  EXPECT_TRUE(warpmatch_test::same_output(run({"find", "-j", "4", "--lines", "-H", "a", where_file}).out, grep({"-H", "-e", "a", where_file}).out));
  EXPECT_TRUE(warpmatch_test::same_output(run({"find", "-j", "4", "--lines", "-n", "-e", "ab", "-e", "c", where_file}).out, grep({"-n", "-e", "ab", "-e", "c", where_file}).out));
  same_on_one_and_six_threads({{"find", "--lines", "--json", "-n", "ab"},
                               {"find", "--lines", "-w", "-n", "ab"},
                               {"approx", "-k", "1", "--lines", "-n", "abca"}},
                              where_file);
}

// -v prints the lines without a hit on all threads too (LineSelector::emit_inverted_parts):
// 8 MB of lines, a third with a hit, a stretch of 2 MB without one (windows and parts with no
// hit at all), a 40 KB line with a hit and one without, no final '\n'. GNU grep -v is the
// oracle on the mapped file and through a pipe in windows of 256 KiB and 1 MiB (lines and
// hits cut between windows, rounds and parts); --json, -w and approx -v against -j 1.
TEST_F(CliLines, ManyLinesWithoutAHitPrintedOnAllThreadsAreGrepsLines) {
  std::mt19937_64 rng(79);
  std::string text = random_lines(rng, 3'000'000, std::string("abcb ab\r") + '\0');
  text += random_lines(rng, 2'000'000, "ab b");                                  // no "abc" at all
  text += std::string(40'000, 'b') + "abc" + std::string(100, 'c') + "\n";      // a long line with a hit
  text += std::string(40'000, 'a') + "\n";                                      // and one without
  text += random_lines(rng, 3'000'000, "abcab ab") + "ab c";                     // no '\n' at the end
  const auto path = file("inverted.txt", text);
  const std::string where_file = path.string();
  const CliResult want = grep({"-v", "-n", "-e", "abc", where_file});
  ASSERT_EQ(want.status, 0);
  expect_on_threads_and_pipes({"-v", "-n", "abc"}, where_file, want.out);
  EXPECT_TRUE(warpmatch_test::same_output(run({"find", "-j", "4", "-v", "-H", "zzz", where_file}).out, grep({"-v", "-H", "-e", "zzz", where_file}).out));
  EXPECT_TRUE(warpmatch_test::same_output(run({"find", "-j", "4", "-v", "-n", "-e", "ab", "-e", "cb", where_file}).out, grep({"-v", "-n", "-e", "ab", "-e", "cb", where_file}).out));
  same_on_one_and_six_threads({{"find", "-v", "--json", "-n", "abc"},
                               {"find", "-v", "-w", "-n", "ab"},
                               {"approx", "-k", "1", "-v", "-n", "abca"}},
                              where_file);
}

// With context (-A, -B, -C) the lines go in parts too (LineSelector::emit_context_in_rounds):
// each part finds its context lines and group breaks from the text around it. Dense hits
// (groups that touch), sparse ones (groups apart, "--"), 2 MB without a hit, a 40 KB line
// with a hit, the last hit's line in a group of its own, no final '\n'; GNU grep is the
// oracle on the mapped file (-j 2, 3, 8) and through a pipe in windows of 256 KiB and 1 MiB;
// --json and approx against -j 1.
TEST_F(CliLines, ContextLinesPrintedOnAllThreadsAreGrepsLines) {
  std::mt19937_64 rng(80);
  std::string text = random_lines(rng, 2'000'000, "abcab ab");
  text += random_lines(rng, 2'000'000, "ab cb\r");                               // sparser hits
  text += random_lines(rng, 2'000'000, "ab b");                                  // none
  text += std::string(40'000, 'b') + "abc" + std::string(100, 'c') + "\n";
  text += random_lines(rng, 2'000'000, "ab cb");
  text += "abc\nq\nq\nq\nq\nabc\nab c";  // the last hit's line apart from the one before (-A 2); no final '\n'
  const auto path = file("context.txt", text);
  const std::string where_file = path.string();
  for (const std::vector<std::string>& context : std::vector<std::vector<std::string>>{
           {"-n", "-C", "1"}, {"-n", "-A", "2"}, {"-B", "3"}, {"-n", "-A", "1", "-B", "4"},
           {"-n", "-A", "1100"}}) {  // (more than kMaxPartContext: the serial way)
    std::vector<std::string> grep_args = context;
    grep_args.insert(grep_args.end(), {"-e", "abc", where_file});
    const CliResult want = grep(grep_args);
    ASSERT_EQ(want.status, 0);
    std::vector<std::string> args = context;
    args.push_back("abc");
    expect_on_threads_and_pipes(args, where_file, want.out, {"3"});
  }
  same_on_one_and_six_threads({"find", "--json", "-C", "1", "abc", where_file});
  same_on_one_and_six_threads({"approx", "-k", "1", "-n", "-C", "2", "abca", where_file});
}

// --color=always prints GNU grep --color=always's bytes: names, numbers, ':' '-' "--" and
// every highlighted match (leftmost, longest: sets; -i; -w; -v's context lines), also for
// lines printed in parts on all threads; --color=never and auto without a terminal print
// none; auto on a terminal (script(1)) colours unless NO_COLOR is set or TERM is dumb.
// GREP_COLORS, read as grep reads it: its capabilities (fn, ln, bn, se, ms, mc, mt, ne; an
// empty one prints no colour; parsing stops at a malformed entry) give grep's bytes.
TEST_F(CliLines, GrepColorsSetTheColoursAsInGrep) {
  const auto path = file("c.txt", "foo bar foo\nxx\nab abc\nfoofoo\nxFOO foox foo\n\nlast foo");
  const auto second = file("c2.txt", "foo\n");
  const std::string files = quote(path.string()) + " " + quote(second.string());
  for (const std::string spec : {"ms=04;32:fn=01;34:ln=33:bn=35:se=31", "mt=07", "ne", "fn=:se=", "mc=01;33:ms=32",
                                 "fn=35:bogus=x:ln=1", "rv:ln=34", "mt=01;32:ne:se=0"}) {
    for (const std::string args : {"--lines -n -H foo", "--lines -v -C 1 xx", "-l foo", "-o -b -n foo",
                                   "--lines -n -A 1 --group-separator=## xx", "--lines -c foo"}) {
      const std::string env = "GREP_COLORS=" + quote(spec) + " ";
      std::string grep_args = args;
      if (grep_args.rfind("--lines ", 0) == 0) grep_args = grep_args.substr(8);
      const CliResult want = shell(env + "LC_ALL=C /usr/bin/grep -a -F --color=always " + grep_args + " " + files);
      const CliResult got = shell(env + "\"$WM\" find --color=always " + args + " " + files);
      EXPECT_EQ(got.out, want.out) << spec << " | " << args;
      EXPECT_EQ(got.status, want.status) << spec << " | " << args;
    }
  }
  // The palette changes the bytes (it is read), and JSON stays uncoloured.
  const std::string plain = shell("\"$WM\" find --color=always --lines foo " + files).out;
  EXPECT_NE(shell("GREP_COLORS=mt=07 \"$WM\" find --color=always --lines foo " + files).out, plain);
  EXPECT_EQ(shell("GREP_COLORS=mt=07 \"$WM\" find --color=always --json foo " + files).out.find('\x1b'), std::string::npos);
}

TEST_F(CliLines, ColorIsGrepsColor) {
  std::mt19937_64 rng(81);
  const std::string small = "foo bar foo\nxx\nab abc\nfoofoo\nxFOO foox foo\n\nlast foo";
  std::string big = random_lines(rng, 3'000'000, "abcab ab");
  const auto small_path = file("small.txt", small), big_path = file("big.txt", big);
  const auto grep_color = [&](std::vector<std::string> args) {
    args.insert(args.begin(), "--color=always");
    return grep(args).out;
  };
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"-n", "-H", "-e", "foo"}, {"-n", "-C", "1", "-e", "xx"}, {"-v", "-C", "1", "-e", "xx"},
           {"-e", "ab", "-e", "abc"}, {"-n", "-i", "-e", "FOO"}, {"-w", "-e", "foo"}, {"-n", "-v", "-e", "foo"}}) {
    std::vector<std::string> ours = {"find", "--lines", "--color=always"}, theirs = args;
    ours.insert(ours.end(), args.begin(), args.end());
    ours.push_back(small_path.string());
    theirs.push_back(small_path.string());
    const std::string want = grep_color(theirs);
    if (std::find(args.begin(), args.end(), "-v") == args.end()) EXPECT_NE(want.find("\x1b[01;31m"), std::string::npos);
    EXPECT_TRUE(warpmatch_test::same_output(run(ours).out, want)) << ours[3];
  }
  EXPECT_TRUE(warpmatch_test::same_output(run({"find", "--color=always", "-o", "-b", "-n", "foo", small_path.string()}).out,
                                          grep_color({"-o", "-b", "-n", "-e", "foo", small_path.string()})));
  for (const std::string threads : {"1", "4"}) {  // in parts, the spans found on each part's thread
    EXPECT_TRUE(warpmatch_test::same_output(
        run({"find", "-j", threads, "--lines", "--color=always", "-n", "-e", "abc", "-e", "ab", big_path.string()}).out,
        grep_color({"-n", "-e", "abc", "-e", "ab", big_path.string()})))
        << "-j " << threads;
    EXPECT_TRUE(warpmatch_test::same_output(
        run({"find", "-j", threads, "--color=always", "-n", "-C", "1", "cab", big_path.string()}).out,
        grep_color({"-n", "-C", "1", "-e", "cab", big_path.string()})))
        << "-j " << threads;
  }
  const auto second = file("second.txt", "foo\n");  // -l, -L and -c name inputs in colour too
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"-l", "foo"}, {"-L", "zzz"}, {"--lines", "-c", "foo"}, {"-v", "-c", "foo"}}) {
    std::vector<std::string> ours = {"find", "--color=always"}, theirs = {"--color=always"};
    ours.insert(ours.end(), args.begin(), args.end());
    ours.insert(ours.end(), {small_path.string(), second.string()});
    for (const auto& a : args) if (a != "--lines") theirs.push_back(a == args.back() ? "-e" : a);
    theirs.insert(theirs.end(), {args.back(), small_path.string(), second.string()});
    EXPECT_EQ(run(ours).out, grep(theirs).out) << args[0];
  }
  const std::string plain = run({"find", "--lines", "foo", small_path.string()}).out;
  EXPECT_EQ(plain, grep({"-e", "foo", small_path.string()}).out);
  EXPECT_EQ(run({"find", "--lines", "--color=never", "foo", small_path.string()}).out, plain);
  EXPECT_EQ(run({"find", "--lines", "foo", small_path.string(), "--colour"}).out, plain);  // auto, not a terminal
  const CliResult bad = run({"find", "--color=sometimes", "foo", small_path.string()});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--color"), std::string::npos) << bad.err;
  // approx: its hits' bytes and its lines' alignments highlighted.
  const std::string approx = run({"approx", "-k", "1", "--lines", "--color=always", "fox", small_path.string()}).out;
  EXPECT_NE(approx.find("\x1b[01;31m\x1b[Kfoo\x1b[m\x1b[K bar"), std::string::npos) << approx;
  if (std::system("command -v script >/dev/null 2>&1") != 0) GTEST_SKIP() << "script(1) is not installed";
  const auto on_terminal = [&](const std::string& env) {
    return shell("script -qec " + quote(env + " \"$WM\" find --lines foo " + small_path.string()) + " /dev/null < /dev/null").out;
  };
  EXPECT_NE(on_terminal("TERM=xterm").find("\x1b[01;31m\x1b[Kfoo"), std::string::npos);
  EXPECT_EQ(on_terminal("TERM=xterm NO_COLOR=1").find("\x1b["), std::string::npos);
  EXPECT_EQ(on_terminal("TERM=dumb").find("\x1b["), std::string::npos);
}

// Hits printed as they are (the default output, -o, -n, --json, approx) go in batches printed
// on all threads (Searcher::print_hit_batch): hundreds of thousands of hits, numbered across
// batches and windows, print what one thread prints, and grep -o -b -n's lines for a pattern
// that cannot overlap itself; a FASTA input's records too.
TEST_F(CliLines, ManyHitsPrintedOnAllThreadsAreOneThreadsHits) {
  std::mt19937_64 rng(78);
  const std::string text = random_lines(rng, 4'000'000, std::string("abcab ab\r") + '\0') + "ab c";
  const auto path = file("hits.txt", text);
  const std::string where_file = path.string();
  std::string genome = ">one\n";
  for (int i = 0; i < 3'000'000; ++i) genome += "ACGT"[rng() % 4], genome += i % 60 == 59 ? "\n" : "";
  genome += "\n>two\n" + genome.substr(5, 600'000) + "\n";
  const auto fasta = file("g.fa", genome);
  const CliResult oracle = grep({"-o", "-b", "-n", "-e", "abc", where_file});
  ASSERT_EQ(oracle.status, 0);
  for (const std::string threads : {"3", "8"}) {
    EXPECT_TRUE(warpmatch_test::same_output(run({"find", "-j", threads, "-o", "-b", "-n", "abc", where_file}).out, oracle.out)) << "-j " << threads;
    EXPECT_TRUE(warpmatch_test::same_output(piped(where_file, {"find", "-j", threads, "--window", "512K", "-o", "-b", "-n", "abc"}).out, oracle.out))
        << "pipe, -j " << threads;
  }
  // A set's shorter patterns start in a window's overlap, which the next window owns.
  const std::string set_hits = run({"find", "-j", "1", "-b", "-n", "-e", "abcab", "-e", "b", where_file}).out;
  EXPECT_TRUE(warpmatch_test::same_output(piped(where_file, {"find", "-j", "3", "--window", "512K", "-b", "-n", "-e", "abcab", "-e", "b"}).out, set_hits));
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"find", "-n", "ab", where_file},
           {"find", "-H", "-e", "ab", "-e", "b", "-e", "a\r", where_file},
           {"find", "--json", "-n", "ab", where_file},
           {"find", "-w", "-n", "ab", where_file},
           {"approx", "-n", "-k", "1", "abca", where_file},
           {"approx", "-k", "1", "--cigar", "abca", where_file},
           {"find", "-e", "ACG", "-e", "GT", fasta.string()},
           {"approx", "-k", "1", "ACGTA", fasta.string()}}) {
    const std::string out = same_on_one_and_six_threads(args);
    EXPECT_GT(std::count(out.begin(), out.end(), '\n'), 20'000) << args[0] << " " << args[1];
  }
}

// -c with --lines or -v counts lines from each window's first hit per line (LineCounter): a
// line continuing across windows with hits in both counts once, the last line without '\n'
// counts, an input ending in '\n' has no empty last line. grep -c is the oracle, on the mapped
// file and through a pipe in windows of 1 to 64 bytes.
TEST_F(CliLines, CountsOfLinesWithAndWithoutAHitAreGrepsInEveryWindowSize) {
  std::mt19937_64 rng(29);
  for (int round = 0; round < 12; ++round) {
    std::string text = random_lines(rng, 1 + rng() % 6000, round % 2 ? "ab\n" : "abc ab");
    if (round % 3 == 0) text += "ab ca";  // a last line without '\n'
    if (round % 4 == 1) text += "\n\n";  // empty lines at the end
    const auto path = file("count.txt", text);
    for (const std::vector<std::string>& pattern : std::vector<std::vector<std::string>>{
             {"b"}, {"ca"}, {"-e", "abc", "-e", "b a"}, {"-e", "a", "-e", "zz"}}) {
      for (const bool invert : {false, true}) {
        std::vector<std::string> args = {"find", "-c", "--lines"};
        std::vector<std::string> grep_args = {"-c"};
        if (invert) args.push_back("-v"), grep_args.push_back("-v");
        args.insert(args.end(), pattern.begin(), pattern.end());
        grep_args.insert(grep_args.end(), pattern.begin(), pattern.end());
        grep_args.push_back(path.string());
        const std::string want = grep(grep_args).out;
        std::vector<std::string> mapped = args;
        mapped.push_back(path.string());
        EXPECT_TRUE(warpmatch_test::same_output(run(mapped).out, want)) << "round " << round << " " << pattern.back() << (invert ? " -v" : "");
        for (const std::string window : {std::to_string(1 + rng() % 8), std::to_string(9 + rng() % 56)}) {
          std::vector<std::string> streamed = args;
          streamed.insert(streamed.begin() + 1, {"--window", window});
          EXPECT_TRUE(warpmatch_test::same_output(piped(path.string(), streamed).out, want))
              << "round " << round << " window " << window << " " << pattern.back() << (invert ? " -v" : "");
        }
      }
    }
  }
}

// --- approx against a reference -------------------------------------------------------------------

TEST_F(CliLines, ApproxNumbersAndLinesAreTheReferences) {
  const std::string text = "the cat sat\non the mat\n\nno cats here?\nbat\r\nnothing\ncart";
  const std::string pattern = "cat";
  const auto path = file("a.txt", text);
  for (std::size_t k : {0, 1}) {
    const std::vector<ApproxHit> want = approx_hits(text, pattern, k);
    ASSERT_FALSE(want.empty());
    const CliResult r = run({"approx", "-k", std::to_string(k), "-n", "--json", pattern, path.string()});
    std::vector<ApproxHit> got;
    for (const auto& j : warpmatch_test::json_lines(r.out))
      if (j.at("type") == "match")
        got.push_back({j.at("start").get<std::size_t>(), j.at("end").get<std::size_t>(),
                       j.at("distance").get<std::size_t>(), j.at("line").get<std::size_t>()});
    EXPECT_EQ(got, want) << "k " << k;
    std::vector<std::size_t> starts;
    for (const ApproxHit& h : want) starts.push_back(h.start);
    std::sort(starts.begin(), starts.end());
    const std::string lines = print_lines(lines_of(text, starts), true);
    EXPECT_TRUE(warpmatch_test::same_output(run({"approx", "-k", std::to_string(k), "--lines", "-n", pattern, path.string()}).out, lines)) << k;
    EXPECT_TRUE(warpmatch_test::same_output(piped(path.string(), {"approx", "-k", std::to_string(k), "--window", "5", "--lines", "-n", pattern}).out, lines))
        << k;
  }
  // The text form: LINE just before START.
  EXPECT_TRUE(warpmatch_test::same_output(run({"approx", "-k", "0", "-n", pattern, path.string()}).out, "1:4:7:0:cat\n4:27:30:0:cat\n"));
  // --max-hits counts lines.
  EXPECT_TRUE(warpmatch_test::same_output(run({"approx", "-k", "1", "--lines", "--max-hits", "2", pattern, path.string()}).out, "the cat sat\non the mat\n"));
}

// --- formats, errors and flags that ignore lines -------------------------------------------------

TEST_F(CliLines, JsonLinesCarryNumberOffsetAndEscapedText) {
  const std::string text = std::string("x\n\"q\" ab\\ \t") + '\0' + "ab\nplain ab";
  const auto path = file("j.txt", text);
  const auto lines = warpmatch_test::json_lines(run({"find", "--lines", "--json", "ab", path.string()}).out);
  ASSERT_EQ(lines.size(), 3u);  // two lines and the summary
  EXPECT_EQ(lines[0].at("type"), "line");
  EXPECT_EQ(lines[0].at("line"), 2);
  EXPECT_EQ(lines[0].at("offset"), 2);
  EXPECT_EQ(lines[0].at("text"), std::string("\"q\" ab\\ \t") + '\0' + "ab");
  EXPECT_EQ(lines[0].at("path"), path.string());
  EXPECT_EQ(lines[1].at("line"), 3);
  EXPECT_EQ(lines[1].at("offset"), text.find("plain"));
  EXPECT_EQ(lines[1].at("text"), "plain ab");
  EXPECT_EQ(lines[2].at("type"), "summary");
  EXPECT_EQ(lines[2].at("matches"), 2);  // lines
  // -n: JSON matches carry "line"; without -n they do not.
  const auto hits = warpmatch_test::json_lines(run({"find", "-n", "--json", "ab", path.string()}).out);
  EXPECT_EQ(hits[0].at("line"), 2);
  EXPECT_EQ(hits[2].at("line"), 3);
  EXPECT_FALSE(warpmatch_test::json_lines(run({"find", "--json", "ab", path.string()}).out)[0].contains("line"));
}

TEST_F(CliLines, FastaInputsFailAndTheOthersAreSearched) {
  const auto fa = file("x.fa", ">r1\nACGTab\nab\n");
  const auto txt = file("t.txt", "one\ntwo ab\n");
  for (const std::string& flag : {"-n", "--lines"}) {
    const CliResult r = run({"find", flag, "ab", fa.string(), txt.string()});
    EXPECT_EQ(r.status, 2) << flag;
    EXPECT_NE(r.err.find(fa.string() + ": -n and --lines need plain text, " + fa.string() +
                         " is FASTA (--format plain searches it as text)"),
              std::string::npos)
        << r.err;
    EXPECT_TRUE(warpmatch_test::same_output(r.out, flag == "-n" ? txt.string() + ":2:8:ab\n" : txt.string() + ":two ab\n")) << flag;
    // --format plain searches it as text.
    EXPECT_TRUE(warpmatch_test::same_output(run({"find", flag, "--format", "plain", "-h", "ab", fa.string()}).out, flag == "-n" ? "2:8:ab\n3:11:ab\n" : "ACGTab\nab\n"));
  }
  EXPECT_EQ(run({"approx", "-k", "0", "--lines", "ab", fa.string()}).status, 2);
  // -n does nothing with -c, so a FASTA input is counted.
  const CliResult counted = run({"find", "-n", "-c", "ab", fa.string()});
  EXPECT_EQ(counted.status, 0);
  EXPECT_TRUE(warpmatch_test::same_output(counted.out, "2\n"));  // the record's sequence is ACGTabab
}

TEST_F(CliLines, ConflictsAndFlagsThatIgnoreLines) {
  const auto path = file("c.txt", "ACGT\nxx\nACGT ACGT\n");
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"find", "--lines", "--bed"}, {"find", "-n", "--tsv"}, {"find", "--lines", "--tsv"},
        {"find", "--lines", "--strand", "both"}, {"find", "--lines", "--circular"},
        {"approx", "-k", "0", "-n", "--bed"}, {"approx", "-k", "0", "--lines", "--strand", "-"}}) {
    std::vector<std::string> a = args;
    a.insert(a.end(), {"ACGT", path.string()});
    const CliResult r = run(a);
    EXPECT_EQ(r.status, 2) << a[1] << " " << a[2];
    EXPECT_NE(r.err.find("does not go with"), std::string::npos) << r.err;
    EXPECT_TRUE(warpmatch_test::same_output(r.out, ""));
  }
  // -n changes nothing for -c, -l, -L, -q; --lines nothing for -l, -L, -q.
  for (const std::string& flag : {"-c", "-l", "-L", "-q"}) {
    const CliResult plain = run({"find", flag, "ACGT", path.string()});
    EXPECT_TRUE(warpmatch_test::same_output(run({"find", flag, "-n", "ACGT", path.string()}).out, plain.out)) << flag;
    if (flag != "-c") {
      const CliResult lines = run({"find", flag, "--lines", "ACGT", path.string()});
      EXPECT_TRUE(warpmatch_test::same_output(lines.out, plain.out)) << flag;
      EXPECT_EQ(lines.status, plain.status) << flag;
    }
  }
  // -n with --circular numbers a hit across the junction by its start's line.
  EXPECT_TRUE(warpmatch_test::same_output(run({"find", "-n", "--circular", "ab", file("circ.txt", "bc\nxa").string()}).out, "2:4:ab\n"));
  // -n with --strand both numbers the '-' hits' lines too.
  EXPECT_TRUE(warpmatch_test::same_output(run({"find", "-n", "--strand", "both", "ACGT", path.string()}).out, "+:1:0:ACGT\n-:1:0:ACGT\n+:3:8:ACGT\n-:3:8:ACGT\n+:3:13:ACGT\n-:3:13:ACGT\n"));
}

// --- -v ---------------------------------------------------------------------------------------------

TEST_F(CliLines, InvertMatchPrintsTheLinesGrepVPrints) {
  // Empty lines, CRLF and long lines among those printed; the last line (no '\n') holds no hit.
  std::mt19937_64 rng(5);
  const std::string text = random_lines(rng, 3000, "abcab ab\rAB") + "tail";
  const auto path = file("v.txt", text);
  const auto gz = file("v.txt.gz", warpmatch_test::gzip_member(text));
  const std::vector<std::vector<std::string>> flag_sets = {{"-v"},       {"-v", "-n"}, {"-v", "-c"},
                                                           {"-v", "-m", "4", "-n"}, {"-v", "-w"}, {"-v", "-i", "-n"}};
  for (const std::string& p : {"ab", "abc", "b a"}) {
    for (const auto& flags : flag_sets) {
      std::string where = "'" + p + "'";
      for (const auto& f : flags) where += " " + f;
      std::vector<std::string> args = {"find"};
      args.insert(args.end(), flags.begin(), flags.end());
      args.insert(args.end(), {"--", p});
      std::vector<std::string> grep_args = flags;
      grep_args.insert(grep_args.end(), {"-e", p, path.string()});
      const CliResult want = grep(grep_args);
      ASSERT_FALSE(want.out.empty()) << where;
      std::vector<std::string> mapped = args;
      mapped.push_back(path.string());
      const CliResult got = run(mapped);
      EXPECT_TRUE(warpmatch_test::same_output(got.out, want.out)) << where;
      EXPECT_EQ(got.status, want.status) << where;
      std::vector<std::string> streamed = args;
      streamed.insert(streamed.begin() + 1, {"--window", "3"});
      EXPECT_TRUE(warpmatch_test::same_output(piped(path.string(), streamed).out, want.out)) << "pipe: " << where;
      streamed.push_back(gz.string());
      EXPECT_TRUE(warpmatch_test::same_output(run(streamed).out, want.out)) << "gzip: " << where;
    }
  }
  // -v and --lines split the lines between them.
  const auto count = [&](const std::string& flag) { return std::stoul(run({"find", "-c", flag, "ab", path.string()}).out); };
  EXPECT_EQ(count("-v") + count("--lines"), static_cast<unsigned long>(std::count(text.begin(), text.end(), '\n') + 1));
  // approx -k 0 selects as find does.
  EXPECT_TRUE(warpmatch_test::same_output(run({"approx", "-k", "0", "-v", "-n", "abc", path.string()}).out, run({"find", "-v", "-n", "abc", path.string()}).out));
}

TEST_F(CliLines, InvertMatchExitStatusAndFileFlags) {
  const auto all = file("all.txt", "ab\nxab\n");  // every line holds a hit: -v selects none
  const auto some = file("some.txt", "ab\nzz\n");
  const auto none = file("none.txt", "");
  for (const auto& path : {all, some, none}) {
    for (const std::vector<std::string>& flags : {std::vector<std::string>{"-v"}, {"-v", "-c"}, {"-v", "-q"}}) {
      std::vector<std::string> args = {"find"};
      args.insert(args.end(), flags.begin(), flags.end());
      args.insert(args.end(), {"ab", path.string()});
      std::vector<std::string> grep_args = flags;
      grep_args.insert(grep_args.end(), {"ab", path.string()});
      const CliResult want = grep(grep_args), got = run(args);
      EXPECT_TRUE(warpmatch_test::same_output(got.out, want.out)) << path << " " << flags.back();
      EXPECT_EQ(got.status, want.status) << path << " " << flags.back();
    }
  }
  EXPECT_TRUE(warpmatch_test::same_output(run({"find", "-v", "-l", "ab", all.string(), some.string(), none.string()}).out, some.string() + "\n"));
  EXPECT_TRUE(warpmatch_test::same_output(run({"find", "-v", "-L", "ab", all.string(), some.string(), none.string()}).out, all.string() + "\n" + none.string() + "\n"));
  EXPECT_EQ(run({"find", "-v", "--bed", "ab", some.string()}).status, 2);
}
