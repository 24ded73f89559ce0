// `warpmatch-bench find` — exact search of one pattern over generated English-like text.
//
// The text (1 GiB by default) is made of words drawn Zipf-like (exponent 1) from a vocabulary
// whose most frequent words are those of real English ("the" first), followed by a word list
// (e.g. /usr/share/dict/words) or built-in pseudo-words, with sentences, punctuation and lines
// of at most ~80 bytes. A rare word ("Sherlock", removed from the vocabulary) is planted about
// 50 times. The generator counts, as it writes, every occurrence of each benchmark pattern and
// every line holding one, so each method's count is checked against an exact oracle.
//
// Methods, for each pattern: GPU resident (fast), GPU host-fed (fast, transfers included),
// GPU resident (bf, seed paper 003), CPU backend on all threads and on 1 thread, and ripgrep
// (`rg -F -c`, which counts lines, and `rg -F --count-matches`, which counts occurrences)
// timed around fork/exec on a file warm in the page cache. Prints a table and writes JSON.
#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/kernel_timing.hpp"
#include "bench/bench_find.hpp"
#include "bench/bench_support.hpp"
#include "bench/find_text.hpp"
#include "bench/process.hpp"
#include "warpmatch/exact.hpp"

namespace warpmatch::bench {
namespace {

using json = nlohmann::json;
using support::fmt_ratio;
using support::trim;
using Clock = std::chrono::steady_clock;
using find_text::kPatterns;

// Targets of /work/shared/PERF.md.
constexpr double kResidentTargetGBps = 3000.0;
constexpr double kHostFedTargetGBps = 45.0;

double gb_per_s(std::uint64_t bytes, double ms) {
  return ms > 0 ? static_cast<double>(bytes) / (ms * 1e-3) / 1e9 : 0.0;
}

std::string format_bytes(std::uint64_t b) {
  if (b >= (1ull << 30) && b % (1ull << 30) == 0) return fmt::format("{} GiB", b >> 30);
  if (b >= (1ull << 20) && b % (1ull << 20) == 0) return fmt::format("{} MiB", b >> 20);
  return fmt::format("{} bytes", b);
}


// ---- measurements ---------------------------------------------------------------------------
enum class Status { ok, skipped, failed };
std::string_view status_name(Status s) {
  return s == Status::ok ? "ok" : (s == Status::skipped ? "skipped" : "failed");
}

struct Row {
  std::string method;  // stable id used in JSON
  std::string label;   // human-readable
  std::size_t pattern = 0;
  Status status = Status::ok;
  std::string note;
  bool counts_lines = false;  // rg -c counts matching lines, not occurrences
  std::uint64_t count = 0, expected = 0;
  double median_ms = 0;
  std::vector<double> samples_ms;  // empty where the backend reports only the median
  double ratio_vs_rg = 0;          // rg's median / this median (> 1: faster than ripgrep)
  bool mismatch() const { return status == Status::ok && count != expected; }
};

/// One warm-up, then `repeats` timed runs; fn() returns the count.
template <class Fn>
void time_cpu(Row& row, int repeats, Fn&& fn) {
  fn();
  for (int i = 0; i < repeats; ++i) {
    const auto t0 = Clock::now();
    const std::uint64_t c = fn();
    row.samples_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    if (i == 0) row.count = c;
    else if (c != row.count) row.note = fmt::format("count changed between repeats ({} vs {})", row.count, c);
  }
  row.median_ms = support::median(row.samples_ms);
}

void run_rg(Row& row, const std::vector<std::string>& argv, int repeats) {
  std::uint64_t first = 0;
  for (int i = 0; i <= repeats; ++i) {  // i == 0: warm-up (file into the page cache)
    SpawnResult r = spawn_capture(argv);
    if (!r.started) {
      row.status = Status::failed;
      row.note = r.spawn_error;
      return;
    }
    // ripgrep: exit 0 = matches found, 1 = none (prints nothing with -c), 2 = error
    std::uint64_t c = 0;
    const std::string out = trim(r.out);
    if (r.exit_code == 1 && out.empty()) {
      c = 0;
    } else {
      auto [ptr, ec] = std::from_chars(out.data(), out.data() + out.size(), c);
      if (r.exit_code != 0 || ec != std::errc() || ptr != out.data() + out.size()) {
        row.status = Status::failed;
        row.note = fmt::format("rg exit {}: {}", r.exit_code, trim(r.err.empty() ? r.out : r.err));
        return;
      }
    }
    if (i == 0) {
      first = c;
      continue;
    }
    if (c != first) row.note = fmt::format("count changed between runs ({} vs {})", first, c);
    row.samples_ms.push_back(r.ms);
  }
  row.count = first;
  row.median_ms = support::median(row.samples_ms);
}

std::string fmt_num(double v, int decimals) {
  if (v <= 0 || !std::isfinite(v)) return "-";
  return fmt::format("{:.{}f}", v, decimals);
}

/// One run of the benchmark: what it found on this machine, generated and measured.
struct FindRun {
  explicit FindRun(const BenchFindOptions& o) : options(o) {}

