// -w / --word-regexp on find (one pattern, pattern sets) and approx, and -x / --line-regexp
// on find (cli/word_match.hpp, the searcher's filter): GNU grep (/usr/bin/grep -o -b -w -F) is the oracle on plain files where
// it reports what find does (patterns whose kept occurrences cannot overlap: grep -o skips
// overlapping ones); elsewhere a reference loop over the whole text (every occurrence, or
// every approximate hit's start and end as approx defines them, then the word test). Streamed
// inputs (a pipe, gzip, FASTA) in windows as small as 1 byte give what the whole input gives:
// occurrences straddle window boundaries and the byte before them lies in the previous window.
#include <algorithm>
#include <cstdint>
#include <ostream>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "cli_test_support.hpp"
#include "compression_test_support.hpp"

using warpmatch_test::CliResult;
using warpmatch_test::levenshtein;
using warpmatch_test::quote;

namespace {

bool word_byte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Whether [start, end) of `text` (one record) is a whole word: grep -w's test.
bool bounded(const std::string& text, std::size_t start, std::size_t end) {
  return (start == 0 || !word_byte(text[start - 1])) && (end == text.size() || !word_byte(text[end]));
}

char fold(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

struct Hit {
  std::string record;
  std::uint64_t pattern = 0, start = 0, end = 0, distance = 0;
  auto operator<=>(const Hit&) const = default;
  friend std::ostream& operator<<(std::ostream& os, const Hit& h) {
    return os << "{" << h.record << " p" << h.pattern << " " << h.start << ".." << h.end << " d" << h.distance << "}";
  }
};

using Records = std::vector<std::pair<std::string, std::string>>;  // (name, sequence)

// Every occurrence of every pattern that is a whole word, in the order find reports them:
// records in order, then (start, pattern).
std::vector<Hit> exact_words(const Records& records, const std::vector<std::string>& patterns,
                             bool ignore_case = false, bool word = true) {
  std::vector<Hit> hits;
  for (const auto& [name, text] : records)
    for (std::size_t s = 0; s < text.size(); ++s)
      for (std::size_t p = 0; p < patterns.size(); ++p) {
        const std::string& pat = patterns[p];
        if (s + pat.size() > text.size()) continue;
        bool equal = true;
        for (std::size_t i = 0; i < pat.size() && equal; ++i)
          equal = ignore_case ? fold(text[s + i]) == fold(pat[i]) : text[s + i] == pat[i];
        if (equal && (!word || bounded(text, s, s + pat.size()))) hits.push_back({name, p, s, s + pat.size(), 0});
      }
  return hits;
}

// approx -k k's hits as warpmatch/approx.hpp defines them: every end e with dist(e) = min over
// s of ED(pattern, text[s:e]) <= k, its start the largest s attaining dist(e); then, with
// `word`, those whose [start, end) is a whole word. One pattern, ascending end per record.
std::vector<Hit> approx_words(const Records& records, const std::string& pattern, std::size_t k, bool word = true) {
  std::vector<Hit> hits;
  const std::size_t m = pattern.size();
  for (const auto& [name, text] : records)
    for (std::size_t e = 1; e <= text.size(); ++e) {
      std::size_t best = m + 1, start = 0;
      for (std::size_t s = e >= m + k ? e - m - k : 0; s <= e; ++s) {
        const std::size_t d = levenshtein(pattern, text.substr(s, e - s));
        if (d <= best) best = d, start = s;  // the largest s at the minimum
      }
      if (best <= k && (!word || bounded(text, start, e))) hits.push_back({name, 0, start, e, best});
    }
  return hits;
}

// The match lines of find/approx --json.
std::vector<Hit> json_hits(const std::string& out) {
  std::vector<Hit> hits;
  for (const auto& j : warpmatch_test::json_lines(out)) {
    if (j.at("type") != "match") continue;
    Hit h;
    if (!j.at("record").is_null()) h.record = j.at("record").get<std::string>();
    h.pattern = j.at("pattern").get<std::uint64_t>();
    h.start = j.at("start").get<std::uint64_t>();
    h.end = j.at("end").get<std::uint64_t>();
    h.distance = j.value("distance", std::uint64_t{0});
    hits.push_back(h);
  }
  return hits;
}

std::string random_text(std::mt19937_64& rng, std::size_t n, const std::string& alphabet) {
  std::string s(n, ' ');
  for (char& c : s) c = alphabet[rng() % alphabet.size()];
  return s;
}

// About `n` bytes of the `tokens` in random order (a word between non-word bytes comes often).
std::string random_tokens(std::mt19937_64& rng, std::size_t n, const std::vector<std::string>& tokens) {
  std::string s;
  while (s.size() < n) s += tokens[rng() % tokens.size()];
  return s;
}

// FASTA of `records`, their sequences broken into lines of 1..9 bytes.
std::string fasta(const Records& records, std::mt19937_64& rng) {
  std::string f;
  for (const auto& [name, seq] : records) {
    f += ">" + name + " a description\n";
    for (std::size_t i = 0; i < seq.size();) {
      const std::size_t width = 1 + rng() % 9;
      f += seq.substr(i, width) + "\n";
      i += width;
    }
  }
  return f;
}

class CliWord : public warpmatch_test::CliTest {
 protected:
  CliWord() : CliTest("warpmatch_cli_word_") {}

  // GNU grep in the C locale (in C.UTF-8, grep 3.8 -F -i -w keeps "-a" right after "-A" in
  // "-A-a", though 'A' is a word byte before it).
  CliResult grep(const std::vector<std::string>& args) { return gnu_grep(args); }
};

// The window sizes of the streamed runs: a window of 1 byte has every start of its own at
// its front, the byte before it in the previous window; larger ones put boundaries anywhere.
const std::vector<std::string> kWindows = {"1", "2", "3", "5", "8", "13", "64"};

}  // namespace

// --- find: GNU grep as the oracle ----------------------------------------------------------------

TEST_F(CliWord, FindPrintsWhatGrepOwbPrints) {
  // Words at the start and the end of the input and of lines, beside punctuation, '_', digits,
  // spaces, tabs; patterns that start or end with a non-word byte (only the byte outside is
  // tested), a pattern with a space inside; the input with and without a final line break.
  const std::string base =
      "foo bar foobar barfoo foo_bar _foo foo_ 1foo foo1 foo.bar (foo) [foo]\n"
      "foo\n"
      "-foo- a-foo -foo a -foo- x.foo. .foo. foo. foo bar foo  bar foo\tbar\n"
      "Foo FOO fOo foo\n"
      "foofoo foo foo\n"
      "foo";
  struct Case {
    std::string pattern;
    bool ignore_case = false;
  };
  const std::vector<Case> cases = {{"foo"},     {"bar"},       {"foo bar"}, {"-foo"}, {"foo."},  {".foo."},
                                   {"(foo)"},   {"-foo-"},     {"o"},       {"_"},    {"foo", true},
                                   {"FOO", true}, {"foo bar", true}};
  for (const char* end : {"", "\n"}) {
    const auto path = file("in.txt", base + end);
    for (const Case& c : cases) {
      // "--": a pattern may start with '-'.
      std::vector<std::string> wm = {"find", "-w", "--", c.pattern, path.string()};
      std::vector<std::string> gr = {"-o", "-b", "-w", "-F", "--", c.pattern, path.string()};
      if (c.ignore_case) {
        wm.insert(wm.begin() + 1, "-i");
        gr.insert(gr.begin(), "-i");
      }
      const CliResult want = grep(gr);
      const CliResult got = run(wm);
      EXPECT_EQ(got.out, want.out) << "'" << c.pattern << "' -i " << c.ignore_case << " end '" << end << "'";
      EXPECT_EQ(got.status, want.status) << c.pattern;
      // The whole-text reference agrees (and -w changes something: it is tested).
      const auto ref = exact_words({{"", base + end}}, {c.pattern}, c.ignore_case);
      std::string lines;
      for (const Hit& h : ref) lines += std::to_string(h.start) + ":" + (base + end).substr(h.start, h.end - h.start) + "\n";
      EXPECT_EQ(got.out, lines) << c.pattern;
    }
  }
  const auto path = file("in.txt", base);
  EXPECT_NE(run({"find", "foo", path.string()}).out, run({"find", "-w", "foo", path.string()}).out);
  EXPECT_EQ(run({"find", "-w", "foo", path.string()}).out.substr(0, 6), "0:foo\n");  // the input's start
}

TEST_F(CliWord, FindOnRandomTextsPrintsWhatGrepPrints) {
  // Texts of few letters, so that words and their neighbours come in every combination; the
  // patterns are all word bytes or start / end with a non-word byte, without a border through
  // a non-word byte (their kept occurrences cannot overlap, so grep -o reports them all).
  std::mt19937_64 rng(4242);
  const std::vector<std::string> patterns = {"a", "ab", "ba", "aab", "a_b", "1a", "-a", "b.", "a b", "b-a"};
  for (int round = 0; round < 6; ++round) {
    const std::string text = random_text(rng, 3000, "ab_1 -.\n\tAB");
    const auto path = file("r.txt", text);
    for (const std::string& p : patterns)
      for (bool icase : {false, true}) {
        std::vector<std::string> wm = {"find", "-w", p, path.string()};
        std::vector<std::string> gr = {"-o", "-b", "-w", "-F", "-e", p, path.string()};
        if (icase) {
          wm.insert(wm.begin() + 1, "-i");
          gr.insert(gr.begin(), "-i");
        }
        wm.insert(wm.end() - 2, "--");  // a pattern may start with '-'
        const CliResult got = run(wm);
        EXPECT_EQ(got.out, grep(gr).out) << "round " << round << " '" << p << "' -i " << icase;
        wm.insert(wm.begin() + 1, "--json");
        EXPECT_EQ(json_hits(run(wm).out), exact_words({{"", text}}, {p}, icase)) << p;
      }
  }
}

TEST_F(CliWord, PatternSetsKeepEachPatternsWholeWords) {
  // One pattern a prefix (and one a suffix) of another: "foo" inside "foobar" is not a word,
  // "foobar" is; every occurrence of every pattern is tested on its own.
  const std::string text = "foo foobar barfoo bar foobarbaz baz-foo foo_bar FOOBAR\nfoo";
  const auto path = file("s.txt", text);
  const std::vector<std::string> patterns = {"foo", "foobar", "bar", "barbaz", "o"};
  std::vector<std::string> args = {"find", "-w", "--json"};
  for (const auto& p : patterns) args.insert(args.end(), {"-e", p});
  args.push_back(path.string());
  const std::vector<Hit> got = json_hits(run(args).out);
  EXPECT_EQ(got, exact_words({{"", text}}, patterns));
  ASSERT_EQ(got.size(), 5u);  // foo@0, foobar@4, bar@18, foo@36 (after '-'), foo@55 (after a line break)
  // grep -w with the same set (leftmost-longest, non-overlapping: here the same occurrences).
  std::vector<std::string> gr = {"-o", "-b", "-w", "-F"};
  for (const auto& p : patterns) gr.insert(gr.end(), {"-e", p});
  gr.push_back(path.string());
  std::string want;
  for (const Hit& h : got) want += std::to_string(h.start) + ":" + text.substr(h.start, h.end - h.start) + "\n";
  EXPECT_EQ(grep(gr).out, want);
  // -i: FOOBAR too; and the count per pattern (-c) of the set.
  args.insert(args.begin() + 1, "-i");
  EXPECT_EQ(json_hits(run(args).out), exact_words({{"", text}}, patterns, true));
  std::vector<std::string> count = {"find", "-w", "-c", "--include-zero"};
  for (const auto& p : patterns) count.insert(count.end(), {"-e", p});
  count.push_back(path.string());
  std::string want_counts;
  for (std::size_t p = 0; p < patterns.size(); ++p) {
    std::size_t n = 0;
    for (const Hit& h : got) n += h.pattern == p;
    want_counts += std::to_string(p) + ":" + std::to_string(n) + "\n";
  }
  EXPECT_EQ(run(count).out, want_counts);
}

TEST_F(CliWord, OverlappingOccurrencesAreEachTested) {
  // "aa" in "aaa": neither occurrence is a word; in "aa aa" both are. A pattern whose
  // occurrences overlap through a non-word byte ("a-a" in "a-a-a") keeps both (grep -o would
  // print the first only); a pattern of non-word bytes is bounded by whatever is around it.
  const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
      {"aaa", "aa", ""},
      {"aa aa aaa", "aa", "0:aa\n3:aa\n"},
      {"a-a-a", "a-a", "0:a-a\n2:a-a\n"},
      {"xa-a-a", "a-a", "3:a-a\n"},
      {"a - b -- c-", "-", "2:-\n6:-\n7:-\n"},
      {"--- x", "--", "0:--\n1:--\n"},
  };
  for (const auto& [text, pattern, want] : cases) {
    const auto path = file("o.txt", text);
    const CliResult r = run({"find", "-w", "--", pattern, path.string()});
    EXPECT_EQ(r.out, want) << "'" << pattern << "' in '" << text << "'";
    EXPECT_EQ(r.status, want.empty() ? 1 : 0);
    // Streamed in 1-byte windows too.
    EXPECT_EQ(piped(path.string(), {"find", "-w", "--window", "1", "--", pattern}).out, want) << pattern;
  }
}

