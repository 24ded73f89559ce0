// `warpmatch distance` and `warpmatch tune` as a user sees them: literals and files, FASTA
// records, -k and its exit status, --align, --pairs (tab-separated and two FASTA files),
// JSON lines, --stats, and every bad-input case. Runs the built binary (WARPMATCH_CLI
// overrides the compiled-in path, e.g. on the GPU machine).
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "cli_test_support.hpp"
#include "warpmatch/common.hpp"
#include "warpmatch/distance.hpp"

namespace fs = std::filesystem;

namespace {

using warpmatch_test::CliResult;
using warpmatch_test::json_lines;
using warpmatch_test::quote;

class CliDistance : public warpmatch_test::CliTest {
 protected:
  CliDistance() : CliTest("warpmatch_cli_distance_") {}

  // Standard input is /dev/null; `env` (e.g. "NAME=value ") goes in front of the command.
  CliResult run(const std::vector<std::string>& args, const std::string& env = "") {
    return run_with_stdin_from(args, "/dev/null", env);
  }
};

std::string random_dna(std::mt19937_64& rng, std::size_t n) {
  std::string s(n, 'A');
  for (auto& c : s) c = "ACGT"[rng() % 4];
  return s;
}

}  // namespace

TEST_F(CliDistance, LiteralKnownVectorsExitZero) {
  const auto r = run({"distance", "-s", "kitten", "sitting"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "3\n");
  const auto c = run({"distance", "-s", "change", "hunger", "--backend", "cpu", "--algo", "dp"});
  EXPECT_EQ(c.status, 0) << c.err;
  EXPECT_EQ(c.out, "3\n");
}

TEST_F(CliDistance, OverKExitsOneAndSaysSo) {
  const auto r = run({"distance", "-s", "-k", "2", "kitten", "sitting"});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_EQ(r.out, "over 2\n");
  const auto within = run({"distance", "-s", "-k", "3", "kitten", "sitting"});
  EXPECT_EQ(within.status, 0);
  EXPECT_EQ(within.out, "3\n");
  const auto j = run({"distance", "-s", "-k", "1", "--json", "kitten", "sitting"});
  EXPECT_EQ(j.status, 1);
  const auto lines = json_lines(j.out);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_TRUE(lines[0]["distance"].is_null());
  EXPECT_EQ(lines[0]["over_k"], true);
  EXPECT_EQ(lines[0]["k"], 1);
}

TEST_F(CliDistance, AlignPrintsACigarThatTurnsAIntoB) {
  const auto r = run({"distance", "-s", "--align", "--json", "kitten", "sitting"});
  EXPECT_EQ(r.status, 0) << r.err;
  const auto lines = json_lines(r.out);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0]["type"], "distance");
  EXPECT_EQ(lines[0]["a"], "literal");
  EXPECT_EQ(lines[0]["distance"], 3);
  std::int64_t cost = 0;
  const std::string cigar = lines[0]["cigar"];
  EXPECT_EQ(warpmatch::apply_cigar(warpmatch::as_bytes("kitten"), warpmatch::as_bytes("sitting"), cigar, &cost),
            "sitting");
  EXPECT_EQ(cost, 3);
  const auto text = run({"distance", "-s", "--align", "abc", "abd"});
  EXPECT_EQ(text.out, "1\t2=1X\n");
}

TEST_F(CliDistance, FilesFastaRecordsAndNamesInJson) {
  std::mt19937_64 rng(1);
  const std::string x = random_dna(rng, 3000), y = random_dna(rng, 2900);
  const auto a = file("a.fa", ">first\n" + x.substr(0, 1500) + "\n" + x.substr(1500) + "\n>second\nACGT\n");
  const auto b = file("b.txt", y);
  const std::int64_t d = warpmatch::edit_distance(warpmatch::as_bytes(x), warpmatch::as_bytes(y),
                                                  {warpmatch::Backend::cpu}).distance;
  const auto r = run({"distance", "--json", a.string(), b.string()});
  EXPECT_EQ(r.status, 0) << r.err;
  const auto lines = json_lines(r.out);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0]["a"], "first");
  EXPECT_EQ(lines[0]["b"], b.string());
  EXPECT_EQ(lines[0]["distance"], d);
  EXPECT_FALSE(lines[0].contains("cigar"));
  const auto rec = run({"distance", "--record", "second", a.string(), file("c.fa", ">second\nAGT\n").string()});
  EXPECT_EQ(rec.status, 0) << rec.err;
  EXPECT_EQ(rec.out, "1\n");
}

