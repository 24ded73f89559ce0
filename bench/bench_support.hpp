// What every benchmark program of bench/ shares (not part of the library): the commit stamp,
// the median and its timing loop, the record of the run (time, command line, build, host,
// device) at the top of every JSON, a reproducible generator and a few formatters.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/timing.hpp"
#include "warpmatch/common.hpp"

namespace warpmatch::bench::support {

/// The commit stamp every benchmark records (table header and JSON): `given` (a --commit flag)
/// when not empty; else the COMMIT file next to the running executable (scripts/build_for_gpu.sh
/// writes .device/COMMIT beside the binaries it carries to the GPU machine); else
/// `git rev-parse HEAD` of the source tree this was compiled from (WARPMATCH_SOURCE_DIR), with
/// "+dirty" when tracked files differ from it, as build_for_gpu.sh stamps; else "unknown".
std::string git_commit(const std::string& given = {});

/// The median of the samples, the library's (core/timing.hpp): the mean of the two middle values
/// for an even count; 0 when empty.
using core::median;

/// A small, fast, reproducible random generator (SplitMix64) for generated benchmark data.
struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  std::uint64_t below(std::uint64_t n) {  // uniform in [0, n)
    return static_cast<std::uint64_t>((static_cast<unsigned __int128>(next()) * n) >> 64);
  }
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // uniform in [0, 1)
};

/// `n` distinct pseudo-words of 1 to 4 syllables (mostly 1 or 2), deterministic for `seed`,
/// none containing `avoid` in any case: the vocabulary of the generated texts when no word
/// list is readable. `empty_codas`: how many of the coda choices are empty (more: more open
/// syllables); each generator keeps its own so that its text stays the same.
std::vector<std::string> pseudo_words(std::size_t n, std::uint64_t seed, std::string_view avoid, int empty_codas);

/// `s` without leading and trailing blanks (spaces, tabs, line ends).
std::string trim(std::string s);
/// ASCII letters lowered, other bytes kept.
std::string lower_ascii(std::string_view w);

/// Milliseconds elapsed since t0.
inline double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

/// Runs fn max(1, repeats) times; the median of the wall times in milliseconds.
template <class Fn>
double median_ms(int repeats, Fn&& fn) {
  return core::median_wall_ms(repeats, fn);
}

/// A ratio for the tables: "-" when not positive or not finite, else "12.34x" (or "123x").
std::string fmt_ratio(double v);

/// The JSON description of a CUDA device, the same in every benchmark: ordinal, name,
/// compute capability, multiprocessors, clock, global memory and L2 size.
nlohmann::json device_json(const DeviceInfo& d);

/// The value of the first "key : value" line of a /proc file starting with `key` ("" if none):
/// the CPU model from /proc/cpuinfo, the memory from /proc/meminfo.
std::string proc_field(const char* path, std::string_view key);
/// The CPU model of this host ("" when /proc/cpuinfo does not say).
std::string cpu_model();

/// The record at the top of every benchmark's JSON: "benchmark", "timestamp_utc" (ISO 8601),
/// "commit" (as given: see git_commit), "command_line" (this process's arguments), "build"
/// (version, CUDA compiled, architectures, runtime) and "host" (hardware threads, CPU model,
/// memory, kernel, hostname). The device ("device": device_json or null) is added by each
/// benchmark, which knows which one it used.
nlohmann::json run_record(std::string_view benchmark, const std::string& commit);

/// Writes `j` (indented) to `path` and says so; false, with a message naming the benchmark,
/// when it cannot be written. An empty path writes nothing (true).
bool write_json(const std::string& path, const nlohmann::json& j, std::string_view benchmark);

}  // namespace warpmatch::bench::support