// --- windows -------------------------------------------------------------------------------------

TEST_F(CliWord, TinyWindowsGiveWhatTheWholeInputGives) {
  // A pipe and a gzip file in windows of 1..64 bytes against the reference over the whole
  // text: occurrences straddle every window boundary, the byte before a window's first start
  // is the previous window's, the byte after a hit at a window's end the next window's.
  std::mt19937_64 rng(99);
  const std::string text = random_text(rng, 1500, "ab_ .") + " ab";  // a word at the very end
  const auto path = file("t.txt", text);
  const auto gz = file("t.txt.gz", warpmatch_test::gzip_member(text));
  const std::vector<std::string> set = {"ab", "a", "b a", "ab_a", ".a"};
  const std::vector<Hit> want_one = exact_words({{"", text}}, {"ab"});
  const std::vector<Hit> want_set = exact_words({{"", text}}, set);
  ASSERT_GT(want_one.size(), 10u);
  ASSERT_EQ(want_one.back().end, text.size());
  EXPECT_EQ(json_hits(run({"find", "-w", "--json", "ab", path.string()}).out), want_one);  // mapped, one window
  for (const std::string& window : kWindows) {
    std::vector<std::string> set_args = {"find", "-w", "--json", "--window", window};
    for (const auto& p : set) set_args.insert(set_args.end(), {"-e", p});
    EXPECT_EQ(json_hits(piped(path.string(), {"find", "-w", "--json", "--window", window, "ab"}).out), want_one)
        << "pipe, window " << window;
    EXPECT_EQ(json_hits(run({"find", "-w", "--json", "--window", window, "ab", gz.string()}).out), want_one)
        << "gzip, window " << window;
    EXPECT_EQ(json_hits(piped(path.string(), set_args).out), want_set) << "set, window " << window;
    set_args.push_back(gz.string());
    EXPECT_EQ(json_hits(run(set_args).out), want_set) << "set, gzip, window " << window;
    // -c goes through the listing path with -w and counts the same hits.
    EXPECT_EQ(piped(path.string(), {"find", "-w", "-c", "--window", window, "ab"}).out,
              std::to_string(want_one.size()) + "\n")
        << window;
  }
}

