// Tuning of multi-pattern search on CUDA (host side): the dispatch's defaults. Values
// unchanged from src/cuda/multi/dispatch.cu, where they lived until issue 11; each says what
// chose it. The caller's MultiLaunch (chunk_bytes, pair_bits, ...) overrides some of them;
// kernel tile shapes stay in kernels.cuh (the host emulation test compiles them).
#pragma once

#include <cstdint>
#include <cstdlib>

#include "cuda/runtime/tuning.hpp"

namespace warpmatch::cuda {

struct MultiPolicy {
  // 64 MiB chunks: 16 per GiB, so the first copy (not overlapped) costs little of PCIe speed.
  static constexpr std::uint64_t chunk_bytes = 64ull << 20;
  // Counting from pageable text (through the upload ring): each chunk's upload starts with one
  // piece copied before any DMA, ~0.5 ms; at 64 MiB that held 1000 English words over 2 GiB
  // to 34-36 GB/s of scanning on the H200 where the kernel ran 500 GB/s (ncu: 134 us a chunk).
  static constexpr std::uint64_t staged_count_chunk = 256ull << 20;
  // First hit buffer (entries), grown on overflow.
  static constexpr std::uint64_t initial_hit_capacity = 1ull << 20;
  // The fast kernel's grid: enough resident blocks to hide latency, grid-stride beyond.
  static constexpr int fast_blocks_per_sm = 8;
  // The paper's Table 2 best: 64 blocks per SM (its GTX 260 grid), 512 threads, 1 KiB pages.
  static constexpr int mbndm_blocks_per_sm = 64;
  // Shared memory of an M-BNDM block without opting in (the CUDA default limit).
  static constexpr int mbndm_max_shared_bytes = 48 * 1024;
  // The pair scan's defaults: a 32 KiB table of wide entries, 5 blocks per SM (its queues
  // need ~45 registers).
  static constexpr int pair_bits = 12;
  static constexpr int pair_blocks_per_sm = 5;
  // The automatic choice takes the pair scan up to this density of its table's bits (1000
  // patterns set ~0.8 %, 2000 ~1.5 %: both faster than the warp-queue scan on the H200).
  static constexpr std::uint64_t pair_max_density_percent = 3;
};

/// Tuning hook: WARPMATCH_MULTI_CHUNK_BYTES sets the chunk of a scan whose caller set none
/// (still no more than device memory allows); 0 when unset or not a number.
inline std::uint64_t multi_chunk_override() { return bytes_from_env("WARPMATCH_MULTI_CHUNK_BYTES"); }

}  // namespace warpmatch::cuda
