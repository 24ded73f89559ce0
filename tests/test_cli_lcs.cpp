// `warpmatch lcs` as a user sees it: text and JSON output, --max-matches, --min-length
// (MEMs), FASTA/gzip/records, any bytes, exit codes and errors. Runs the built binary
// (WARPMATCH_CLI overrides the compiled-in path).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "cli_test_support.hpp"
#include "warpmatch/common.hpp"

namespace fs = std::filesystem;

namespace {

using warpmatch_test::json_lines;
using warpmatch_test::write_gzip;

class CliLcs : public warpmatch_test::CliTest {
 protected:
  CliLcs() : CliTest("warpmatch_cli_lcs_") {}
};

}  // namespace

TEST_F(CliLcs, LcsOfLiteralsPrintsLengthCountAndPairs) {
  const auto r = run({"lcs", "-s", "hello world", "yellow wood"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "length 4, 1 distinct common substring, 1 occurrence pair\n1\t1\tello\n");
}

TEST_F(CliLcs, LcsJsonHasLengthCountAndEveryPair) {
  const auto r = run({"lcs", "--json", "-s", "abXab", "abYab"});
  EXPECT_EQ(r.status, 0) << r.err;
  const auto lines = json_lines(r.out);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0]["type"], "lcs");
  EXPECT_EQ(lines[0]["length"], 2);
  EXPECT_EQ(lines[0]["count"], 1);
  EXPECT_EQ(lines[0]["total_pairs"], 4);
  EXPECT_EQ(lines[0]["matches"], nlohmann::json::parse(
      R"([{"a":0,"b":0},{"a":0,"b":3},{"a":3,"b":0},{"a":3,"b":3}])"));
}

TEST_F(CliLcs, LcsMaxMatchesBoundsPairsButNotCounts) {
  const auto r = run({"lcs", "--json", "-m", "1", "-s", "abXab", "abYab"});
  const auto lines = json_lines(r.out);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0]["total_pairs"], 4);
  EXPECT_EQ(lines[0]["matches"].size(), 1u);
  const auto text = run({"lcs", "-m", "1", "-s", "abXab", "abYab"});
  EXPECT_NE(text.out.find("# 3 more pairs not shown"), std::string::npos) << text.out;
}

TEST_F(CliLcs, LcsExitsOneWhenNothingIsCommon) {
  const auto r = run({"lcs", "-s", "aaaa", "bbbb"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "length 0, 0 distinct common substrings, 0 occurrence pairs\n");
  const auto j = run({"lcs", "--json", "-s", "aaaa", "bbbb"});
  EXPECT_EQ(j.status, 1);
  EXPECT_EQ(json_lines(j.out)[0]["length"], 0);
}

TEST_F(CliLcs, LcsReadsFastaGzipAndNamedRecords) {
  const auto a = file("a.fa", ">one\nACGTTT\nGGGG\n>two\nCCCCATTACA\n");
  write_gzip(dir_ / "b.fa.gz", ">x\nTTTGGGA\n>two\nGATTACAGG\n");
  const auto first = run({"lcs", "--json", a.string(), (dir_ / "b.fa.gz").string()});
  EXPECT_EQ(first.status, 0) << first.err;
  // First records: ACGTTTGGGG vs TTTGGGA share TTTGGG (line breaks removed).
  EXPECT_EQ(json_lines(first.out)[0]["length"], 6);
  EXPECT_EQ(json_lines(first.out)[0]["matches"], nlohmann::json::parse(R"([{"a":3,"b":0}])"));
  const auto named = run({"lcs", "--record", "two", a.string(), (dir_ / "b.fa.gz").string()});
  EXPECT_EQ(named.status, 0) << named.err;
  EXPECT_EQ(named.out, "length 6, 1 distinct common substring, 1 occurrence pair\n4\t1\tATTACA\n");
  const auto mixed = run({"lcs", "--record-a", "two", "--record-b", "x", a.string(),
                          (dir_ / "b.fa.gz").string()});
  EXPECT_EQ(mixed.status, 0) << mixed.err;
  EXPECT_EQ(mixed.out.substr(0, 9), "length 2,") << mixed.out;  // CCCCATTACA vs TTTGGGA: "TT"
}

TEST_F(CliLcs, LcsMinLengthPrintsEveryMem) {
  const auto r = run({"lcs", "--json", "--min-length", "2", "-s", "abcXabcYab", "abc-ab"});
  EXPECT_EQ(r.status, 0) << r.err;
  std::vector<std::tuple<int, int, int>> mems;
  for (const auto& j : json_lines(r.out)) {
    EXPECT_EQ(j["type"], "mem");
    mems.emplace_back(j["a"], j["b"], j["length"]);
  }
  const std::vector<std::tuple<int, int, int>> expected = {
      {0, 0, 3}, {0, 4, 2}, {4, 0, 3}, {4, 4, 2}, {8, 0, 2}, {8, 4, 2}};
  EXPECT_EQ(mems, expected);
  const auto none = run({"lcs", "--min-length", "4", "-s", "abcXabcYab", "abc-ab"});
  EXPECT_EQ(none.status, 1);
  EXPECT_EQ(none.out, "");
}

TEST_F(CliLcs, LcsHandlesNulAndHighBytesInFiles) {
  const auto a = file("a.bin", std::string("\x00\xff\x00\xffZ", 5));
  const auto b = file("b.bin", std::string("Q\xff\x00\xff", 4));
  const auto r = run({"lcs", a.string(), b.string()});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "length 3, 1 distinct common substring, 1 occurrence pair\n1\t1\t\\xff\\x00\\xff\n");
}