TEST_F(CliWord, FastaRecordsBoundWordsAndLineBreaksDoNot) {
  // A record's start and end bound a word (the next record's first byte is not "after" it);
  // line breaks inside a sequence are not bytes of it: "AC\nGT" is the word ACGT. Every
  // record through 1..64-byte windows and gzip; FASTQ too.
  std::mt19937_64 rng(7);
  Records records = {{"r1", "ACGT"}, {"r2", "ACGTACGT"}, {"r3", "TACGT"}, {"r4", "ACGT-ACGT.NACGT"}, {"r5", ""},
                     {"r6", "ACGT"}};
  for (int r = 0; r < 30; ++r)
    records.push_back({"x" + std::to_string(r), random_tokens(rng, rng() % 120, {"ACGT", "-", ".", "A", "GT", "N"})});
  const std::string fa = fasta(records, rng);
  const auto path = file("g.fa", fa);
  const auto gz = file("g.fa.gz", warpmatch_test::gzip_member(fa));
  const std::vector<Hit> want = exact_words(records, {"ACGT"});
  ASSERT_GT(want.size(), 10u);
  EXPECT_EQ(want[0].record, "r1");
  EXPECT_EQ(json_hits(run({"find", "-w", "--json", "ACGT", path.string()}).out), want);
  for (const std::string& window : kWindows) {
    EXPECT_EQ(json_hits(run({"find", "-w", "--json", "--window", window, "ACGT", path.string()}).out), want)
        << "window " << window;
    EXPECT_EQ(json_hits(piped(gz.string(), {"find", "-w", "--json", "--window", window, "ACGT"}).out), want)
        << "gzip pipe, window " << window;
  }
  const auto fq = file("g.fq", "@q1\nACGT\n+\nIIII\n@q2\nTTACGT-ACGT\n+\nIIIIIIIIIII\n");
  EXPECT_EQ(run({"find", "-w", "ACGT", fq.string()}).out, "q1:0:ACGT\nq2:7:ACGT\n");
}

