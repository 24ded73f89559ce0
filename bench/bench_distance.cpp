// `warpmatch-bench distance`: global edit distance, one run, every method side by side.
//
// Workloads: random ACGT pairs of 10 K, 100 K, 1 M (10 M on the GPU with --max-length 10M),
// the lambda genome against mutated copies (1 % and 10 % edits), and a batch of 100 K pairs
// of 100-300 bytes. Methods: GPU bit-parallel stripes (the default), GPU paper-001 tiles at
// every block size (random pairs up to 100 K: plain-DP tiles are too slow beyond) plus the
// tuned model's choice checked against the sweep's best (target: within 10 %), the CPU
// backend on all threads, and edlib NW on one thread (only up to --edlib-max: its time is
// O(n d / 64); larger sizes are extrapolated from the largest measured, and marked so). The
// genome rows run again with a bound k (GPU band, CPU and edlib with the same k).
// Every method's distance is checked against the others. Table to stdout, JSON to --json.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/kernel_timing.hpp"
#include "bench/bench_distance.hpp"
#include "bench/bench_support.hpp"
#include "core/distance_tune.hpp"
#include "io/input.hpp"
#include "warpmatch/distance.hpp"

#ifdef WARPMATCH_HAVE_EDLIB
#include <edlib.h>
#endif

namespace warpmatch::bench {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;
using Bytes = std::vector<std::uint8_t>;
using support::fmt_ratio;
using support::git_commit;
using support::median;

struct Row {
  std::string workload, method;
  std::int64_t m = 0, n = 0;
  std::uint64_t cells = 0;
  std::int64_t distance = -1;
  double median_ms = 0;        // end to end for CPU/edlib; kernel time for GPU rows
  double total_ms = 0;         // GPU: transfers and allocation included
  int block_size = 0;
  bool extrapolated = false;
  std::string note;
};

Bytes random_dna(std::mt19937_64& rng, std::size_t n) {
  Bytes s(n);
  for (auto& c : s) c = "ACGT"[rng() & 3];
  return s;
}

Bytes mutate(std::mt19937_64& rng, const Bytes& s, double rate) {
  Bytes out;
  out.reserve(s.size() + s.size() / 8);
  std::uniform_real_distribution<double> u(0, 1);
  for (const std::uint8_t c : s) {
    if (u(rng) >= rate) {
      out.push_back(c);
      continue;
    }
    const std::uint8_t other = "ACGT"[rng() & 3];
    switch (rng() % 3) {
      case 0: out.push_back(other); break;
      case 1: out.push_back(c); out.push_back(other); break;
      default: break;
    }
  }
  return out;
}

/// Times fn (returns the distance) `repeats` times after `warmups`; median milliseconds.
template <class Fn>
std::pair<std::int64_t, double> time_host(int repeats, int warmups, Fn&& fn) {
  std::int64_t d = -1;
  for (int w = 0; w < warmups; ++w) d = fn();
  std::vector<double> ms;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = Clock::now();
    d = fn();
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  return {d, median(ms)};
}

#ifdef WARPMATCH_HAVE_EDLIB
/// edlib's global distance; k >= 0: its band, -1 beyond (as warpmatch's kDistanceOverK).
std::int64_t edlib_nw(const Bytes& a, const Bytes& b, std::int64_t k = -1) {
  const EdlibAlignResult r =
      edlibAlign(reinterpret_cast<const char*>(a.data()), static_cast<int>(a.size()),
                 reinterpret_cast<const char*>(b.data()), static_cast<int>(b.size()),
                 edlibNewAlignConfig(static_cast<int>(k), EDLIB_MODE_NW, EDLIB_TASK_DISTANCE, nullptr, 0));
  const std::int64_t d = r.editDistance;
  edlibFreeAlignResult(r);
  return d;
}
#endif

std::string fmt_ms(double v) { return v > 0 ? fmt::format("{:.3f}", v) : "-"; }

}  // namespace

