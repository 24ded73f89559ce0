// `warpmatch-bench scaling` — issue 17's table: each job on the first N GPUs (N = 1, 2, 4, 8,
// up to the machine's count) through the public API's Execution::devices, timed end to end
// (median of --repeats after a warm-up), its result compared with one GPU's:
//   exact resident     one 12-mer, each GPU's share of the text resident on it, the counting
//                      kernels of all GPUs at once (kernel_timing::exact_resident per share,
//                      one host thread each; the slowest GPU's median is the row's time);
//   exact host-fed     ExactMatcher::count on text in pinned host memory;
//   1000 literals      resident: the multi-pattern kernel per share (as exact resident);
//                      host-fed: MultiMatcher::count, 1000 random 12-mers, same text;
//   approx 1000 guides ApproxMatcher::find_all, 1000 20-mers, k = 2 (approx-sets' 1000 row);
//                      resident: each GPU's share on it, the matcher's route (search only);
//   1M pairs           kernels only (each GPU's share resident, CUDA events), then
//                      edit_distances (the distances alone, as NumPy callers get them) end
//                      to end, 150 nt pairs about 5 % apart.
// The aggregate host-to-device bandwidth of the same N GPUs (pinned memory, one stream each,
// all at once) is measured in the same run; host-fed rows report their share of it.
// Targets (issue 17): speed-up >= 0.9 x N on resident and compute-bound rows; host-fed rows at
// >= 80 % of the aggregate bandwidth.
#include "bench/bench_scaling.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/kernel_timing.hpp"
#include "bench/bench_support.hpp"
#include "core/device_split.hpp"
#include "warpmatch/approx.hpp"
#include "warpmatch/distance.hpp"
#include "warpmatch/exact.hpp"
#include "warpmatch/multi.hpp"

namespace warpmatch::bench {
namespace {

using json = nlohmann::json;
using Bytes = std::vector<std::uint8_t>;

void fill_acgt(std::uint8_t* out, std::uint64_t n, std::uint64_t seed) {
  support::SplitMix64 rng{seed};
  std::uint64_t word = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    if (i % 32 == 0) word = rng.next();
    out[i] = static_cast<std::uint8_t>("ACGT"[word & 3]);
    word >>= 2;
  }
}

Bytes random_acgt(std::uint64_t n, std::uint64_t seed) {
  Bytes b(n);
  fill_acgt(b.data(), n, seed);
  return b;
}

/// One row's measurement on N GPUs: the median time and a digest of the result (to compare
/// with one GPU's).
struct Sample {
  double ms = 0;
  std::uint64_t digest = 0;
};

std::uint64_t mix(std::uint64_t h, std::uint64_t v) { return (h ^ v) * 0x100000001b3ull + 0x9e3779b97f4a7c15ull; }

struct Job {
  std::string name;
  std::string kind;  // "resident", "host-fed", "compute"
  std::uint64_t bytes = 0;  // host bytes the job reads (host-fed rows: against the bus)
  std::function<Sample(const std::vector<int>&)> run;
};

}  // namespace