TEST_F(CliWord, BothStrandsTestTheForwardText) {
  // A '-' hit (the reverse complement's occurrence) is reported and tested at its forward
  // coordinates: CGTT is AACG's reverse complement.
  const Records records = {{"c", "CGTT-AACG-CGTTA.AACGT.CGTT"}};
  std::mt19937_64 rng(3);
  const auto path = file("s.fa", fasta(records, rng));
  const CliResult r = run({"find", "-w", "--strand", "both", "AACG", path.string()});
  EXPECT_EQ(r.out, "c:-:0:CGTT\nc:+:5:AACG\nc:-:22:CGTT\n");
  for (const std::string& window : kWindows)
    EXPECT_EQ(run({"find", "-w", "--strand", "both", "--window", window, "AACG", path.string()}).out, r.out)
        << window;
  // approx: the same test on the forward coordinates of each strand's hits.
  const CliResult a = run({"approx", "-w", "-k", "0", "--strand", "both", "AACG", path.string()});
  EXPECT_EQ(a.out, "c:+:5:9:0:AACG\nc:-:0:4:0:CGTT\nc:-:22:26:0:CGTT\n");
}

// --- -c, -l, -L, -m, -q, stdin, formats -------------------------------------------------------

TEST_F(CliWord, CountsListsAndLimitsSeeOnlyWholeWords) {
  const auto words = file("words.txt", "x foo foobar foo. foo_ (foo)\n");  // 3 whole words
  const auto none = file("none.txt", "foobar foo_ _foo foofoo\n");       // 5 occurrences, no word
  // -c: the kept occurrences (the count-only fast path would count them all), as grep -o -w.
  EXPECT_EQ(run({"find", "-c", "foo", words.string()}).out, "5\n");
  EXPECT_EQ(run({"find", "-w", "-c", "foo", words.string()}).out, "3\n");
  EXPECT_EQ(grep({"-o", "-w", "-F", "foo", words.string()}).out, "foo\nfoo\nfoo\n");
  EXPECT_EQ(run({"find", "-w", "-c", "foo", words.string(), none.string()}).out,
            words.string() + ":3\n" + none.string() + ":0\n");
  EXPECT_EQ(run({"approx", "-k", "0", "-w", "-c", "foo", words.string(), none.string()}).out,
            words.string() + ":3\n" + none.string() + ":0\n");
  // -l / -L: by whether an input has a whole word (none.txt has occurrences, no word).
  for (const std::vector<std::string>& cmd : {std::vector<std::string>{"find"}, {"approx", "-k", "0"}}) {
    std::vector<std::string> l = cmd, L = cmd;
    l.insert(l.end(), {"-w", "-l", "foo", words.string(), none.string()});
    L.insert(L.end(), {"-w", "-L", "foo", words.string(), none.string()});
    EXPECT_EQ(run(l).out, words.string() + "\n") << cmd[0];
    EXPECT_EQ(run(L).out, none.string() + "\n") << cmd[0];
    std::vector<std::string> q = cmd;
    q.insert(q.end(), {"-w", "-q", "foo", none.string()});
    EXPECT_EQ(run(q).status, 1) << cmd[0];  // occurrences, but no word
    q.back() = words.string();
    EXPECT_EQ(run(q).status, 0) << cmd[0];
  }
  EXPECT_EQ(run({"find", "-l", "foo", none.string()}).out, none.string() + "\n");  // without -w: listed
  // -m 2: the first two kept occurrences (not the first two occurrences).
  EXPECT_EQ(run({"find", "-w", "-m", "2", "foo", words.string()}).out, "2:foo\n13:foo\n");
  EXPECT_EQ(run({"find", "-w", "-m", "2", "-c", "foo", words.string()}).out, "2\n");
  EXPECT_EQ(run({"approx", "-k", "0", "-w", "--max-hits", "2", "foo", words.string()}).out,
            "2:5:0:foo\n13:16:0:foo\n");
  EXPECT_EQ(piped(words.string(), {"find", "-w", "-m", "2", "--window", "1", "foo"}).out, "2:foo\n13:foo\n");
  // Standard input: none given and '-'.
  EXPECT_EQ(run({"find", "-w", "foo"}, "foo foobar foo").out, "0:foo\n11:foo\n");
  EXPECT_EQ(run({"find", "-w", "-c", "foo", "-"}, "foo foobar foo").out, "2\n");
  EXPECT_EQ(run({"approx", "-w", "-k", "1", "foo", "-"}, "fo foobar").out, "0:2:1:fo\n");
}

