#include "bench/bench_support.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <system_error>

#include <fmt/format.h>

namespace warpmatch::bench::support {

std::string trim(std::string s) {
  s.erase(s.find_last_not_of(" \t\r\n") + 1);
  s.erase(0, s.find_first_not_of(" \t\r\n"));
  return s;
}

namespace {

/// Standard output of a shell command (standard error discarded); "" when it fails.
std::string command_output(const std::string& command) {
  std::string out;
  FILE* p = ::popen((command + " 2>/dev/null").c_str(), "r");
  if (!p) return out;
  char buf[256];
  while (std::fgets(buf, sizeof buf, p)) out += buf;
  return ::pclose(p) == 0 ? out : std::string();
}

}  // namespace

std::string git_commit(const std::string& given) {
  if (!given.empty()) return given;
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    std::ifstream file(exe.parent_path() / "COMMIT");
    std::string stamp;
    if (file && std::getline(file, stamp) && !trim(stamp).empty()) return trim(stamp);
  }
#ifdef WARPMATCH_SOURCE_DIR
  const std::string git = std::string("git -C '") + WARPMATCH_SOURCE_DIR + "' ";
  if (std::string head = trim(command_output(git + "rev-parse HEAD")); !head.empty()) {
    if (!trim(command_output(git + "status --porcelain --untracked-files=no")).empty()) head += "+dirty";
    return head;
  }
#endif
  return "unknown";
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

std::string lower_ascii(std::string_view w) {
  std::string s(w);
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  return s;
}

}  // namespace warpmatch::bench::support
