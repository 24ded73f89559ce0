// The one median of timings, and what a timed scan reports: the library's timing hooks (the
// CUDA backends' timing entry points behind api/kernel_timing.hpp, `warpmatch tune`'s
// calibration) and the benchmarks of bench/ all summarize repeated measurements with it, so
// a figure never depends on which path timed it.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
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

/// Median wall-clock milliseconds of max(1, repeats) calls of `run` (steady clock; no warm-up:
/// call it once before when one is wanted).
template <class Run>
double median_wall_ms(int repeats, Run&& run) {
  std::vector<double> ms;
  for (int r = 0; r < std::max(1, repeats); ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    run();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return median(std::move(ms));
}

/// A counting scan's median time and its count.
struct CountTiming {
  double median_ms = 0;
  std::uint64_t count = 0;
};

/// One approximate-search pattern timed on the device (text resident, one segment).
struct ApproxTiming {
  double search_ms = 0;       // the search kernel alone (Myers, hits included, or wavefront)
  double kernel_ms = 0;       // (Myers best mode: host bound +) search + minimum / compaction +
                              // hits back, text on the device
  double end_to_end_ms = 0;   // text copied from pinned host memory (the bound meanwhile) +
                              // kernels + hits back
  std::uint32_t best = 0;     // best distance found (best mode; UINT32_MAX when none within k)
  std::uint64_t hits = 0;
  std::uint64_t threads = 0;  // threads launched by the main kernel (for the cost model)
};

/// A set of short patterns timed on the device (text resident): the set kernel's route or the
/// seed filter's.
struct ApproxSetTiming {
  double search_ms = 0;     // the route's kernels (set kernel: both passes; seed filter: find and
                            // verify, the counts read between passes), hits left on the device
  double with_hits_ms = 0;  // the same + count, sort and keys back, split per pattern on the host
  std::uint64_t hits = 0;   // over all patterns
  const char* route = "set kernel";  // or "seed filter"
};

}  // namespace warpmatch::core
