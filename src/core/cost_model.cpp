// The end-to-end cost model behind `auto` (see warpmatch/cost_model.hpp): estimated seconds
// on each backend = start-up + bytes / the slowest of (input rate, transfer, scan rate).
#include "warpmatch/cost_model.hpp"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <thread>

#include "core/cost_model_tuning.hpp"
#include "core/distance_tune.hpp"  // cache_directory()

#include <cctype>
#include <fstream>
#include <sys/stat.h>

namespace warpmatch {

bool gpu_visible_without_init() {
  if (!build_info().cuda_compiled) return false;
  if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES"); v && (!*v || std::strcmp(v, "-1") == 0))
    return false;
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

std::string cost_model_path() {
  const std::string dir = tune::cache_directory();
  return dir.empty() ? "" : dir + "/cost_model.txt";
}

void save_cost_model(const CostModelPolicy& policy, const std::string& path) {
  if (path.empty()) throw Error("cannot store the cost model: neither XDG_CACHE_HOME nor HOME is set");
  const std::string dir = path.substr(0, path.rfind('/'));
  for (std::size_t i = 1; i <= dir.size(); ++i)
    if (i == dir.size() || dir[i] == '/') ::mkdir(dir.substr(0, i).c_str(), 0755);
  std::ofstream out(path);
  out << "# warpmatch cost model rates, measured by `warpmatch tune --cost-model`\n";
  CostModelPolicy copy = policy;
  copy.for_each([&](const char* name, double& value) { out << name << ' ' << value << '\n'; });
  if (!out) throw Error(path + ": cannot write the cost model");
}

CostModelPolicy CostModelPolicy::load() {
  CostModelPolicy p;
  if (const std::string path = cost_model_path(); !path.empty()) {
    std::ifstream in(path);
    for (std::string name; in >> name;) {
      double value = 0;
      if (name[0] == '#' || !(in >> value)) {
        in.clear();
        std::string rest;
        std::getline(in, rest);
        continue;
      }
      p.for_each([&](const char* key, double& field) {
        if (name == key && value > 0) field = value;
      });
    }
  }
  p.for_each([](const char* key, double& field) {
    std::string env = "WARPMATCH_COST_";
    for (const char* c = key; *c; ++c) env += static_cast<char>(std::toupper(static_cast<unsigned char>(*c)));
    if (const char* s = std::getenv(env.c_str()); s && *s) field = std::strtod(s, nullptr);
  });
  return p;
}

BackendChoice estimate_backends(const JobShape& job, const CostModelPolicy& p, bool gpu) {
  const int threads = job.threads > 0 ? job.threads
                                      : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
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
      cpu_gbps = p.cpu_approx_gbps_per_thread_pattern * threads / patterns;
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
  }
  BackendChoice c;
  if (job.operation == Operation::distance) {
    // Work is DP cells, not text bytes; the sequences are already in memory.
    const double gcells = static_cast<double>(job.cells) / 1e9;
    c.cpu_seconds = gcells / (p.cpu_distance_gcups_per_thread * threads);
    c.cuda_seconds = gpu ? p.cuda_start_seconds + gcells / p.cuda_distance_gcups
                         : std::numeric_limits<double>::infinity();
    c.backend = c.cuda_seconds < c.cpu_seconds ? Backend::cuda : Backend::cpu;
    char line[256];
    if (!gpu) std::snprintf(line, sizeof line, "auto: cpu (no GPU visible)");
    else
      std::snprintf(line, sizeof line, "auto: %s (estimated cpu %.3f s vs cuda %.3f s incl. %.2f s start-up; %.3g G cells)",
                    c.backend == Backend::cuda ? "cuda" : "cpu", c.cpu_seconds, c.cuda_seconds,
                    p.cuda_start_seconds, gcells);
    c.reason = line;
    return c;
  }
  c.cpu_seconds = gb / std::min(cpu_gbps, input_gbps);
  c.cuda_seconds = gpu ? p.cuda_start_seconds +
                             gb / std::min({cuda_scan_gbps, p.cuda_host_feed_gbps, input_gbps})
                       : std::numeric_limits<double>::infinity();
  c.backend = c.cuda_seconds < c.cpu_seconds ? Backend::cuda : Backend::cpu;
  char line[256];
  if (!gpu) {
    std::snprintf(line, sizeof line, "auto: cpu (no GPU visible)");
  } else {
    std::snprintf(line, sizeof line,
                  "auto: %s (estimated cpu %.3f s vs cuda %.3f s incl. %.2f s start-up; %.3g GB %s)",
                  c.backend == Backend::cuda ? "cuda" : "cpu", c.cpu_seconds, c.cuda_seconds,
                  p.cuda_start_seconds, gb, where);
  }
  c.reason = line;
  return c;
}

}  // namespace core

BackendChoice choose_backend(const JobShape& job) {
  static const core::CostModelPolicy policy = core::CostModelPolicy::load();
  return core::estimate_backends(job, policy, gpu_visible_without_init());
}

}  // namespace warpmatch
