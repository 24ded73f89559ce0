// `warpmatch-bench e2e`'s jobs and rows (e2e_jobs.cpp): what each row runs, how its output
// becomes a count, how it is timed, and how a job's rows are checked against the oracle, each
// other and the peer, and against the targets of PERF.md.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "bench/e2e_spawner.hpp"

namespace warpmatch::bench::e2e {

enum class Status { ok, skipped, failed };
inline std::string_view status_name(Status s) {
  return s == Status::ok ? "ok" : (s == Status::skipped ? "skipped" : "failed");
}

/// How a row's stdout becomes a number.
enum class Parse {
  count,           // one count, maybe after "NAME:" (warpmatch -c, rg -c; empty = 0)
  pattern_counts,  // warpmatch -c with -f: "INDEX:COUNT" per pattern, summed
  input_counts,    // -c over many files: "PATH:COUNT" per file (rg: only those with a match), summed
  seqkit_lines,    // seqkit locate: a header line, then one line per match
  distance_sum,    // warpmatch distance --pairs: "A TAB B TAB D" per pair, D summed
  line_count,      // one line per result (offtarget --bed)
};

struct Row {
  // what runs
  std::string method;   // e.g. "warpmatch auto", "ripgrep -F -c"
  std::string backend;  // auto / cpu / cuda for warpmatch rows, "" for a peer
  bool peer = false;
  bool optional = false;  // a failure does not change the exit status (StringZilla)
  std::vector<std::string> argv, warmup_argv;  // warm-up: with --stats (backend, scan speed)
  Parse parse = Parse::count;
  std::string unit;  // occurrences, lines, sum over patterns, sum of distances
  // what came out
  Status status = Status::ok;
  std::string note;
  std::vector<double> samples_s;
  double wall_s = 0, rss_mib = 0;
  std::string output;
  std::optional<std::uint64_t> count;
  std::string backend_used;           // from the warm-up's --stats
  std::optional<double> scan_gbps;    // from the warm-up's --stats (find)
  std::optional<double> inprocess_s;  // median of --stats seconds (distance)
  std::optional<std::uint64_t> expected;
  std::optional<bool> agrees;  // null: nothing to compare with
  double vs_peer = 0;          // the peer's wall / this wall (> 1: faster than the peer)
  std::optional<bool> met;     // null: no target for this row, or not measurable
  std::vector<std::string> target_notes;

  bool ok() const { return status == Status::ok; }
  std::string label() const {
    return backend == "auto" && !backend_used.empty() ? fmt::format("{} ({})", method, backend_used) : method;
  }
};

enum class Metric { gbps, vs_peer, rss_mib, wall_ms, inprocess_ms, scan_gbps };

struct Target {
  std::string backend;  // the row it applies to
  Metric metric;
  double goal;
  bool at_least;  // value >= goal, else value <= goal
  std::string text;
};

struct Job {
  int number = 0;
  std::string id, title;
  std::uint64_t bytes = 0;  // what GB/s divides (decompressed bytes for job 5)
  std::string bytes_note;
  std::optional<std::uint64_t> expected_occurrences, expected_lines;  // the oracle
  std::vector<Target> targets;
  std::vector<Row> rows;
  std::optional<double> auto_vs_best;  // min(cpu, cuda) / auto, where both ran
  std::string auto_vs_best_note;

  const Row* peer() const {
    for (const auto& r : rows)
      if (r.peer) return &r;
    return nullptr;
  }
  const Row* backend_row(std::string_view b) const {
    for (const auto& r : rows)
      if (!r.peer && r.backend == b) return &r;
    return nullptr;
  }
};

struct JobSpec {
  int number;
  std::string id;
};
/// The backends of warpmatch's rows (cuda rows are skipped, with the reason, without a GPU).
inline const std::vector<std::string> kBackends = {"auto", "cpu", "cuda"};

inline const JobSpec kJobs[] = {{1, "word"}, {2, "stdin"}, {3, "words"}, {4, "fasta"}, {5, "gz"},
                             {5, "bgzf"}, {5, "zst"},   {6, "tiny"},  {7, "pairs"},
                             {8, "primers"}, {9, "offtarget"}, {10, "guides"}, {11, "kmers"},
                             {12, "reads"}, {13, "tree"}};

/// The job ids of a --rows list ("7", "5" or a job id; "" or "all" = every job), in the
/// table's order; throws InvalidArgument naming --rows for an unknown one.
std::vector<std::string> parse_rows(const std::string& list);

/// The row's number from its stdout, or nullopt when the output has another shape.
std::optional<std::uint64_t> parse_output(Parse how, const std::string& out);

/// A job's rows timed together: each row runs once as a warm-up (files into the page cache,
/// CUDA's first start-up; its output, count, backend and scan rate), then the timed runs go
/// round by round over the rows (row 1, row 2, ..., row 1, ...), so that a drift of the host's
/// speed during the job falls on every row alike, and auto is compared with cpu and cuda run
/// beside it. A row whose warm-up took under kQuickRun gets at least kMinQuickRepeats runs.
/// `progress(row)` is called after each row's warm-up and after its last timed run.
void measure_rows(Spawner& spawner, std::vector<Row>& rows, int repeats, const std::filesystem::path& scratch,
                  double timeout_s, const std::function<void(const Row&, bool timed)>& progress);

double metric_value(const Job& job, const Row& r, Metric m);
const char* metric_unit(Metric m);

/// Counts against the oracle (or the backends against each other), ratios, targets.
void evaluate(Job& job);

}  // namespace warpmatch::bench::e2e
