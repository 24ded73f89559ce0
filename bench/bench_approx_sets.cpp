// `warpmatch-bench approx-sets` — issue 15's rows: many short patterns approximately, through
// the public API (ApproxMatcher::scan on text in memory, hits delivered with their starts):
//  1 one 20-mer, k = 2, over --single-bytes (1 GiB) of random ACGT: CPU on one thread and
//    on all threads (GB/s of text);
//  2 100 x 20-mers, k = 2, over --set-bytes (256 MiB): CPU all threads and GPU (seconds);
//  3 1000 x 20-mers, k = 2, over the same text: CPU and GPU.
// Mutated copies of the patterns are planted so that hits are compared too; every row's hits
// must be identical across backends, and every pattern's hits in the text's first 256 KiB
// equal the plain DP oracle's. Prints a table; writes JSON (device and commit recorded).
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/kernel_timing.hpp"
#include "bench/bench_approx.hpp"
#include "bench/bench_support.hpp"
#include "core/approx_align.hpp"
#include "warpmatch/approx.hpp"

namespace warpmatch::bench {
namespace {

using json = nlohmann::json;
using support::git_commit;
using support::median_ms;
using Bytes = std::vector<std::uint8_t>;

Bytes random_acgt(std::uint64_t n, std::uint64_t seed) {
  Bytes b(n);
  std::mt19937_64 rng(seed);
  std::uint64_t word = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    if (i % 32 == 0) word = rng();
    b[i] = static_cast<std::uint8_t>("ACGT"[word & 3]);
    word >>= 2;
  }
  return b;
}

std::vector<Bytes> random_patterns(std::size_t count, std::uint64_t seed) {
  std::vector<Bytes> out;
  for (std::size_t i = 0; i < count; ++i) out.push_back(random_acgt(20, seed + i));
  return out;
}

/// Each pattern planted `copies` times with two substitutions (hits within k = 2).
void plant(Bytes& text, const std::vector<Bytes>& patterns, int copies, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (const Bytes& p : patterns)
    for (int c = 0; c < copies && text.size() > 2 * p.size(); ++c) {
      const std::uint64_t at = rng() % (text.size() - p.size());
      std::copy(p.begin(), p.end(), text.begin() + static_cast<std::ptrdiff_t>(at));
      for (int e = 0; e < 2; ++e) text[at + rng() % p.size()] = static_cast<std::uint8_t>("ACGT"[rng() & 3]);
    }
}

struct Timed {
  double ms = 0;
  std::vector<ApproxMatch> hits;
};

Timed run(const std::vector<Bytes>& patterns, const Bytes& text, Backend backend, int threads, int repeats) {
  ApproxOptions o;
  o.k = 2;
  o.backend = backend;
  o.threads = threads;
  const ApproxMatcher matcher = ApproxMatcher::compile(patterns, o);
  Timed t;
  t.ms = median_ms(repeats, [&] { t.hits = matcher.find_all(text); });
  return t;
}

bool same_hits(const std::vector<ApproxMatch>& a, const std::vector<ApproxMatch>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].pattern != b[i].pattern || a[i].end != b[i].end || a[i].distance != b[i].distance ||
        a[i].start != b[i].start)
      return false;
  return true;
}

/// Every pattern's ends in text[0, prefix) against the DP oracle.
bool oracle_agrees(const std::vector<Bytes>& patterns, const Bytes& text, std::uint64_t prefix) {
  const Bytes head(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(std::min<std::uint64_t>(prefix, text.size())));
  ApproxOptions o;
  o.k = 2;
  o.backend = Backend::cpu;
  const auto got = ApproxMatcher::compile(patterns, o).find_all(head);
  std::vector<std::vector<core::EndHit>> by_pattern(patterns.size());
  for (const ApproxMatch& m : got) by_pattern[m.pattern].push_back({m.end, m.distance});
  core::ApproxQuery q;
  q.k = 2;
  for (std::size_t i = 0; i < patterns.size(); ++i) {
    core::ApproxPattern p;
    p.bytes = patterns[i];
    if (core::reference_hits(p, head, q) != by_pattern[i]) return false;
  }
  return true;
}

}  // namespace

