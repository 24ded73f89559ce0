// The benchmarks' one hook below the public API (bench/, the `warpmatch-bench` program): the
// device-side times the public matchers do not report — a kernel alone with the text resident
// on the device, timed with CUDA events — and the kernel variants the public options do not
// name (every exact algorithm, every multi-pattern fast kernel, the wavefront's D). Medians over
// `repeats` after one warm-up (core::median, as every benchmark). Not installed; the library's
// own operations never call it; the CUDA tests check the timing entry points through it. Every
// GPU entry throws BackendUnavailable in a build without CUDA and DeviceError when the device
// fails.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/timing.hpp"
#include "warpmatch/common.hpp"

namespace warpmatch::kernel_timing {

using core::CountTiming;
using core::ApproxTiming;
using core::ApproxSetTiming;

// ---- several GPUs (warpmatch-bench scaling) ----------------------------------------------------
/// Page-locked host memory (cudaHostAlloc), so host-fed rows copy at the bus's speed on every GPU.
class PinnedBytes {
 public:
  explicit PinnedBytes(std::size_t bytes);
  ~PinnedBytes();
  PinnedBytes(const PinnedBytes&) = delete;
  PinnedBytes& operator=(const PinnedBytes&) = delete;
  std::uint8_t* data() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
};
/// `bytes` from pinned host memory to every listed device at once (one stream each): the
/// median wall milliseconds of `repeats` rounds after a warm-up. The aggregate bandwidth is
/// devices x bytes / that time.
double concurrent_host_to_device_ms(const std::vector<int>& devices, std::uint64_t bytes, int repeats);

// ---- exact search (one pattern) -----------------------------------------------------------
enum class ExactKernel { fast, first_last, prefix, bf };
/// Text copied to the device once; only the counting kernel(s) timed.
CountTiming exact_resident(ByteSpan pattern, ByteSpan text, ExactKernel kernel, int device, int repeats);
/// Text in pinned host memory streamed through the scan pipeline, transfers included.
CountTiming exact_host_fed(ByteSpan pattern, ByteSpan text, ExactKernel kernel, int device, int repeats);

// ---- multi-pattern exact search -------------------------------------------------------------
enum class MultiKernel {
  fast,                   // the fast algorithm, kernel chosen automatically (the library's default)
  fast_tile,
  fast_scan_block_queue,
  fast_scan_warp_queue,
  fast_scan_per_thread,
  fast_scan_lane_filter,
  fast_scan_pair,
  fast_scan_key8,         // the 8-byte scan bitmap where the set has one (DNA), else warp queue
  fast_scan_long_key,     // the long-key scan bitmap where the set has one (10^5 DNA 20-mers), else as key8
  mbndm,                  // seed paper 002
};
struct MultiVariant {
  MultiKernel kernel = MultiKernel::fast;
  // fast_scan_pair only (0 = automatic): 2^pair_bits table entries, narrow (32-bit) entries,
  // blocks of 256 threads per SM.
  int pair_bits = 0;
  int pair_blocks_per_sm = 0;
  bool pair_narrow = false;
  bool case_insensitive = false;  // ASCII letters
};
/// The pattern set's tables uploaded to one device for one variant (immutable).
class MultiTables {
 public:
  MultiTables(std::vector<std::string> patterns, const MultiVariant& variant, int device);
  ~MultiTables();
  MultiTables(MultiTables&&) noexcept;
  MultiTables& operator=(MultiTables&&) noexcept;
  std::uint64_t device_bytes() const;  // device memory held by the tables
  /// Text copied to the device once (must fit), only the counting kernel(s) timed.
  CountTiming resident(ByteSpan text, int repeats) const;
  /// Text in pinned host memory streamed through the scan pipeline, transfers included.
  CountTiming host_fed(ByteSpan text, int repeats) const;

  struct Impl;

 private:
  std::unique_ptr<const Impl> impl_;
};

// ---- approximate search -----------------------------------------------------------------------
enum class ApproxKernel { myers, wavefront };
/// One pattern, text resident on the device (one segment): best mode (the minimum distance's
/// ends) or every end within k. wavefront_blocks: the paper's D (0 = automatic).
ApproxTiming approx_resident(ByteSpan pattern, ByteSpan text, std::uint32_t k, bool best_mode,
                             ApproxKernel kernel, int wavefront_blocks, int device, int repeats);
/// The short-pattern set kernel (every pattern 1..64 bytes), every end within k (capped at
/// each pattern's length), text resident on the device (one segment).
ApproxSetTiming approx_set_resident(const std::vector<std::vector<std::uint8_t>>& patterns, ByteSpan text,
                                    std::uint32_t k, int device, int repeats);
/// The same set by the route an ApproxMatcher of it (cuda backend, automatic algorithm) takes
/// on this text: the pigeonhole seed filter where it applies and its estimate (or
/// WARPMATCH_APPROX_SEED_FILTER) takes it, else the set kernel; route names it. Text resident
/// on the device (copied once, not timed); search_ms: the route's kernels and the device-side
/// compaction it needs, hits left on the device.
ApproxSetTiming approx_set_route_resident(const std::vector<std::vector<std::uint8_t>>& patterns, ByteSpan text,
                                          std::uint32_t k, int device, int repeats);
/// The CPU backend's single-pattern Myers scan (blocked over 64-bit words) on `threads`
/// threads, best mode: the minimum distance (pattern length when the text is shorter). What
/// `bench approx` compares with edlib; the public matcher runs patterns <= 64 bytes through
/// the set pass instead.
std::uint32_t cpu_myers_best(ByteSpan pattern, ByteSpan text, int threads);
/// The same scan, every end within k: the number of ends.
std::uint64_t cpu_myers_count(ByteSpan pattern, ByteSpan text, std::uint32_t k, int threads);

// ---- edit distance ------------------------------------------------------------------------------
enum class DistanceKernel { myers_stripes, tiles };
struct DistanceRun {
  std::int64_t distance = -1;  // -1 beyond k
  double kernel_ms = 0;        // CUDA events around the kernels
  double total_ms = 0;         // transfers and allocation included
};
/// One global edit distance on the device; k < 0: no bound; block_size: the tile side of
/// `tiles` (0 for myers_stripes).
DistanceRun distance_run(ByteSpan a, ByteSpan b, std::int64_t k, DistanceKernel kernel, int block_size, int device);
/// Many pairs, one warp per pair: the distances; kernel_ms receives the kernels' time.
std::vector<std::int64_t> distance_batch(const std::vector<std::pair<ByteSpan, ByteSpan>>& pairs, int device,
                                         double& kernel_ms);

// ---- longest common substring -------------------------------------------------------------------
/// Device time of the whole suffix-array path after the upload; < 0 when the input is too
/// repetitive for the device LCP (the library then finishes on the host).
double lcs_suffix_array_device_ms(ByteSpan a, ByteSpan b, int device);
/// Device time of the suffix-array construction of `text` alone.
double lcs_suffix_array_only_ms(ByteSpan text, int device);

}  // namespace warpmatch::kernel_timing
