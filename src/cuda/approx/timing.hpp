// Timing entry points of the CUDA approximate-search kernels (src/cuda/approx/dispatch.cu,
// short_set.cu and seed_filter.cu), for the benchmarks' hook (src/api/kernel_timing.hpp) only: text resident on
// the device (one segment), CUDA events, medians over `repeats` after a warm-up.
#pragma once

#include <optional>
#include <vector>

#include "core/timing.hpp"
#include "cuda/approx/approx_cuda.hpp"

namespace warpmatch::cuda {

/// One pattern (the search kernel, the resident scan and the scan from pinned host memory).
core::ApproxTiming time_approx(const core::ApproxPattern& pattern, const core::ApproxQuery& query,
                               ByteSpan text, ApproxAlgorithm algorithm, int wavefront_blocks,
                               int device, int repeats);

/// The short-pattern set kernel (src/cuda/approx/short_set.cu; every pattern 1..64 bytes).
core::ApproxSetTiming time_approx_set(const std::vector<core::ApproxPattern>& patterns,
                                      const std::vector<core::ApproxQuery>& queries, ByteSpan text,
                                      int device, int repeats);

/// A set of short patterns by the route a matcher of theirs takes on this text (approx_scan's
/// choice, dispatch.cu): the seed filter's or, where it does not apply, does not pay or gives
/// up on a flood, the set kernel's. route says which.
core::ApproxSetTiming time_approx_set_route(const std::vector<core::ApproxPattern>& patterns,
                                            const std::vector<core::ApproxQuery>& queries, ByteSpan text,
                                            int device, int repeats);

class SeedFilterDevice;
/// The seed filter alone (seed_filter.cu): every chunk of the resident text; nullopt when it
/// gives up on a flood (the matcher then runs the set kernel).
std::optional<core::ApproxSetTiming> time_seed_filter(const SeedFilterDevice& filter, ByteSpan text,
                                                      std::size_t patterns, int repeats);

}  // namespace warpmatch::cuda
