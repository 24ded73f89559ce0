// The one median of timings: the library's timing hooks (the CUDA backends' benchmark entry
// points, `warpmatch tune`'s calibration) and the benchmarks of bench/ all summarize repeated
// measurements with it, so a figure never depends on which path timed it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace warpmatch::core {

/// Median of the samples: the middle value once sorted, the mean of the two middle values for
/// an even count; 0 for none.
inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : (v[h - 1] + v[h]) / 2;
}

}  // namespace warpmatch::core
