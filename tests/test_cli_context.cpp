// grep's context lines (-A, -B, -C) and -o (--only-matching, with -b and -n) on find and
// approx (cli/line_index.hpp, cli/line_options.hpp). GNU grep (LC_ALL=C grep -a -F) is the
// oracle: random texts whose lines hold hits often enough that context groups overlap, touch
// and stand apart, hits on the first and last lines, with and without a final '\n', several
// files (the "--" between them), -m, -v and -n with context; -o on patterns that cannot
// overlap themselves (grep -o then reports every occurrence, as warpmatch does). A pipe and
// gzip in 7-byte windows print byte for byte what the mapped file prints.
#include <random>
#include <string>
#include <vector>

#include "cli_test_support.hpp"
#include "compression_test_support.hpp"

using warpmatch_test::CliResult;
using warpmatch_test::quote;

namespace {

// Short random lines over `alphabet` (some empty, some "\r\n"-ended): with "ab" a hit on
// about one line in three, so context groups overlap, touch and stand apart.
std::string random_lines(std::mt19937_64& rng, std::size_t lines, const std::string& alphabet) {
  std::string s;
  for (std::size_t i = 0; i < lines; ++i) {
    const std::size_t length = rng() % 8 == 0 ? 0 : rng() % 12;
    for (std::size_t j = 0; j < length; ++j) s += alphabet[rng() % alphabet.size()];
    s += rng() % 5 == 0 ? "\r\n" : "\n";
  }
  return s;
}

std::string joined(const std::vector<std::string>& args) {
  std::string s;
  for (const auto& a : args) s += a + " ";
  return s;
}

class CliContext : public warpmatch_test::CliTest {
 protected:
  CliContext() : CliTest("warpmatch_cli_context_") {}

  // GNU grep -a -F (binary bytes as text, fixed strings) in the C locale.
  CliResult grep(std::vector<std::string> args) {
    args.insert(args.begin(), {"-a", "-F"});
    return gnu_grep(args);
  }

  // `flags` PATTERN FILES through find (mapped) and grep: the same output and exit status.
  void expect_grep(const std::vector<std::string>& flags, const std::string& pattern,
                   const std::vector<std::string>& files, const std::string& command = "find") {
    std::vector<std::string> args = {command};
    if (command == "approx") args.insert(args.end(), {"-k", "0"});
    args.insert(args.end(), flags.begin(), flags.end());
    args.insert(args.end(), {"--", pattern});
    args.insert(args.end(), files.begin(), files.end());
    std::vector<std::string> grep_args = flags;
    grep_args.insert(grep_args.end(), {"-e", pattern});
    grep_args.insert(grep_args.end(), files.begin(), files.end());
    const CliResult want = grep(grep_args), got = run(args);
    EXPECT_EQ(got.out, want.out) << joined(args);
    EXPECT_EQ(got.status, want.status) << joined(args) << got.err;
  }

  // The same through a pipe and gzip in 7-byte windows: what the mapped file prints.
  void expect_streamed_as_mapped(const std::vector<std::string>& flags, const std::string& pattern,
                                 const std::string& text) {
    const auto path = file("streamed.txt", text);
    const auto gz = file("streamed.txt.gz", warpmatch_test::gzip_member(text));
    std::vector<std::string> args = {"find"};
    args.insert(args.end(), flags.begin(), flags.end());
    args.insert(args.end(), {"--", pattern});
    std::vector<std::string> mapped = args;
    mapped.push_back(path.string());
    const CliResult want = run(mapped);
    ASSERT_LE(want.status, 1) << joined(mapped) << want.err;  // 1: no hit (-w), still compared
    std::vector<std::string> streamed = args;
    streamed.insert(streamed.begin() + 1, {"--window", "7"});
    EXPECT_EQ(piped(path.string(), streamed).out, want.out) << "pipe: " << joined(args);
    streamed.push_back(gz.string());
    EXPECT_EQ(run(streamed).out, want.out) << "gzip: " << joined(args);
  }
};

const std::vector<std::vector<std::string>> kContextFlags = {
    {"-A", "0"},       {"-A", "1"},       {"-A", "3"},        {"-B", "0"},
    {"-B", "1"},       {"-B", "4"},       {"-C", "0"},        {"-C", "2"},
    {"-A", "1", "-B", "3"},  {"-C", "5", "-A", "0"},  {"-n", "-C", "1"},  {"-n", "-A", "2", "-B", "1"},
    {"-m", "3", "-A", "2"},  {"-m", "1", "-A", "4", "-n"}, {"-m", "4", "-C", "3"},
    {"-v", "-A", "1"}, {"-v", "-n", "-B", "2"},  {"-v", "-m", "2", "-C", "2"}, {"-w", "-n", "-C", "1"},
};

}  // namespace