TEST_F(CliLcs, LcsAlgorithmsAgreeAndStatsGoToStderr) {
  for (const std::string algo : {"suffix-array", "diagonal", "dp"}) {
    const auto r = run({"lcs", "--backend", "cpu", "--algo", algo, "--stats", "-s", "the cat sat", "a cat sat on"});
    EXPECT_EQ(r.status, 0) << algo << r.err;
    EXPECT_EQ(r.out, "length 8, 1 distinct common substring, 1 occurrence pair\n3\t1\t cat sat\n") << algo;
    EXPECT_NE(r.err.find("algorithm " + algo), std::string::npos) << r.err;
  }
}

TEST_F(CliLcs, LcsErrorsExitTwoAndNameTheInput) {
  const std::string missing = (dir_ / "missing.fa").string();
  const auto r = run({"lcs", missing, "-s"});
  EXPECT_EQ(r.status, 2);
  const auto m = run({"lcs", missing, missing});
  EXPECT_EQ(m.status, 2);
  EXPECT_NE(m.err.find(missing), std::string::npos) << m.err;
  const auto rec = run({"lcs", "--record", "nope", file("a.fa", ">r\nACGT\n").string(),
                        file("b.fa", ">r\nACGT\n").string()});
  EXPECT_EQ(rec.status, 2);
  EXPECT_NE(rec.err.find("nope"), std::string::npos) << rec.err;
  EXPECT_EQ(run({"lcs", "--algo", "bogus", "-s", "a", "a"}).status, 2);
  EXPECT_EQ(run({"lcs", "--min-length", "0", "-s", "a", "a"}).status, 2);
  if (warpmatch::cuda_devices().empty()) {
    const auto gpu = run({"lcs", "--backend", "cuda", "-s", "a", "a"});
    EXPECT_EQ(gpu.status, 2);
    EXPECT_NE(gpu.err.find("CUDA"), std::string::npos) << gpu.err;
  }
}

