// Small helpers shared by the benchmark programs of bench/ (not part of the library).
#pragma once

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "warpmatch/common.hpp"

namespace warpmatch::bench::support {

/// HEAD of the source tree's git checkout, or "unknown".
std::string git_commit();

/// Upper median of the samples (the element at size / 2 once sorted); 0 when empty.
double median(std::vector<double> v);

/// Milliseconds elapsed since t0.
inline double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

/// Runs fn max(1, repeats) times; the upper median of the wall times in milliseconds.
template <class Fn>
double median_ms(int repeats, Fn&& fn) {
  std::vector<double> ms;
  for (int r = 0; r < std::max(1, repeats); ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    ms.push_back(ms_since(t0));
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

/// A ratio for the tables: "-" when not positive or not finite, else "12.34x" (or "123x").
std::string fmt_ratio(double v);

/// The JSON description of a CUDA device: ordinal, name, compute capability, multiprocessors,
/// clock and global memory.
nlohmann::json device_json(const DeviceInfo& d);

}  // namespace warpmatch::bench::support