// --- context ------------------------------------------------------------------------------------

TEST_F(CliContext, ContextIsGrepsOnRandomTexts) {
  std::mt19937_64 rng(42);
  const std::string alphabet = "abcxyz ";
  // Hits on the first and last lines, the last without '\n'; then one ending in '\n' whose
  // first and last lines hold none.
  const std::string first_last = "ab first\n" + random_lines(rng, 120, alphabet) + "last ab";
  const std::string inner = "zz\n" + random_lines(rng, 120, alphabet) + "\nzz\n";
  for (const std::string& text : {first_last, inner}) {
    const auto path = file("t.txt", text);
    for (const auto& flags : kContextFlags) {
      expect_grep(flags, "ab", {path.string()});
      expect_streamed_as_mapped(flags, "ab", text);
    }
    // A pattern on fewer lines (groups apart), approx -k 0 as find.
    expect_grep({"-C", "1"}, "abc", {path.string()});
    expect_grep({"-n", "-B", "2", "-A", "1"}, "abc", {path.string()}, "approx");
  }
}

TEST_F(CliContext, SeparatorsBetweenGroupsAndFiles) {
  // Worked by hand (GNU grep 3.8 prints the same): '-' marks context lines, "--" separates
  // groups that do not touch, in one file and between files, none before the first group.
  const auto one = file("one.txt", "x1\na\nx2\nb\nc\nx3\nd\nx4\ne\n");
  const auto two = file("two.txt", "y\nx5\nz\n");
  EXPECT_EQ(run({"find", "-n", "-B", "1", "x", one.string(), two.string()}).out,
            one.string() + ":1:x1\n" + one.string() + "-2-a\n" + one.string() + ":3:x2\n--\n" +
            one.string() + "-5-c\n" + one.string() + ":6:x3\n" + one.string() + "-7-d\n" + one.string() +
            ":8:x4\n--\n" + two.string() + "-1-y\n" + two.string() + ":2:x5\n");
  EXPECT_EQ(run({"find", "-A", "0", "x", one.string()}).out, "x1\n--\nx2\n--\nx3\n--\nx4\n");
  // -m 2 -A 3: the after-context of the second selected line, whether its lines hold a hit or not.
  EXPECT_EQ(run({"find", "-n", "-m", "2", "-A", "3", "x", one.string()}).out, "1:x1\n2-a\n3:x2\n4-b\n5-c\n6-x3\n");
  // Without context options no separators.
  EXPECT_EQ(run({"find", "--lines", "x", one.string()}).out, "x1\nx2\nx3\nx4\n");

  // Against grep: several files, one without a hit and an empty one between.
  std::mt19937_64 rng(7);
  const auto a = file("a.txt", random_lines(rng, 60, "abcxyz "));
  const auto none = file("none.txt", "nothing\nhere\n");
  const auto empty = file("empty.txt", "");
  const auto b = file("b.txt", "ab\n" + random_lines(rng, 60, "abcxyz ") + "ab");
  const std::vector<std::string> files = {a.string(), none.string(), empty.string(), b.string()};
  for (const auto& flags : kContextFlags) expect_grep(flags, "ab", files);
  expect_grep({"-h", "-C", "1"}, "ab", files);
  // No selected line in the first input: the second's first group has no "--" before it.
  expect_grep({"-C", "1"}, "ab", {none.string(), b.string()});
}

