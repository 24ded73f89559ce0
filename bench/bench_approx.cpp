// `warpmatch-bench approx` — seed paper 000's Table 1 workload: |Y| = 4 Mi random '0'/'1'
// bytes, patterns X of m = 32 ... 1024 random '0'/'1' bytes, ASM(X, Y) = the best semi-global
// distance. Methods, each checked to give the same distance: the GPU fast path (Myers,
// resident kernel time and end to end from pinned memory), the paper's wavefront at several
// D with Theorem 4's predicted time beside the measured one, the CPU backend on all threads,
// edlib HW on one thread and on all threads (text split with 2m overlap). Then a throughput
// row: a large random ACGT text (1 GiB by default), m = 256, all hits within k = 16, on the
// GPU and the CPU backend. Prints a table with TCUPS and ratios; writes JSON.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/kernel_timing.hpp"
#include "bench/bench_approx.hpp"
#include "bench/bench_support.hpp"
#include "core/parallel.hpp"
#include "core/wavefront_hmm.hpp"
#include "warpmatch/approx.hpp"

#ifdef WARPMATCH_HAVE_EDLIB
#include <edlib.h>
#endif

namespace warpmatch::bench {
namespace {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;
using support::git_commit;
using support::median_ms;

std::vector<std::uint64_t> parse_list(const std::string& s) {
  std::vector<std::uint64_t> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) out.push_back(std::stoull(item));
  return out;
}

/// Random bytes drawn from `letters` (xorshift: fast enough for 1 GiB).
std::vector<std::uint8_t> random_text(std::uint64_t n, std::string_view letters, std::uint64_t seed) {
  std::vector<std::uint8_t> t(n);
  std::uint64_t x = seed | 1;
  for (std::uint64_t i = 0; i < n; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    t[i] = static_cast<std::uint8_t>(letters[(x >> 32) % letters.size()]);
  }
  return t;
}

#ifdef WARPMATCH_HAVE_EDLIB
int edlib_hw(const std::vector<std::uint8_t>& x, const std::uint8_t* y, std::uint64_t n) {
  const EdlibAlignResult r = edlibAlign(reinterpret_cast<const char*>(x.data()), static_cast<int>(x.size()),
                                        reinterpret_cast<const char*>(y), static_cast<int>(n),
                                        edlibNewAlignConfig(-1, EDLIB_MODE_HW, EDLIB_TASK_DISTANCE, nullptr, 0));
  const int d = r.editDistance;
  edlibFreeAlignResult(r);
  return d;
}
/// edlib on `threads` threads: the text split into equal pieces extended by 2m before each.
int edlib_hw_parallel(const std::vector<std::uint8_t>& x, const std::vector<std::uint8_t>& y, int threads) {
  const std::uint64_t n = y.size(), m = x.size();
  const std::uint64_t piece = (n + threads - 1) / threads;
  std::vector<int> best(threads, 1 << 30);
  core::parallel_for(static_cast<std::size_t>(threads), threads, [&](std::size_t t) {
    const std::uint64_t own = t * piece;
    if (own >= n) return;
    const std::uint64_t from = own > 2 * m ? own - 2 * m : 0;
    const std::uint64_t to = std::min(n, own + piece);
    best[t] = edlib_hw(x, y.data() + from, to - from);
  });
  return *std::min_element(best.begin(), best.end());
}
#endif

double tcups(double m, double n, double ms) { return ms > 0 ? m * n / (ms * 1e-3) / 1e12 : 0; }

/// One wavefront measurement with Theorem 4's terms for it.
struct WavePoint {
  std::uint64_t m, pieces;
  double measured_ms;
  core::WavefrontTerms terms;
};

/// Theorem 4 counts one unit per cell update and per latency; the kernel's real units are
/// larger. Fits T = a x work terms + b x latency terms (a, b >= 0) by least squares on the
/// relative error over every (m, D) measured, and prints measured / calibrated per point.
json print_theorem4_calibration(const std::vector<WavePoint>& points) {
  // Normal equations of min sum ((a w_i + b l_i) / t_i - 1)^2, falling back to one factor
  // when the two-factor solution has a negative one.
  double ww = 0, wl = 0, ll = 0, w1 = 0, l1 = 0;
  for (const WavePoint& p : points) {
    const double w = p.terms.work_ms / p.measured_ms, l = p.terms.latency_ms / p.measured_ms;
    ww += w * w, wl += w * l, ll += l * l, w1 += w, l1 += l;
  }
  const double det = ww * ll - wl * wl;
  double a = det > 0 ? (w1 * ll - l1 * wl) / det : -1, b = det > 0 ? (l1 * ww - w1 * wl) / det : -1;
  if (a < 0 || b < 0) {
    const double a_only = ww > 0 ? w1 / ww : 0, b_only = ll > 0 ? l1 / ll : 0;
    auto residual = [&](double fa, double fb) {
      double r = 0;
      for (const WavePoint& p : points) {
        const double e = (fa * p.terms.work_ms + fb * p.terms.latency_ms) / p.measured_ms - 1;
        r += e * e;
      }
      return r;
    };
    if (residual(a_only, 0) <= residual(0, b_only)) a = a_only, b = 0;
    else a = 0, b = b_only;
  }
  double sum_sq = 0;
  json rows = json::array();
  std::string text;
  std::uint64_t last_m = 0;
  for (const WavePoint& p : points) {
    const double calibrated = a * p.terms.work_ms + b * p.terms.latency_ms;
    const double e = calibrated / p.measured_ms - 1;
    sum_sq += e * e;
    if (p.m != last_m) text += fmt::format("{}  m={:<5}", last_m ? "\n" : "", p.m);
    last_m = p.m;
    text += fmt::format(" D={}: {:.2f}/{:.2f}", p.pieces, p.measured_ms, calibrated);
    rows.push_back({{"m", p.m}, {"D", p.pieces}, {"measured_ms", p.measured_ms},
                    {"theorem4_ms", p.terms.work_ms + p.terms.latency_ms}, {"calibrated_ms", calibrated}});
  }
  const double rms = std::sqrt(sum_sq / static_cast<double>(points.size()));
  fmt::print("\nTheorem 4 calibrated on these {} wavefront runs: T = {:.1f} x work terms + {:.2f} x latency terms "
             "(relative rms error {:.1f} %)\nwavefront search kernel, measured / calibrated ms:\n{}\n",
             points.size(), a, b, 100 * rms, text);
  return {{"work_factor", a}, {"latency_factor", b}, {"relative_rms_error", rms}, {"points", rows}};
}

}  // namespace