TEST_F(CliDistance, PairsFromTsvAndFromTwoFastaFiles) {
  const auto tsv = file("p.tsv", "kitten\tsitting\nchange\thunger\r\n\nabc\tabc\n");
  const auto r = run({"distance", "--pairs", tsv.string()});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, tsv.string() + ":1\t" + tsv.string() + ":1\t3\n" + tsv.string() + ":2\t" + tsv.string() +
                       ":2\t3\n" + tsv.string() + ":4\t" + tsv.string() + ":4\t0\n");
  // The last line without its newline, a pair of empty strings (a tab alone), a lone CR line.
  const auto tail = file("t.tsv", "\r\n\tab\nab\t\n\t\nGATTACA\tGATACA");
  const auto tr = run({"distance", "--pairs", tail.string()});
  EXPECT_EQ(tr.status, 0) << tr.err;
  EXPECT_EQ(tr.out, tail.string() + ":2\t" + tail.string() + ":2\t2\n" + tail.string() + ":3\t" + tail.string() +
                        ":3\t2\n" + tail.string() + ":4\t" + tail.string() + ":4\t0\n" + tail.string() + ":5\t" +
                        tail.string() + ":5\t1\n");
  const auto k = run({"distance", "--pairs", tsv.string(), "-k", "2", "--json"});
  EXPECT_EQ(k.status, 1);
  const auto lines = json_lines(k.out);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_TRUE(lines[0]["over_k"].get<bool>());
  EXPECT_EQ(lines[2]["distance"], 0);
  const auto fa = file("a.fa", ">r1\nkitten\n>r2\nchange\n");
  const auto fb = file("b.fa", ">s1\nsitting\n>s2\nchance\n");
  const auto f = run({"distance", "--pairs", fa.string(), fb.string(), "--align", "--json", "--stats"});
  EXPECT_EQ(f.status, 0) << f.err;
  const auto fl = json_lines(f.out);
  ASSERT_EQ(fl.size(), 2u);
  EXPECT_EQ(fl[0]["a"], "r1");
  EXPECT_EQ(fl[0]["b"], "s1");
  EXPECT_EQ(fl[0]["distance"], 3);
  EXPECT_EQ(fl[1]["distance"], 1);
  EXPECT_EQ(fl[1]["cigar"], "4=1X1=");
  EXPECT_NE(f.err.find("2 pairs"), std::string::npos) << f.err;
}

TEST_F(CliDistance, StatsGoToStderr) {
  const auto r = run({"distance", "-s", "--stats", "--backend", "cpu", "-j", "2", "abc", "abd"});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "1\n");
  EXPECT_NE(r.err.find("1 pairs"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("backend cpu"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("algorithm myers"), std::string::npos) << r.err;
}

TEST_F(CliDistance, ErrorsExitTwoAndNameTheInput) {
  const std::string missing = (dir_ / "missing.fa").string();
  const auto m = run({"distance", missing, missing});
  EXPECT_EQ(m.status, 2);
  EXPECT_NE(m.err.find(missing), std::string::npos) << m.err;
  const auto one = run({"distance", "-s", "abc"});
  EXPECT_EQ(one.status, 2);
  EXPECT_NE(one.err.find("two sequences"), std::string::npos) << one.err;
  const auto algo = run({"distance", "-s", "--algo", "bogus", "a", "b", "--backend", "cpu"});
  EXPECT_EQ(algo.status, 2);
  EXPECT_NE(algo.err.find("bogus"), std::string::npos) << algo.err;
  const auto bad_tsv = file("bad.tsv", "ok\tok\nno tab here\n");
  const auto t = run({"distance", "--pairs", bad_tsv.string()});
  EXPECT_EQ(t.status, 2);
  EXPECT_NE(t.err.find(bad_tsv.string() + ": line 2"), std::string::npos) << t.err;
  const auto three = file("three.tsv", "a\tb\n\na\tb\tc\n");
  const auto t3 = run({"distance", "--pairs", three.string()});
  EXPECT_EQ(t3.status, 2);
  EXPECT_NE(t3.err.find(three.string() + ": line 3: more than two tab-separated fields"), std::string::npos) << t3.err;
  const auto fa = file("a.fa", ">r1\nA\n>r2\nC\n"), fb = file("b.fa", ">s1\nA\n");
  const auto uneven = run({"distance", "--pairs", fa.string(), fb.string()});
  EXPECT_EQ(uneven.status, 2);
  EXPECT_NE(uneven.err.find("2 records"), std::string::npos) << uneven.err;
  const auto rec = run({"distance", "--record", "nope", fa.string(), fb.string()});
  EXPECT_EQ(rec.status, 2);
  EXPECT_NE(rec.err.find("nope"), std::string::npos) << rec.err;
  const auto block = run({"distance", "-s", "--block-size", "100", "a", "b", "--backend", "cpu"});
  EXPECT_EQ(block.status, 2);
  EXPECT_NE(block.err.find("100"), std::string::npos) << block.err;
  if (warpmatch::cuda_devices().empty()) {
    const auto cuda = run({"distance", "-s", "--backend", "cuda", "a", "b"});
    EXPECT_EQ(cuda.status, 2);
    EXPECT_NE(cuda.err.find("CUDA"), std::string::npos) << cuda.err;
    const auto tune = run({"tune"});
    EXPECT_EQ(tune.status, 2);
    EXPECT_NE(tune.err.find("GPU"), std::string::npos) << tune.err;
  }
}

TEST_F(CliDistance, TuneShowPrintsTheModelFromTheCacheDirectory) {
  const std::string env = "XDG_CACHE_HOME=" + quote((dir_ / "cache").string()) + " ";
  const auto r = run({"tune", "--show", "--json"}, env);
  EXPECT_EQ(r.status, 0) << r.err;
  const auto lines = json_lines(r.out);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0]["type"], "tune");
  EXPECT_GT(lines[0]["step_ns"].get<double>(), 0);
}