TEST_F(CliContext, LongLinesAcrossTinyWindows) {
  // Lines of up to ~300 bytes span many 7-byte windows, before- and after-context too.
  std::mt19937_64 rng(3);
  std::string text;
  for (int i = 0; i < 80; ++i) {
    const std::size_t length = rng() % 4 == 0 ? 100 + rng() % 200 : rng() % 10;
    for (std::size_t j = 0; j < length; ++j) text += "abcxyz "[rng() % 7];
    text += '\n';
  }
  text += "ab at the end, no newline";
  const auto path = file("long.txt", text);
  for (const std::vector<std::string>& flags :
       {std::vector<std::string>{"-B", "3"}, {"-A", "2", "-n"}, {"-C", "1"}, {"-v", "-B", "2", "-n"}, {"-m", "2", "-A", "3"}}) {
    expect_grep(flags, "abc", {path.string()});
    expect_streamed_as_mapped(flags, "abc", text);
  }
}

TEST_F(CliContext, JsonContextObjects) {
  const auto path = file("j.txt", "one\nab\ntwo\nthree\nab\n");
  const auto lines = warpmatch_test::json_lines(run({"find", "--json", "-B", "1", "ab", path.string()}).out);
  ASSERT_EQ(lines.size(), 5u);  // context, line, context, line, summary
  EXPECT_EQ(lines[0]["type"], "context");
  EXPECT_EQ(lines[0]["line"], 1);
  EXPECT_EQ(lines[0]["text"], "one");
  EXPECT_EQ(lines[1]["type"], "line");
  EXPECT_EQ(lines[1]["line"], 2);
  EXPECT_EQ(lines[2]["type"], "context");
  EXPECT_EQ(lines[2]["line"], 4);
  EXPECT_EQ(lines[2]["offset"], 11);
  EXPECT_EQ(lines[3]["type"], "line");
  EXPECT_EQ(lines[4]["type"], "summary");
  EXPECT_EQ(lines[4]["matches"], 2);
}

TEST_F(CliContext, CountQuietAndFileListsIgnoreContext) {
  const auto some = file("some.txt", "ab\nzz\nzz\nab\n");
  const auto none = file("none.txt", "zz\n");
  for (const std::string& flag : {"-c", "-l", "-L", "-q"}) {
    for (const std::string& invert : {"", "-v"}) {
      std::vector<std::string> args = {"find", flag};
      if (!invert.empty()) args.push_back(invert);
      std::vector<std::string> plain = args, with_context = args;
      with_context.insert(with_context.end(), {"-C", "2"});
      for (auto* a : {&plain, &with_context}) a->insert(a->end(), {"ab", some.string(), none.string()});
      if (invert.empty()) plain.insert(plain.begin() + 1, "--lines");  // context implies --lines
      const CliResult want = run(plain), got = run(with_context);
      EXPECT_EQ(got.out, want.out) << joined(with_context);
      EXPECT_EQ(got.status, want.status) << joined(with_context);
    }
  }
  expect_grep({"-c", "-A", "1"}, "ab", {some.string(), none.string()});
}

// --- -o -----------------------------------------------------------------------------------------

TEST_F(CliContext, OnlyMatchingIsGrepOWithoutOverlaps) {
  // Patterns that cannot overlap themselves; NUL, 0xff and '\r' printed raw.
  std::mt19937_64 rng(9);
  const std::string alphabet = std::string("abcxyz \r") + '\0' + '\xff';
  const std::string text = "ab" + random_lines(rng, 200, alphabet) + "xyz ab";
  const auto path = file("o.txt", text);
  const auto other = file("other.txt", "no\nab ab\n");
  for (const std::string& pattern : std::vector<std::string>{"ab", "c\r", "z a", std::string("\xff") + "a"}) {
    for (const std::vector<std::string>& flags :
         {std::vector<std::string>{"-o"}, {"-o", "-b"}, {"-o", "-n"}, {"-o", "-n", "-b"}, {"-o", "-m", "3"},
          {"-o", "-i"}, {"-o", "-w", "-n"}}) {
      expect_grep(flags, pattern, {path.string()});
      expect_grep(flags, pattern, {path.string(), other.string()});
      expect_streamed_as_mapped(flags, pattern, text);
    }
  }
  expect_grep({"-o", "-b"}, "ab", {path.string()}, "approx");
  // Pattern sets: every pattern's hits (the patterns do not overlap each other here).
  EXPECT_EQ(run({"find", "-o", "-n", "-e", "ab", "-e", "xyz", path.string()}).out,
            grep({"-o", "-n", "-e", "ab", "-e", "xyz", path.string()}).out);
}

