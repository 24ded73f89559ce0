// `warpmatch-bench lcs`: longest common substring on the seed paper's planted-substring pairs
// (Table 3 sizes, 3.31 K ... 150 K), random ACGT pairs of 1 MB and --large (50 MB; 100 MB with
// --with-100m), and phage lambda against a mutated copy. Rows: GPU diagonal (paper 004, only
// up to 150 K: O(mn)), GPU suffix array (end to end, and the device time of the SA alone), the
// CPU backend on all threads, and the peer: libdivsufsort + Kasai LCP + nearest-B scan on one
// thread, all in this run. Prints a table with ratios to the peer and the targets of PERF.md
// (2 x 150 KB <= 1 ms, 2 x 50 MB <= 0.3 s on the GPU), writes JSON.
#include <divsufsort64.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/kernel_timing.hpp"
#include "bench/bench_lcs.hpp"
#include "bench/bench_support.hpp"
#include "warpmatch/lcs.hpp"

namespace warpmatch::bench {

namespace {

using Bytes = std::vector<std::uint8_t>;
using Clock = std::chrono::steady_clock;
using support::git_commit;
using support::median;

struct Case {
  std::string name;
  Bytes a, b;
};

Bytes random_text(std::mt19937_64& rng, std::size_t n, const std::string& alphabet) {
  Bytes v(n);
  for (auto& c : v) c = static_cast<std::uint8_t>(alphabet[rng() % alphabet.size()]);
  return v;
}

Case planted_case(std::size_t m, std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::string lower = "abcdefghijklmnopqrstuvwxyz";
  Case c{fmt::format("paper {}K x {}K planted", m / 1000.0, n / 1000.0), random_text(rng, m, lower),
         random_text(rng, n, lower)};
  const std::string sig = "zhangchangzhi001";
  std::copy(sig.begin(), sig.end(), c.a.begin() + static_cast<std::ptrdiff_t>(rng() % (m - 16)));
  std::copy(sig.begin(), sig.end(), c.b.begin() + static_cast<std::ptrdiff_t>(rng() % (n - 16)));
  return c;
}

Bytes lambda_genome() {
  Bytes seq;
  gzFile g = gzopen("/usr/share/doc/bowtie2/examples/reference/lambda_virus.fa.gz", "rb");
  if (!g) return seq;
  std::string all;
  char buf[1 << 16];
  for (int n; (n = gzread(g, buf, sizeof buf)) > 0;) all.append(buf, static_cast<std::size_t>(n));
  gzclose(g);
  bool header = false;
  for (char c : all) {
    if (c == '>') header = true;
    if (c == '\n') {
      header = false;
      continue;
    }
    if (!header && c != '\r') seq.push_back(static_cast<std::uint8_t>(c));
  }
  return seq;
}

/// The peer as PERF.md measured it: libdivsufsort on A·B, Kasai LCP, then the longest clamped
/// match of each A-suffix with its nearest B-suffix on either side; one thread.
std::uint64_t peer_divsufsort_kasai(const Bytes& a, const Bytes& b) {
  const auto m = static_cast<std::int64_t>(a.size());
  Bytes t(a);
  t.insert(t.end(), b.begin(), b.end());
  const auto n = static_cast<std::int64_t>(t.size());
  std::vector<std::int64_t> sa(t.size()), rank(t.size()), lcp(t.size(), 0);
  divsufsort64(t.data(), reinterpret_cast<saidx64_t*>(sa.data()), n);
  for (std::int64_t k = 0; k < n; ++k) rank[sa[k]] = k;
  for (std::int64_t i = 0, h = 0; i < n; ++i) {
    if (rank[i] == 0) {
      h = 0;
      continue;
    }
    const std::int64_t j = sa[rank[i] - 1];
    while (i + h < n && j + h < n && t[i + h] == t[j + h]) ++h;
    lcp[rank[i]] = h;
    if (h > 0) --h;
  }
  std::vector<std::int64_t> left(t.size(), 0);
  std::int64_t best = 0, run = 0;
  bool seen = false;
  for (std::int64_t k = 0; k < n; ++k) {
    run = std::min(run, lcp[k]);
    if (sa[k] >= m) {
      seen = true;
      run = INT64_MAX;
    } else if (seen) {
      left[k] = run;
    }
  }
  seen = false;
  run = INT64_MAX;
  for (std::int64_t k = n - 1; k >= 0; --k) {
    if (k + 1 < n) run = std::min(run, lcp[k + 1]);
    if (sa[k] >= m) {
      seen = true;
      run = INT64_MAX;
    } else {
      best = std::max(best, std::min(m - sa[k], std::max(left[k], seen ? run : 0)));
    }
  }
  return static_cast<std::uint64_t>(best);
}

struct Row {
  std::string method;
  double median_ms = 0;
  double device_ms = -1;   // GPU suffix array: the device pipeline after the upload
  double sa_only_ms = -1;  // GPU suffix array: prefix doubling alone
  std::uint64_t length = 0, count = 0, pairs = 0;
  std::string note;
};

}  // namespace

int run_bench_lcs(std::uint64_t large_bytes, bool with_100mb, int repeats, int threads,
                  const std::string& json_path, const std::string& commit_arg, bool skip_gpu) {
  const auto gpus = cuda_devices();
  const bool gpu = !skip_gpu && !gpus.empty();
  const int cpu_threads = threads > 0 ? threads : hardware_threads();
  std::vector<Case> cases;
  for (const auto& [m, n] : std::vector<std::pair<std::size_t, std::size_t>>{
           {3'310, 3'500}, {15'100, 15'600}, {56'600, 56'600}, {103'000, 104'000}, {150'000, 150'000}})
    cases.push_back(planted_case(m, n, m));
  std::mt19937_64 rng(2013);
  auto random_pair = [&](std::uint64_t bytes) {
    return Case{fmt::format("random ACGT 2 x {} MB", bytes / 1'000'000.0), random_text(rng, bytes, "ACGT"),
                random_text(rng, bytes, "ACGT")};
  };
  cases.push_back(random_pair(1'000'000));
  cases.push_back(random_pair(large_bytes));
  if (with_100mb) cases.push_back(random_pair(100'000'000));
  if (Bytes lambda = lambda_genome(); !lambda.empty()) {
    Bytes copy = lambda;
    std::mt19937_64 mut(7);
    for (std::size_t k = 0; k < copy.size() / 200; ++k) copy[mut() % copy.size()] = "ACGT"[mut() % 4];
    cases.push_back(Case{"phage lambda vs 0.5% mutated copy", std::move(lambda), std::move(copy)});
  }

  nlohmann::json doc = support::run_record("lcs", git_commit(commit_arg));
  doc["cpu_threads"] = cpu_threads;
  doc["device"] = gpu ? support::device_json(gpus[0]) : nlohmann::json(nullptr);
  doc["command"] = fmt::format("warpmatch-bench lcs --large {} {}--repeats {} -j {} --json {}{}", large_bytes,
                               with_100mb ? "--with-100m " : "", repeats, threads, json_path,
                               skip_gpu ? " --no-gpu" : "");
  doc["repeats"] = repeats;
  doc["cases"] = nlohmann::json::array();
  bool all_agree = true;
  fmt::print("{:<36} {:<32} {:>11} {:>10} {:>10} {:>9} {:>8} {:>8}\n", "case", "method", "median ms",
             "device ms", "SA ms", "x peer", "L", "count");

  for (const Case& c : cases) {
    const bool large = c.a.size() + c.b.size() > 16'000'000;
    const int reps = large ? 1 : repeats;  // the one-thread peer takes ~15 s at 2 x 50 MB
    std::vector<Row> rows;
    auto time_api = [&](const std::string& method, LcsOptions o) {
      o.max_matches = 1000;
      std::vector<double> ms;
      Row row;
      row.method = method;
      const bool on_gpu = o.backend == Backend::cuda;
      // Warm-up (CUDA context, allocations, page faults) except for the long one-shot CPU runs.
      if (on_gpu || !large) (void)longest_common_substring(c.a, c.b, o);
      for (int r = 0; r < (on_gpu ? repeats : reps); ++r) {
        const auto t0 = Clock::now();
        const LcsResult res = longest_common_substring(c.a, c.b, o);
        ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
        row.length = res.length;
        row.count = res.count;
        row.pairs = res.total_pairs;
        row.note = res.stats.note;
      }
      row.median_ms = median(ms);
      rows.push_back(row);
    };
    // The peer first: its time is the denominator of every ratio.
    {
      Row peer;
      peer.method = "peer divsufsort+Kasai (1 thread)";
      std::vector<double> ms;
      for (int r = 0; r < reps; ++r) {
        const auto t0 = Clock::now();
        peer.length = peer_divsufsort_kasai(c.a, c.b);
        ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
      }
      peer.median_ms = median(ms);
      peer.count = peer.pairs = 0;  // the peer computes the length only
      rows.push_back(peer);
    }
    LcsOptions cpu_opt;
    cpu_opt.backend = Backend::cpu;
    cpu_opt.threads = cpu_threads;
    time_api(fmt::format("cpu suffix-array ({} threads)", cpu_threads), cpu_opt);
    if (gpu) {
      LcsOptions g;
      g.backend = Backend::cuda;
      time_api("gpu suffix-array (end to end)", g);
      // Device time of the whole suffix-array path after the upload, and of the SA alone.
      Bytes t(c.a);
      t.insert(t.end(), c.b.begin(), c.b.end());
      std::vector<double> pipeline, sa_only;
      try {
        for (int r = 0; r < repeats; ++r) {
          if (const double d = kernel_timing::lcs_suffix_array_device_ms(c.a, c.b, 0); d >= 0) pipeline.push_back(d);
          sa_only.push_back(kernel_timing::lcs_suffix_array_only_ms(t, 0));
        }
        rows.back().device_ms = pipeline.empty() ? -1 : median(pipeline);
        rows.back().sa_only_ms = median(sa_only);
      } catch (const Error& e) {
        rows.back().note = e.what();
      }
      if (c.a.size() <= 200'000 && c.b.size() <= 200'000) {
        g.algorithm = "diagonal";
        time_api("gpu diagonal (paper 004)", g);
      }
    }
    const Row& peer = rows.front();
    nlohmann::json jc;
    jc["name"] = c.name;
    jc["a_bytes"] = c.a.size();
    jc["b_bytes"] = c.b.size();
    jc["rows"] = nlohmann::json::array();
    for (const Row& r : rows) {
      const double ratio = r.median_ms > 0 ? peer.median_ms / r.median_ms : 0;
      const bool agrees = r.length == peer.length &&
                          (r.method == peer.method || r.count == rows[1].count);
      all_agree &= agrees;
      auto ms_or_dash = [](double v) { return v >= 0 ? fmt::format("{:.3f}", v) : std::string("-"); };
      fmt::print("{:<36} {:<32} {:>11.3f} {:>10} {:>10} {:>8.1f}x {:>8} {:>8}{}\n", c.name.substr(0, 36),
                 r.method, r.median_ms, ms_or_dash(r.device_ms), ms_or_dash(r.sa_only_ms), ratio, r.length,
                 &r == &peer ? std::string("-") : std::to_string(r.count), agrees ? "" : "  DISAGREES");
      if (!r.note.empty()) fmt::print("    note: {}\n", r.note);
      jc["rows"].push_back({{"method", r.method}, {"median_ms", r.median_ms}, {"device_ms", r.device_ms}, {"device_sa_only_ms", r.sa_only_ms},
                            {"ratio_to_peer", ratio}, {"length", r.length}, {"count", r.count},
                            {"total_pairs", r.pairs}, {"agrees", agrees}, {"note", r.note}});
    }
    // Targets (PERF.md) apply to the GPU suffix array, end to end.
    for (const Row& r : rows) {
      if (r.method != "gpu suffix-array (end to end)") continue;
      double target = 0;
      if (c.a.size() == 150'000 && c.b.size() == 150'000) target = 1.0;
      if (c.a.size() == 50'000'000 && c.b.size() == 50'000'000) target = 300.0;
      if (target > 0) {
        const bool met = r.median_ms <= target;
        const bool device_met = r.device_ms >= 0 && r.device_ms <= target;
        fmt::print("    target {} ms: end to end {} ({:.3f} ms); device time after upload {} ({:.3f} ms)\n",
                   target, met ? "met" : "NOT met", r.median_ms, device_met ? "met" : "NOT met", r.device_ms);
        jc["target_ms"] = target;
        jc["target_met_end_to_end"] = met;
        jc["target_met_device"] = device_met;
      }
    }
    doc["cases"].push_back(jc);
  }
  doc["all_agree"] = all_agree;
  std::ofstream(json_path) << doc.dump(2) << "\n";
  fmt::print("results agree across methods: {}; JSON written to {}\n", all_agree ? "yes" : "NO",
             json_path);
  return all_agree ? 0 : 2;
}

}  // namespace warpmatch::bench