  const BenchFindOptions& options;
  int hw = 0, cpu_threads = 0;
  std::string commit, cpu_model;
  std::vector<DeviceInfo> devices;
  std::string gpu_skip_reason;  // "" = the GPU rows run
  bool use_gpu = false;
  int gpu = 0;                  // the GPU rows use the first device
  std::string rg_version, rg_skip_reason;
  bool use_rg = false;
  find_text::Model model;
  find_text::Text text;
  std::vector<Row> rows;
  std::array<double, kPatterns> rg_ms{};  // best ripgrep median per pattern
  json targets = json::array();

  /// The device, the peer, the host.
  void probe() {
    hw = hardware_threads();
    cpu_threads = options.threads > 0 ? options.threads : hw;
    commit = support::git_commit(options.commit);
    cpu_model = support::cpu_model();
    if (options.skip_gpu) {
      gpu_skip_reason = "--no-gpu given";
    } else {
      devices = cuda_devices();
      if (devices.empty())
        gpu_skip_reason = build_info().cuda_compiled ? "no GPU visible to the CUDA runtime"
                                           : "this build has no CUDA backend";
    }
    use_gpu = gpu_skip_reason.empty();
    gpu = use_gpu ? devices.front().ordinal : 0;

    const bool rg_wanted = !options.rg_path.empty() && options.rg_path != "none";
    if (!rg_wanted) {
      rg_skip_reason = "--rg none given";
    } else {
      auto v = spawn_capture({options.rg_path, "--version"});
      if (!v.started || v.exit_code != 0)
        rg_skip_reason = v.started ? fmt::format("`{} --version` failed", options.rg_path) : v.spawn_error;
      else
        rg_version = trim(v.out.substr(0, v.out.find('\n')));
    }
    use_rg = rg_skip_reason.empty();

  }

  void print_header() const {
    fmt::print("warpmatch-bench find: exact search, {} of generated English-like text\n",
               format_bytes(options.text_bytes));
    fmt::print("  commit {}  |  host: {} hardware threads, {}\n", commit, hw,
               cpu_model.empty() ? "unknown CPU" : cpu_model);
    if (use_gpu) {
      const auto& d = devices.front();
      fmt::print("  GPU {}: {} (sm_{}{}, {} SMs, {} MHz, {:.1f} GiB)\n", d.ordinal, d.name,
                 d.compute_major, d.compute_minor, d.multiprocessors, d.clock_mhz,
                 static_cast<double>(d.global_memory_bytes) / (1ull << 30));
    } else {
      fmt::print("  NOTE: GPU rows skipped: {}\n", gpu_skip_reason);
    }
    if (use_rg)
      fmt::print("  peer: {} ({})\n", rg_version, options.rg_path);
    else
      fmt::print("  NOTE: ripgrep rows skipped: {}\n", rg_skip_reason);
  }

