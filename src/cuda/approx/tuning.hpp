// Tuning of approximate search on CUDA (host side): the policy of the dispatch and the
// environment overrides it reads (this file is the only place that reads them). Values
// unchanged from src/cuda/approx/dispatch.cu, where they lived until issue 11; limits that
// follow from the kernels' layout (pattern lengths, padding) stay in dispatch.cu, block sizes
// in kernels.cuh.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

namespace warpmatch::cuda {

struct ApproxPolicy {
  // Owned end positions per device segment: indices stay 32-bit and CUB's item count an int
  // (a limit, not a measurement).
  static constexpr std::uint64_t segment_ends = std::uint64_t{1} << 30;
  // Lane kernel: Eq tables up to this size sit in shared memory, larger ones stay in global
  // memory (set with the lane pipeline in 862ccfa; no separate measurement recorded).
  static constexpr std::size_t lane_shared_table = 96 * 1024;
  // Hits copied back with the count in one copy; more cost a second copy (862ccfa).
  static constexpr std::uint32_t staged_hits = 1024;
  // Best mode's host bound (bound_best) up to this pattern length: O(m^2) host work, more
  // than it saves beyond (862ccfa: 4 Mi x 1024, 0.975 -> 0.448 ms end to end with the bound).
  static constexpr std::size_t bound_max_pattern = 2048;
  // First hit buffer (entries), grown on overflow.
  static constexpr std::uint64_t hit_capacity = std::uint64_t{1} << 24;
  // Lane kernel: a step's latency in issue slots of one warp (see lane_chunk), most lanes.
  // Measured on the H200 (bench approx, 4 Mi): 2 beat 4 and 6 by 1.15-1.5x at m = 512 and
  // 1024 (equal at 256).
  static constexpr double latency_warps = 2.0;
};

/// The policy with the environment's overrides applied (read each time a runner is made).
struct ApproxTuning {
  std::uint64_t hit_capacity = ApproxPolicy::hit_capacity;
  double latency_warps = ApproxPolicy::latency_warps;
  std::uint32_t max_lanes = 0;  // 0: logic::myers_shape's default; else 1..32 (rounded up to a power of 2 by the caller)
  std::uint64_t segment_ends = ApproxPolicy::segment_ends;
};

inline ApproxTuning approx_tuning() {
  ApproxTuning t;
  // Test hook: WARPMATCH_APPROX_HIT_CAPACITY shrinks the first hit buffer (overflow path).
  if (const char* env = std::getenv("WARPMATCH_APPROX_HIT_CAPACITY"))
    t.hit_capacity = std::clamp<std::uint64_t>(std::strtoull(env, nullptr, 10), 1, t.hit_capacity);
  // Tuning hook: WARPMATCH_APPROX_LATENCY_WARPS overrides the lane kernel's latency model.
  if (const char* env = std::getenv("WARPMATCH_APPROX_LATENCY_WARPS"))
    t.latency_warps = std::clamp(std::strtod(env, nullptr), 1.0, 32.0);
  // Tuning hook: WARPMATCH_APPROX_MAX_LANES caps the lane kernel's lanes per pattern.
  if (const char* env = std::getenv("WARPMATCH_APPROX_MAX_LANES"))
    t.max_lanes = std::clamp<std::uint32_t>(std::strtoul(env, nullptr, 10), 1, 32);
  // Test hook: WARPMATCH_APPROX_SEGMENT_ENDS forces small device segments (segment seams).
  if (const char* env = std::getenv("WARPMATCH_APPROX_SEGMENT_ENDS"))
    t.segment_ends = std::clamp<std::uint64_t>(std::strtoull(env, nullptr, 10), 1, t.segment_ends);
  return t;
}

/// The short-pattern set kernel (src/cuda/approx/short_set.cu, m <= 64): NOT yet measured on
/// a GPU (written without one); the values follow from the layout, to be tuned with
/// `bench approx`'s set row on the H100.
struct ShortSetPolicy {
  // Threads per block: 8 warps share one text tile in shared memory.
  static constexpr std::uint32_t block_threads = 256;
  // Owned columns per tile (block): the warm-up of m + k columns per sub-range stays a few
  // percent; codes of a tile take tile + overlap bytes of shared memory.
  static constexpr std::uint32_t tile_columns = 8192;
  // Shortest sub-range of a tile an item runs (when a group has few patterns).
  static constexpr std::uint32_t min_sub_columns = 64;
  // Match-table bytes of one group (one block): 32 KiB + the tile keeps a block under the
  // 48 KiB default and ~5 blocks per SM (1000 20-mers of DNA, 5 classes: one group of 20 KiB).
  static constexpr std::size_t table_bytes = 32 * 1024;
  // First hit-key buffer (entries), grown on overflow up to max_hit_capacity; beyond it a
  // launch is split (pattern groups, then columns) so that a flood never needs more.
  static constexpr std::uint64_t hit_capacity = std::uint64_t{1} << 20;
  static constexpr std::uint64_t max_hit_capacity = std::uint64_t{1} << 27;
  // Up to this many hits the keys are sorted on the host, more with CUB's radix sort.
  static constexpr std::uint64_t host_sort_hits = 4096;
};

struct ShortSetTuning {
  bool enabled = true;
  std::uint32_t tile_columns = ShortSetPolicy::tile_columns;
  std::uint32_t min_sub_columns = ShortSetPolicy::min_sub_columns;
  std::size_t table_bytes = ShortSetPolicy::table_bytes;
  std::uint64_t hit_capacity = ShortSetPolicy::hit_capacity;
  std::uint64_t max_hit_capacity = ShortSetPolicy::max_hit_capacity;
};

/// The seed filter's route (seed_filter.cu). Its cost estimate, in Myers steps per text byte:
/// the filter pays position_steps at every position plus one step per byte of every window it
/// verifies, the set kernel one step per pattern; the filter is taken when `advantage` times its
/// work is still below the set kernel's (its reads are scattered and its candidates go through
/// memory: the factor is chosen, not yet measured). Texts under min_text_bytes stay with the set kernel;
/// the first larger one decides for the matcher's later scans (dispatch.cu: the API scans a
/// long text in segments, which need not be sampled each).
struct SeedFilterPolicy {
  std::size_t min_text_bytes = std::size_t{4} << 20;
  std::size_t sample_bytes = std::size_t{256} << 10;
  double position_steps = 2;
  double advantage = 2;
  // Owned ends per chunk (< 2^31: a candidate holds its start as 32 bits from the chunk's
  // first). 16 Mi: random DNA under 1000 20-mers at k = 2 leaves ~6 M candidates a chunk,
  // which the first candidate buffer holds (one pass), and host text's next chunk is copied
  // while this one is searched, so a call of 128 Mi ends (the API's group on one GPU) leaves
  // one chunk's copy of eight unhidden.
  std::uint64_t chunk_ends = std::uint64_t{16} << 20;
  // Candidates (8 B each): the first buffer is half the chunk's piece starts, within these
  // bounds; it grows to max_candidate_capacity, then passes cover fewer starts.
  std::uint64_t min_candidate_capacity = std::uint64_t{1} << 16;
  std::uint64_t candidate_capacity = std::uint64_t{16} << 20;
  std::uint64_t max_candidate_capacity = std::uint64_t{64} << 20;
  std::uint64_t hit_capacity = std::uint64_t{1} << 20;  // the first hit buffer (16 B a hit)
  std::uint64_t max_hit_capacity = std::uint64_t{64} << 20;
};

/// The policy with its test hook: WARPMATCH_APPROX_SEED_CHUNK (owned ends per chunk; small
/// values send a test's text through many chunks and the copy pipeline between them).
inline SeedFilterPolicy seed_filter_policy() {
  SeedFilterPolicy p;
  if (const char* env = std::getenv("WARPMATCH_APPROX_SEED_CHUNK"))
    p.chunk_ends = std::clamp<std::uint64_t>(std::strtoull(env, nullptr, 10), 1, p.chunk_ends);
  return p;
}

/// WARPMATCH_APPROX_SEED_FILTER: 0 never takes the filter, 1 always where the set qualifies
/// (tests, comparisons); unset: by the estimate.
enum class SeedFilterUse { never, measured, always };
inline SeedFilterUse seed_filter_use() {
  if (const char* env = std::getenv("WARPMATCH_APPROX_SEED_FILTER"))
    return std::strtol(env, nullptr, 10) != 0 ? SeedFilterUse::always : SeedFilterUse::never;
  return SeedFilterUse::measured;
}

inline ShortSetTuning short_set_tuning() {
  ShortSetTuning t;
  // WARPMATCH_APPROX_SHORT_SET=0 sends short patterns to the one-pattern-per-launch kernels
  // (comparisons, and a way out should the set kernel misbehave).
  if (const char* env = std::getenv("WARPMATCH_APPROX_SHORT_SET")) t.enabled = std::strtol(env, nullptr, 10) != 0;
  // Tuning hooks: WARPMATCH_APPROX_SET_TILE (owned columns per block), WARPMATCH_APPROX_SET_TABLE
  // (table bytes per group; small values force many groups in tests).
  if (const char* env = std::getenv("WARPMATCH_APPROX_SET_TILE"))
    t.tile_columns = std::clamp<std::uint32_t>(std::strtoul(env, nullptr, 10), 4, 1u << 16);
  if (const char* env = std::getenv("WARPMATCH_APPROX_SET_TABLE"))
    t.table_bytes = std::clamp<std::size_t>(std::strtoull(env, nullptr, 10), 4, 96 * 1024);
  // Test hooks: WARPMATCH_APPROX_HIT_CAPACITY (the first buffer, as for the other kernels) and
  // WARPMATCH_APPROX_SET_MAX_HITS (the most a launch may hold: forces the split path).
  if (const char* env = std::getenv("WARPMATCH_APPROX_HIT_CAPACITY"))
    t.hit_capacity = std::clamp<std::uint64_t>(std::strtoull(env, nullptr, 10), 1, t.hit_capacity);
  if (const char* env = std::getenv("WARPMATCH_APPROX_SET_MAX_HITS"))
    t.max_hit_capacity = std::clamp<std::uint64_t>(std::strtoull(env, nullptr, 10), 16, t.max_hit_capacity);
  t.hit_capacity = std::min(t.hit_capacity, t.max_hit_capacity);
  return t;
}

}  // namespace warpmatch::cuda