int run_bench_approx_sets(const BenchApproxSetsOptions& options) {
  const int threads = options.threads > 0 ? options.threads : hardware_threads();
  const std::string commit = git_commit(options.commit);
  std::vector<DeviceInfo> devices;
  if (!options.skip_gpu) devices = cuda_devices();
  const bool gpu = !devices.empty();
  const int repeats = std::max(1, options.repeats);
  json j = support::run_record("approx-sets", commit);
  j["cpu_threads"] = threads;
  j["device"] = gpu ? support::device_json(devices[0]) : json(nullptr);
  j["repeats"] = repeats;
  fmt::print("warpmatch-bench approx-sets  |  commit {}  |  {} CPU threads  |  GPU: {}\n", commit, threads,
             gpu ? devices[0].name : std::string("none"));
  fmt::print("20-mers, k = 2 edits, random ACGT text in memory, public API (hits with starts), median of {}\n\n",
             repeats);
  fmt::print("{:<44} | {:>10} {:>10} | {:>10} | {:>8} {:>6} | {}\n", "row", "cpu ms", "cpu GB/s", "gpu ms", "hits",
             "agree", "target");
  bool all_agree = true;
  json rows = json::array();
  auto print_row = [&](const std::string& name, double cpu_ms, double text_bytes, double gpu_ms, std::size_t hits,
                       bool agree, const std::string& target) {
    fmt::print("{:<44} | {:>10.1f} {:>10.2f} | {:>10} | {:>8} {:>6} | {}\n", name, cpu_ms,
               cpu_ms > 0 ? text_bytes / (cpu_ms * 1e6) : 0.0, gpu_ms > 0 ? fmt::format("{:.1f}", gpu_ms) : "-", hits,
               agree ? "yes" : "NO", target);
    std::fflush(stdout);
  };

  // 1: one 20-mer over a large text, one thread and all threads.
  if (options.single_bytes > 0) {
    Bytes text = random_acgt(options.single_bytes, 0x51);
    const std::vector<Bytes> one = random_patterns(1, 0x700);
    plant(text, one, 64, 1);
    const Timed t1 = run(one, text, Backend::cpu, 1, repeats);
    const Timed tn = run(one, text, Backend::cpu, threads, repeats);
    const bool agree = same_hits(t1.hits, tn.hits) && oracle_agrees(one, text, 256 << 10);
    all_agree &= agree;
    const double n = static_cast<double>(text.size());
    const double per_thread = n / (t1.ms * 1e6), all = n / (tn.ms * 1e6);
    print_row(fmt::format("1 x 20-mer, {} MiB, cpu 1 thread", text.size() >> 20), t1.ms, n, 0, t1.hits.size(),
              agree, fmt::format(">= 1 GB/s per thread: {}", per_thread >= 1 ? "MET" : "not met"));
    // (GB/s rates: the target holds at any size, the issue measures 1 GiB)
    print_row(fmt::format("1 x 20-mer, {} MiB, cpu {} threads", text.size() >> 20, threads), tn.ms, n, 0,
              tn.hits.size(), agree, fmt::format(">= 10 GB/s: {}", all >= 10 ? "MET" : "not met"));
    rows.push_back({{"row", "one_20mer"}, {"text_bytes", text.size()}, {"cpu_1_thread_ms", t1.ms},
                    {"cpu_1_thread_gbps", per_thread}, {"cpu_all_threads_ms", tn.ms}, {"cpu_all_threads_gbps", all},
                    {"hits", tn.hits.size()}, {"agree", agree},
                    {"targets", {{"ge_1_gbps_per_thread", per_thread >= 1}, {"ge_10_gbps_all_threads", all >= 10}}}});
  }

  // 2 and 3: sets of 100 and 1000 over the set text.
  if (options.set_bytes > 0) {
    Bytes text = random_acgt(options.set_bytes, 0x52);
    for (const std::size_t count : {std::size_t{100}, std::size_t{1000}}) {
      const std::vector<Bytes> set = random_patterns(count, 0x1000 * count);
      Bytes planted = text;
      plant(planted, set, 4, count);
      const Timed cpu = run(set, planted, Backend::cpu, threads, repeats);
      Timed cuda;
      if (gpu) cuda = run(set, planted, Backend::cuda, 0, repeats);
      const bool agree = (!gpu || same_hits(cpu.hits, cuda.hits)) && oracle_agrees(set, planted, 256 << 10);
      all_agree &= agree;
      const bool issue_size = planted.size() >= (256ull << 20);  // targets are for 256 MiB
      const std::string target = !issue_size ? std::string("(targets at 256 MiB)")
                                 : count == 100 ? fmt::format("cpu <= 1.0 s: {}", cpu.ms <= 1000 ? "MET" : "not met")
                                              : gpu ? fmt::format("gpu <= 50 ms search only (this row: copy + "
                                                                  "search + hits): {}",
                                                                  cuda.ms <= 50 ? "MET" : "not met")
                                                    : std::string("gpu <= 50 ms: no GPU");
      print_row(fmt::format("{} x 20-mers, {} MiB", count, planted.size() >> 20), cpu.ms,
                static_cast<double>(planted.size()), gpu ? cuda.ms : 0, cpu.hits.size(), agree, target);
      json row{{"row", fmt::format("set_{}", count)}, {"patterns", count}, {"text_bytes", planted.size()},
               {"cpu_ms", cpu.ms}, {"hits", cpu.hits.size()}, {"agree", agree}};
      if (gpu) row["gpu_ms"] = cuda.ms;
      if (gpu) {
        // The issue's "search only": the route the matcher takes on this text (the seed filter,
        // src/cuda/approx/seed_filter.cu, or the set kernel, short_set.cu), text resident, CUDA
        // events, hits left on the device (with them sorted and back as a second figure); then
        // the set kernel alone, for comparison.
        const kernel_timing::ApproxSetTiming t = kernel_timing::approx_set_route_resident(set, planted, 2, 0, repeats);
        const bool met = t.search_ms <= 50;
        fmt::print("  {} x 20-mers k=2, {} MiB, search only ({}): {:.2f} ms{}; with hits sorted and back "
                   "{:.2f} ms ({} ends)\n",
                   count, planted.size() >> 20, t.route, t.search_ms,
                   count == 1000 && issue_size ? (met ? " (<= 50 ms: MET)" : " (<= 50 ms: not met)") : "",
                   t.with_hits_ms, t.hits);
        row["gpu_search_route"] = t.route;
        row["gpu_search_only_ms"] = t.search_ms;
        row["gpu_search_with_hits_ms"] = t.with_hits_ms;
        if (std::string(t.route) != "set kernel") {
          const kernel_timing::ApproxSetTiming alone = kernel_timing::approx_set_resident(set, planted, 2, 0, repeats);
          fmt::print("  {} x 20-mers k=2, {} MiB, set kernel alone: {:.2f} ms; with hits sorted and back {:.2f} ms\n",
                     count, planted.size() >> 20, alone.search_ms, alone.with_hits_ms);
          row["gpu_set_kernel_search_ms"] = alone.search_ms;
          row["gpu_set_kernel_with_hits_ms"] = alone.with_hits_ms;
        }
        if (count == 1000 && issue_size) row["target_gpu_search_only_le_50_ms"] = met;
      }
      rows.push_back(row);
    }
  }
  j["rows"] = rows;
  j["all_agree"] = all_agree;
  fmt::print("\n(cpu GB/s = text bytes / time, whatever the pattern count; gpu ms: ApproxMatcher::scan with\n"
             " --backend cuda, the text copied from pageable memory, search, hits back and starts recovered)\n"
             "all methods agree (backends and the DP oracle on the first 256 KiB): {}\n",
             all_agree ? "yes" : "NO");
  if (!options.json_path.empty()) {
    std::ofstream f(options.json_path);
    f << j.dump(2) << "\n";
    if (!f) {
      fmt::print(stderr, "warpmatch-bench approx-sets: cannot write {}\n", options.json_path);
      return 2;
    }
    fmt::print("JSON written to {}\n", options.json_path);
  }
  return all_agree ? 0 : 2;
}

}  // namespace warpmatch::bench