  /// The text and its oracle, printed.
  void generate() {
    model = find_text::build_model(options.words_file);
    text = find_text::generate_text(model, options.text_bytes, hw);
    fmt::print("  text: {} bytes, {} lines, {} words; vocabulary {} words ({} common English + {} "
               "from {}); generated in {:.2f} s\n",
               text.size, text.tally.lines, text.tally.words, model.words.size(),
               model.common, model.from_list, model.source, text.seconds);
    for (std::size_t k = 0; k < kPatterns; ++k)
      fmt::print("  pattern '{}': {} occurrences on {} lines{}\n", model.patterns[k],
                 text.tally.occurrences[k], text.tally.lines_with[k],
                 k == 0 ? fmt::format(" ({} planted)", text.tally.planted) : "");
  }

  /// Every method on each pattern (ripgrep reads `text_file`).
  void measure(const std::filesystem::path& text_file) {
    const auto bytes = text.size;
    for (std::size_t k = 0; k < kPatterns; ++k) {
      const ByteSpan pattern = as_bytes(model.patterns[k]);
      const std::uint64_t expected = text.tally.occurrences[k];
      auto add = [&](std::string method, std::string label) -> Row& {
        Row r;
        r.method = std::move(method);
        r.label = std::move(label);
        r.pattern = k;
        r.expected = expected;
        rows.push_back(std::move(r));
        fmt::print("  measuring {:<30} '{}' ...\n", rows.back().label, model.patterns[k]);
        std::fflush(stdout);
        return rows.back();
      };
      auto finish = [&](Row& r) {
        if (r.status == Status::ok)
          fmt::print("    {} matches, median {:.3f} ms, {:.2f} GB/s{}\n", r.count, r.median_ms,
                     gb_per_s(bytes, r.median_ms), r.mismatch() ? "  <-- COUNT MISMATCH" : "");
        else
          fmt::print("    {}: {}\n", status_name(r.status), r.note);
        std::fflush(stdout);
      };
      auto gpu_row = [&](std::string method, std::string label, bool resident,
                         kernel_timing::ExactKernel kernel) {
        Row& r = add(std::move(method), std::move(label));
        if (!use_gpu) {
          r.status = Status::skipped;
          r.note = gpu_skip_reason;
        } else {
          try {
            const kernel_timing::CountTiming t =
                resident ? kernel_timing::exact_resident(pattern, text.span(), kernel, gpu, options.repeats)
                         : kernel_timing::exact_host_fed(pattern, text.span(), kernel, gpu, options.repeats);
            r.median_ms = t.median_ms;
            r.count = t.count;
            r.note = resident ? "kernel time (CUDA events), median computed by the backend"
                              : "end to end incl. transfers (CUDA events), median computed by the backend";
          } catch (const std::exception& e) {
            r.status = Status::failed;
            r.note = e.what();
          }
        }
        finish(r);
      };
      gpu_row("gpu_resident_fast", "GPU resident (fast)", true, kernel_timing::ExactKernel::fast);
      gpu_row("gpu_host_fed_fast", "GPU host-fed (fast)", false, kernel_timing::ExactKernel::fast);
      gpu_row("gpu_resident_first_last", "GPU resident (first/last filter)", true,
              kernel_timing::ExactKernel::first_last);
      gpu_row("gpu_resident_prefix", "GPU resident (prefix filter)", true,
              kernel_timing::ExactKernel::prefix);
      gpu_row("gpu_resident_bf", "GPU resident (bf, paper 003)", true, kernel_timing::ExactKernel::bf);

      auto cpu_row = [&](std::string method, std::string label, int threads) {
        Row& r = add(std::move(method), std::move(label));
        try {
          ExactOptions cpu;
          cpu.backend = Backend::cpu;
          cpu.algorithm = "fast";
          cpu.threads = threads;
          const ExactMatcher matcher = ExactMatcher::compile(pattern, cpu);
          time_cpu(r, options.repeats, [&] { return matcher.count(text.span()); });
        } catch (const std::exception& e) {
          r.status = Status::failed;
          r.note = e.what();
        }
        finish(r);
      };
      cpu_row("cpu_fast_all_threads", fmt::format("CPU fast, {} threads", cpu_threads), cpu_threads);
      cpu_row("cpu_fast_1_thread", "CPU fast, 1 thread", 1);

      auto rg_row = [&](std::string method, std::string label, bool lines) {
        Row& r = add(std::move(method), std::move(label));
        r.counts_lines = lines;
        if (lines) r.expected = text.tally.lines_with[k];
        if (!use_rg) {
          r.status = Status::skipped;
          r.note = rg_skip_reason;
        } else {
          run_rg(r, {options.rg_path, "--no-config", "-F", lines ? "-c" : "--count-matches", "-j1",
                     "-e", model.patterns[k], text_file.string()},
                 options.repeats);
          if (r.status == Status::ok && r.note.empty())
            r.note = lines ? "counts matching lines; wall clock around fork/exec, file in page cache"
                           : "counts occurrences; wall clock around fork/exec, file in page cache";
        }
        finish(r);
      };
      rg_row("rg_c", "ripgrep -F -c -j1 (lines)", true);
      rg_row("rg_count_matches", "ripgrep -F --count-matches -j1", false);
    }
  }