TEST_F(CliWord, FormatsOnlyFilter) {
  const std::string fa = ">c1\nACGT-ACGTT\n>c2\nTTACGT.ACGT\n";
  const auto path = file("f.fa", fa);
  EXPECT_EQ(run({"find", "-w", "--bed", "ACGT", path.string()}).out, "c1\t0\t4\t0\t0\t+\nc2\t7\t11\t0\t0\t+\n");
  EXPECT_EQ(run({"find", "-w", "--tsv", "ACGT", path.string()}).out,
            "seqID\tpatternName\tpattern\tstrand\tstart\tend\tmatched\n"
            "c1\t0\tACGT\t+\t1\t4\tACGT\nc2\t0\tACGT\t+\t8\t11\tACGT\n");
  const CliResult j = run({"find", "-w", "--json", "ACGT", path.string()});
  EXPECT_EQ(json_hits(j.out), (std::vector<Hit>{{"c1", 0, 0, 4, 0}, {"c2", 0, 7, 11, 0}}));
  EXPECT_EQ(warpmatch_test::json_lines(j.out).back().at("matches"), 2);
  EXPECT_EQ(run({"approx", "-w", "-k", "0", "--bed", "ACGT", path.string()}).out,
            "c1\t0\t4\t0\t0\t+\nc2\t7\t11\t0\t0\t+\n");
}

