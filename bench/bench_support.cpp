#include "bench/bench_support.hpp"

#include <cmath>
#include <cstdio>

#include <fmt/format.h>

namespace warpmatch::bench::support {

std::string git_commit() {
#ifdef WARPMATCH_SOURCE_DIR
  const std::string cmd = std::string("git -C '") + WARPMATCH_SOURCE_DIR + "' rev-parse HEAD 2>/dev/null";
  if (FILE* p = ::popen(cmd.c_str(), "r")) {
    char buf[128] = {};
    const bool ok = std::fgets(buf, sizeof buf, p) != nullptr;
    ::pclose(p);
    std::string s = ok ? buf : "";
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    if (!s.empty()) return s;
  }
#endif
  return "unknown";
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::string fmt_ratio(double v) {
  if (v <= 0 || !std::isfinite(v)) return "-";
  return v >= 100 ? fmt::format("{:.0f}x", v) : fmt::format("{:.2f}x", v);
}

nlohmann::json device_json(const DeviceInfo& d) {
  return {{"ordinal", d.ordinal},
          {"name", d.name},
          {"compute_capability", fmt::format("{}.{}", d.compute_major, d.compute_minor)},
          {"multiprocessors", d.multiprocessors},
          {"clock_mhz", d.clock_mhz},
          {"global_memory_bytes", d.global_memory_bytes}};
}

}  // namespace warpmatch::bench::support
