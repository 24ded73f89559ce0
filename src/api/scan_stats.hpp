// The ScanStats every operation's front fills (include/warpmatch/common.hpp): one way to time
// a call and to say what ran, so that a figure never depends on which front produced it.
#pragma once

#include <chrono>
#include <cstdint>
#include <span>
#include <string>

#include "warpmatch/common.hpp"

namespace warpmatch::api {

/// The most matches a scan_batches call hands on at once (the batch a front converts into
/// Match records; 1.5 MiB of them, which stay in cache).
inline constexpr std::size_t kMatchBatch = std::size_t{1} << 16;

/// scan() of a matcher that has scan_batches: `scan_batches(batch_sink)` scans, its matches go
/// to `sink` one at a time; returns (and puts in `stats`) those the sink took, up to the one
/// that stopped it.
template <class ScanBatches>
std::uint64_t scan_one_at_a_time(const MatchSink& sink, ScanStats* stats, const ScanBatches& scan_batches) {
  std::uint64_t delivered = 0;
  scan_batches([&](std::span<const Match> batch) {
    for (const Match& m : batch) {
      ++delivered;
      if (!sink(m)) return false;
    }
    return true;
  });
  if (stats) stats->matches = delivered;
  return delivered;
}

/// Wall seconds since `t0`.
inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// A scan's start time, read only where the caller asked for stats, and its seconds (0
/// without): two clock reads were ~7 % of a short read's count through the Python API.
inline std::chrono::steady_clock::time_point clock_for(const ScanStats* stats) {
  return stats ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
}
inline double seconds_for(const ScanStats* stats, std::chrono::steady_clock::time_point t0) {
  return stats ? seconds_since(t0) : 0.0;
}

/// The common part of a scan's stats; nothing when the caller asked for none (nullptr).
inline void fill_scan_stats(ScanStats* stats, Backend backend, const std::string& algorithm,
                            const std::string& device, std::uint64_t bytes, std::uint64_t matches,
                            double seconds) {
  if (!stats) return;
  stats->backend = backend;
  stats->algorithm = algorithm;
  stats->device = device;
  stats->bytes = bytes;
  stats->matches = matches;
  stats->seconds = seconds;
}

}  // namespace warpmatch::api