TEST_F(CliDistance, AgreesWithTheLibraryOnLongerRandomFiles) {
  std::mt19937_64 rng(2);
  for (int trial = 0; trial < 3; ++trial) {
    const std::string x = random_dna(rng, 20000 + trial * 7000), y = random_dna(rng, 18000 + trial * 9000);
    const auto a = file("a" + std::to_string(trial), x), b = file("b" + std::to_string(trial), y);
    const std::int64_t d = warpmatch::edit_distance(warpmatch::as_bytes(x), warpmatch::as_bytes(y),
                                                    {warpmatch::Backend::cpu}).distance;
    const auto r = run({"distance", a.string(), b.string()});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, std::to_string(d) + "\n");
  }
}

// --all-vs-all: the matrix of every record of A against every record of B, TSV with a
// header of B's names and "NA" over K, JSON with null over K, on every backend alike.
TEST_F(CliDistance, AllVsAllPrintsTheMatrixInTsvAndJson) {
  const auto fa = file("m_a.fa", ">r1\nkitten\n>r2\nchange\n>r3\n\n");
  const auto fb = file("m_b.fa", ">s1\nsitting\n>s2\nchance\n");
  const auto r = run({"distance", "--all-vs-all", fa.string(), fb.string()});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "\ts1\ts2\nr1\t3\t6\nr2\t6\t1\nr3\t7\t6\n");
  const auto k = run({"distance", "--all-vs-all", fa.string(), fb.string(), "-k", "3", "--json"});
  EXPECT_EQ(k.status, 1) << k.err;  // some pair over K
  const auto j = nlohmann::json::parse(k.out);
  EXPECT_EQ(j["type"], "matrix");
  EXPECT_EQ(j["a"], nlohmann::json({"r1", "r2", "r3"}));
  EXPECT_EQ(j["b"], nlohmann::json({"s1", "s2"}));
  EXPECT_EQ(j["distances"], nlohmann::json::parse("[[3,null],[null,1],[null,null]]"));
  const auto tsv_k = run({"distance", "--all-vs-all", fa.string(), fb.string(), "-k", "3"});
  EXPECT_EQ(tsv_k.out, "\ts1\ts2\nr1\t3\tNA\nr2\tNA\t1\nr3\tNA\tNA\n");
  for (const char* backend : {"cpu", "cuda"}) {
    const auto b = run({"distance", "--all-vs-all", fa.string(), fb.string(), "--backend", backend});
    if (b.status == 2 && (b.err.find("no CUDA GPU") != std::string::npos ||
                          b.err.find("no CUDA support") != std::string::npos))
      continue;  // no GPU (or no CUDA in this build) here
    EXPECT_EQ(b.out, r.out) << backend << ": " << b.err;
  }
  const auto bad = run({"distance", "--all-vs-all", fa.string(), fb.string(), "--align"});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--all-vs-all"), std::string::npos) << bad.err;
}