int run_bench_distance(const BenchDistanceOptions& options) {
  const auto bench_t0 = Clock::now();
  const int threads = options.threads > 0 ? options.threads : hardware_threads();
  const std::string commit = git_commit(options.commit);
  std::vector<DeviceInfo> devices;
  if (!options.skip_gpu) devices = cuda_devices();
  const bool gpu = !devices.empty();
  const int dev = 0;
  tune::TileModel model = gpu ? tune::tile_model_for_device(dev) : tune::TileModel{};

  fmt::print("warpmatch-bench distance  |  commit {}  |  host: {} threads used\n", commit, threads);
  std::string model_source = "none";
  if (gpu) {
    model_source = model.calibrated ? "stored (warpmatch tune)" : "calibrated now (no stored model)";
    if (!model.calibrated) model = tune::calibrate_tile_model(dev, 32768, 3);  // not stored
    if (!model.calibrated && model_source.starts_with("calibrated")) model_source += " (fit rejected: defaults)";
    fmt::print("  GPU: {} ({} SMs, {} MHz); tile model: {}: launch {:.2f} us, latency {:.2f} us, step {:.1f} ns, "
               "issue {:.2f} ns per warp\n    ({})\n",
               devices[0].name, devices[0].multiprocessors, devices[0].clock_mhz, model_source, model.launch_us,
               model.latency_us, model.step_ns, model.issue_ns, model.note);
  }
  else
    fmt::print("  NOTE: GPU rows skipped ({})\n", options.skip_gpu ? "--no-gpu" : "no CUDA GPU visible");
#ifndef WARPMATCH_HAVE_EDLIB
  fmt::print("  NOTE: edlib rows skipped (not linked)\n");
#endif

  std::vector<Row> rows;
  std::vector<std::string> mismatches;
  json tuning = json::array();
  std::mt19937_64 rng(20251121);

  auto add = [&](Row row) {
    fmt::print("  {:<22} {:<26} d={:<9} {:>10} ms{}\n", row.workload, row.method, row.distance,
               fmt_ms(row.median_ms), row.extrapolated ? " (extrapolated)" : "");
    std::fflush(stdout);
    rows.push_back(std::move(row));
  };
  auto cpu_options = [&](const std::string& algo) {
    DistanceOptions o;
    o.backend = Backend::cpu;
    o.algorithm = algo;
    o.threads = threads;
    return o;
  };
  auto gpu_run = [&](const Bytes& a, const Bytes& b, kernel_timing::DistanceKernel algo, int bs, std::int64_t k = -1) {
    // The paper's plain-DP tiles are slow on big tables: one timed run, no warm-up (the
    // kernels are warm from the smaller sizes) beyond 10^9 cells.
    const bool big = algo == kernel_timing::DistanceKernel::tiles && static_cast<double>(a.size()) * b.size() > 1e9;
    if (!big) kernel_timing::distance_run(a, b, k, algo, bs, dev);  // warm-up
    std::vector<double> kernel, total;
    std::int64_t d = -1;
    for (int r = 0; r < (big ? 1 : options.repeats); ++r) {
      const auto run = kernel_timing::distance_run(a, b, k, algo, bs, dev);
      kernel.push_back(run.kernel_ms);
      total.push_back(run.total_ms);
      d = run.distance;
    }
    return std::tuple{d, median(kernel), median(total)};
  };

  // One long pair through every method applicable at its size; k >= 0: the bounded
  // (banded) run of the fast GPU path, the CPU and edlib instead, no paper tiles.
  auto measure_pair = [&](const std::string& workload, const Bytes& a, const Bytes& b, bool sweep_tiles,
                          bool tuned_tiles, std::int64_t k = -1) {
    const std::uint64_t cells = static_cast<std::uint64_t>(a.size()) * b.size();
    const auto base = [&](const std::string& method) {
      Row r;
      r.workload = workload;
      r.method = method;
      r.m = static_cast<std::int64_t>(a.size());
      r.n = static_cast<std::int64_t>(b.size());
      r.cells = cells;
      return r;
    };
    std::int64_t reference = -1;
    auto check = [&](const Row& r) {
      if (reference < 0) reference = r.distance;
      else if (r.distance != reference)
        mismatches.push_back(fmt::format("{} {}: {} != {}", workload, r.method, r.distance, reference));
    };
    if (gpu) {
      auto [d, kms, tms] = gpu_run(a, b, kernel_timing::DistanceKernel::myers_stripes, 0, k);
      Row r = base(k >= 0 ? "gpu myers stripes, band" : "gpu myers stripes (fast)");
      r.distance = d, r.median_ms = kms, r.total_ms = tms;
      check(r);
      add(r);
      if (k < 0 && (sweep_tiles || tuned_tiles)) {
        const int chosen = model.choose_block_size(r.m, r.n);
        double best_ms = 0, chosen_ms = 0;
        int best_bs = 0;
        json sweep = json::array();
        for (const int bs : tune::tile_block_sizes()) {
          if (!sweep_tiles && bs != chosen) continue;
          auto [td, tk, tt] = gpu_run(a, b, kernel_timing::DistanceKernel::tiles, bs);
          Row t = base(fmt::format("gpu paper tiles B={}", bs));
          t.distance = td, t.median_ms = tk, t.total_ms = tt, t.block_size = bs;
          check(t);
          if (bs == chosen) chosen_ms = tk, t.note = "tuner's choice";
          if (best_bs == 0 || tk < best_ms) best_ms = tk, best_bs = bs;
          sweep.push_back({{"block_size", bs}, {"kernel_ms", tk}, {"predicted_ms", model.predict_ms(r.m, r.n, bs)}});
          add(t);
        }
        if (sweep_tiles) {
          const bool within = chosen_ms <= 1.10 * best_ms;
          fmt::print("    tuner chose B={} ({:.3f} ms), sweep best B={} ({:.3f} ms): {:.1f}% slower -> target {}\n",
                     chosen, chosen_ms, best_bs, best_ms, 100.0 * (chosen_ms / best_ms - 1.0),
                     within ? "met" : "NOT met");
          tuning.push_back({{"workload", workload}, {"chosen_block_size", chosen}, {"chosen_ms", chosen_ms},
                            {"best_block_size", best_bs}, {"best_ms", best_ms},
                            {"within_10_percent", within}, {"model_calibrated", model.calibrated},
                            {"sweep", sweep}});
        }
      }
    }
    if (static_cast<std::int64_t>(std::max(a.size(), b.size())) <= options.cpu_max_length) {
      auto opt = cpu_options("auto");
      opt.max_distance = k;
      const int reps = cells > 1e11 ? 1 : options.repeats;
      auto [d, ms] = time_host(reps, cells > 1e11 ? 0 : 1, [&] { return edit_distance(a, b, opt).distance; });
      Row r = base(fmt::format("cpu myers ({} threads)", threads));
      r.distance = d, r.median_ms = ms;
      check(r);
      add(r);
    }
#ifdef WARPMATCH_HAVE_EDLIB
    if (static_cast<std::int64_t>(std::max(a.size(), b.size())) <= options.edlib_max_length) {
      auto [d, ms] = time_host(cells > 1e9 ? 1 : options.repeats, 0, [&] { return edlib_nw(a, b, k); });
      Row r = base(k >= 0 ? "edlib NW, k (1 thread)" : "edlib NW (1 thread)");
      r.distance = d, r.median_ms = ms;
      check(r);
      add(r);
    }
#endif
  };

  // ---- random pairs ----
  std::vector<std::int64_t> lengths;
  for (const std::int64_t L : {10000LL, 100000LL, 1000000LL, 10000000LL})
    if (L <= options.max_length && (L < 10000000 || gpu)) lengths.push_back(L);
  for (const std::int64_t L : lengths) {
    const Bytes a = random_dna(rng, L), b = random_dna(rng, L);
    const std::string name = L >= 1000000 ? fmt::format("random {}M", L / 1000000) : fmt::format("random {}K", L / 1000);
    // Paper tiles (plain DP, ~10^11 cells/s at best) only up to 100 K: 1 M would take minutes.
    measure_pair(name, a, b, /*sweep_tiles=*/L <= 100000, /*tuned_tiles=*/L <= 100000);
  }

  // ---- genome vs mutated copies ----
  Bytes genome;
  try {
    const auto in = io::Input::open(options.genome_path);
    const ByteSpan g = in.records().front().sequence;
    genome.assign(g.begin(), g.end());
  } catch (const Error& e) {
    fmt::print("  NOTE: genome rows skipped: {}\n", e.what());
  }
  if (!genome.empty()) {
    for (const double rate : {0.01, 0.10}) {
      const Bytes copy = mutate(rng, genome, rate);
      measure_pair(fmt::format("genome {}% edits", static_cast<int>(rate * 100)), genome, copy, false, true);
      // A caller's bound of twice the expected edits: Ukkonen's band on the GPU, edlib's k.
      const auto k = static_cast<std::int64_t>(2 * rate * static_cast<double>(genome.size()));
      measure_pair(fmt::format("genome {}%, k={}", static_cast<int>(rate * 100), k), genome, copy, false,
                   false, k);
    }
  }

  // ---- batch of short pairs ----
  {
    std::vector<Bytes> store;
    store.reserve(2 * options.batch_pairs);
    std::uniform_int_distribution<int> len(100, 300);
    for (std::int64_t i = 0; i < options.batch_pairs; ++i) {
      store.push_back(random_dna(rng, len(rng)));
      store.push_back(i % 2 ? mutate(rng, store.back(), 0.1) : random_dna(rng, len(rng)));
    }
    std::vector<std::pair<ByteSpan, ByteSpan>> pairs;
    std::uint64_t cells = 0;
    for (std::size_t i = 0; i < store.size(); i += 2) {
      pairs.emplace_back(ByteSpan(store[i]), ByteSpan(store[i + 1]));
      cells += store[i].size() * store[i + 1].size();
    }
    const std::string workload = fmt::format("batch {}K x 100-300", options.batch_pairs / 1000);
    std::uint64_t checksum_ref = 0;
    bool have_ref = false;
    auto check_sum = [&](const std::string& method, std::uint64_t sum) {
      if (!have_ref) checksum_ref = sum, have_ref = true;
      else if (sum != checksum_ref) mismatches.push_back(fmt::format("{} {}: checksum {} != {}", workload, method, sum, checksum_ref));
    };
    auto base = [&](const std::string& method) {
      Row r;
      r.workload = workload;
      r.method = method;
      r.m = r.n = static_cast<std::int64_t>(pairs.size());
      r.cells = cells;
      return r;
    };
    if (gpu) {
      std::vector<double> kernel, total;
      std::uint64_t sum = 0;
      for (int r = 0; r <= options.repeats; ++r) {
        double kms = 0;
        const auto t0 = Clock::now();
        const auto d = kernel_timing::distance_batch(pairs, dev, kms);
        const double tms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
        if (r == 0) continue;  // warm-up
        kernel.push_back(kms);
        total.push_back(tms);
        sum = 0;
        for (const auto x : d) sum += static_cast<std::uint64_t>(x);
      }
      Row row = base("gpu myers, warp per pair");
      row.median_ms = median(kernel), row.total_ms = median(total), row.distance = static_cast<std::int64_t>(sum);
      check_sum(row.method, sum);
      add(row);
    }
    {
      const auto opt = cpu_options("auto");
      std::uint64_t sum = 0;
      auto [unused, ms] = time_host(options.repeats, 1, [&] {
        const auto res = edit_distance_batch(pairs, opt);
        sum = 0;
        for (const auto& x : res) sum += static_cast<std::uint64_t>(x.distance);
        return std::int64_t{0};
      });
      (void)unused;
      Row row = base(fmt::format("cpu myers ({} threads)", threads));
      row.median_ms = ms, row.distance = static_cast<std::int64_t>(sum);
      check_sum(row.method, sum);
      add(row);
    }
#ifdef WARPMATCH_HAVE_EDLIB
    {
      std::uint64_t sum = 0;
      auto [unused, ms] = time_host(1, 0, [&] {
        sum = 0;
        for (std::size_t i = 0; i < store.size(); i += 2) sum += static_cast<std::uint64_t>(edlib_nw(store[i], store[i + 1]));
        return std::int64_t{0};
      });
      (void)unused;
      Row row = base("edlib NW (1 thread)");
      row.median_ms = ms, row.distance = static_cast<std::int64_t>(sum);
      check_sum(row.method, sum);
      add(row);
    }
#endif
  }

  // ---- a cross product (StringZilla's LevenshteinDistances shape): 317 x 316 strings of
  // 100-300 bytes, ~100 K pairs, through the public edit_distance_matrix ----
  {
    std::uniform_int_distribution<int> len(100, 300);
    std::vector<Bytes> sa, sb;
    for (int i = 0; i < 317; ++i) sa.push_back(random_dna(rng, len(rng)));
    for (int j = 0; j < 316; ++j) sb.push_back(j % 2 ? mutate(rng, sa[j], 0.1) : random_dna(rng, len(rng)));
    std::vector<ByteSpan> a(sa.begin(), sa.end()), b(sb.begin(), sb.end());
    std::uint64_t cells = 0;
    for (const auto& x : sa)
      for (const auto& y : sb) cells += x.size() * y.size();
    const std::string workload = "matrix 317x316 x 100-300";
    std::uint64_t ref = 0;
    bool have_ref = false;
    auto run = [&](const std::string& method, Backend backend) {
      DistanceOptions o;
      o.backend = backend;
      std::uint64_t sum = 0;
      auto [unused, ms] = time_host(options.repeats, 1, [&] {
        const auto d = edit_distance_matrix(a, b, o);
        sum = 0;
        for (const auto x : d) sum += static_cast<std::uint64_t>(x);
        return std::int64_t{0};
      });
      (void)unused;
      Row r;
      r.workload = workload;
      r.method = method;
      r.m = 317, r.n = 316, r.cells = cells;
      r.median_ms = r.total_ms = ms;  // in-process: the whole call (packing, upload, kernel, results)
      r.distance = static_cast<std::int64_t>(sum);
      if (!have_ref) ref = sum, have_ref = true;
      else if (sum != ref) mismatches.push_back(fmt::format("{} {}: checksum {} != {}", workload, method, sum, ref));
      add(r);
    };
    if (gpu) run("gpu matrix, strings uploaded once", Backend::cuda);
    run(fmt::format("cpu matrix ({} threads)", threads), Backend::cpu);
  }

  // ---- alignments (CIGAR) of one pair 10 % apart, one thread, against edlib's path; the
  // CIGAR must apply and cost edlib's distance ----
  for (const std::int64_t len : {300, 1000, 10000, 100000}) {
    const Bytes a = random_dna(rng, static_cast<std::size_t>(len));
    const Bytes b = mutate(rng, a, 0.1);
    const std::string workload = fmt::format("align 10% {}", len >= 1000 ? fmt::format("{}K", len / 1000) : std::to_string(len));
    Row base;
    base.workload = workload;
    base.m = static_cast<std::int64_t>(a.size());
    base.n = static_cast<std::int64_t>(b.size());
    base.cells = a.size() * b.size();
    DistanceOptions o;
    o.backend = Backend::cpu;
    o.threads = 1;
    o.report = Report::cigar;
    DistanceResult result;
    const int repeats = len >= 100000 ? std::max(1, options.repeats / 2) : options.repeats * 20;
    auto [d, ms] = time_host(repeats, 1, [&] {
      result = edit_distance(ByteSpan(a.data(), a.size()), ByteSpan(b.data(), b.size()), o);
      return result.distance;
    });
    std::int64_t cost = -1;
    apply_cigar(ByteSpan(a.data(), a.size()), ByteSpan(b.data(), b.size()), result.cigar, &cost);
    if (cost != d) mismatches.push_back(fmt::format("{}: CIGAR costs {}, distance {}", workload, cost, d));
    const auto add_timed = [&](const char* method, std::int64_t distance, double median_ms) {
      Row r = base;
      r.method = method;
      r.distance = distance;
      r.median_ms = r.total_ms = median_ms;
      add(r);
    };
    add_timed("cpu alignment (1 thread)", d, ms);
#ifdef WARPMATCH_HAVE_EDLIB
    auto [ed, ems] = time_host(repeats, 1, [&] {
      const EdlibAlignResult e =
          edlibAlign(reinterpret_cast<const char*>(a.data()), static_cast<int>(a.size()),
                     reinterpret_cast<const char*>(b.data()), static_cast<int>(b.size()),
                     edlibNewAlignConfig(-1, EDLIB_MODE_NW, EDLIB_TASK_PATH, nullptr, 0));
      const std::int64_t x = e.editDistance;
      edlibFreeAlignResult(e);
      return x;
    });
    if (ed != d) mismatches.push_back(fmt::format("{}: edlib {} != {}", workload, ed, d));
    add_timed("edlib NW path (1 thread)", ed, ems);
#endif
  }

  // ---- edlib extrapolation for sizes beyond --edlib-max (O(n d / 64), d ~ n for random) ----
  auto find_row = [&](const std::string& workload, const std::string& prefix) -> const Row* {
    for (const auto& r : rows)
      if (r.workload == workload && r.method.rfind(prefix, 0) == 0) return &r;
    return nullptr;
  };
  const Row* edlib_largest = nullptr;
  for (const auto& r : rows)
    if (r.method.rfind("edlib", 0) == 0 && r.workload.rfind("random", 0) == 0 &&
        (!edlib_largest || r.cells > edlib_largest->cells))
      edlib_largest = &r;
  std::vector<Row> extrapolated;
  for (const auto& r : rows) {
    if (r.workload.rfind("random", 0) != 0 || r.method.rfind("gpu myers", 0) != 0) continue;
    if (find_row(r.workload, "edlib") || !edlib_largest) continue;
    Row e = *edlib_largest;
    e.workload = r.workload;
    e.m = r.m, e.n = r.n, e.cells = r.cells, e.distance = r.distance;
    e.median_ms = edlib_largest->median_ms * (static_cast<double>(r.cells) / edlib_largest->cells);
    e.extrapolated = true;
    e.note = fmt::format("scaled from {} (time ~ n d, d ~ n)", edlib_largest->workload);
    extrapolated.push_back(e);
  }
  for (auto& e : extrapolated) add(e);

  // ---- table ----
  fmt::print("\n{:<22} | {:<26} | {:>10} | {:>12} | {:>12} | {:>9} | {:>9}\n", "workload", "method", "distance",
             "median ms", "total ms", "TCUPS", "vs edlib");
  fmt::print("{:-<22}-+-{:-<26}-+-{:->10}-+-{:->12}-+-{:->12}-+-{:->9}-+-{:->9}\n", "", "", "", "", "", "", "");
  json jrows = json::array();
  for (const auto& r : rows) {
    const Row* e = find_row(r.workload, "edlib");
    const double vs_edlib = e && r.median_ms > 0 ? e->median_ms / r.median_ms : 0;
    const double tcups = r.median_ms > 0 ? r.cells / (r.median_ms * 1e-3) / 1e12 : 0;
    fmt::print("{:<22} | {:<26} | {:>10} | {:>12} | {:>12} | {:>9} | {:>9}{}\n", r.workload, r.method, r.distance,
               fmt_ms(r.median_ms), fmt_ms(r.total_ms), tcups > 0 ? fmt::format("{:.3f}", tcups) : "-",
               fmt_ratio(vs_edlib), r.extrapolated ? "  (extrapolated)" : (r.note.empty() ? "" : "  " + r.note));
    jrows.push_back({{"workload", r.workload}, {"method", r.method}, {"m", r.m}, {"n", r.n}, {"cells", r.cells},
                     {"distance", r.distance}, {"median_ms", r.median_ms}, {"total_ms", r.total_ms},
                     {"tcups", tcups}, {"block_size", r.block_size}, {"ratio_vs_edlib", vs_edlib},
                     {"edlib_extrapolated", e && e->extrapolated}, {"extrapolated", r.extrapolated},
                     {"note", r.note}});
  }

  // ---- targets (PERF.md) ----
  json targets = json::array();
  auto target = [&](const std::string& name, bool measured, bool met, const std::string& detail) {
    fmt::print("target {:<48} {:<10} {}\n", name, !measured ? "not run" : (met ? "met" : "NOT met"), detail);
    targets.push_back({{"target", name}, {"measured", measured}, {"met", measured && met}, {"detail", detail}});
  };
  fmt::print("\n");
  if (const Row* g = find_row("random 1M", "gpu myers")) {
    target("1M x 1M random <= 100 ms (kernel)", true, g->median_ms <= 100, fmt::format("{:.3f} ms", g->median_ms));
    const Row* e = find_row("random 1M", "edlib");
    const double ratio = e ? e->median_ms / g->median_ms : 0;
    target("1M x 1M random >= 100x edlib", e != nullptr, ratio >= 100,
           fmt::format("{:.0f}x{}", ratio, e && e->extrapolated ? " (edlib extrapolated)" : ""));
  } else {
    target("1M x 1M random <= 100 ms", false, false, "no GPU or --max-length < 1M");
  }
  if (const Row* g = find_row(fmt::format("batch {}K x 100-300", options.batch_pairs / 1000), "gpu")) {
    target("batch of pairs <= 5 ms in-process (packing, upload, kernel, results)", true, g->total_ms <= 5,
           fmt::format("{:.3f} ms", g->total_ms));
  }
  if (const Row* g = find_row("matrix 317x316 x 100-300", "gpu")) {
    target("matrix 317x316 in-process <= 1.7 ms (StringZilla CUDA, issue 12's figure)", true, g->total_ms <= 1.7,
           fmt::format("{:.3f} ms", g->total_ms));
  }
  if (const Row* g = find_row(fmt::format("batch {}K x 100-300", options.batch_pairs / 1000), "gpu")) {
    const double tcups = g->cells / (g->median_ms * 1e-3) / 1e12;
    target("batch 100-300 bytes >= 6 TCUPS (kernel)", true, tcups >= 6, fmt::format("{:.2f} TCUPS", tcups));
  } else {
    target("batch 100-300 bytes >= 6 TCUPS", false, false, "no GPU");
  }
  for (const auto& t : tuning)
    target(fmt::format("tuner within 10% of sweep best ({})", t["workload"].get<std::string>()), true,
           t["within_10_percent"].get<bool>(),
           fmt::format("B={} vs best B={}", t["chosen_block_size"].get<int>(), t["best_block_size"].get<int>()));
  for (const auto& m : mismatches) fmt::print("MISMATCH: {}\n", m);

  json calibration = json::array();  // what the model was fitted to, with its prediction
  for (const auto& x : model.measurements)
    calibration.push_back({{"block_size", x.block_size}, {"m", x.m}, {"n", x.n}, {"ms", x.ms},
                           {"predicted_ms", model.predict_ms(x.m, x.n, x.block_size)}});
  const double seconds = std::chrono::duration<double>(Clock::now() - bench_t0).count();
  json out = support::run_record("distance", commit);
  out.update({{"threads", threads}, {"seconds", seconds},
              {"repeats", options.repeats}, {"rows", jrows}, {"tuning", tuning}, {"targets", targets},
              {"mismatches", mismatches},
              {"edlib_max_length", options.edlib_max_length},
              {"tile_model", {{"calibrated", model.calibrated}, {"source", model_source}, {"launch_us", model.launch_us},
                              {"latency_us", model.latency_us}, {"step_ns", model.step_ns},
                              {"issue_ns", model.issue_ns}, {"note", model.note},
                              {"measurements", calibration}}}});
  out["device"] = gpu ? support::device_json(devices[0]) : json(nullptr);
  if (!options.json_path.empty()) {
    std::ofstream f(options.json_path);
    if (!f) {
      fmt::print(stderr, "warpmatch-bench distance: cannot write {}\n", options.json_path);
      return 2;
    }
    f << out.dump(2) << "\n";
    fmt::print("JSON written to {} ({:.1f} s in all)\n", options.json_path, seconds);
  }
  return mismatches.empty() ? 0 : 2;
}

}  // namespace warpmatch::bench
