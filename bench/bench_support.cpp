#include "bench/bench_support.hpp"

#include <sys/utsname.h>

#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <system_error>
#include <unordered_set>

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
          {"global_memory_bytes", d.global_memory_bytes},
          {"l2_bytes", d.l2_bytes}};
}

std::string proc_field(const char* path, std::string_view key) {
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(key, 0) == 0 && line.find(':') != std::string::npos)
      return trim(line.substr(line.find(':') + 1));
  return {};
}

std::string cpu_model() { return proc_field("/proc/cpuinfo", "model name"); }

namespace {

std::string utc_timestamp() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::vector<std::string> own_command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::vector<std::string> args;
  for (std::string a; std::getline(in, a, '\0');) args.push_back(a);
  return args;
}

}  // namespace

nlohmann::json run_record(std::string_view benchmark, const std::string& commit) {
  const BuildInfo bi = build_info();
  utsname un{};
  uname(&un);
  return {{"benchmark", benchmark},
          {"timestamp_utc", utc_timestamp()},
          {"commit", commit},
          {"command_line", own_command_line()},
          {"build",
           {{"version", bi.version},
            {"cuda_compiled", bi.cuda_compiled},
            {"cuda_architectures", bi.cuda_architectures},
            {"cuda_runtime_version", bi.cuda_runtime_version}}},
          {"host",
           {{"hardware_threads", hardware_threads()},
            {"cpu_model", cpu_model()},
            {"memory", proc_field("/proc/meminfo", "MemTotal")},
            {"kernel", std::string(un.release)},
            {"hostname", std::string(un.nodename)}}}};
}

std::vector<std::string> pseudo_words(std::size_t n, std::uint64_t seed, std::string_view avoid, int empty_codas) {
  static constexpr std::string_view onsets[] = {"b", "c", "d", "f", "g", "h", "l", "m", "n", "p", "r", "s",
                                                "t", "v", "w", "br", "ch", "cl", "dr", "gr", "sh", "st", "th", "tr"};
  static constexpr std::string_view vowels[] = {"a", "e", "i", "o", "u", "ea", "ou", "ai", "ee", "y"};
  static constexpr std::string_view consonant_codas[] = {"n", "r", "s", "t", "l", "nd", "st", "ng", "ck"};
  std::vector<std::string_view> codas(static_cast<std::size_t>(empty_codas), "");
  codas.insert(codas.end(), std::begin(consonant_codas), std::end(consonant_codas));
  const std::string avoid_lower = lower_ascii(avoid);
  SplitMix64 rng{seed};
  std::unordered_set<std::string> seen;
  std::vector<std::string> out;
  while (out.size() < n) {
    const std::uint64_t r = rng.below(100);
    const int syllables = r < 30 ? 1 : r < 75 ? 2 : r < 95 ? 3 : 4;
    std::string w;
    for (int s = 0; s < syllables; ++s) {
      w += onsets[rng.below(std::size(onsets))];
      w += vowels[rng.below(std::size(vowels))];
      w += codas[rng.below(codas.size())];
    }
    if (lower_ascii(w).find(avoid_lower) == std::string::npos && seen.insert(w).second) out.push_back(std::move(w));
  }
  return out;
}

std::string lower_ascii(std::string_view w) {
  std::string s(w);
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  return s;
}

bool write_json(const std::string& path, const nlohmann::json& j, std::string_view benchmark) {
  if (path.empty()) return true;
  std::ofstream f(path);
  f << j.dump(2) << "\n";
  if (!f) {
    std::fprintf(stderr, "warpmatch-bench %.*s: cannot write %s\n", static_cast<int>(benchmark.size()),
                 benchmark.data(), path.c_str());
    return false;
  }
  std::printf("JSON written to %s\n", path.c_str());
  return true;
}

}  // namespace warpmatch::bench::support
