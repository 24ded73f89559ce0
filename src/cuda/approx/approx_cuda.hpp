// CUDA backend of approximate search: a plain C++ header (no CUDA types). Built from
// src/cuda/approx/dispatch.cu with nvcc, from src/cuda/runtime/cuda_unavailable.cpp otherwise (every entry
// then throws BackendUnavailable).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/approx_pattern.hpp"

namespace warpmatch::cuda {

enum class ApproxAlgorithm {
  myers,          // bit-parallel on 32-bit words; picks myers_threads or myers_lanes per text
  myers_threads,  // one thread per long text chunk, the whole pattern in its registers (m <= 1024)
  myers_lanes,    // a group of lanes pipelines the pattern's words over one text chunk
  wavefront,      // seed paper 000: D pieces, one block each, anti-diagonal wavefront in shared memory
};

/// Longest pattern each kernel accepts (myers: words held in registers; wavefront: the
/// 3 x (m+1) buffer of 16-bit cells in shared memory).
std::uint64_t approx_max_pattern_length(ApproxAlgorithm algorithm);

/// The patterns compiled for one device (ApproxMatcher's compile): each pattern's tables (or
/// the short-pattern set's, or the Hamming kernel's) uploaded once, plus a pool of per-scan
/// scratches (stream, text and hit buffers) that later scans reuse. Immutable to its users
/// and safe to scan from several threads at once; freed on its device.
class ApproxDevicePatterns;

/// Uploads `patterns` to `device` for `algorithm`; `queries` are those the scans will mostly
/// use (the short-pattern set's plan depends on them; a scan with others plans them once).
/// wavefront_blocks is the paper's D (0 = automatic). Throws BackendUnavailable,
/// InvalidArgument (a pattern too long for the kernel) or DeviceError.
std::shared_ptr<const ApproxDevicePatterns> approx_upload(const std::vector<core::ApproxPattern>& patterns,
                                                          const std::vector<core::ApproxQuery>& queries,
                                                          ApproxAlgorithm algorithm, int wavefront_blocks,
                                                          int device);

/// For each pattern i, the same answer as cpu::approx_scan(patterns[i], text, queries[i]):
/// ends ascending. The text is copied to the device once (in segments when large) and all
/// patterns are run against it; hits are compacted on the device. Throws DeviceError.
std::vector<std::vector<core::EndHit>> approx_scan(const ApproxDevicePatterns& patterns,
                                                   const std::vector<core::ApproxQuery>& queries, ByteSpan text);

/// One-shot form (tests): approx_upload, then one scan.
std::vector<std::vector<core::EndHit>> approx_scan(
    const std::vector<core::ApproxPattern>& patterns,
    const std::vector<core::ApproxQuery>& queries, ByteSpan text, ApproxAlgorithm algorithm,
    int wavefront_blocks, int device);

}  // namespace warpmatch::cuda
