// Tuning of approximate search on CUDA (host side): the policy of the dispatch and the
// environment overrides it reads (this file is the only place that reads them). Values
// unchanged from src/cuda/approx/dispatch.cu, where they lived until issue 11; limits that
// follow from the kernels' layout (pattern lengths, padding) stay in dispatch.cu, block sizes
// in kernels.cuh.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

namespace warpmatch::cuda {

struct ApproxPolicy {
  // Owned end positions per device segment: indices stay 32-bit and CUB's item count an int
  // (a limit, not a measurement).
  static constexpr std::uint64_t segment_ends = std::uint64_t{1} << 30;
  // Lane kernel: Eq tables up to this size sit in shared memory, larger ones stay in global
  // memory (set with the lane pipeline in 862ccfa; no separate measurement recorded).
  static constexpr std::size_t lane_shared_table = 96 * 1024;
  // Hits copied back with the count in one copy; more cost a second copy (862ccfa).
  static constexpr std::uint32_t staged_hits = 1024;
  // Best mode's host bound (bound_best) up to this pattern length: O(m^2) host work, more
  // than it saves beyond (862ccfa: 4 Mi x 1024, 0.975 -> 0.448 ms end to end with the bound).
  static constexpr std::size_t bound_max_pattern = 2048;
  // First hit buffer (entries), grown on overflow.
  static constexpr std::uint64_t hit_capacity = std::uint64_t{1} << 24;
  // Lane kernel: a step's latency in issue slots of one warp (see lane_chunk), most lanes.
  // Measured on the H200 (bench approx, 4 Mi): 2 beat 4 and 6 by 1.15-1.5x at m = 512 and
  // 1024 (equal at 256).
  static constexpr double latency_warps = 2.0;
};

/// The policy with the environment's overrides applied (read each time a runner is made).
struct ApproxTuning {
  std::uint64_t hit_capacity = ApproxPolicy::hit_capacity;
  double latency_warps = ApproxPolicy::latency_warps;
  std::uint32_t max_lanes = 0;  // 0: logic::myers_shape's default; else 1..32 (rounded up to a power of 2 by the caller)
  std::uint64_t segment_ends = ApproxPolicy::segment_ends;
};

inline ApproxTuning approx_tuning() {
  ApproxTuning t;
  // Test hook: WARPMATCH_APPROX_HIT_CAPACITY shrinks the first hit buffer (overflow path).
  if (const char* env = std::getenv("WARPMATCH_APPROX_HIT_CAPACITY"))
    t.hit_capacity = std::clamp<std::uint64_t>(std::strtoull(env, nullptr, 10), 1, t.hit_capacity);
  // Tuning hook: WARPMATCH_APPROX_LATENCY_WARPS overrides the lane kernel's latency model.
  if (const char* env = std::getenv("WARPMATCH_APPROX_LATENCY_WARPS"))
    t.latency_warps = std::clamp(std::strtod(env, nullptr), 1.0, 32.0);
  // Tuning hook: WARPMATCH_APPROX_MAX_LANES caps the lane kernel's lanes per pattern.
  if (const char* env = std::getenv("WARPMATCH_APPROX_MAX_LANES"))
    t.max_lanes = std::clamp<std::uint32_t>(std::strtoul(env, nullptr, 10), 1, 32);
  // Test hook: WARPMATCH_APPROX_SEGMENT_ENDS forces small device segments (segment seams).
  if (const char* env = std::getenv("WARPMATCH_APPROX_SEGMENT_ENDS"))
    t.segment_ends = std::clamp<std::uint64_t>(std::strtoull(env, nullptr, 10), 1, t.segment_ends);
  return t;
}

}  // namespace warpmatch::cuda
