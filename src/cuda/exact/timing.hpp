// Timing entry points of the CUDA exact-search kernels (src/cuda/exact/dispatch.cu), for the
// benchmarks' hook (src/api/kernel_timing.hpp) only: CUDA events, median of `repeats` after
// one warm-up. Counting occurrences.
#pragma once

#include "core/timing.hpp"
#include "cuda/exact/exact_cuda.hpp"

namespace warpmatch::cuda {

/// Text copied to the device once, then only the count kernel(s) timed.
core::CountTiming time_exact_resident(const core::ExactPattern& pattern, ByteSpan text,
                                      ExactAlgorithm algorithm, int device, int repeats);
/// Text in pinned host memory, streamed through exact_scan's pipeline (transfers included).
core::CountTiming time_exact_host_fed(const core::ExactPattern& pattern, ByteSpan text,
                                      ExactAlgorithm algorithm, int device, int repeats);

}  // namespace warpmatch::cuda
