// Timing entry points of the CUDA approximate-search kernels (src/cuda/approx/dispatch.cu and
// short_set.cu), for the benchmarks' hook (src/api/kernel_timing.hpp) only: text resident on
// the device (one segment), CUDA events, medians over `repeats` after a warm-up.
#pragma once

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

}  // namespace warpmatch::cuda