TEST_F(CliContext, OnlyMatchingPicksWhatGrepOPicks) {
  // Patterns that overlap themselves and each other: grep -o prints, in each line, the
  // leftmost hit, the longest starting there, then the same from its end on.
  const auto path = file("aaa.txt", "aaa\nxaax\naaaa\nabcab abcd\n");
  EXPECT_EQ(run({"find", "-o", "-b", "aa", path.string()}).out, "0:aa\n5:aa\n9:aa\n11:aa\n");
  EXPECT_EQ(run({"find", "-o", "-n", "aa", path.string()}).out, "1:aa\n2:aa\n3:aa\n3:aa\n");
  EXPECT_EQ(run({"find", "-o", "-b", "-e", "ab", "-e", "abc", "-e", "bca", "-e", "abcd", path.string()}).out,
            "14:abc\n17:ab\n20:abcd\n");
  // The default hits, --json and -c still give every occurrence.
  EXPECT_EQ(run({"find", "aa", path.string()}).out, "0:aa\n1:aa\n5:aa\n9:aa\n10:aa\n11:aa\n");
  EXPECT_EQ(run({"find", "-o", "-c", "aa", path.string()}).out, "6\n");
  EXPECT_EQ(warpmatch_test::json_lines(run({"find", "-o", "--json", "aa", path.string()}).out).size(), 7u);
  EXPECT_EQ(run({"find", "-b", "aa", path.string()}).out, run({"find", "aa", path.string()}).out);  // -b alone
  // Random lines of few letters against GNU grep -o -F, on one thread and on all (hits
  // printed in parts), and streamed in tiny windows (a pick's end carried across windows).
  std::mt19937_64 rng(31);
  std::string text;
  for (int i = 0; i < 40; ++i) text += random_lines(rng, 100, "aab");
  const auto many = file("many.txt", text);
  const std::vector<std::vector<std::string>> sets = {
      {"aa"}, {"aba"}, {"aaa"}, {"a", "aa"}, {"ab", "aba", "b"}, {"aab", "a", "ba", "aaab"}, {"A", "ab"}};
  for (const auto& set : sets)
    for (const std::vector<std::string>& flags : {std::vector<std::string>{"-o"}, {"-o", "-b", "-n"}, {"-o", "-i"},
                                                  {"-o", "-w"}, {"-o", "-x", "-n"}}) {
      std::vector<std::string> args = {"find"}, grep_args = flags;
      args.insert(args.end(), flags.begin(), flags.end());
      for (const std::string& p : set) {
        args.insert(args.end(), {"-e", p});
        grep_args.insert(grep_args.end(), {"-e", p});
      }
      grep_args.push_back(many.string());
      const std::string what = joined(args);
      const CliResult want = grep(grep_args);
      for (const char* threads : {"1", "0"}) {
        std::vector<std::string> with = args;
        with.insert(with.begin() + 1, {"-j", threads});
        with.push_back(many.string());
        const CliResult got = run(with);
        EXPECT_TRUE(warpmatch_test::same_output(got.out, want.out)) << what << " -j " << threads;
        EXPECT_EQ(got.status, want.status) << what;
      }
      std::vector<std::string> streamed = args;
      streamed.insert(streamed.begin() + 1, {"--window", "5"});
      EXPECT_TRUE(warpmatch_test::same_output(piped(many.string(), streamed).out, want.out)) << "pipe: " << what;
      // -m counts hits (grep -o -m counts lines): the first 5 of these picks.
      std::vector<std::string> limited = args;
      limited.insert(limited.begin() + 1, {"-m", "5"});
      limited.push_back(many.string());
      std::string first5;
      for (std::size_t at = 0, n = 0; n < 5 && at < want.out.size(); ++n) {
        const std::size_t next = want.out.find('\n', at) + 1;
        first5 += want.out.substr(at, next - at);
        at = next;
      }
      EXPECT_EQ(run(limited).out, first5) << what;
    }
  // In colour, grep -o's bytes too.
  EXPECT_EQ(run({"find", "-o", "--color=always", "-e", "a", "-e", "aa", many.string()}).out,
            grep({"-o", "--color=always", "-e", "a", "-e", "aa", many.string()}).out);
}

