// Tuning of exact search on CUDA (host side): the pipeline's policy and the only environment
// override this operation reads. Values unchanged from src/cuda/exact/dispatch.cu, where they
// lived until issue 11; each says what chose it. Kernel shapes (block sizes, segment steps)
// are part of the kernels' layout and stay in kernels.cuh.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "cuda/runtime/tuning.hpp"

namespace warpmatch::cuda {

/// The pipeline of exact_scan (host side only).
struct ExactPolicy {
  static constexpr std::uint64_t kMiB = 1ull << 20;
  // Host text already pinned: DMA straight from it; big chunks amortise per-chunk launches
  // (256 MiB is ~4.6 ms of PCIe at 55 GB/s against ~0.1 ms of kernel).
  static constexpr std::uint64_t direct_chunk = 256 * kMiB;
  // Pageable text (through the upload ring). Counting: large chunks, so the ring's lanes
  // stream on without a break at every chunk's end; reporting: bounds the hit buffers.
  static constexpr std::uint64_t staged_count_chunk = 256 * kMiB;
  static constexpr std::uint64_t staged_chunk = 64 * kMiB;
  // Reporting from pinned text: bounds the hit buffers (a flood gives one 4-byte hit per
  // text byte).
  static constexpr std::uint64_t report_chunk = 64 * kMiB;
  // Hits are written as 32-bit chunk-relative offsets (a limit, not a choice).
  static constexpr std::uint64_t max_chunk = 1024 * kMiB;
  // Two slots: chunk i+1's copy overlaps chunk i's search (no measurement of more recorded).
  static constexpr int slots = 2;
  // Starts handed to the sink per call (bounds host memory for floods).
  static constexpr std::size_t sink_batch = std::size_t{1} << 20;
};

/// Test hook: WARPMATCH_CUDA_CHUNK_BYTES forces the owned bytes per chunk (tests use tiny
/// values to put matches across chunk boundaries); 0 when unset or not a number.
inline std::uint64_t exact_chunk_override() { return bytes_from_env("WARPMATCH_CUDA_CHUNK_BYTES"); }

}  // namespace warpmatch::cuda