// --- approx ---------------------------------------------------------------------------------------

TEST_F(CliWord, ApproxKeepsTheHitsWhoseReportedStartAndEndBoundAWord) {
  // k = 1 against the reference (every end's distance and largest start, then the word test),
  // whole and streamed in 1..64-byte windows (a hit's end at a window's last byte, its start
  // in the previous window); -c counts the same hits (starts are recovered for the test).
  std::mt19937_64 rng(11);
  for (int round = 0; round < 3; ++round) {
    const std::string text = "abc " + random_text(rng, 700, "abc_ .") + " abc";
    const auto path = file("a.txt", text);
    const auto gz = file("a.txt.gz", warpmatch_test::gzip_member(text));
    for (const std::string pattern : {"abc", "ab", "a.b"}) {
      const std::vector<Hit> want = approx_words({{"", text}}, pattern, 1);
      ASSERT_FALSE(want.empty()) << pattern;
      ASSERT_LT(want.size(), approx_words({{"", text}}, pattern, 1, false).size()) << pattern;  // -w filters
      EXPECT_EQ(json_hits(run({"approx", "-w", "-k", "1", "--json", pattern, path.string()}).out), want)
          << "round " << round << " " << pattern;
      EXPECT_EQ(run({"approx", "-w", "-k", "1", "-c", pattern, path.string()}).out,
                std::to_string(want.size()) + "\n");
      for (const std::string& window : kWindows) {
        EXPECT_EQ(json_hits(piped(path.string(), {"approx", "-w", "-k", "1", "--json", "--window", window, pattern}).out),
                  want)
            << "round " << round << " " << pattern << " window " << window;
        EXPECT_EQ(run({"approx", "-w", "-k", "1", "-c", "--window", window, pattern, gz.string()}).out,
                  std::to_string(want.size()) + "\n")
            << pattern << " window " << window;
      }
    }
  }
}

TEST_F(CliWord, ApproxOnFastaRecords) {
  std::mt19937_64 rng(5);
  Records records = {{"a", "GATTACA"}, {"b", "GATTAC"}, {"c", "TGATTACA-GATACA"}, {"d", ""}};
  for (int r = 0; r < 12; ++r) records.push_back({"r" + std::to_string(r), random_text(rng, rng() % 80, "ACGT-")});
  const auto path = file("g.fa", fasta(records, rng));
  const std::vector<Hit> want = approx_words(records, "GATTACA", 1);
  ASSERT_GE(want.size(), 3u);
  EXPECT_EQ(json_hits(run({"approx", "-w", "-k", "1", "--json", "GATTACA", path.string()}).out), want);
  for (const std::string& window : kWindows)
    EXPECT_EQ(json_hits(run({"approx", "-w", "-k", "1", "--json", "--window", window, "GATTACA", path.string()}).out),
              want)
        << window;
}