TEST_F(CliContext, GroupSeparatorsAreGreps) {
  // --group-separator=SEP (empty too: "--group-separator=" is an empty line, as grep's) and
  // --no-group-separator (FASTQ records by grep -A 3: no "--" between them), between groups
  // and between inputs, in colour too, on one thread and in parts.
  std::mt19937_64 rng(12);
  const std::string text = random_lines(rng, 400, "abxyz ");
  const auto path = file("g.txt", text);
  const auto other = file("h.txt", "ab\nx\ny\nab\n");
  for (const std::vector<std::string>& separator :
       {std::vector<std::string>{"--group-separator=##"}, {"--group-separator="}, {"--group-separator", "=>"},
        {"--no-group-separator"}}) {
    for (const std::vector<std::string>& context :
         {std::vector<std::string>{"-A", "1"}, {"-B", "2", "-n"}, {"-C", "1", "-v"}, {"-A", "0"}}) {
      std::vector<std::string> flags = separator;
      flags.insert(flags.end(), context.begin(), context.end());
      expect_grep(flags, "ab", {path.string()});
      expect_grep(flags, "ab", {path.string(), other.string()});
      expect_streamed_as_mapped(flags, "ab", text);
      flags.push_back("--color=always");
      expect_grep(flags, "ab", {path.string(), other.string()});
    }
  }
  // "--name=" is an empty value; after "--" such an argument is an operand (a pattern here).
  const auto dashes = file("d.txt", "a --x= b\n");
  EXPECT_EQ(run({"find", "--", "--x=", dashes.string()}).out, "2:--x=\n");
  EXPECT_EQ(run({"find", "-e", "x", "--label=", "-c", dashes.string()}).out, "0:1\n");  // (not "--label" "-c")
  // Without context there is no group to separate.
  EXPECT_EQ(run({"find", "--lines", "--group-separator=##", "ab", other.string()}).out, "ab\nab\n");
}

TEST_F(CliContext, Conflicts) {
  const auto path = file("c.txt", "ACGT\nxx\nACGT\n");
  for (const std::vector<std::string>& flags :
       {std::vector<std::string>{"-o", "--lines"}, {"-o", "-v"}, {"-o", "-A", "1"}, {"-o", "-C", "0"}, {"-o", "--bed"},
        {"-o", "--tsv"}, {"-b", "--lines"}, {"-b", "-B", "1"}, {"-A", "1", "--bed"}, {"-C", "1", "--tsv"},
        {"-B", "1", "--circular"}, {"-A", "1", "--strand", "both"}}) {
    for (const std::string& command : {"find", "approx"}) {
      std::vector<std::string> args = {command};
      if (command == "approx") args.insert(args.end(), {"-k", "0"});
      args.insert(args.end(), flags.begin(), flags.end());
      args.insert(args.end(), {"ACGT", path.string()});
      const CliResult r = run(args);
      EXPECT_EQ(r.status, 2) << joined(args);
      EXPECT_NE(r.err.find("does not go with"), std::string::npos) << joined(args) << r.err;
      EXPECT_EQ(r.out, "") << joined(args);
    }
  }
  EXPECT_EQ(run({"find", "-A", "-1", "ACGT", path.string()}).status, 2);  // a negative count
  // FASTA inputs fail with context, as with --lines.
  const auto fasta = file("r.fa", ">r\nACGT\n");
  EXPECT_EQ(run({"find", "-C", "1", "ACGT", fasta.string()}).status, 2);
}
