// CUDA backend of approximate search: a plain C++ header (no CUDA types). Built from
// src/cuda/approx/dispatch.cu with nvcc, from src/cuda/runtime/cuda_unavailable.cpp otherwise (every entry
// then throws BackendUnavailable).
#pragma once

#include <cstdint>
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

/// For each pattern i, the same answer as cpu::approx_scan(patterns[i], text, queries[i]):
/// ends ascending. The text is copied to the device once (in segments when large) and all
/// patterns are run against it; hits are compacted on the device. wavefront_blocks is the
/// paper's D (0 = automatic). Throws BackendUnavailable / DeviceError.
std::vector<std::vector<core::EndHit>> approx_scan(
    const std::vector<core::ApproxPattern>& patterns,
    const std::vector<core::ApproxQuery>& queries, ByteSpan text, ApproxAlgorithm algorithm,
    int wavefront_blocks, int device);

/// Benchmark support (text resident on the device, one pattern): median over `repeats`
/// after a warm-up, timed with CUDA events.
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
ApproxTiming bench_approx(const core::ApproxPattern& pattern, const core::ApproxQuery& query,
                          ByteSpan text, ApproxAlgorithm algorithm, int wavefront_blocks,
                          int device, int repeats);

/// Benchmark support of the short-pattern set kernel (src/cuda/approx/short_set.cu; every
/// pattern 1..64 bytes, text resident on the device, one segment): medians over `repeats`
/// after a warm-up, timed with CUDA events.
struct ApproxSetTiming {
  double search_ms = 0;     // the kernels of both passes (best mode's minimum, hits), hits left on the device
  double with_hits_ms = 0;  // the same + count, sort and keys back, split per pattern on the host
  std::uint64_t hits = 0;   // over all patterns
};
ApproxSetTiming bench_approx_set(const std::vector<core::ApproxPattern>& patterns,
                                 const std::vector<core::ApproxQuery>& queries, ByteSpan text, int device,
                                 int repeats);

}  // namespace warpmatch::cuda
