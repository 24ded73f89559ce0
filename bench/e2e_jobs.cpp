#include "bench/e2e_jobs.hpp"

#include <algorithm>
#include <charconv>
#include <regex>
#include <sstream>

#include "bench/bench_support.hpp"
#include "warpmatch/common.hpp"

namespace warpmatch::bench::e2e {

namespace fs = std::filesystem;
using support::trim;

std::vector<std::string> parse_rows(const std::string& list) {
  std::vector<std::string> ids;
  if (list.empty() || list == "all") {
    for (const auto& j : kJobs) ids.push_back(j.id);
    return ids;
  }
  std::stringstream ss(list);
  for (std::string tok; std::getline(ss, tok, ',');) {
    tok = trim(tok);
    if (tok.empty()) continue;
    bool found = false;
    for (const auto& j : kJobs)
      if (tok == j.id || tok == std::to_string(j.number)) {
        if (std::find(ids.begin(), ids.end(), j.id) == ids.end()) ids.push_back(j.id);
        found = true;
      }
    if (!found)
      throw InvalidArgument("--rows: unknown job '" + tok +
                            "' (numbers 1-12 or word, stdin, words, fasta, gz, bgzf, zst, tiny, pairs, primers, offtarget, guides, "
                            "kmers, reads)");
  }
  // keep the table's order
  std::vector<std::string> ordered;
  for (const auto& j : kJobs)
    if (std::find(ids.begin(), ids.end(), j.id) != ids.end()) ordered.push_back(j.id);
  return ordered;
}

namespace {

std::optional<std::uint64_t> to_u64(std::string_view s) {
  std::uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

/// The row's number from its stdout, or nullopt when the output has another shape.
std::optional<std::uint64_t> parse_output(Parse how, const std::string& out) {
  std::vector<std::string> lines;
  std::stringstream ss(out);
  for (std::string l; std::getline(ss, l);)
    if (!trim(l).empty()) lines.push_back(trim(l));
  switch (how) {
    case Parse::count:
      if (lines.empty()) return 0;  // rg -c prints nothing when nothing matched
      if (lines.size() != 1) return std::nullopt;
      return to_u64(std::string_view(lines[0]).substr(lines[0].rfind(':') + 1));
    case Parse::pattern_counts:
    case Parse::input_counts: {
      std::uint64_t sum = 0;
      for (const auto& l : lines) {
        auto v = to_u64(std::string_view(l).substr(l.rfind(':') + 1));
        if (!v) return std::nullopt;
        sum += *v;
      }
      return sum;
    }
    case Parse::seqkit_lines:
      return lines.empty() ? 0 : lines.size() - 1;
    case Parse::line_count:
      return lines.size();
    case Parse::distance_sum: {
      std::uint64_t sum = 0;
      for (const auto& l : lines) {
        auto v = to_u64(std::string_view(l).substr(l.rfind('\t') + 1));
        if (!v) return std::nullopt;
        sum += *v;
      }
      return sum;
    }
  }
  return std::nullopt;
}

constexpr double kQuickRun = 0.05;  // seconds
constexpr int kMinQuickRepeats = 21;

// A row whose warm-up took under kQuickRun is timed kMinQuickRepeats times at least (a median
// of three runs of a few milliseconds is mostly the noise of starting a process).
namespace {

const std::regex kDistanceSeconds(R"(cells, ([0-9.eE+-]+) s)");

/// The untimed first run of a row; returns how many timed runs it gets (0: it failed).
int warm_up(Spawner& spawner, Row& row, int repeats, const fs::path& scratch, double timeout_s) {
  static const std::regex backend_re(R"(backend (\w+))");
  static const std::regex scan_re(R"(s scanning \(([0-9.]+) GB/s\))");
  const RunResult warm = spawner.run(row.warmup_argv.empty() ? row.argv : row.warmup_argv, scratch, timeout_s);
  if (!warm.ok) {
    row.status = Status::failed;
    row.note = "warm-up: " + warm.error;
    return 0;
  }
  std::smatch m;
  if (std::regex_search(warm.err, m, backend_re)) row.backend_used = m[1];
  if (std::regex_search(warm.err, m, scan_re)) row.scan_gbps = std::stod(m[1]);
  row.output = warm.out;
  row.count = parse_output(row.parse, warm.out);
  if (!row.count) {
    row.status = Status::failed;
    row.note = "unexpected output: " + trim(warm.out.substr(0, 200));
    return 0;
  }
  return warm.wall_s < kQuickRun ? std::max(repeats, kMinQuickRepeats) : repeats;
}

/// One timed run of a row that warmed up; `inprocess` gathers its --stats seconds (distance).
void time_once(Spawner& spawner, Row& row, std::vector<double>& inprocess, const fs::path& scratch,
               double timeout_s) {
  const RunResult r = spawner.run(row.argv, scratch, timeout_s);
  if (!r.ok) {
    row.status = Status::failed;
    row.note = r.error;
    return;
  }
  row.samples_s.push_back(r.wall_s);
  row.rss_mib = std::max(row.rss_mib, r.max_rss_mib);
  std::smatch m;
  if (std::regex_search(r.err, m, kDistanceSeconds)) inprocess.push_back(std::stod(m[1]));
  // seqkit -j N lists records, and ripgrep files, in the order its threads finish: compare
  // the count only.
  const bool any_order = row.peer && (row.parse == Parse::seqkit_lines || row.parse == Parse::input_counts);
  if (r.out != row.output && !(any_order && parse_output(row.parse, r.out) == row.count))
    row.note = "output changed between runs";
}

}  // namespace

void measure_rows(Spawner& spawner, std::vector<Row>& rows, int repeats, const fs::path& scratch, double timeout_s,
                  const std::function<void(const Row&, bool timed)>& progress) {
  std::vector<int> runs(rows.size(), 0);
  std::vector<std::vector<double>> inprocess(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (!rows[i].ok()) continue;
    runs[i] = warm_up(spawner, rows[i], repeats, scratch, timeout_s);
    progress(rows[i], false);
  }
  // Round by round, every other round in reverse order. In one fixed order the first row
  // (auto) always ran right after the peer, whose long run (ripgrep over 8 GiB: 1-45 s) left
  // the GPU idle, and a CUDA process started after 5 s or more of idleness takes ~0.1 s
  // longer than one started right after another (H200 machine, 0.40-0.43 against 0.30-0.36 s
  // for a tiny file): auto choosing the GPU paid that in every round and cuda in none
  // (1000 words: auto 0.87-0.97x the cuda row, the same backend, in three runs). Reversed,
  // the rows take turns after the peer and after each other.
  const int rounds = runs.empty() ? 0 : *std::max_element(runs.begin(), runs.end());
  for (int round = 0; round < rounds; ++round)
    for (std::size_t k = 0; k < rows.size(); ++k) {
      const std::size_t i = round % 2 == 0 ? k : rows.size() - 1 - k;
      if (round < runs[i] && rows[i].ok()) time_once(spawner, rows[i], inprocess[i], scratch, timeout_s);
    }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    Row& row = rows[i];
    if (runs[i] == 0) continue;  // skipped, or its warm-up failed (already reported)
    if (row.ok()) {
      row.wall_s = support::median(row.samples_s);
      if (!inprocess[i].empty()) row.inprocess_s = support::median(inprocess[i]);
    }
    progress(row, true);
  }
}

double metric_value(const Job& job, const Row& r, Metric m) {
  switch (m) {
    case Metric::gbps: return r.wall_s > 0 ? static_cast<double>(job.bytes) / r.wall_s / 1e9 : 0;
    case Metric::vs_peer: return r.vs_peer;
    case Metric::rss_mib: return r.rss_mib;
    case Metric::wall_ms: return r.wall_s * 1e3;
    case Metric::inprocess_ms: return r.inprocess_s ? *r.inprocess_s * 1e3 : 0;
    case Metric::scan_gbps: return r.scan_gbps.value_or(0);
  }
  return 0;
}

const char* metric_unit(Metric m) {
  switch (m) {
    case Metric::gbps: case Metric::scan_gbps: return "GB/s";
    case Metric::vs_peer: return "x";
    case Metric::rss_mib: return "MiB";
    case Metric::wall_ms: case Metric::inprocess_ms: return "ms";
  }
  return "";
}

/// Counts against the oracle (or the backends against each other), ratios, targets.
void evaluate(Job& job) {
  const Row* peer = job.peer();
  const Row* reference = nullptr;  // the first warpmatch row that ran: backends must agree
  for (const auto& r : job.rows)
    if (!r.peer && r.ok()) {
      reference = &r;
      break;
    }
  for (auto& r : job.rows) {
    if (!r.ok()) continue;
    if (peer && peer->ok() && peer != &r && r.wall_s > 0) r.vs_peer = peer->wall_s / r.wall_s;
    if (r.unit == "occurrences" && job.expected_occurrences) r.expected = job.expected_occurrences;
    if (r.unit == "lines" && job.expected_lines) r.expected = job.expected_lines;
    if (r.expected) {
      r.agrees = r.count == r.expected;
    } else if (!r.peer && reference && reference != &r) {
      r.agrees = r.output == reference->output;
      if (!*r.agrees) r.note = fmt::format("output differs from warpmatch {}", reference->backend);
    } else if (r.peer && reference && reference->unit == r.unit) {
      r.agrees = r.count == reference->count;
    }
    if (r.note == "output changed between runs") r.agrees = false;
  }
  if (reference && !reference->expected) {  // the reference itself agrees when another does
    for (const auto& r : job.rows)
      if (&r != reference && !r.peer && r.agrees) job.rows[reference - job.rows.data()].agrees = true;
  }
  for (auto& r : job.rows) {  // met: every target of the row met; NOT MET: one measured and missed
    bool any = false, missed = false, unmeasured = false;
    for (const auto& t : job.targets) {
      if (r.peer || t.backend != r.backend) continue;
      any = true;
      const double v = metric_value(job, r, t.metric);
      if (!r.ok() || v <= 0 || r.agrees == false) {
        unmeasured = true;
        continue;
      }
      missed = missed || !(t.at_least ? v >= t.goal : v <= t.goal);
    }
    if (any && (missed || !unmeasured)) r.met = !missed;
  }
  const Row* a = job.backend_row("auto");
  const Row* c = job.backend_row("cpu");
  const Row* g = job.backend_row("cuda");
  if (a && c && g && a->ok() && c->ok() && g->ok() && a->wall_s > 0)
    job.auto_vs_best = std::min(c->wall_s, g->wall_s) / a->wall_s;
  else if (a && c && g)
    job.auto_vs_best_note = "needs auto, cpu and cuda rows that ran";
}

}  // namespace warpmatch::bench::e2e