TEST_F(CliLcs, LcsGpuBackendsPrintWhatTheCpuPrints) {
  if (warpmatch::cuda_devices().empty()) GTEST_SKIP() << "no CUDA GPU: CLI lcs GPU test skipped";
  const auto a = file("a.txt", "the quick brown fox jumps over the lazy dog; the quick end");
  const auto b = file("b.txt", "a quick brown dog jumps over the lazy fox; quick brown");
  const auto cpu = run({"lcs", "--backend", "cpu", "--json", a.string(), b.string()});
  ASSERT_EQ(cpu.status, 0) << cpu.err;
  for (const std::string algo : {"suffix-array", "diagonal"}) {
    const auto gpu = run({"lcs", "--backend", "cuda", "--algo", algo, "--json", a.string(), b.string()});
    EXPECT_EQ(gpu.status, 0) << algo << gpu.err;
    EXPECT_EQ(gpu.out, cpu.out) << algo;
  }
  const auto mem_cpu = run({"lcs", "--backend", "cpu", "--min-length", "4", a.string(), b.string()});
  const auto mem_gpu = run({"lcs", "--backend", "cuda", "--min-length", "4", a.string(), b.string()});
  EXPECT_EQ(mem_gpu.status, 0) << mem_gpu.err;
  EXPECT_EQ(mem_gpu.out, mem_cpu.out);
}

// lcs runs on one GPU: --devices naming several is an error saying so (before any GPU is
// touched, so it holds without one too); naming one is --device.
TEST_F(CliLcs, LcsDevicesNamingSeveralGpusIsAnErrorSayingItRunsOnOne) {
  const auto r = run({"lcs", "--devices", "0,1", "-s", "hello", "yellow"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("lcs runs on one GPU"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--devices 0,1 names 2"), std::string::npos) << r.err;
  const auto help = run({"lcs", "--help"});
  EXPECT_NE(help.out.find("lcs runs on one GPU"), std::string::npos) << help.out;
  if (warpmatch::cuda_devices().empty()) return;
  const auto one = run({"lcs", "--devices", "0,0", "--backend", "cuda", "-s", "hello", "yellow"});
  EXPECT_EQ(one.status, 0) << one.err;
  EXPECT_EQ(one.out, run({"lcs", "--backend", "cpu", "-s", "hello", "yellow"}).out);
}

// One GPU must hold the suffix array of A and B (about 37 bytes per input byte and 64 MiB):
// past --device-memory, --backend cuda is one message naming the sizes and the limit (exit 2)
// and --backend auto computes on the CPU, --stats saying why.
TEST_F(CliLcs, LcsPastTheDeviceMemoryIsAnErrorOnCudaAndTheCpuOnAuto) {
  if (warpmatch::cuda_devices().empty()) GTEST_SKIP() << "no CUDA GPU: CLI lcs GPU test skipped";
  const auto a = file("a.txt", std::string(3000, 'a') + "the quick brown fox");
  const auto b = file("b.txt", "a quick brown dog" + std::string(2000, 'c'));
  const auto forced = run({"lcs", "--backend", "cuda", "--device-memory", "32M", a.string(), b.string()});
  EXPECT_EQ(forced.status, 2);
  EXPECT_EQ(forced.out, "");
  for (const std::string& part : std::vector<std::string>{"inputs of 3019 + 2017 bytes", "device-memory cap of 33554432 bytes",
                                 "runs on one GPU", "--backend cpu"})
    EXPECT_NE(forced.err.find(part), std::string::npos) << "'" << part << "' missing from: " << forced.err;
  EXPECT_EQ(std::count(forced.err.begin(), forced.err.end(), '\n'), 1) << "one message: " << forced.err;
  const auto mems = run({"lcs", "--backend", "cuda", "--device-memory", "32M", "--min-length", "5", a.string(), b.string()});
  EXPECT_EQ(mems.status, 2) << mems.err;

  const auto cpu = run({"lcs", "--backend", "cpu", a.string(), b.string()});
  const auto automatic = run({"lcs", "--backend", "auto", "--device-memory", "32M", "--stats", a.string(), b.string()});
  EXPECT_EQ(automatic.status, 0) << automatic.err;
  EXPECT_EQ(automatic.out, cpu.out);
  EXPECT_NE(automatic.err.find("computed on the CPU instead"), std::string::npos) << automatic.err;
  EXPECT_NE(automatic.err.find("backend cpu"), std::string::npos) << automatic.err;
}
