// CUDA backend of multi-pattern exact search: a plain C++ header (no CUDA types). Built from
// src/cuda/multi/dispatch.cu with nvcc, from src/cuda/runtime/cuda_unavailable.cpp otherwise (every
// entry then throws BackendUnavailable).
#pragma once

#include <memory>
#include <vector>

#include "core/multi_patterns.hpp"

namespace warpmatch::cuda {

enum class MultiAlgorithm {
  fast,   // prefix q-gram bitmap filter (4-byte bitmap in shared memory) + device hash table
  mbndm,  // seed paper 002: subsets per block, pages with overlap in shared memory, __ldg B
};

/// The fast algorithm's kernels. The scan kernels (32 starts per thread from registers, one
/// 4-byte bitmap test each — plus a direct 2-byte gate when the set has patterns shorter
/// than 4; scan_key8 an 8-byte one instead, scan_long_key one of up to 16 bytes — survivors
/// verified after the scan) and the tile
/// kernel (shared-memory tiles, every bitmap survivor verified inline) take any set.
enum class FastKernel {
  automatic,        // scan_long_key where the set has the long-key scan bitmap, else
                    // scan_key8 where it has the 8-byte one, scan_pair for sparse sets of
                    // length >= 4, else scan_warp_queue
  tile,             // the first fast kernel
  scan_block_queue, // survivors queued in shared memory, verified by the whole block
  scan_warp_queue,  // survivors queued in shared memory per warp, verified by the warp
  scan_per_thread,  // each thread verifies its own survivors after its 32 starts
  scan_lane_filter, // scan_warp_queue, bitmap probed only after a bank-conflict-free per-lane
                    // summary probe passed (shared bitmap, length >= 4; else scan_warp_queue);
                    // slower on the H200, kept for comparison
  scan_pair,        // one probe of the pair filter (core/multi_pair_filter.hpp) per two
                    // starts, survivors verified by full warps from a per-warp queue
  scan_key8,        // scan_warp_queue keyed by each start's 8 bytes (the 8-byte scan bitmap of
                    // core::PrefixIndex, built for small alphabets such as DNA; a set without
                    // it runs scan_warp_queue)
  scan_long_key,    // scan_warp_queue keyed by each start's first L <= 16 bytes (the long-key
                    // scan bitmap of core::PrefixIndex, built for large sets whose 4- and
                    // 8-byte keys pass most starts; a set without it runs as scan_key8 would)
};

/// Launch settings: the paper's thread configuration for mbndm, and the streaming chunk.
struct MultiLaunch {
  std::uint64_t chunk_bytes = 0;  // owned text bytes per streamed chunk; 0 = 64 MiB
  int page_bytes = 1024;
  int threads_per_block = 512;
  int blocks = 0;  // 0: 64 blocks per SM as in the paper's Table 2
  int keywords_per_thread = 1;
  FastKernel fast_kernel = FastKernel::automatic;
  // scan_pair only (0 = automatic): its table is 2^pair_bits entries in shared memory, of
  // 64 bits (12..14) or with pair_narrow of 32 bits (12..15), and the grid is this many
  // blocks of 256 threads per SM (1..8).
  int pair_bits = 0;
  int pair_blocks_per_sm = 0;
  bool pair_narrow = false;
};

/// The compiled tables uploaded to one device once (immutable; shared by all scans).
class MultiDeviceTables;

std::shared_ptr<const MultiDeviceTables> multi_upload(const core::PatternSet& set,
                                                      const core::PrefixIndex* index,
                                                      MultiAlgorithm algorithm,
                                                      const MultiLaunch& launch, int device);
/// Device memory held by the uploaded tables.
std::uint64_t multi_device_bytes(const MultiDeviceTables& tables);

/// Same contract as cpu::multi_scan, for text in host memory of any size: streamed to the
/// device in chunks overlapping by (longest pattern - 1). Throws DeviceError naming the
/// device and the call.
std::uint64_t multi_scan(const MultiDeviceTables& tables, ByteSpan text, bool count_only,
                         const core::MatchBatchSink& sink);

/// Occurrences per pattern index of the uploaded set, counted on the device (no hit leaves
/// it): what cpu::multi_count_per_pattern gives, for `find -c` with several patterns.
std::vector<std::uint64_t> multi_count_per_pattern(const MultiDeviceTables& tables, ByteSpan text);

}  // namespace warpmatch::cuda