int run_bench_approx(const BenchApproxOptions& options) {
  if (options.text_bytes < 4096 || options.repeats < 1) {
    fmt::print(stderr, "warpmatch-bench approx: error: --bytes must be >= 4096 and --repeats >= 1\n");
    return 2;
  }
  const std::vector<std::uint64_t> lengths = parse_list(options.lengths);
  const std::vector<std::uint64_t> pieces = parse_list(options.wavefront_blocks);
  const int threads = options.threads > 0 ? options.threads : hardware_threads();
  const std::string commit = git_commit(options.commit);
  std::vector<DeviceInfo> devices;
  if (!options.skip_gpu) devices = cuda_devices();
  const bool gpu = !devices.empty();
  core::HmmMachine machine;
  if (gpu) {
    machine.multiprocessors = devices[0].multiprocessors;
    machine.clock_mhz = devices[0].clock_mhz;
  }

  json j = support::run_record("approx", commit);
  j["cpu_threads"] = threads;
  j["text_bytes"] = options.text_bytes;
  j["repeats"] = options.repeats;
  j["device"] = gpu ? support::device_json(devices[0]) : json(nullptr);
  fmt::print("warpmatch-bench approx  |  commit {}  |  {} CPU threads  |  GPU: {}\n", commit, threads,
             gpu ? devices[0].name : std::string("none"));
  fmt::print("Table 1 workload: |Y| = {} random '0'/'1' bytes, best semi-global distance (ASM)\n\n",
             options.text_bytes);
  fmt::print("{:>5} {:>5} | {:>9} {:>9} {:>7} | {:>9} {:>7} | {:>10} {:>10} | {:>8} {:>8} | {}\n", "m", "ASM",
             "gpu e2e", "gpu res", "TCUPS", "cpu ms", "TCUPS", "edlib 1t", "edlib all", "x edlib", "x ed(k)",
             "wavefront D: measured / predicted ms");

  const std::vector<std::uint8_t> y = random_text(options.text_bytes, "01", 0x5eed0000);
  const double n = static_cast<double>(y.size());
  bool all_agree = true, target_time = false, target_ratio = false, have_1024 = false;
  json rows = json::array();
  std::vector<WavePoint> wave_points;
  for (const std::uint64_t m : lengths) {
    const std::vector<std::uint8_t> x = random_text(m, "01", 0xabc000 + m);
    const std::uint32_t k = static_cast<std::uint32_t>(m);  // best mode: no bound
    json row{{"m", m}};
    // CPU backend, all threads.
    std::uint32_t cpu_best = 0;
    const double cpu_ms = median_ms(options.repeats, [&] {
      cpu_best = kernel_timing::cpu_myers_best(x, y, threads);
    });
    row["cpu_ms"] = cpu_ms;
    row["cpu_tcups"] = tcups(m, n, cpu_ms);
    row["asm"] = cpu_best;
    double edlib_single_ms = 0, edlib_all_ms = 0;
#ifdef WARPMATCH_HAVE_EDLIB
    int edlib_best = -1;
    if (!options.skip_edlib_single) {
      edlib_single_ms = median_ms(1, [&] { edlib_best = edlib_hw(x, y.data(), y.size()); });
      if (edlib_best != static_cast<int>(cpu_best)) all_agree = false;
      row["edlib_1t_ms"] = edlib_single_ms;
    }
    edlib_all_ms = median_ms(options.repeats, [&] { edlib_best = edlib_hw_parallel(x, y, threads); });
    if (edlib_best != static_cast<int>(cpu_best)) all_agree = false;
    row["edlib_all_ms"] = edlib_all_ms;
    row["edlib_asm"] = edlib_best;
#endif
    double gpu_e2e = 0, gpu_kernel = 0;
    std::string wave_text;
    if (gpu) {
      const kernel_timing::ApproxTiming t = kernel_timing::approx_resident(
          x, y, k, /*best_mode=*/true, kernel_timing::ApproxKernel::myers, 0, 0, options.repeats);
      gpu_e2e = t.end_to_end_ms;
      gpu_kernel = t.kernel_ms;
      if (t.best != cpu_best) all_agree = false;
      row["gpu_myers"] = {{"end_to_end_ms", t.end_to_end_ms}, {"resident_ms", t.kernel_ms},
                          {"search_kernel_ms", t.search_ms}, {"asm", t.best},
                          {"tcups_end_to_end", tcups(m, n, t.end_to_end_ms)},
                          {"tcups_search_kernel", tcups(m, n, t.search_ms)}};
      json waves = json::array();
      for (const std::uint64_t d : pieces) {
        const kernel_timing::ApproxTiming w =
            kernel_timing::approx_resident(x, y, k, /*best_mode=*/true, kernel_timing::ApproxKernel::wavefront,
                                           static_cast<int>(d), 0, std::min(options.repeats, 3));
        const double predicted = core::predict_wavefront_ms(y.size(), m, w.threads, machine);
        wave_points.push_back({m, d, w.search_ms, core::wavefront_terms(y.size(), m, w.threads, machine)});
        if (w.best != cpu_best) all_agree = false;
        waves.push_back({{"D", d}, {"search_kernel_ms", w.search_ms}, {"resident_ms", w.kernel_ms},
                         {"end_to_end_ms", w.end_to_end_ms},
                         {"predicted_ms", predicted}, {"threads", w.threads}, {"asm", w.best}});
        wave_text += fmt::format(" D={}: {:.2f}/{:.2f}", d, w.search_ms, predicted);
      }
      row["gpu_wavefront"] = waves;
    }
    const double ratio = gpu_e2e > 0 && edlib_all_ms > 0 ? edlib_all_ms / gpu_e2e : 0;
    const double cpu_ratio = edlib_all_ms > 0 ? edlib_all_ms / cpu_ms : 0;
    row["speedup_gpu_vs_edlib_all"] = ratio;
    row["speedup_cpu_vs_edlib_all"] = cpu_ratio;
    if (m == 1024 && gpu) {
      have_1024 = true;
      target_time = gpu_e2e <= 0.5;
      target_ratio = ratio >= 100;
    }
    rows.push_back(row);
    fmt::print("{:>5} {:>5} | {:>9.3f} {:>9.3f} {:>7.2f} | {:>9.2f} {:>7.3f} | {:>10.1f} {:>10.2f} | {:>8.1f} {:>8.2f} |{}\n",
               m, cpu_best, gpu_e2e, gpu_kernel, tcups(m, n, gpu_e2e), cpu_ms, tcups(m, n, cpu_ms), edlib_single_ms,
               edlib_all_ms, ratio, cpu_ratio, wave_text);
    std::fflush(stdout);
  }
  j["table1"] = rows;
  fmt::print("\n(gpu e2e: text from pinned memory + search + minimum + hits back (Myers: an upper bound on the\n"
             " minimum from the text's first m + 256 bytes on the host meanwhile); gpu res: the same with the text\n"
             " resident; TCUPS = m x |Y| / gpu e2e; wavefront: search kernel ms / Theorem 4 prediction;\n"
             " x edlib: edlib HW on {} threads / gpu e2e; x ed(k): edlib on {} threads / CPU backend)\n",
             threads, threads);

  if (!wave_points.empty()) j["theorem4_calibration"] = print_theorem4_calibration(wave_points);

  // Throughput row.
  json big{{"text_bytes", options.big_text_bytes}};
  bool target_tcups = false;
  if (options.big_text_bytes > 0) {
    const std::uint64_t m = 256;
    std::vector<std::uint8_t> text = random_text(options.big_text_bytes, "ACGT", 0xb16b00b5);
    const std::vector<std::uint8_t> x = random_text(m, "ACGT", 0x1234);
    // 64 copies of the pattern with 8 substitutions each, so that hits are compared too.
    for (std::uint64_t c = 0; c < 64 && text.size() > 2 * m; ++c) {
      const std::uint64_t at = (c * 0x9e3779b97f4a7c15ull) % (text.size() - m);
      std::copy(x.begin(), x.end(), text.begin() + static_cast<std::ptrdiff_t>(at));
      for (std::uint64_t e = 0; e < 8; ++e) text[at + (e * 31 + c) % m] = 'A' + static_cast<std::uint8_t>(e % 3);
    }
    const std::uint32_t k = 16;
    const double bn = static_cast<double>(text.size());
    std::uint64_t cpu_hits = 0;
    const double cpu_ms = median_ms(1, [&] {
      cpu_hits = kernel_timing::cpu_myers_count(x, text, k, threads);
    });
    big["m"] = m;
    big["k"] = k;
    big["cpu_ms"] = cpu_ms;
    big["cpu_tcups"] = tcups(m, bn, cpu_ms);
    big["hits"] = cpu_hits;
    fmt::print("\nThroughput: {} random ACGT bytes, m = {}, all hits within k = {} ({} hits)\n", text.size(), m,
               k, cpu_hits);
    fmt::print("  CPU backend ({} threads): {:.1f} ms, {:.3f} TCUPS\n", threads, cpu_ms, tcups(m, bn, cpu_ms));
    if (gpu) {
      const kernel_timing::ApproxTiming t = kernel_timing::approx_resident(
          x, text, k, /*best_mode=*/false, kernel_timing::ApproxKernel::myers, 0, 0, std::min(options.repeats, 3));
      if (t.hits != cpu_hits) all_agree = false;
      big["gpu_search_kernel_ms"] = t.search_ms;
      big["gpu_tcups_search_kernel"] = tcups(m, bn, t.search_ms);
      big["gpu_resident_ms"] = t.kernel_ms;
      big["gpu_end_to_end_ms"] = t.end_to_end_ms;
      big["gpu_tcups_resident"] = tcups(m, bn, t.kernel_ms);
      big["gpu_tcups_end_to_end"] = tcups(m, bn, t.end_to_end_ms);
      target_tcups = tcups(m, bn, t.kernel_ms) >= 25;
      fmt::print("  GPU myers: search kernel {:.2f} ms ({:.2f} TCUPS), resident with compaction {:.2f} ms ({:.2f} "
                 "TCUPS), end to end {:.2f} ms ({:.2f} TCUPS)\n",
                 t.search_ms, tcups(m, bn, t.search_ms), t.kernel_ms, tcups(m, bn, t.kernel_ms), t.end_to_end_ms,
                 tcups(m, bn, t.end_to_end_ms));
    }
  }
  j["throughput"] = big;
  j["all_methods_agree"] = all_agree;
  j["targets"] = {{"m1024_end_to_end_le_0_5_ms", have_1024 ? json(target_time) : json(nullptr)},
                  {"m1024_ge_100x_edlib_all_cores", have_1024 ? json(target_ratio) : json(nullptr)},
                  {"ge_25_tcups_1gib_m256", gpu && options.big_text_bytes > 0 ? json(target_tcups) : json(nullptr)}};
  fmt::print("\nall methods agree: {}\n", all_agree ? "yes" : "NO");
  if (have_1024)
    fmt::print("targets (m = 1024): end to end <= 0.5 ms: {}; >= 100x edlib on all cores: {}\n",
               target_time ? "met" : "not met", target_ratio ? "met" : "not met");
  if (gpu && options.big_text_bytes > 0)
    fmt::print("target >= 25 TCUPS at m = 256 on the large text: {}\n", target_tcups ? "met" : "not met");
  if (!options.json_path.empty()) {
    std::ofstream f(options.json_path);
    f << j.dump(2) << "\n";
    if (!f) {
      fmt::print(stderr, "warpmatch-bench approx: cannot write {}\n", options.json_path);
      return 2;
    }
    fmt::print("JSON written to {}\n", options.json_path);
  }
  return all_agree ? 0 : 2;
}

}  // namespace warpmatch::bench
