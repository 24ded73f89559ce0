// The `warpmatch` command line as a user sees it: exit codes, output formats, inputs
// (files, stdin, gzip, FASTA/FASTQ) and every bad-input case. Runs the built binary
// (WARPMATCH_CLI overrides the compiled-in path, e.g. on the GPU machine).
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli_test_support.hpp"
#include "warpmatch/common.hpp"

namespace fs = std::filesystem;

namespace {

using warpmatch_test::json_lines;
using warpmatch_test::write_gzip;

class Cli : public warpmatch_test::CliTest {};

}  // namespace

TEST_F(Cli, ExitZeroWhenMatchedOneWhenNot) {
  const auto f = file("a.txt", "hello world, hello");
  const auto hit = run({"find", "hello", f.string()});
  EXPECT_EQ(hit.status, 0);
  EXPECT_EQ(hit.out, "0:hello\n13:hello\n");
  const auto miss = run({"find", "absent", f.string()});
  EXPECT_EQ(miss.status, 1);
  EXPECT_EQ(miss.out, "");
  EXPECT_EQ(miss.err, "");
}

TEST_F(Cli, SeveralFilesArePrefixedWithTheirPath) {
  const auto a = file("a.txt", "xx ab");
  const auto b = file("b.txt", "ab ab");
  const auto r = run({"find", "ab", a.string(), b.string()});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, a.string() + ":3:ab\n" + b.string() + ":0:ab\n" + b.string() + ":3:ab\n");
  const auto no_prefix = run({"find", "-h", "ab", a.string(), b.string()});
  EXPECT_EQ(no_prefix.out, "3:ab\n0:ab\n3:ab\n");
}

TEST_F(Cli, CountsPerInputAndOverlappingOccurrences) {
  const auto a = file("a.txt", "aaaaa");
  const auto r = run({"find", "-c", "aa", a.string()});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "4\n");
  const auto none = run({"find", "-c", "b", a.string()});
  EXPECT_EQ(none.status, 1);
  EXPECT_EQ(none.out, "0\n");
}

TEST_F(Cli, MissingFileIsReportedAndOtherInputsStillProcessed) {
  const auto good = file("good.txt", "needle");
  const std::string missing = (dir_ / "missing.txt").string();
  const auto r = run({"find", "needle", missing, good.string()});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, good.string() + ":0:needle\n");
  EXPECT_NE(r.err.find(missing), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("No such file"), std::string::npos) << r.err;
}

TEST_F(Cli, DirectoryIsAnErrorNamingIt) {
  const auto r = run({"find", "x", dir_.string()});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find(dir_.string()), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("directory"), std::string::npos) << r.err;
}

TEST_F(Cli, EmptyPatternIsAnError) {
  const auto f = file("a.txt", "abc");
  const auto r = run({"find", "", f.string()});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("empty pattern"), std::string::npos) << r.err;
}

TEST_F(Cli, PatternLongerThanTextIsJustNoMatch) {
  const auto f = file("a.txt", "ab");
  const auto r = run({"find", "abcdef", f.string()});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "");
}

TEST_F(Cli, UnknownAlgorithmAndBadOptionsExitTwo) {
  const auto f = file("a.txt", "ab");
  EXPECT_EQ(run({"find", "--algo", "nope", "a", f.string()}).status, 2);
  EXPECT_EQ(run({"find", "--backend", "tpu", "a", f.string()}).status, 2);
  EXPECT_EQ(run({"find", "--threads", "-3", "a", f.string()}).status, 2);
  EXPECT_EQ(run({"frobnicate"}).status, 2);
}

