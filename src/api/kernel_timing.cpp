// The benchmarks' timing hook (api/kernel_timing.hpp): public-shaped arguments turned into
// the backends' compiled forms, then the CUDA timing entry points (src/cuda/<op>/timing.hpp)
// or the backend call the benchmarks time. The timing entry points exist only in a CUDA build
// (no stand-ins in cuda_unavailable.cpp): without one, this file throws BackendUnavailable.
#include "api/kernel_timing.hpp"

#include <algorithm>

#include "core/multi_patterns.hpp"
#include "cpu/approx_cpu.hpp"
#include "cuda/approx/timing.hpp"
#include "cuda/distance/distance_cuda.hpp"
#include "cuda/exact/timing.hpp"
#include "cuda/lcs/lcs_cuda.hpp"
#include "cuda/multi/timing.hpp"
#include "cuda/runtime/devices.hpp"
#include "cuda/runtime/host_transfer.hpp"

namespace warpmatch::kernel_timing {

namespace {

core::ApproxPattern approx_pattern(ByteSpan pattern) {
  core::ApproxPattern p;
  p.bytes.assign(pattern.begin(), pattern.end());
  return p;
}

core::ApproxQuery approx_query(std::uint32_t k, bool best_mode) {
  core::ApproxQuery q;
  q.mode = best_mode ? core::ApproxMode::best : core::ApproxMode::all_within_k;
  q.k = k;
  return q;
}

}  // namespace

PinnedBytes::PinnedBytes(std::size_t bytes) : data_(cuda::pinned_alloc(bytes)), size_(bytes) {}
PinnedBytes::~PinnedBytes() { cuda::pinned_free(data_); }

double concurrent_host_to_device_ms(const std::vector<int>& devices, std::uint64_t bytes, int repeats) {
  return cuda::concurrent_host_to_device_ms(devices, bytes, repeats);
}

struct MultiTables::Impl {
  std::shared_ptr<const cuda::MultiDeviceTables> tables;
};

MultiTables::MultiTables(std::vector<std::string> patterns, const MultiVariant& variant, int device) {
  const bool mbndm = variant.kernel == MultiKernel::mbndm;
  const core::PatternSet set = core::make_pattern_set(patterns, variant.case_insensitive);
  core::PrefixIndex index;
  if (!mbndm) index = core::build_prefix_index(set, /*long_key=*/true);
  cuda::MultiLaunch launch;
  switch (variant.kernel) {
    case MultiKernel::fast_tile: launch.fast_kernel = cuda::FastKernel::tile; break;
    case MultiKernel::fast_scan_block_queue: launch.fast_kernel = cuda::FastKernel::scan_block_queue; break;
    case MultiKernel::fast_scan_warp_queue: launch.fast_kernel = cuda::FastKernel::scan_warp_queue; break;
    case MultiKernel::fast_scan_per_thread: launch.fast_kernel = cuda::FastKernel::scan_per_thread; break;
    case MultiKernel::fast_scan_lane_filter: launch.fast_kernel = cuda::FastKernel::scan_lane_filter; break;
    case MultiKernel::fast_scan_pair: launch.fast_kernel = cuda::FastKernel::scan_pair; break;
    case MultiKernel::fast_scan_key8: launch.fast_kernel = cuda::FastKernel::scan_key8; break;
    case MultiKernel::fast_scan_long_key: launch.fast_kernel = cuda::FastKernel::scan_long_key; break;
    case MultiKernel::fast:
    case MultiKernel::mbndm: break;
  }
  launch.pair_bits = variant.pair_bits;
  launch.pair_blocks_per_sm = variant.pair_blocks_per_sm;
  launch.pair_narrow = variant.pair_narrow;
  impl_ = std::make_unique<const Impl>(Impl{cuda::multi_upload(
      set, &index, mbndm ? cuda::MultiAlgorithm::mbndm : cuda::MultiAlgorithm::fast, launch, device)});
}
MultiTables::~MultiTables() = default;
MultiTables::MultiTables(MultiTables&&) noexcept = default;
MultiTables& MultiTables::operator=(MultiTables&&) noexcept = default;

std::uint64_t MultiTables::device_bytes() const { return cuda::multi_device_bytes(*impl_->tables); }

#if WARPMATCH_HAVE_CUDA

namespace {

core::ExactPattern exact_pattern(ByteSpan pattern) {
  core::ExactPattern p;
  p.bytes.assign(pattern.begin(), pattern.end());
  return p;
}

cuda::ExactAlgorithm exact_algorithm(ExactKernel kernel) {
  switch (kernel) {
    case ExactKernel::first_last: return cuda::ExactAlgorithm::first_last;
    case ExactKernel::prefix: return cuda::ExactAlgorithm::prefix;
    case ExactKernel::bf: return cuda::ExactAlgorithm::bf;
    case ExactKernel::fast: break;
  }
  return cuda::ExactAlgorithm::fast;
}

}  // namespace

CountTiming exact_resident(ByteSpan pattern, ByteSpan text, ExactKernel kernel, int device, int repeats) {
  return cuda::time_exact_resident(exact_pattern(pattern), text, exact_algorithm(kernel), device, repeats);
}

CountTiming exact_host_fed(ByteSpan pattern, ByteSpan text, ExactKernel kernel, int device, int repeats) {
  return cuda::time_exact_host_fed(exact_pattern(pattern), text, exact_algorithm(kernel), device, repeats);
}

CountTiming MultiTables::resident(ByteSpan text, int repeats) const {
  return cuda::time_multi_resident(*impl_->tables, text, repeats);
}

CountTiming MultiTables::host_fed(ByteSpan text, int repeats) const {
  return cuda::time_multi_host_fed(*impl_->tables, text, repeats);
}

ApproxTiming approx_resident(ByteSpan pattern, ByteSpan text, std::uint32_t k, bool best_mode,
                             ApproxKernel kernel, int wavefront_blocks, int device, int repeats) {
  const cuda::ApproxAlgorithm algorithm =
      kernel == ApproxKernel::wavefront ? cuda::ApproxAlgorithm::wavefront : cuda::ApproxAlgorithm::myers;
  return cuda::time_approx(approx_pattern(pattern), approx_query(k, best_mode), text, algorithm, wavefront_blocks,
                           device, repeats);
}

namespace {

/// Each pattern with every end within k (capped at its length), as the matcher asks.
std::pair<std::vector<core::ApproxPattern>, std::vector<core::ApproxQuery>> approx_set(
    const std::vector<std::vector<std::uint8_t>>& patterns, std::uint32_t k) {
  std::pair<std::vector<core::ApproxPattern>, std::vector<core::ApproxQuery>> set;
  for (const auto& bytes : patterns) {
    set.first.push_back(approx_pattern(bytes));
    set.second.push_back(approx_query(std::min<std::uint32_t>(k, static_cast<std::uint32_t>(bytes.size())), false));
  }
  return set;
}

}  // namespace

ApproxSetTiming approx_set_resident(const std::vector<std::vector<std::uint8_t>>& patterns, ByteSpan text,
                                    std::uint32_t k, int device, int repeats) {
  const auto [compiled, queries] = approx_set(patterns, k);
  return cuda::time_approx_set(compiled, queries, text, device, repeats);
}

ApproxSetTiming approx_set_route_resident(const std::vector<std::vector<std::uint8_t>>& patterns, ByteSpan text,
                                          std::uint32_t k, int device, int repeats) {
  const auto [compiled, queries] = approx_set(patterns, k);
  return cuda::time_approx_set_route(compiled, queries, text, device, repeats);
}

#else  // no CUDA backend: no timing entry point to call, nothing to time

CountTiming exact_resident(ByteSpan, ByteSpan, ExactKernel, int, int) { cuda::throw_unavailable(); }
CountTiming exact_host_fed(ByteSpan, ByteSpan, ExactKernel, int, int) { cuda::throw_unavailable(); }
CountTiming MultiTables::resident(ByteSpan, int) const { cuda::throw_unavailable(); }
CountTiming MultiTables::host_fed(ByteSpan, int) const { cuda::throw_unavailable(); }
ApproxTiming approx_resident(ByteSpan, ByteSpan, std::uint32_t, bool, ApproxKernel, int, int, int) {
  cuda::throw_unavailable();
}
ApproxSetTiming approx_set_resident(const std::vector<std::vector<std::uint8_t>>&, ByteSpan, std::uint32_t, int, int) {
  cuda::throw_unavailable();
}
ApproxSetTiming approx_set_route_resident(const std::vector<std::vector<std::uint8_t>>&, ByteSpan, std::uint32_t, int,
                                          int) {
  cuda::throw_unavailable();
}

#endif

std::uint32_t cpu_myers_best(ByteSpan pattern, ByteSpan text, int threads) {
  const auto hits = cpu::approx_scan(approx_pattern(pattern), text,
                                     approx_query(static_cast<std::uint32_t>(pattern.size()), true),
                                     cpu::ApproxAlgorithm::myers, threads);
  return hits.empty() ? 0 : hits.front().distance;
}

std::uint64_t cpu_myers_count(ByteSpan pattern, ByteSpan text, std::uint32_t k, int threads) {
  return cpu::approx_scan(approx_pattern(pattern), text, approx_query(k, false), cpu::ApproxAlgorithm::myers, threads)
      .size();
}

DistanceRun distance_run(ByteSpan a, ByteSpan b, std::int64_t k, DistanceKernel kernel, int block_size, int device) {
  const cuda::DistanceRun run =
      cuda::edit_distance(a, b, k,
                          kernel == DistanceKernel::tiles ? cuda::DistanceAlgorithm::tiles
                                                          : cuda::DistanceAlgorithm::myers_stripes,
                          block_size, device);
  return {run.distance, run.kernel_ms, run.total_ms};
}

std::vector<std::int64_t> distance_batch(const std::vector<std::pair<ByteSpan, ByteSpan>>& pairs, int device,
                                         double& kernel_ms) {
  return cuda::edit_distance_batch(pairs, -1, device, &kernel_ms);
}

double lcs_suffix_array_device_ms(ByteSpan a, ByteSpan b, int device) {
  double ms = 0;
  LcsResult scratch;
  return cuda::lcs_suffix_array_scan(a, b, 1000, device, scratch, &ms) ? ms : -1;
}

double lcs_suffix_array_only_ms(ByteSpan text, int device) {
  double ms = 0;
  (void)cuda::lcs_suffix_array(text, device, &ms);
  return ms;
}

}  // namespace warpmatch::kernel_timing
