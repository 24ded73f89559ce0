// `warpmatch find -f FILE` / `-e P`: pattern sets from the command line as a user sees them —
// exit codes, match and count formats, JSON pattern indices (line number - 1), escapes,
// --fixed-lines, -i, --stats with compile time and memory, bad pattern files. Runs the built
// binary (WARPMATCH_CLI overrides the compiled-in path, e.g. on the GPU machine).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "cli_test_support.hpp"
#include "test_multi_oracle.hpp"
#include "warpmatch/common.hpp"

namespace fs = std::filesystem;

namespace {

using warpmatch_test::json_lines;

class CliMulti : public warpmatch_test::CliTest {
 protected:
  CliMulti() : CliTest("warpmatch_cli_multi_") {}

  // Here file() gives the path as a string, ready for an argument list.
  std::string file(const std::string& name, std::string_view content) {
    return CliTest::file(name, content).string();
  }
};

}  // namespace

TEST_F(CliMulti, PatternFileFindsEveryOccurrenceInOrder) {
  const auto pats = file("p.txt", "he\nshe\nhis\nhers\n");
  const auto text = file("t.txt", "ushers");
  const auto r = run({"find", "--backend", "cpu", "-f", pats, text});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "1:she\n2:he\n2:hers\n");
  const auto miss = run({"find", "--backend", "cpu", "-f", pats, file("n.txt", "xyz")});
  EXPECT_EQ(miss.status, 1);
  EXPECT_EQ(miss.out, "");
}

TEST_F(CliMulti, JsonPatternIsTheLineIndexSkippingEmptyLines) {
  const auto pats = file("p.txt", "abc\n\nb\\x00c\nabc\n");
  const auto text = file("t.txt", std::string("xabc b\0c", 8));
  const auto r = run({"find", "--backend", "cpu", "--json", "-f", pats, text});
  EXPECT_EQ(r.status, 0) << r.err;
  const auto lines = json_lines(r.out);
  ASSERT_EQ(lines.size(), 4u) << r.out;
  EXPECT_EQ(lines[0]["pattern"], 0);  // abc, line 1
  EXPECT_EQ(lines[0]["start"], 1);
  EXPECT_EQ(lines[0]["end"], 4);
  EXPECT_EQ(lines[1]["pattern"], 3);  // the duplicate abc on line 4 reports too
  EXPECT_EQ(lines[1]["start"], 1);
  EXPECT_EQ(lines[2]["pattern"], 2);  // b\x00c on line 3
  EXPECT_EQ(lines[2]["start"], 5);
  EXPECT_EQ(lines[3]["type"], "summary");
  EXPECT_EQ(lines[3]["matches"], 3);
  EXPECT_EQ(lines[3]["patterns"], 3);
  EXPECT_TRUE(lines[3].contains("compile_seconds"));
}

TEST_F(CliMulti, RepeatedDashEMakesAllPositionalsInputs) {
  const auto a = file("a.txt", "GGATCC GAATTC");
  const auto b = file("b.txt", "GAATTC");
  const auto r = run({"find", "--backend", "cpu", "-e", "GGATCC", "-e", "GAATTC", a, b});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, a + ":0:GGATCC\n" + a + ":7:GAATTC\n" + b + ":0:GAATTC\n");
  const auto json = run({"find", "--backend", "cpu", "--json", "-e", "GGATCC", "-e", "GAATTC", b});
  EXPECT_EQ(json_lines(json.out)[0]["pattern"], 1);
}