TEST_F(Cli, CudaBackendWithoutGpuIsAClearError) {
  if (!warpmatch::cuda_devices().empty()) GTEST_SKIP() << "a GPU is present";
  const auto f = file("a.txt", "ab");
  const auto r = run({"find", "--backend", "cuda", "a", f.string()});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("cuda"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST_F(Cli, StdinIsReadWhenNoFileOrDash) {
  EXPECT_EQ(run({"find", "cd"}, "abcdcd").out, "2:cd\n4:cd\n");
  EXPECT_EQ(run({"find", "cd", "-"}, "abcdcd").out, "2:cd\n4:cd\n");
}

TEST_F(Cli, JsonLinesHaveMatchesThenSummary) {
  const auto f = file("a.txt", "one two one");
  const auto r = run({"find", "--json", "one", f.string()});
  ASSERT_EQ(r.status, 0);
  const auto lines = json_lines(r.out);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0]["type"], "match");
  EXPECT_EQ(lines[0]["path"], f.string());
  EXPECT_TRUE(lines[0]["record"].is_null());
  EXPECT_EQ(lines[0]["pattern"], 0);
  EXPECT_EQ(lines[0]["start"], 0);
  EXPECT_EQ(lines[0]["end"], 3);
  EXPECT_EQ(lines[1]["start"], 8);
  EXPECT_EQ(lines[2]["type"], "summary");
  EXPECT_EQ(lines[2]["matches"], 2);
  EXPECT_EQ(lines[2]["bytes_searched"], 11);
  EXPECT_TRUE(lines[2].contains("seconds"));
  EXPECT_TRUE(lines[2].contains("backend"));
  EXPECT_TRUE(lines[2].contains("device"));
}

TEST_F(Cli, JsonCountLines) {
  const auto f = file("a.txt", "xyxyx");
  const auto lines = json_lines(run({"find", "--json", "-c", "xy", f.string()}).out);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0]["type"], "count");
  EXPECT_EQ(lines[0]["count"], 2);
  EXPECT_EQ(lines[1]["type"], "summary");
}

TEST_F(Cli, FastaRecordsAreSearchedSeparatelyWithoutLineBreaks) {
  // "GATTACA" straddles a line break in chr1; offsets are within each record.
  const auto f = file("g.fa", ">chr1 first\nACGGAT\nTACAGG\n>chr2\nGATTACA\n");
  const auto r = run({"find", "GATTACA", f.string()});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "chr1:3:GATTACA\nchr2:0:GATTACA\n");
  const auto lines = json_lines(run({"find", "--json", "GATTACA", f.string()}).out);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0]["record"], "chr1");
  EXPECT_EQ(lines[1]["record"], "chr2");
}

TEST_F(Cli, FastqAndGzipAreDetectedByContent) {
  const std::string fq = "@r1\nACGTACGT\n+\nIIIIIIII\n@r2\nTTACGTTT\n+r2\nIIIIIIII\n";
  write_gzip(dir_ / "reads.bin", fq);  // no .gz suffix: detection is by content
  const auto r = run({"find", "-c", "ACGT", (dir_ / "reads.bin").string()});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "3\n");
  const auto rec = run({"find", "ACGT", (dir_ / "reads.bin").string()});
  EXPECT_EQ(rec.out, "r1:0:ACGT\nr1:4:ACGT\nr2:2:ACGT\n");
}

TEST_F(Cli, MalformedFastqIsAnErrorNamingTheInput) {
  const auto bad = file("bad.fq", "@r1\nACGT\n+\nIII\n");
  const auto good = file("good.txt", "ACGT");
  const auto r = run({"find", "ACGT", bad.string(), good.string()});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find(bad.string()), std::string::npos) << r.err;
  EXPECT_EQ(r.out, good.string() + ":0:ACGT\n");
}

TEST_F(Cli, NonPrintableBytesAreEscaped) {
  const auto f = file("bin", std::string("x\0\xff\\y", 5));
  const auto r = run({"find", "-i", "X", f.string()});
  EXPECT_EQ(r.out, "0:x\n");
  const auto tail = run({"find", "y", f.string()});
  EXPECT_EQ(tail.out, "4:y\n");
  const auto all = run({"find", std::string("\\y"), f.string()});
  EXPECT_EQ(all.out, "3:\\\\y\n");
}

