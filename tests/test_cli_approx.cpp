// `warpmatch approx` as a user sees it: exit codes, text and JSON lines (distance, cigar),
// --best, --patterns, --max-hits, --best-per-cluster, -i, FASTA/FASTQ/gzip inputs, bad
// arguments. Runs the built binary (WARPMATCH_CLI overrides the compiled-in path). With a GPU
// the same invocations are repeated on --backend cuda and must print the same bytes.
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "cli_test_support.hpp"
#include "cuda/runtime/devices.hpp"
#include "warpmatch/common.hpp"

namespace fs = std::filesystem;

namespace {

using warpmatch_test::json_lines;

class CliApprox : public warpmatch_test::CliTest {
 protected:
  CliApprox() : CliTest("warpmatch_cli_approx_") {}
};

}  // namespace

TEST_F(CliApprox, PaperExampleBestDistanceWithCigar) {
  const auto r = run({"approx", "--best", "--cigar", "ababa"}, "aaabbbaa");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "2:7:1:2=1X2=:abbba\n");
}

TEST_F(CliApprox, ExitZeroOnHitOneOnNoneTwoOnError) {
  const auto f = file("t.txt", "xxxxGATTACAxxxx");
  EXPECT_EQ(run({"approx", "-k", "0", "GATTACA", f.string()}).status, 0);
  const auto miss = run({"approx", "-k", "1", "CCCCCCC", f.string()});
  EXPECT_EQ(miss.status, 1);
  EXPECT_EQ(miss.out, "");
  const auto missing = run({"approx", "-k", "1", "GATTACA", (dir_ / "nope.txt").string()});
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find("nope.txt"), std::string::npos) << missing.err;
  // An unreadable input does not stop the others; the error still decides the status.
  const auto mixed = run({"approx", "-k", "0", "GATTACA", (dir_ / "nope.txt").string(), f.string()});
  EXPECT_EQ(mixed.status, 2);
  EXPECT_NE(mixed.out.find("GATTACA"), std::string::npos);
}

TEST_F(CliApprox, BadArgumentsAreErrors) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"approx", "-k", "-1", "abc"}, {"approx", "abc"}, {"approx", "-k", "1", ""},
        {"approx", "-k", "1"}, {"approx", "-k", "1", "--algo", "nope", "abc"},
        {"approx", "-k", "1", "--patterns", "/nonexistent/file"}}) {
    const auto r = run(args, "abc");
    EXPECT_EQ(r.status, 2) << args.back();
    EXPECT_FALSE(r.err.empty());
  }
}

TEST_F(CliApprox, JsonLinesCarryDistanceAndCigarThenASummary) {
  const auto f = file("t.txt", "zzGATTACAzzGATCACAzz");
  const auto r = run({"approx", "-k", "1", "--json", "--best-per-cluster", "GATTACA", f.string()});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto lines = json_lines(r.out);
  ASSERT_EQ(lines.size(), 3u) << r.out;
  EXPECT_EQ(lines[0]["type"], "match");
  EXPECT_EQ(lines[0]["pattern"], 0);
  EXPECT_EQ(lines[0]["start"], 2);
  EXPECT_EQ(lines[0]["end"], 9);
  EXPECT_EQ(lines[0]["distance"], 0);
  EXPECT_EQ(lines[0]["cigar"], "7=");
  EXPECT_EQ(lines[1]["start"], 11);
  EXPECT_EQ(lines[1]["distance"], 1);
  EXPECT_EQ(lines[1]["cigar"], "3=1X3=");
  EXPECT_EQ(lines[2]["type"], "summary");
  EXPECT_EQ(lines[2]["matches"], 2);
  EXPECT_EQ(lines[2]["k"], 1);
}

TEST_F(CliApprox, PatternsFileLinesAndFastaAreSearchedTogether) {
  const auto text = file("t.txt", "ACGTACGTTTGGCCAA");
  const auto lines = file("p.txt", "ACGTT\r\n\nGGCC\n");
  const auto r = run({"approx", "-k", "0", "--patterns", lines.string(), text.string()});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "0:4:9:0:ACGTT\n1:10:14:0:GGCC\n");
  const auto fasta = file("p.fa", ">a\nACGTT\n>b\nGG\nCC\n");
  const auto rf = run({"approx", "-k", "0", "--patterns", fasta.string(), text.string()});
  EXPECT_EQ(rf.out, r.out);
}