  /// ratio_vs_rg of every row.
  void compare_to_rg() {
    for (const auto& r : rows)
      if (r.method.rfind("rg_", 0) == 0 && r.status == Status::ok && r.median_ms > 0)
        rg_ms[r.pattern] = rg_ms[r.pattern] > 0 ? std::min(rg_ms[r.pattern], r.median_ms) : r.median_ms;
    for (auto& r : rows)
      if (r.status == Status::ok && r.median_ms > 0 && rg_ms[r.pattern] > 0)
        r.ratio_vs_rg = rg_ms[r.pattern] / r.median_ms;
  }

  /// The table; returns {rows that miscounted, rows that failed}.
  std::pair<int, int> print_table() const {
    const auto bytes = text.size;
    fmt::print("\n{:<30} | {:<8} | {:>12} | {:>10} | {:>9} | {:>8}\n", "method", "pattern",
               "matches", "median ms", "GB/s", "vs rg");
    fmt::print("{:-<30}-+-{:-<8}-+-{:->12}-+-{:->10}-+-{:->9}-+-{:->8}\n", "", "", "", "", "", "");
    int mismatches = 0, failures = 0;
    for (const auto& r : rows) {
      const std::string& pat = model.patterns[r.pattern];
      if (r.status != Status::ok) {
        fmt::print("{:<30} | {:<8} | {}: {}\n", r.label, pat, status_name(r.status), r.note);
        failures += r.status == Status::failed;
        continue;
      }
      mismatches += r.mismatch();
      fmt::print("{:<30} | {:<8} | {:>12} | {:>10} | {:>9} | {:>8}{}\n", r.label, pat,
                 fmt::format("{}{}", r.count, r.counts_lines ? "L" : ""), fmt_num(r.median_ms, 3),
                 fmt_num(gb_per_s(bytes, r.median_ms), 2), fmt_ratio(r.ratio_vs_rg),
                 r.mismatch() ? fmt::format("  <-- MISMATCH: expected {}", r.expected) : "");
    }
    fmt::print("(L = matching lines, as `rg -c` counts; 'vs rg' = best ripgrep median / this median, "
               "> 1 is faster; GB/s = 1e9 bytes/s)\n");
    return {mismatches, failures};
  }

  const Row* find_row(std::string_view method, std::size_t k) const {
    for (const auto& r : rows)
      if (r.method == method && r.pattern == k) return &r;
    return nullptr;
  }

