// CUDA backend of exact search: a plain C++ header (no CUDA types), so core code and tests
// compile without nvcc. Built from src/cuda/exact/dispatch.cu when CUDA is on, from
// src/cuda/runtime/cuda_unavailable.cpp otherwise (every entry then throws BackendUnavailable).
// The device list (cuda::devices()) is in src/cuda/runtime/devices.hpp.
#pragma once

#include <string>
#include <vector>

#include "core/exact_pattern.hpp"

namespace warpmatch::cuda {

enum class ExactAlgorithm {
  fast,        // per pattern length, the faster of prefix (m <= 3) and first_last
  first_last,  // 16-byte loads, first/last-byte filter, verification, ordered warp output
  prefix,      // 16-byte loads, SWAR filter on the first min(m, 3) bytes (exact for m <= 3)
  bf,    // seed paper 003: one thread per start, grid-stride, per-thread counts, block reduction
};

/// Same contract as cpu::exact_scan, for text in host memory of any size: streamed to the
/// device in chunks overlapping by pattern length - 1, pinned staging buffers, >= 2 streams
/// so copies overlap compute. Throws BackendUnavailable / DeviceError (message names the
/// device and the failing call, e.g. out of memory).
std::uint64_t exact_scan(const core::ExactPattern& pattern, ByteSpan text,
                         ExactAlgorithm algorithm, int device, bool count_only,
                         const core::StartsSink& sink);

}  // namespace warpmatch::cuda