TEST_F(CliMulti, CountsArePerPatternIndex) {
  const auto pats = file("p.txt", "a\nzz\naa\n");
  const auto text = file("t.txt", "aaaa");
  const auto r = run({"find", "--backend", "cpu", "-c", "-f", pats, text});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "0:4\n2:3\n");
  const auto two = run({"find", "--backend", "cpu", "-c", "-f", pats, text, text});
  EXPECT_EQ(two.out, text + ":0:4\n" + text + ":2:3\n" + text + ":0:4\n" + text + ":2:3\n");
  const auto json = run({"find", "--backend", "cpu", "-c", "--json", "-f", pats, text});
  const auto lines = json_lines(json.out);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0]["type"], "count");
  EXPECT_EQ(lines[0]["pattern"], 0);
  EXPECT_EQ(lines[0]["count"], 4);
  EXPECT_EQ(lines[1]["pattern"], 2);
  EXPECT_EQ(lines[1]["count"], 3);
  const auto none = run({"find", "--backend", "cpu", "-c", "-e", "q", text});
  EXPECT_EQ(none.status, 1);
  EXPECT_EQ(none.out, "");
}

TEST_F(CliMulti, FixedLinesTakesBackslashesVerbatim) {
  const auto pats = file("p.txt", "C:\\x41\n");
  const auto text = file("t.txt", "C:\\x41 C:A");
  const auto fixed = run({"find", "--backend", "cpu", "--fixed-lines", "-f", pats, text});
  EXPECT_EQ(fixed.status, 0) << fixed.err;
  EXPECT_EQ(fixed.out, "0:C:\\\\x41\n");
  const auto escaped = run({"find", "--backend", "cpu", "-f", pats, text});
  EXPECT_EQ(escaped.out, "7:C:A\n");
}

TEST_F(CliMulti, IgnoreCaseAndAlgorithmsAgree) {
  const auto pats = file("p.txt", "Hello\nWORLD\no\n");
  const auto text = file("t.txt", "hello world, HELLO WORLD");
  const auto fast = run({"find", "--backend", "cpu", "-i", "-f", pats, text});
  EXPECT_EQ(fast.status, 0) << fast.err;
  EXPECT_EQ(fast.out,
            "0:hello\n4:o\n6:world\n7:o\n13:HELLO\n17:O\n19:WORLD\n20:O\n");
  for (const char* algo : {"mbndm", "naive"}) {
    const auto other = run({"find", "--backend", "cpu", "-i", "--algo", algo, "-f", pats, text});
    EXPECT_EQ(other.out, fast.out) << algo;
  }
}