  /// PERF.md's targets, printed and kept for the JSON.
  void print_targets() {
    const auto bytes = text.size;
    fmt::print("\ntargets (PERF.md):\n");
    for (std::size_t k = 0; k < kPatterns; ++k) {
      const std::string& pat = model.patterns[k];
      auto target = [&](std::string name, const Row* r, double value, double goal, std::string unit,
                        std::string what) {
        const bool have = r && r->status == Status::ok && !r->mismatch() && value > 0;
        json t = {{"name", name}, {"pattern", pat}, {"target", goal}, {"unit", unit},
                  {"value", have ? json(value) : json(nullptr)},
                  {"met", have ? json(value >= goal) : json(nullptr)}};
        targets.push_back(t);
        const std::string shown = !have ? std::string("-")
                                  : unit == "x" ? fmt_ratio(value) : fmt_num(value, 2) + " " + unit;
        const std::string goal_shown = unit == "x" ? fmt::format("{}x", goal) : fmt::format("{} {}", goal, unit);
        fmt::print("  {:<40} {:<10} {:>14}  (target >= {})  {}\n", what, fmt::format("'{}'", pat),
                   shown, goal_shown,
                   !have ? (!r                          ? std::string("n/a")
                            : r->mismatch()                ? std::string("COUNT MISMATCH")
                            : r->status != Status::ok      ? std::string(status_name(r->status))
                                                           : std::string("n/a (no ripgrep)"))
                         : (value >= goal ? "MET" : "NOT MET"));
      };
      const Row* res = find_row("gpu_resident_fast", k);
      target("gpu_resident_exact_GBps", res, res ? gb_per_s(bytes, res->median_ms) : 0,
             kResidentTargetGBps, "GB/s", "GPU resident, fast");
      const Row* hf = find_row("gpu_host_fed_fast", k);
      target("gpu_host_fed_exact_GBps", hf, hf ? gb_per_s(bytes, hf->median_ms) : 0,
             kHostFedTargetGBps, "GB/s", "GPU host-fed, fast (transfers included)");
      const Row* c1 = find_row("cpu_fast_1_thread", k);
      target("cpu_1_thread_vs_rg", c1, c1 ? c1->ratio_vs_rg : 0, 1.0, "x",
             "CPU 1 thread vs ripgrep (1 thread)");
    }
  }