// --- what -w does not go with ---------------------------------------------------------------------

TEST_F(CliWord, RefusedCombinationsAndHelp) {
  const auto path = file("x.txt", "foo\n");
  const std::vector<std::pair<std::vector<std::string>, std::string>> refused = {
      {{"find", "-w", "--circular", "foo", path.string()}, "--circular"},
      {{"approx", "-w", "-k", "1", "--circular", "foo", path.string()}, "--circular"},
      {{"approx", "-w", "--best", "foo", path.string()}, "--best"},
      {{"approx", "-w", "-k", "1", "--best-per-cluster", "foo", path.string()}, "--best-per-cluster"},
  };
  for (const auto& [args, option] : refused) {
    const CliResult r = run(args);
    EXPECT_EQ(r.status, 2) << option;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err.rfind("warpmatch: -w (--word-regexp) does not go with " + option + ": ", 0), 0u) << r.err;
  }
  for (const std::string command : {"find", "approx"}) {
    const std::string help = run({command, "--help"}).out;
    EXPECT_NE(help.find("-w,--word-regexp"), std::string::npos) << command;
    EXPECT_NE(help.find("Words (-w, as grep -w in the C locale)"), std::string::npos) << command;
  }
}

// --- find -x: whole lines, GNU grep -x -F as the oracle ---------------------------------------------

namespace {

// The lines of `text` ('\n' apart; a last line without '\n' too) equal to one of `patterns`
// (ASCII case folded with `ignore_case`), each once: what grep -x -F selects.
std::vector<std::size_t> whole_lines(const std::string& text, const std::vector<std::string>& patterns,
                                     bool ignore_case) {
  std::vector<std::size_t> numbers;
  std::size_t number = 0;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string line = text.substr(at, end - at);
    ++number;
    for (const std::string& p : patterns) {
      bool equal = p.size() == line.size();
      for (std::size_t i = 0; i < p.size() && equal; ++i)
        equal = ignore_case ? fold(p[i]) == fold(line[i]) : p[i] == line[i];
      if (equal) {
        numbers.push_back(number);
        break;
      }
    }
    at = end + 1;
  }
  return numbers;
}

}  // namespace

TEST_F(CliWord, LineRegexpSelectsWhatGrepXSelects) {
  // Short lines of few letters, so that a line equals a pattern, holds it, or holds it with
  // a '\r' (part of the line, as grep reads it) in every combination; empty lines; the text
  // with and without a final line break.
  std::mt19937_64 rng(5150);
  const std::vector<std::string> tokens = {"ab", "a", "b", "ab\r", "\n", "\n", "\n", "aB", "ab ab", " "};
  const std::vector<std::vector<std::string>> sets = {{"ab"}, {"a"}, {"ab ab"}, {"ab", "a"}, {"a", "b", "ab"}};
  for (int round = 0; round < 4; ++round) {
    std::string text = random_tokens(rng, 2000, tokens);
    if (round % 2) text += "\n";
    const auto path = file("x.txt", text);
    for (const auto& set : sets)
      for (bool icase : {false, true}) {
        std::vector<std::string> pats;
        for (const std::string& p : set) pats.insert(pats.end(), {"-e", p});
        std::vector<std::string> wm = {"find", "-x"}, gr = {"-x", "-F"};
        if (icase) wm.push_back("-i"), gr.push_back("-i");
        wm.insert(wm.end(), pats.begin(), pats.end());
        gr.insert(gr.end(), pats.begin(), pats.end());
        const std::string what = "round " + std::to_string(round) + " set " + set.front() + " -i " + std::to_string(icase);
        const auto with = [&](std::vector<std::string> args, std::initializer_list<std::string> more) {
          args.insert(args.begin() + 1, more);
          args.push_back(path.string());
          return args;
        };
        const CliResult want = grep(with(gr, {"-n"}));
        const CliResult got = run(with(wm, {"-n", "--lines"}));
        EXPECT_EQ(got.out, want.out) << what;
        EXPECT_EQ(got.status, want.status) << what;
        // The reference agrees, and -x selects something here and not every line with a hit.
        std::string numbered;
        for (std::size_t n : whole_lines(text, set, icase)) numbered += std::to_string(n) + ":";
        std::string got_numbers;
        for (std::size_t at = 0; at < got.out.size(); at = got.out.find('\n', at) + 1)
          got_numbers += got.out.substr(at, got.out.find(':', at) - at + 1);
        EXPECT_EQ(got_numbers, numbered) << what;
        EXPECT_EQ(run(with(wm, {"-v", "-n"})).out, grep(with(gr, {"-v", "-n"})).out) << what;
        EXPECT_EQ(run(with(wm, {"-c", "--lines"})).out, grep(with(gr, {"-c"})).out) << what;
        EXPECT_EQ(run(with(wm, {"-n", "-C", "1"})).out, grep(with(gr, {"-n", "-C", "1"})).out) << what;
        EXPECT_EQ(run(with(wm, {"-o", "-b"})).out, grep(with(gr, {"-o", "-b"})).out) << what;
        EXPECT_EQ(run(with(wm, {"-w", "-n", "--lines"})).out, want.out) << what;  // -x wins over -w
        EXPECT_EQ(run(with(wm, {"--lines", "--color=always", "-H"})).out,
                  grep(with(gr, {"--color=always", "-H"})).out)
            << what;
      }
    // The pattern found inside longer lines is not selected: -x changes the output.
    EXPECT_NE(run({"find", "-n", "--lines", "ab", path.string()}).out,
              run({"find", "-x", "-n", "--lines", "ab", path.string()}).out);
  }
}

