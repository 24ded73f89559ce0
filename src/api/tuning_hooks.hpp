// Tuning and test hooks: the kernel knobs the public options leave to the tuning policies
// (src/cuda/<op>/tuning.hpp, src/cpu/tuning.hpp), settable here by the benchmarks that
// re-measure a paper's table, the tests that force chunk and segment seams, and the command
// line's options that reproduce a paper (the wavefront's D, the tile side, M-BNDM's grid).
// Internal (src/, not installed): callers of the library get the policies' choices. A knob of
// 0 leaves the policy's choice; each entry point is the public one plus its knobs.
#pragma once

#include <cstdint>
#include <vector>

#include "warpmatch/approx.hpp"
#include "warpmatch/distance.hpp"
#include "warpmatch/multi.hpp"

namespace warpmatch::tuning_hooks {

/// Approximate search.
struct ApproxKnobs {
  int wavefront_blocks = 0;        // cuda "wavefront": the paper's D (pieces of the text); 0 = automatic
  std::uint64_t chunk_ends = 0;    // end positions per chunk of work (CPU task, GPU warp); 0 = automatic
  std::uint64_t segment_ends = 0;  // end positions per segment of a scan (see ApproxSink); 0 = 2^23
};
/// ApproxMatcher::compile with knobs (InvalidArgument for wavefront_blocks < 0).
ApproxMatcher compile_approx(const std::vector<std::vector<std::uint8_t>>& patterns, const ApproxOptions& options,
                             const ApproxKnobs& knobs);
ApproxMatcher compile_approx(ByteSpan pattern, const ApproxOptions& options, const ApproxKnobs& knobs);

/// Multi-pattern search: the thread configuration of the paper's GPU kernel (cuda "mbndm"),
/// so that the paper's Table 2 can be re-measured. 0 = the paper's best values (1 KiB pages,
/// 512 threads per block, keywords per thread 1, grid sized for 64 blocks per SM).
struct MbndmGpuConfig {
  int page_bytes = 0;           // owned text bytes per page (the page also holds the overlap)
  int threads_per_block = 0;    // each thread matches one pattern subset against the page
  int blocks = 0;               // total blocks of the grid (groups x subset blocks)
  int keywords_per_thread = 0;  // patterns packed into one thread's 64-bit M-BNDM word
};
/// MultiMatcher::compile with the M-BNDM configuration (InvalidArgument for a value < 0).
MultiMatcher compile_multi(const std::vector<std::string>& patterns, const MultiOptions& options,
                           const MbndmGpuConfig& mbndm);

/// Edit distance: the "tiles" kernel's tile side B (the paper's block size); 0 = chosen by
/// the tuned execution-time model.
struct DistanceKnobs {
  int tile_size = 0;
};
/// InvalidArgument unless tile_size is 0 or a multiple of 32 in [32, 1024].
void check_tile_size(int tile_size);
/// edit_distance with knobs (check_tile_size first).
DistanceResult edit_distance(ByteSpan a, ByteSpan b, const DistanceOptions& options, const DistanceKnobs& knobs,
                             ScanStats* stats = nullptr);

}  // namespace warpmatch::tuning_hooks
