// The end-to-end cost model behind `auto` (see warpmatch/cost_model.hpp): estimated seconds
// on each backend = start-up + bytes / the slowest of (input rate, transfer, scan rate).
#include "warpmatch/cost_model.hpp"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <thread>

#include "core/cost_model_tuning.hpp"

namespace warpmatch {

bool gpu_visible_without_init() {
  if (!build_info().cuda_compiled) return false;
  if (core::cuda_hidden_by_environment()) return false;
  if (::access("/dev/nvidia0", F_OK) == 0) return true;
  if (DIR* d = ::opendir("/proc/driver/nvidia/gpus")) {
    bool any = false;
    while (dirent* e = ::readdir(d)) any = any || e->d_name[0] != '.';
    ::closedir(d);
    return any;
  }
  return false;
}

namespace core {

double cpu_seed_filter_gbps(const JobShape& job, const CostModelPolicy& p, int threads) {
  // The filter's conditions (core::plan_seeds): k + 1 pieces of >= 4 bytes, m <= 64.
  if (job.operation != Operation::approx || job.seed_k < 0 || job.pattern_length > 64) return 0;
  const auto k = static_cast<std::uint64_t>(job.seed_k);
  const std::uint64_t piece = job.shortest_pattern / (k + 1);
  if (piece < 4) return 0;
  const double windows = static_cast<double>(std::max<std::uint64_t>(job.patterns, 1)) * static_cast<double>(k + 1) *
                         std::pow(4.0, -static_cast<double>(std::min<std::uint64_t>(piece, 32)));
  const double steps = windows * static_cast<double>(job.pattern_length + 3 * k);
  const double work = p.cpu_approx_seed_pattern_bytes_per_byte + steps * p.cpu_approx_seed_pattern_bytes_per_step;
  return p.cpu_approx_short_gbps_per_thread_pattern * threads / std::max(work, 1e-3);
}

BackendChoice estimate_backends(const JobShape& job, const CostModelPolicy& p, bool gpu, bool with_reason) {
  const int threads = job.threads > 0 ? job.threads
                                      : hardware_threads();
  // Unknown sizes (pipes) are taken as 1 GiB: large enough that the rates decide.
  const double gb = (job.text_bytes ? static_cast<double>(job.text_bytes) : double(1ull << 30)) / 1e9;
  const double patterns = static_cast<double>(std::max<std::uint64_t>(job.patterns, 1));

  double cpu_gbps = 0, cuda_scan_gbps = 0;
  switch (job.operation) {
    case Operation::exact:
      cpu_gbps = p.cpu_exact_gbps_per_thread * threads;
      cuda_scan_gbps = p.cuda_exact_scan_gbps;
      break;
    case Operation::multi: {
      const double per_thread = std::min(p.cpu_exact_gbps_per_thread,
                                         p.cpu_multi_gbps_per_thread_1000 * 1000.0 / patterns);
      cpu_gbps = std::max(per_thread, p.cpu_multi_gbps_per_thread_1000 / 10) * threads;
      cuda_scan_gbps = p.cuda_multi_scan_gbps;
      break;
    }
    case Operation::approx:
      cpu_gbps = (job.pattern_length <= 64 ? p.cpu_approx_short_gbps_per_thread_pattern
                                            : p.cpu_approx_gbps_per_thread_pattern) *
                 threads / patterns;
      cpu_gbps = std::max(cpu_gbps, cpu_seed_filter_gbps(job, p, threads));
      cuda_scan_gbps = p.cuda_approx_pattern_gbps / patterns;
      break;
    case Operation::distance: break;  // by cells, below
  }
  double input_gbps = std::numeric_limits<double>::infinity();
  const char* where = "in memory";
  switch (job.source) {
    case TextSource::memory: break;
    case TextSource::stream: input_gbps = p.pipe_gbps, where = "streamed"; break;
    case TextSource::gzip: input_gbps = p.gzip_gbps, where = "gzip"; break;
    case TextSource::parallel_decode: input_gbps = p.parallel_decode_gbps, where = "BGZF/zstd"; break;
    case TextSource::parallel_gzip: input_gbps = p.parallel_gzip_gbps, where = "gzip, parallel"; break;
  }
  // What the GPU costs before its first byte: CUDA's start-up in a new process, a call's
  // launches and copies where CUDA already runs.
  const double cuda_fixed =
      job.cuda_running ? p.cuda_call_seconds : std::max(p.cuda_start_seconds, p.cuda_call_seconds);
  const char* fixed_what = job.cuda_running ? "per call" : "start-up";
  BackendChoice c;
  if (job.operation == Operation::distance) {
    // Work is DP cells, not text bytes; the sequences are already in memory.
    const double gcells = static_cast<double>(job.cells) / 1e9;
    c.cpu_seconds = gcells / (p.cpu_distance_gcups_per_thread * threads);
    c.cuda_seconds = gpu ? cuda_fixed + gcells / p.cuda_distance_gcups
                         : std::numeric_limits<double>::infinity();
    c.backend = c.cuda_seconds < c.cpu_seconds ? Backend::cuda : Backend::cpu;
    if (!with_reason) return c;
    char line[256];
    if (!gpu) std::snprintf(line, sizeof line, "auto: cpu (no GPU visible)");
    else
      std::snprintf(line, sizeof line, "auto: %s (estimated cpu %.3f s vs cuda %.3f s incl. %.2g s %s; %.3g G cells)",
                    c.backend == Backend::cuda ? "cuda" : "cpu", c.cpu_seconds, c.cuda_seconds,
                    cuda_fixed, fixed_what, gcells);
    c.reason = line;
    return c;
  }
  c.cpu_seconds = gb / std::min(cpu_gbps, input_gbps);
  c.cuda_seconds = gpu ? cuda_fixed +
                             gb / std::min({cuda_scan_gbps, p.cuda_host_feed_gbps, input_gbps})
                       : std::numeric_limits<double>::infinity();
  const bool lines_on_cpu = job.line_output && job.operation != Operation::approx;
  c.backend = c.cuda_seconds < c.cpu_seconds && !lines_on_cpu ? Backend::cuda : Backend::cpu;
  if (!with_reason) return c;
  char line[256];
  if (!gpu) {
    std::snprintf(line, sizeof line, "auto: cpu (no GPU visible)");
  } else if (lines_on_cpu) {
    std::snprintf(line, sizeof line,
                  "auto: cpu (line output: the CPU searches each line up to its first hit, the GPU lists every hit; "
                  "estimated without that cpu %.3f s vs cuda %.3f s; %.3g GB %s)",
                  c.cpu_seconds, c.cuda_seconds, gb, where);
  } else {
    std::snprintf(line, sizeof line,
                  "auto: %s (estimated cpu %.3f s vs cuda %.3f s incl. %.2g s %s; %.3g GB %s)",
                  c.backend == Backend::cuda ? "cuda" : "cpu", c.cpu_seconds, c.cuda_seconds,
                  cuda_fixed, fixed_what, gb, where);
  }
  c.reason = line;
  return c;
}

}  // namespace core

namespace core {

const CostModelPolicy& loaded_cost_model() {
  static const CostModelPolicy policy = CostModelPolicy::load();
  return policy;
}

}  // namespace core

BackendChoice choose_backend(const JobShape& job) {
  return core::estimate_backends(job, core::loaded_cost_model(), gpu_visible_without_init());
}

}  // namespace warpmatch