TEST_F(CliWord, LineRegexpInTinyWindowsAndRecords) {
  // A pipe and a gzip file in windows of 1..64 bytes give what the mapped file gives: the
  // line breaks on either side of a hit lie in the windows before and after it.
  std::mt19937_64 rng(77);
  const std::string text = random_tokens(rng, 1500, {"ab", "a", "\n", "\n", "b"}) + "\nab";  // a last line without '\n'
  const auto path = file("t.txt", text);
  const auto gz = file("t.txt.gz", warpmatch_test::gzip_member(text));
  const std::string whole = run({"find", "-x", "--json", "-e", "ab", "-e", "a", path.string()}).out;
  const std::vector<Hit> want = json_hits(whole);
  ASSERT_GT(want.size(), 20u);
  ASSERT_EQ(want.back().end, text.size());
  for (const Hit& h : want) {
    EXPECT_TRUE(h.start == 0 || text[h.start - 1] == '\n') << h;
    EXPECT_TRUE(h.end == text.size() || text[h.end] == '\n') << h;
  }
  for (const std::string& window : kWindows) {
    EXPECT_EQ(json_hits(piped(path.string(), {"find", "-x", "--json", "--window", window, "-e", "ab", "-e", "a"}).out),
              want)
        << "pipe, window " << window;
    EXPECT_EQ(json_hits(run({"find", "-x", "--json", "--window", window, "-e", "ab", "-e", "a", gz.string()}).out), want)
        << "gzip, window " << window;
  }
  // FASTA: a record's sequence has no line breaks, so -x keeps a hit that is the whole
  // sequence, however the record's lines are broken.
  const auto fa = file("r.fa", ">one\nAC\nGT\n>two\nACGTA\n>three\nACG\nT\n>four\nAACGT\n");
  EXPECT_EQ(run({"find", "-x", "ACGT", fa.string()}).out, "one:0:ACGT\nthree:0:ACGT\n");
  EXPECT_EQ(run({"find", "-x", "-c", "ACGT", fa.string()}).out, "2\n");
}

TEST_F(CliWord, LineRegexpRefusalsFixedStringsAndHelp) {
  const auto path = file("x.txt", "foo\nfoo bar\n");
  const CliResult circular = run({"find", "-x", "--circular", "foo", path.string()});
  EXPECT_EQ(circular.status, 2);
  EXPECT_EQ(circular.out, "");
  EXPECT_EQ(circular.err.rfind("warpmatch: -x (--line-regexp) does not go with --circular: ", 0), 0u) << circular.err;
  // -F (grep's fixed strings) changes nothing: patterns are literal anyway.
  EXPECT_EQ(run({"find", "-F", "--lines", "foo", path.string()}).out, "foo\nfoo bar\n");
  EXPECT_EQ(run({"find", "--fixed-strings", "-x", "--lines", "foo", path.string()}).out, "foo\n");
  const std::string help = run({"find", "--help"}).out;
  EXPECT_NE(help.find("-x,--line-regexp"), std::string::npos);
  EXPECT_NE(help.find("Whole lines (-x, as grep -x)"), std::string::npos);
}
