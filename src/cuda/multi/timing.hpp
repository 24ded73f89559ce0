// Timing entry points of the CUDA multi-pattern kernels (src/cuda/multi/dispatch.cu), for the
// benchmarks' hook (src/api/kernel_timing.hpp) only: CUDA events, median of `repeats` after
// one warm-up. Counting occurrences.
#pragma once

#include "core/timing.hpp"
#include "cuda/multi/multi_cuda.hpp"

namespace warpmatch::cuda {

/// Text copied to the device once (must fit), only the counting kernel(s) timed.
core::CountTiming time_multi_resident(const MultiDeviceTables& tables, ByteSpan text, int repeats);
/// Text in pinned host memory streamed through the scan pipeline, transfers included.
core::CountTiming time_multi_host_fed(const MultiDeviceTables& tables, ByteSpan text, int repeats);

}  // namespace warpmatch::cuda