  json to_json(int mismatches, int failures, int exit_status) const {
    const auto bytes = text.size;
    json j = support::run_record("find", commit);
    j["schema_version"] = 1;
    j["options"] = {{"text_bytes", options.text_bytes}, {"repeats", options.repeats},
                    {"threads", options.threads},       {"cpu_threads_used", cpu_threads},
                    {"json_path", options.json_path},   {"rg_path", options.rg_path},
                    {"words_file", options.words_file}, {"commit", options.commit},
                    {"tmp_dir", options.tmp_dir},       {"skip_gpu", options.skip_gpu}};
    if (use_gpu) {
      j["device"] = support::device_json(devices.front());
      j["devices"] = json::array();
      for (const auto& d : devices) j["devices"].push_back(support::device_json(d));
    } else {
      j["device"] = nullptr;
      j["device_note"] = gpu_skip_reason;
    }
    j["peer"] = {{"name", "ripgrep"}, {"path", options.rg_path},
                 {"version", use_rg ? json(rg_version) : json(nullptr)},
                 {"note", use_rg ? json("one file = one thread; -j1; timed around fork/exec; "
                                        "file warm in the page cache")
                                 : json(rg_skip_reason)}};
    j["text"] = {{"bytes", text.size},
                 {"lines", text.tally.lines},
                 {"words", text.tally.words},
                 {"vocabulary", model.words.size()},
                 {"vocabulary_source", model.source},
                 {"common_english_words", model.common},
                 {"zipf_exponent", find_text::kZipfExponent},
                 {"line_width", find_text::kLineWidth},
                 {"seed", find_text::kSeed},
                 {"generation_seconds", text.seconds}};
    j["patterns"] = json::array();
    for (std::size_t k = 0; k < kPatterns; ++k)
      j["patterns"].push_back({{"pattern", model.patterns[k]},
                               {"kind", k == 0 ? "rare (planted)" : "common"},
                               {"occurrences", text.tally.occurrences[k]},
                               {"lines_with_match", text.tally.lines_with[k]},
                               {"planted", k == 0 ? json(text.tally.planted) : json(nullptr)}});
    j["rows"] = json::array();
    for (const auto& r : rows) {
      const bool ok = r.status == Status::ok;
      j["rows"].push_back({{"method", r.method},
                           {"label", r.label},
                           {"pattern", model.patterns[r.pattern]},
                           {"status", status_name(r.status)},
                           {"note", r.note},
                           {"count", ok ? json(r.count) : json(nullptr)},
                           {"count_unit", r.counts_lines ? "lines" : "occurrences"},
                           {"expected", r.expected},
                           {"count_ok", ok ? json(!r.mismatch()) : json(nullptr)},
                           {"median_ms", ok ? json(r.median_ms) : json(nullptr)},
                           {"samples_ms", r.samples_ms},
                           {"repeats", options.repeats},
                           {"gb_per_s", ok ? json(gb_per_s(bytes, r.median_ms)) : json(nullptr)},
                           {"ratio_vs_rg", r.ratio_vs_rg > 0 ? json(r.ratio_vs_rg) : json(nullptr)}});
    }
    json ratios = json::object();
    for (std::size_t k = 0; k < kPatterns; ++k) {
      json pr = json::object();
      pr["rg_best_median_ms"] = rg_ms[k] > 0 ? json(rg_ms[k]) : json(nullptr);
      for (const auto& r : rows)
        if (r.pattern == k && r.ratio_vs_rg > 0) pr[r.method + "_vs_rg"] = r.ratio_vs_rg;
      const Row* fast = find_row("gpu_resident_fast", k);
      const Row* bf = find_row("gpu_resident_bf", k);
      if (fast && bf && fast->status == Status::ok && bf->status == Status::ok && fast->median_ms > 0)
        pr["gpu_fast_vs_bf"] = bf->median_ms / fast->median_ms;
      const Row* call = find_row("cpu_fast_all_threads", k);
      const Row* c1 = find_row("cpu_fast_1_thread", k);
      if (call && c1 && call->status == Status::ok && c1->status == Status::ok && call->median_ms > 0)
        pr["cpu_all_threads_vs_1_thread"] = c1->median_ms / call->median_ms;
      ratios[model.patterns[k]] = pr;
    }
    j["ratios"] = ratios;
    j["targets"] = targets;
    j["mismatches"] = mismatches;
    j["failures"] = failures;
    j["exit_status"] = exit_status;
    return j;
  }
};

int run(const BenchFindOptions& options) {
  if (options.text_bytes < find_text::kMinTextBytes) {
    fmt::print(stderr, "warpmatch-bench find: error: --bytes must be at least {} (got {})\n",
               find_text::kMinTextBytes, options.text_bytes);
    return 2;
  }
  if (options.repeats < 1) {
    fmt::print(stderr, "warpmatch-bench find: error: --repeats must be at least 1 (got {})\n",
               options.repeats);
    return 2;
  }
  FindRun run(options);
  run.probe();
  run.print_header();
  run.generate();

  TempDir tmp;
  std::filesystem::path text_file;
  if (run.use_rg) {
    if (auto err = make_temp_dir(tmp, options.tmp_dir.empty() ? std::filesystem::temp_directory_path().string() : options.tmp_dir); !err.empty()) {
      fmt::print(stderr, "warpmatch-bench find: error: {}\n", err);
      return 2;
    }
    text_file = tmp.path / "text.txt";
    if (auto err = write_file(text_file, run.text.span()); !err.empty()) {
      fmt::print(stderr, "warpmatch-bench find: error: {}\n", err);
      return 2;
    }
  }

  run.measure(text_file);
  run.compare_to_rg();
  const auto [mismatches, failures] = run.print_table();
  run.print_targets();

  fmt::print("\n");
  if (mismatches)
    fmt::print("!!! COUNT MISMATCH in {} row(s): methods disagree with the generator's exact "
               "count — see '<-- MISMATCH' above !!!\n", mismatches);
  if (failures) fmt::print("!!! {} row(s) FAILED (see the table) !!!\n", failures);
  const int exit_status = (mismatches || failures) ? 2 : 0;

  const json j = run.to_json(mismatches, failures, exit_status);
  if (!options.json_path.empty()) {
    std::ofstream out(options.json_path);
    out << j.dump(2) << '\n';
    out.close();
    if (!out) {
      fmt::print(stderr, "warpmatch-bench find: error: cannot write JSON to {}\n", options.json_path);
      return 2;
    }
    fmt::print("JSON written to {}\n", options.json_path);
  }
  return exit_status;
}

}  // namespace

int run_bench_find(const BenchFindOptions& options) {
  try {
    return run(options);
  } catch (const std::exception& e) {
    fmt::print(stderr, "warpmatch-bench find: error: {}\n", e.what());
    return 2;
  }
}

}  // namespace warpmatch::bench