TEST_F(CliApprox, FastaRecordsGzipAndCaseInsensitive) {
  const fs::path gz = dir_ / "g.fa.gz";
  gzFile g = gzopen(gz.c_str(), "wb");
  const std::string fa = ">chr1 first\nacgtGATTA\nCAacgt\n>chr2\nGATTTCA\n";
  gzwrite(g, fa.data(), static_cast<unsigned>(fa.size()));
  gzclose(g);
  const auto r = run({"approx", "-k", "1", "-i", "--best-per-cluster", "gattaca", gz.string()});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "chr1:4:11:0:GATTACA\nchr2:0:7:1:GATTTCA\n");
}

TEST_F(CliApprox, MaxHitsCountAndQuiet) {
  const auto f = file("t.txt", "aaaaaaaaaa");
  const auto all = run({"approx", "-k", "0", "aa", f.string()});
  EXPECT_EQ(all.status, 0);
  const auto capped = run({"approx", "-k", "0", "--max-hits", "3", "aa", f.string()});
  EXPECT_EQ(std::count(capped.out.begin(), capped.out.end(), '\n'), 3);
  EXPECT_EQ(run({"approx", "-k", "0", "-c", "aa", f.string()}).out, "9\n");
  const auto quiet = run({"approx", "-k", "0", "-q", "aa", f.string()});
  EXPECT_EQ(quiet.status, 0);
  EXPECT_EQ(quiet.out, "");
}

TEST_F(CliApprox, StatsGoToStderrNamingBackendAndAlgorithm) {
  const auto r = run({"approx", "-k", "1", "--stats", "--backend", "cpu", "--algo", "dp", "abc"}, "xxabcxx");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.err.find("algorithm dp"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("backend cpu"), std::string::npos) << r.err;
}

TEST_F(CliApprox, CudaBackendPrintsTheSameBytesAsCpu) {
  if (warpmatch::cuda::devices().empty()) GTEST_SKIP() << "no CUDA GPU: skipping GPU test";
  const char* genome = "/usr/share/doc/bowtie2/examples/reference/lambda_virus.fa.gz";
  if (!fs::exists(genome)) GTEST_SKIP() << "bowtie2-examples not installed";
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{"-k", "3", "--json"}, {"--best", "--cigar"}, {"-k", "2", "--best-per-cluster"}}) {
    std::vector<std::string> args = {"approx"};
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back("GGATCCGTTAGCA");
    args.push_back(genome);
    auto cpu_args = args, gpu_args = args, wave_args = args;
    cpu_args.insert(cpu_args.begin() + 1, {"--backend", "cpu"});
    gpu_args.insert(gpu_args.begin() + 1, {"--backend", "cuda"});
    wave_args.insert(wave_args.begin() + 1, {"--backend", "cuda", "--algo", "wavefront", "--blocks", "64"});
    const auto want = run(cpu_args), got = run(gpu_args), wave = run(wave_args);
    auto strip_summary = [](const std::string& s) { return s.substr(0, s.find("{\"type\":\"summary\"")); };
    EXPECT_EQ(got.status, want.status) << got.err;
    EXPECT_EQ(strip_summary(got.out), strip_summary(want.out));
    EXPECT_EQ(strip_summary(wave.out), strip_summary(want.out)) << wave.err;
  }
}

// --no-progress is accepted and changes nothing (the bar is drawn only on a terminal, so the
// output of a pipe is the same either way).
TEST_F(CliApprox, NoProgressFlagChangesNoOutput) {
  const auto f = file("t.txt", "xxxxGATTACAxxxxGATTxCAxx");
  const auto with = run({"approx", "-k", "1", "GATTACA", f.string()});
  const auto without = run({"approx", "-k", "1", "--no-progress", "GATTACA", f.string()});
  EXPECT_EQ(with.status, 0) << with.err;
  EXPECT_EQ(without.status, 0) << without.err;
  EXPECT_EQ(with.out, without.out);
  EXPECT_EQ(without.err, "");
}