TEST_F(Cli, QuietExitsZeroOnFirstMatchWithNoOutput) {
  const auto f = file("a.txt", std::string(100000, 'a'));
  const auto r = run({"find", "-q", "aa", f.string()});
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(run({"find", "-q", "b", f.string()}).status, 1);
}

TEST_F(Cli, MaxCountStopsEachInput) {
  const auto f = file("a.txt", "ab ab ab ab");
  EXPECT_EQ(run({"find", "-m", "2", "ab", f.string()}).out, "0:ab\n3:ab\n");
  EXPECT_EQ(run({"find", "-c", "-m", "3", "ab", f.string()}).out, "3\n");
}

TEST_F(Cli, StatsGoToStderr) {
  const auto f = file("a.txt", "abcabc");
  const auto r = run({"find", "--stats", "-c", "abc", f.string()});
  EXPECT_EQ(r.out, "2\n");
  EXPECT_NE(r.err.find("6 bytes searched"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("2 matches"), std::string::npos) << r.err;
}

TEST_F(Cli, EveryBackendAndAlgorithmGivesTheSameOutput) {
  std::string text;
  for (int i = 0; i < 5000; ++i) text += (i * 7919 % 13 < 4) ? "GATTACA" : "GAT";
  const auto f = file("t.txt", text);
  const auto reference = run({"find", "--backend", "cpu", "--algo", "naive", "TTAC", f.string()});
  ASSERT_EQ(reference.status, 0);
  EXPECT_EQ(run({"find", "--backend", "cpu", "TTAC", f.string()}).out, reference.out);
  EXPECT_EQ(run({"find", "--backend", "cpu", "-j", "3", "TTAC", f.string()}).out, reference.out);
  if (warpmatch::cuda_devices().empty()) {
    std::printf("[ SKIPPED  ] GPU part: no CUDA GPU visible\n");
    return;
  }
  EXPECT_EQ(run({"find", "--backend", "cuda", "TTAC", f.string()}).out, reference.out);
  EXPECT_EQ(run({"find", "--backend", "cuda", "--algo", "bf", "TTAC", f.string()}).out,
            reference.out);
  EXPECT_EQ(run({"find", "--backend", "cuda", "--algo", "firstlast", "TTAC", f.string()}).out,
            reference.out);
}

TEST_F(Cli, InfoAndHelpWork) {
  const auto info = run({"info"});
  EXPECT_EQ(info.status, 0);
  EXPECT_NE(info.out.find("CUDA backend"), std::string::npos);
  const auto json = json_lines(run({"info", "--json"}).out);
  ASSERT_EQ(json.size(), 1u);
  EXPECT_TRUE(json[0].contains("cuda_compiled"));
  const auto help = run({"find", "--help"});
  EXPECT_EQ(help.status, 0);
  EXPECT_NE(help.out.find("Examples"), std::string::npos);
}

TEST_F(Cli, RealGenomeBamHiSites) {
  const fs::path genome = "/usr/share/doc/bowtie2/examples/reference/lambda_virus.fa.gz";
  if (!fs::exists(genome)) GTEST_SKIP() << "bowtie2-examples not installed: " << genome;
  const auto r = run({"find", "-c", "GGATCC", genome.string()});
  EXPECT_EQ(r.status, 0);
  // Independent count: decompress, drop the header and line breaks, count overlapping hits.
  gzFile g = gzopen(genome.c_str(), "rb");
  std::string raw;
  char buf[1 << 16];
  for (int n; (n = gzread(g, buf, sizeof buf)) > 0;) raw.append(buf, n);
  gzclose(g);
  std::string seq;
  std::istringstream in(raw);
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '>') seq += line;
  std::size_t expected = 0;
  for (std::size_t p = seq.find("GGATCC"); p != std::string::npos; p = seq.find("GGATCC", p + 1))
    ++expected;
  EXPECT_EQ(r.out, std::to_string(expected) + "\n");
}
