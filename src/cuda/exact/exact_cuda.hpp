// CUDA backend of exact search: a plain C++ header (no CUDA types), so core code and tests
// compile without nvcc. Built from src/cuda/exact/dispatch.cu when CUDA is on, from
// src/cuda/runtime/cuda_unavailable.cpp otherwise (every entry then throws BackendUnavailable).
// The device list (cuda::devices()) is in src/cuda/runtime/devices.hpp.
#pragma once

#include <memory>
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

/// The pattern compiled for one device (ExactMatcher's compile): its kernel parameters and
/// bytes uploaded once, plus a pool of per-scan scratches (streams, device buffers, pinned
/// staging) that later scans reuse. Immutable to its users and safe to scan from several
/// threads at once; freed on its device.
class ExactDevicePattern;

/// Uploads `pattern` to `device` (made current for the call). Throws BackendUnavailable,
/// InvalidArgument (empty pattern, 4 GiB or more) or DeviceError.
std::shared_ptr<const ExactDevicePattern> exact_upload(const core::ExactPattern& pattern,
                                                       ExactAlgorithm algorithm, int device);

/// Same contract as cpu::exact_scan, for text in host memory of any size: streamed to the
/// device in chunks overlapping by pattern length - 1, pinned staging buffers, >= 2 streams
/// so copies overlap compute. Throws DeviceError (message names the device and the failing
/// call, e.g. out of memory).
std::uint64_t exact_scan(const ExactDevicePattern& pattern, ByteSpan text, bool count_only,
                         const core::StartsSink& sink);

/// One-shot form (tests, benchmarks): exact_upload, then one scan.
std::uint64_t exact_scan(const core::ExactPattern& pattern, ByteSpan text,
                         ExactAlgorithm algorithm, int device, bool count_only,
                         const core::StartsSink& sink);

}  // namespace warpmatch::cuda