TEST_F(CliMulti, StatsReportCompileTimeAndMemory) {
  const auto pats = file("p.txt", "abc\nxyz\n");
  const auto r = run({"find", "--backend", "cpu", "--stats", "-f", pats, file("t.txt", "abc")});
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.err.find("2 patterns"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("compiled in"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("bytes of tables"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("filter keyed on 4 bytes per start"), std::string::npos) << r.err;
  // DNA k-mers whose 4-byte prefixes cover the alphabet: the 8-byte filter, also in --json's summary.
  std::string kmers = "GATTACAG\n";
  for (int i = 0; i < 64; ++i)  // 64 of the 256 ACGT 4-mers, each followed by ACGT
    kmers += std::string{"ACGT"[i & 3], "ACGT"[(i >> 2) & 3], "ACGT"[(i >> 4) & 3], 'A'} + "ACGT\n";
  const auto dna = run({"find", "--backend", "cpu", "--stats", "--json", "-f", file("k.txt", kmers),
                        file("g.txt", "xxGATTACAGxx")});
  EXPECT_EQ(dna.status, 0) << dna.err;
  EXPECT_NE(dna.err.find("filter keyed on 8 bytes per start"), std::string::npos) << dna.err;
  EXPECT_NE(dna.out.find("\"filter_key_bytes\":8"), std::string::npos) << dna.out;
  const auto mbndm = run({"find", "--backend", "cpu", "--stats", "--algo", "mbndm", "-f", pats, file("t2.txt", "abc")});
  EXPECT_EQ(mbndm.err.find("filter keyed"), std::string::npos) << mbndm.err;
}

TEST_F(CliMulti, BadPatternFilesExitTwoNamingTheFile) {
  const auto text = file("t.txt", "abc");
  const std::string missing = (dir_ / "missing.txt").string();
  const auto r1 = run({"find", "-f", missing, text});
  EXPECT_EQ(r1.status, 2);
  EXPECT_NE(r1.err.find(missing), std::string::npos) << r1.err;
  const auto empty = file("empty.txt", "\n\n");
  const auto r2 = run({"find", "-f", empty, text});
  EXPECT_EQ(r2.status, 2);
  EXPECT_NE(r2.err.find(empty), std::string::npos) << r2.err;
  EXPECT_NE(r2.err.find("no patterns"), std::string::npos) << r2.err;
  const auto bad = file("bad.txt", "ok\nx\\q\n");
  const auto r3 = run({"find", "-f", bad, text});
  EXPECT_EQ(r3.status, 2);
  EXPECT_NE(r3.err.find(bad + ":2"), std::string::npos) << r3.err;
  const auto r4 = run({"find", "-e", "", text});
  EXPECT_EQ(r4.status, 2);
  const auto r5 = run({"find", "--backend", "cpu", "--algo", "bf", "-e", "a", text});
  EXPECT_EQ(r5.status, 2);
  EXPECT_NE(r5.err.find("unknown algorithm"), std::string::npos) << r5.err;
}

TEST_F(CliMulti, MissingInputIsReportedAndOthersSearched) {
  const auto good = file("good.txt", "needle");
  const std::string missing = (dir_ / "nope.txt").string();
  const auto r = run({"find", "--backend", "cpu", "-e", "needle", missing, good});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, good + ":0:needle\n");
  EXPECT_NE(r.err.find(missing), std::string::npos) << r.err;
}

TEST_F(CliMulti, StdinQuietAndMaxCount) {
  const auto r = run({"find", "--backend", "cpu", "-e", "b", "-e", "ab"}, "abab");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "0:ab\n1:b\n2:ab\n3:b\n");
  const auto q = run({"find", "--backend", "cpu", "-q", "-e", "b"}, "abab");
  EXPECT_EQ(q.status, 0);
  EXPECT_EQ(q.out, "");
  const auto m = run({"find", "--backend", "cpu", "-m", "2", "-e", "b", "-e", "ab"}, "abab");
  EXPECT_EQ(m.out, "0:ab\n1:b\n");
}

TEST_F(CliMulti, FastaRecordsAndDictionaryAgainstOracle) {
  const auto fa = file("g.fa", ">r1\nACGT\nACGT\n>r2\nTTGCA\n");
  const auto r = run({"find", "--backend", "cpu", "-e", "GTAC", "-e", "T", fa});
  EXPECT_EQ(r.out, "r1:2:GTAC\nr1:3:T\nr1:7:T\nr2:0:T\nr2:1:T\n");
  // A real word list against real text: the CLI's counts equal the oracle's.
  const auto words = multi_test::dictionary_words();
  const std::string english = multi_test::english_text();
  if (words.empty() || english.empty()) GTEST_SKIP() << "no word list or licence texts";
  std::string list;
  std::vector<std::string> some;
  for (std::size_t i = 0; i < words.size() && some.size() < 5000; i += 7) {
    if (words[i].find('\\') != std::string::npos) continue;
    some.push_back(words[i]);
    list += words[i] + "\n";
  }
  const auto pats = file("words.txt", list);
  const auto text = file("english.txt", english);
  const auto c = run({"find", "--backend", "cpu", "--json", "-f", pats, text});
  const auto lines = json_lines(c.out);
  ASSERT_FALSE(lines.empty());
  const auto want = multi_test::oracle_matches(some, english);
  EXPECT_EQ(lines.back()["matches"], want.size());
  ASSERT_EQ(lines.size(), want.size() + 1);
  for (std::size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(lines[i]["pattern"], want[i].pattern) << i;
    ASSERT_EQ(lines[i]["start"], want[i].start) << i;
  }
}

TEST_F(CliMulti, ExactSearchStillTakesAPositionalPattern) {
  const auto f = file("a.txt", "hello world, hello");
  const auto r = run({"find", "hello", f});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "0:hello\n13:hello\n");
  const auto none = run({"find"});
  EXPECT_EQ(none.status, 2);
}