int run_bench_scaling(const BenchScalingOptions& options) {
  const std::string commit = support::git_commit(options.commit);
  const std::vector<DeviceInfo> gpus = cuda_devices();
  if (gpus.empty()) {
    fmt::print(stderr, "warpmatch-bench scaling: no CUDA GPU is visible\n");
    return 2;
  }
  const int repeats = std::max(1, options.repeats);
  std::vector<int> counts;
  for (int n = 1; n <= std::min<int>(options.max_gpus, static_cast<int>(gpus.size())); n *= 2) counts.push_back(n);
  if (counts.back() != std::min<int>(options.max_gpus, static_cast<int>(gpus.size())))
    counts.push_back(std::min<int>(options.max_gpus, static_cast<int>(gpus.size())));

  fmt::print("warpmatch-bench scaling  |  commit {}  |  {} x {}  |  median of {}\n", commit, gpus.size(),
             gpus[0].name, repeats);
  for (const DeviceLink& l : cuda_device_links())
    if (l.from < l.to)
      fmt::print("  GPU {} <-> GPU {}: {}, peer access {}\n", l.from, l.to,
                 l.transport.empty() ? "link unknown" : l.transport, l.peer_access ? "yes" : "no");

  // The texts: pinned (host-fed rows copy at the bus's speed), generated once.
  const std::uint64_t n = options.text_bytes;
  kernel_timing::PinnedBytes text(n);
  {
    const std::uint64_t piece = 64ull << 20;
    std::vector<std::thread> writers;
    for (std::uint64_t b = 0; b < n; b += piece)
      writers.emplace_back([&, b] { fill_acgt(text.data() + b, std::min(piece, n - b), 0x5ca1e + b); });
    for (auto& w : writers) w.join();
  }
  const ByteSpan text_span(text.data(), n);
  // A resident row: each GPU's share of `of` (the library's split rule, `overlap` bytes read
  // past a share's owned ones, or `before` bytes before them for ends-owned searches) timed by
  // time_share(share, device) -> CountTiming on a host thread of its own, all at once; the
  // slowest GPU's median is the row's time, the counts' sum its result.
  auto resident_shares_of = [&](ByteSpan of, const std::vector<int>& devices, std::uint64_t overlap,
                                std::uint64_t before, const auto& time_share) {
    const auto shares = core::plan_device_shares(of.size(), devices.size(), overlap, 1);
    std::vector<kernel_timing::CountTiming> t(shares.size());
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < shares.size(); ++i)
      threads.emplace_back([&, i] {
        const std::uint64_t from = shares[i].begin > before ? shares[i].begin - before : 0;
        t[i] = time_share(of.subspan(from, shares[i].read_end - from), devices[i]);
      });
    for (auto& th : threads) th.join();
    Sample s;
    for (const auto& x : t) {
      s.ms = std::max(s.ms, x.median_ms);
      s.digest += x.count;
    }
    return s;
  };
  auto resident_shares = [&](const std::vector<int>& devices, std::uint64_t overlap, const auto& time_share) {
    return resident_shares_of(text_span, devices, overlap, 0, time_share);
  };
  const Bytes pattern = random_acgt(12, 0x12);
  std::vector<std::string> literals;
  for (int i = 0; i < 1000; ++i) {
    const Bytes l = random_acgt(12, 0x1000 + i);
    literals.emplace_back(l.begin(), l.end());
  }
  const Bytes approx_text = random_acgt(options.approx_bytes, 0xa11);
  std::vector<Bytes> guides;
  for (int i = 0; i < 1000; ++i) guides.push_back(random_acgt(20, 0x2000 + i));
  std::vector<Bytes> pair_a, pair_b;
  {
    std::mt19937_64 rng(0x9a1);
    for (std::uint64_t i = 0; i < options.pairs; ++i) {
      Bytes a = random_acgt(150, 0x3000 + i), b = a;
      for (int e = 0; e < 8; ++e) b[rng() % b.size()] = static_cast<std::uint8_t>("ACGT"[rng() & 3]);
      pair_a.push_back(std::move(a));
      pair_b.push_back(std::move(b));
    }
  }
  std::vector<std::pair<ByteSpan, ByteSpan>> pairs;
  for (std::size_t i = 0; i < pair_a.size(); ++i) pairs.emplace_back(pair_a[i], pair_b[i]);

  std::vector<Job> jobs;
  jobs.push_back({"exact resident (12-mer)", "resident", n, [&](const std::vector<int>& devices) {
                    // Each GPU's share (the library's split rule), resident, all kernels at once.
                    return resident_shares(devices, pattern.size() - 1, [&](ByteSpan share, int device) {
                      return kernel_timing::exact_resident(pattern, share, kernel_timing::ExactKernel::fast, device,
                                                           repeats);
                    });
                  }});
  // Host-fed counts: the matcher compiled for the GPUs, one warm-up, then the median.
  auto count_host_fed = [&](const auto& matcher) {
    Sample s;
    matcher.count(text_span);
    s.ms = support::median_ms(repeats, [&] { s.digest = matcher.count(text_span); });
    return s;
  };
  jobs.push_back({"exact host-fed (12-mer)", "host-fed", n, [&](const std::vector<int>& devices) {
                    ExactOptions o;
                    o.backend = Backend::cuda;
                    o.devices = devices;
                    return count_host_fed(ExactMatcher::compile(pattern, o));
                  }});
  // The same literals resident: the multi-pattern kernel's own rate, the ceiling of the
  // host-fed row below (where it is under the bus's, that row is compute-bound).
  jobs.push_back({"1000 literals resident (12-mers)", "resident", n, [&](const std::vector<int>& devices) {
                    return resident_shares(devices, 11, [&](ByteSpan share, int device) {
                      return kernel_timing::MultiTables(literals, {}, device).resident(share, repeats);
                    });
                  }});
  jobs.push_back({"1000 literals host-fed (12-mers)", "host-fed", n, [&](const std::vector<int>& devices) {
                    MultiOptions o;
                    o.backend = Backend::cuda;
                    o.devices = devices;
                    return count_host_fed(MultiMatcher::compile(literals, o));
                  }});
  jobs.push_back({"approx 1000 guides (20 nt, k=2)", "compute", approx_text.size(),
                  [&](const std::vector<int>& devices) {
                    ApproxOptions o;
                    o.backend = Backend::cuda;
                    o.k = 2;
                    o.devices = devices;
                    const auto m = ApproxMatcher::compile(guides, o);
                    Sample s;
                    std::vector<ApproxMatch> hits = m.find_all(approx_text);
                    s.ms = support::median_ms(repeats, [&] { hits = m.find_all(approx_text); });
                    for (const ApproxMatch& h : hits) s.digest = mix(mix(mix(s.digest, h.pattern), h.end), h.start * 64 + h.distance);
                    return s;
                  }});
  // The same guides with each GPU's share of the text resident on it, the route the matcher
  // takes (the seed filter here) timed on all GPUs at once: the compute part of the row above,
  // whose remainder is the host's (pageable copies, hits, starts). A share reads m + k bytes
  // before its owned ends (an end there belongs to the share before: with ~10 hits per 256 MiB
  // share boundaries almost never hold one, and a count that differs is reported as for any row).
  jobs.push_back({"approx 1000 guides resident", "resident", approx_text.size(), [&](const std::vector<int>& devices) {
                    return resident_shares_of(approx_text, devices, 0, 20 + 2, [&](ByteSpan share, int device) {
                      const core::ApproxSetTiming t = kernel_timing::approx_set_route_resident(guides, share, 2, device, repeats);
                      return kernel_timing::CountTiming{t.search_ms, t.hits};
                    });
                  }});
  // The same pairs' kernels alone (each GPU's contiguous share packed and uploaded first,
  // kernel_ms from CUDA events, the slowest GPU's median): the compute part of the row below,
  // whose remainder is host work (packing ~336 MB from scattered strings into pinned memory,
  // results), bound by the host's memory bandwidth rather than by the GPUs.
  jobs.push_back({fmt::format("{} pairs kernels (resident)", options.pairs), "resident", options.pairs * 300,
                  [&](const std::vector<int>& devices) {
                    const std::size_t shares = devices.size();
                    std::vector<double> ms(shares, 0);
                    std::vector<std::vector<std::int64_t>> distances(shares);
                    std::vector<std::thread> threads;
                    for (std::size_t i = 0; i < shares; ++i)
                      threads.emplace_back([&, i] {
                        const std::vector<std::pair<ByteSpan, ByteSpan>> share(
                            pairs.begin() + static_cast<std::ptrdiff_t>(pairs.size() * i / shares),
                            pairs.begin() + static_cast<std::ptrdiff_t>(pairs.size() * (i + 1) / shares));
                        std::vector<double> runs;
                        for (int r = 0; r < repeats; ++r) {
                          double kernel_ms = 0;
                          const auto d = kernel_timing::distance_batch(share, devices[i], kernel_ms);
                          runs.push_back(kernel_ms);
                          if (r == 0) distances[i] = d;
                        }
                        std::sort(runs.begin(), runs.end());
                        ms[i] = runs[runs.size() / 2];
                      });
                    for (auto& th : threads) th.join();
                    Sample s;
                    for (std::size_t i = 0; i < shares; ++i) {
                      s.ms = std::max(s.ms, ms[i]);
                      for (const std::int64_t x : distances[i]) s.digest = mix(s.digest, static_cast<std::uint64_t>(x));
                    }
                    return s;
                  }});
  jobs.push_back({fmt::format("{} pairs (150 nt)", options.pairs), "compute", options.pairs * 300,
                  [&](const std::vector<int>& devices) {
                    DistanceOptions o;
                    o.backend = Backend::cuda;
                    o.devices = devices;
                    std::vector<std::int64_t> r = edit_distances(pairs, o);
                    Sample s;
                    s.ms = support::median_ms(repeats, [&] { r = edit_distances(pairs, o); });
                    for (const std::int64_t d : r) s.digest = mix(s.digest, static_cast<std::uint64_t>(d));
                    return s;
                  }});

  json j = support::run_record("scaling", commit);
  j["device"] = support::device_json(gpus[0]);
  j["devices"] = json::array();
  for (const DeviceInfo& d : gpus) j["devices"].push_back(support::device_json(d));
  j["links"] = json::array();
  for (const DeviceLink& l : cuda_device_links())
    j["links"].push_back({{"from", l.from}, {"to", l.to}, {"peer_access", l.peer_access},
                          {"performance_rank", l.performance_rank}, {"transport", l.transport}});
  j["repeats"] = repeats;
  j["options"] = {{"text_bytes", n}, {"approx_bytes", options.approx_bytes}, {"pairs", options.pairs},
                  {"copy_bytes_per_gpu", options.copy_bytes}};

  // The aggregate host-to-device bandwidth of the first N GPUs, all copying at once.
  std::vector<double> aggregate_gbps;
  fmt::print("\n{:<34} | {:>4} | {:>10} | {:>9} | {:>8} | {:>10} | {}\n", "row", "GPUs", "ms", "GB/s", "speed-up",
             "of bus", "result");
  json bandwidth = json::array();
  for (const int g : counts) {
    std::vector<int> devices(g);
    for (int i = 0; i < g; ++i) devices[i] = gpus[i].ordinal;
    const double ms = kernel_timing::concurrent_host_to_device_ms(devices, options.copy_bytes, repeats);
    aggregate_gbps.push_back(static_cast<double>(options.copy_bytes) * g / (ms * 1e6));
    fmt::print("{:<34} | {:>4} | {:>10.2f} | {:>9.1f} | {:>8} | {:>10} | {}\n", "host-to-device copy (aggregate)", g, ms,
               aggregate_gbps.back(), support::fmt_ratio(aggregate_gbps.back() / aggregate_gbps.front()), "-", "-");
    bandwidth.push_back({{"gpus", g}, {"median_ms", ms}, {"gb_per_s", aggregate_gbps.back()}});
  }
  j["host_to_device"] = bandwidth;

  bool all_agree = true, any_failed = false;
  json rows = json::array();
  for (const Job& job : jobs) {
    Sample one;
    for (std::size_t c = 0; c < counts.size(); ++c) {
      const int g = counts[c];
      std::vector<int> devices(g);
      for (int i = 0; i < g; ++i) devices[i] = gpus[i].ordinal;
      json row{{"row", job.name}, {"kind", job.kind}, {"gpus", g}};
      try {
        const Sample s = job.run(devices);
        if (c == 0) one = s;
        const bool agree = s.digest == one.digest;
        all_agree &= agree;
        const double speedup = one.ms / s.ms;
        const double gbps = static_cast<double>(job.bytes) / (s.ms * 1e6);
        const double of_bus = job.kind == "host-fed" ? gbps / aggregate_gbps[c] : 0;
        const bool met = job.kind == "host-fed" ? of_bus >= 0.8 : speedup >= 0.9 * g;
        fmt::print("{:<34} | {:>4} | {:>10.2f} | {:>9.1f} | {:>8} | {:>10} | {}{}\n", job.name, g, s.ms, gbps,
                   support::fmt_ratio(speedup), job.kind == "host-fed" ? fmt::format("{:.0f} %", of_bus * 100) : "-",
                   agree ? "same as 1 GPU" : "DIFFERS from 1 GPU <--", g > 1 ? (met ? ", target MET" : ", target not met") : "");
        row.update({{"status", "ok"}, {"median_ms", s.ms}, {"gb_per_s", gbps}, {"speedup_vs_1", speedup},
                    {"same_as_1_gpu", agree}, {"digest", s.digest}});
        if (job.kind == "host-fed") row["fraction_of_aggregate_h2d"] = of_bus;
        if (g > 1) row["target_met"] = met;
      } catch (const Error& e) {
        any_failed = true;
        fmt::print("{:<34} | {:>4} | failed: {}\n", job.name, g, e.what());
        row.update({{"status", "failed"}, {"note", e.what()}});
      }
      std::fflush(stdout);
      rows.push_back(row);
    }
  }
  j["rows"] = rows;
  j["all_agree"] = all_agree;
  fmt::print("\n(targets: speed-up >= 0.9 x N on resident and compute rows; host-fed rows >= 80 % of the\n"
             " aggregate host-to-device bandwidth of the same GPUs, measured above)\n");
  if (!support::write_json(options.json_path, j, "scaling")) return 2;
  return all_agree && !any_failed ? 0 : 2;
}

}  // namespace warpmatch::bench
