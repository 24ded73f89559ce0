// `warpmatch-bench e2e` at a tiny scale (timing this build's `warpmatch`): every job runs, the JSON has its rows, and every count
// is right — warpmatch's against the generator's oracle and against the peer's where the peer
// counts the same thing (ripgrep's -c counts lines: equal here because the planted word is on
// distinct lines; seqkit locate counts occurrences). Correctness only: nothing is timed here.
#include <set>

#include "cli_test_support.hpp"

namespace {

using nlohmann::json;
using warpmatch_test::CliTest;

class BenchE2ETest : public CliTest {
 protected:
  BenchE2ETest() : CliTest("warpmatch_bench_e2e_") {}

  // warpmatch-bench e2e ARGS..., timing the warpmatch the other CLI tests run.
  warpmatch_test::CliResult bench_e2e(std::vector<std::string> args) {
    args.insert(args.begin(), {"e2e", "--warpmatch", warpmatch_test::cli_path()});
    warpmatch_test::write_file(dir_ / ".stdin", "");
    return run_program(warpmatch_test::bench_path(), args, dir_ / ".stdin");
  }
};

std::string describe(const json& row) {
  return row.value("job_id", std::string("?")) + " / " + row.value("method", std::string("?"));
}

TEST_F(BenchE2ETest, EveryJobRunsAndEveryCountAgrees) {
  const auto json_path = dir_ / "e2e.json";
  const auto r = bench_e2e({"--bytes", "1M", "--fasta-bytes", "1M", "--pairs", "1000", "--sequence-bytes", "1M", "--guides", "20",
                      "--set-guides", "30", "--set-genome-bytes", "1M", "--reads", "5000", "--tree-bytes", "2M",
                      "--tree-files", "300", "--repeats", "1", "--dir", dir_.string(), "--json", json_path.string()});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const json j = json::parse(warpmatch_test::read_file(json_path));
  EXPECT_EQ(j["benchmark"], "e2e");
  EXPECT_EQ(j["complete"], true);
  EXPECT_EQ(j["exit_status"], 0);
  EXPECT_EQ(j["disagreements"], 0);
  EXPECT_EQ(j["failures"], 0);
  EXPECT_FALSE(j["host"]["cpu_model"].is_null());
  EXPECT_FALSE(j["commit"].get<std::string>().empty());

  std::set<std::string> jobs;
  for (const auto& job : j["jobs"]) jobs.insert(job["id"].get<std::string>());
  EXPECT_EQ(jobs, (std::set<std::string>{"word", "stdin", "words", "fasta", "gz", "bgzf", "zst", "tiny", "pairs", "primers", "offtarget", "guides", "kmers", "reads", "tree"}));

  std::set<std::string> auto_ok;
  for (const auto& row : j["rows"]) {
    SCOPED_TRACE(describe(row));
    const std::string status = row["status"];
    ASSERT_TRUE(status == "ok" || status == "skipped") << row.dump();
    if (status == "skipped") {
      EXPECT_FALSE(row["note"].get<std::string>().empty());  // says why
      EXPECT_TRUE(row["peer"].get<bool>() || row["backend"] == "cuda") << row.dump();
      continue;
    }
    ASSERT_TRUE(row["count"].is_number_unsigned()) << row.dump();
    EXPECT_GT(row["wall_s"].get<double>(), 0.0);
    EXPECT_GT(row["peak_rss_mib"].get<double>(), 0.0);
    if (!row["agrees"].is_null()) EXPECT_TRUE(row["agrees"].get<bool>()) << row.dump();
    if (!row["expected"].is_null()) EXPECT_EQ(row["count"], row["expected"]) << row.dump();
    if (row["backend"] == "auto") auto_ok.insert(row["job_id"].get<std::string>());
  }
  EXPECT_EQ(auto_ok, jobs);  // warpmatch as a user runs it, in every job

  for (const auto& job : j["jobs"]) {
    SCOPED_TRACE(job["id"].get<std::string>());
    std::set<std::uint64_t> warpmatch_counts;
    for (const auto& row : j["rows"]) {
      if (row["job_id"] != job["id"] || row["status"] != "ok" || row["peer"].get<bool>()) continue;
      warpmatch_counts.insert(row["count"].get<std::uint64_t>());
      // The peer's output where it counts the same unit (or, for lines, where the oracle says
      // lines and occurrences coincide).
      if (!job["peer_count"].is_null()) {
        const bool same_unit = job["peer_count_unit"] == row["count_unit"];
        const bool lines_equal_occurrences = job["peer_count_unit"] == "lines" &&
                                             row["count_unit"] == "occurrences" &&
                                             job["expected_lines"] == job["expected_occurrences"];
        if (same_unit || lines_equal_occurrences)
          EXPECT_EQ(row["count"], job["peer_count"]) << describe(row);
      }
    }
    EXPECT_LE(warpmatch_counts.size(), 1u) << "backends disagree";
  }

  // Job 11: half of the 1000 k-mers are cut from the FASTA, so each occurs at least once.
  for (const auto& row : j["rows"])
    if (row["job_id"] == "kmers" && row["backend"] == "auto") EXPECT_GE(row["count"].get<std::uint64_t>(), 500u);
  // The oracle's numbers: the planted word 50 times (1 MiB of text), the 8-mer at least once.
  EXPECT_EQ(j["data"]["text"]["planted"], 50);
  EXPECT_GT(j["data"]["fasta"]["occurrences"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(j["data"]["pairs"]["pairs"], 1000);
  EXPECT_EQ(j["data"]["reads"]["reads"], 5000);
  EXPECT_GT(j["data"]["reads"]["occurrences"].get<std::uint64_t>(), 0u);
  // Job 13: the text cut into 300 files in 6 directories, the word planted 50 times in all.
  EXPECT_EQ(j["data"]["tree"]["files"], 300);
  EXPECT_EQ(j["data"]["tree"]["directories"], 6);
  EXPECT_EQ(j["data"]["tree"]["planted"], 50);
  EXPECT_EQ(j["data"]["tree"]["bytes"], 2 << 20);
  // The generated data is removed without --keep.
  for (const auto& e : std::filesystem::directory_iterator(dir_))
    EXPECT_EQ(e.path().filename().string().rfind("warpmatch-e2e-", 0), std::string::npos) << e.path();
}

// --primers-genome-bytes: job 8 (primers vs seqkit locate -d) searches a FASTA of its own
// size, job 9 (offtarget) still the --sequence-bytes one; with job 8 alone only its FASTA is made.
TEST_F(BenchE2ETest, PrimersGenomeBytesSizesJobEightApart) {
  const auto json_path = dir_ / "e2e.json";
  const auto r = bench_e2e({"--rows", "primers,offtarget", "--sequence-bytes", "1M", "--primers-genome-bytes", "3M",
                            "--guides", "5", "--repeats", "1", "--dir", dir_.string(), "--json", json_path.string()});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const json j = json::parse(warpmatch_test::read_file(json_path));
  EXPECT_EQ(j["options"]["primers_genome_bytes"], 3u << 20);
  ASSERT_EQ(j["jobs"].size(), 2u);
  for (const auto& job : j["jobs"]) {
    const auto bytes = job["bytes"].get<std::uint64_t>();
    if (job["id"] == "primers") {
      EXPECT_GT(bytes, 2u << 20) << job.dump();
      EXPECT_LE(bytes, 3u << 20) << job.dump();
    } else {
      EXPECT_LE(bytes, 1u << 20) << job.dump();
    }
  }
  EXPECT_EQ(j["disagreements"], 0);
  EXPECT_EQ(j["failures"], 0);
  const auto alone = bench_e2e({"--rows", "primers", "--primers-genome-bytes", "2M", "--seqkit", "none", "--repeats",
                                "1", "--dir", dir_.string(), "--json", json_path.string()});
  ASSERT_EQ(alone.status, 0) << alone.out << alone.err;
  EXPECT_EQ(alone.out.find("sequence jobs: FASTA"), std::string::npos) << alone.out;
  EXPECT_NE(alone.out.find("primers job: FASTA of "), std::string::npos) << alone.out;
}

TEST_F(BenchE2ETest, RowsSelectsJobsAndRejectsUnknownOnes) {
  const auto json_path = dir_ / "e2e.json";
  const auto r = bench_e2e({"--rows", "6", "--repeats", "1", "--dir", dir_.string(), "--json",
                      json_path.string()});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const json j = json::parse(warpmatch_test::read_file(json_path));
  ASSERT_EQ(j["jobs"].size(), 1u);
  EXPECT_EQ(j["jobs"][0]["id"], "tiny");
  EXPECT_EQ(j["jobs"][0]["expected_occurrences"], 1);

  const auto bad = bench_e2e({"--rows", "nope", "--dir", dir_.string(), "--json", json_path.string()});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--rows"), std::string::npos) << bad.err;
}

}  // namespace
