// Longest common substring on CUDA, host side.
//  - lcs_diagonal: seed paper 004's method. The longest run per diagonal, CUB max-reduce for
//    L, then the diagonals holding L count (CUB exclusive scan -> exact slots) and write their
//    occurrence pairs as a * n + b keys, CUB radix-sorted so the first max_matches in (a, b)
//    order are copied back; flagged A starts give the distinct count on the host.
//  - lcs_suffix_array: prefix doubling. First ranks pack three bytes; each round sorts
//    (rank[i], rank[i + h]) keys of all suffixes with CUB radix sort (only the bits the ranks
//    use), marks group heads, and a CUB inclusive scan gives the new ranks; rounds stop when
//    all N ranks are distinct (h = 3, 6, 12, ...: about log2(longest repeat / 3) + 1 rounds).
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include <algorithm>
#include <bit>
#include <limits>
#include <string>
#include <vector>

#include "core/lcs_suffix.hpp"
#include "cuda/device_runtime.cuh"
#include "cuda/lcs_cuda.hpp"
#include "cuda/lcs_kernels.cuh"

namespace warpmatch::cuda {

namespace {

using detail::check_launch;
using detail::DeviceBuffer;
using detail::DeviceGuard;
using detail::Event;
using detail::Stream;
namespace kn = kernels;

constexpr int kThreadsPerBlock = 256;

unsigned blocks_for(std::int64_t items) {
  return static_cast<unsigned>((items + kThreadsPerBlock - 1) / kThreadsPerBlock);
}

int bits_for(std::uint64_t max_value) { return std::max(1, static_cast<int>(std::bit_width(max_value))); }

}  // namespace

std::uint64_t lcs_suffix_array_device_bytes(std::uint64_t text_bytes) {
  // text 1 + keys 2 x 8 + suffixes 2 x 4 + rank 4 + heads 4 + new ranks 4 = 37 B per byte, plus
  // CUB's temporary storage (small in double-buffer mode) and slack.
  return text_bytes * 37 + text_bytes / 8 + (64ull << 20);
}

std::uint64_t lcs_device_free_bytes(int device) {
  detail::require_device(device);
  DeviceGuard guard(device);
  std::size_t free_bytes = 0, total = 0;
  WARPMATCH_CUDA_CHECK(device, cudaMemGetInfo(&free_bytes, &total));
  return free_bytes;
}

namespace {

void require_32bit_text(std::uint64_t bytes) {
  if (bytes >= std::numeric_limits<std::uint32_t>::max() - 1)
    throw InvalidArgument("GPU suffix array: text of " + std::to_string(bytes) +
                          " bytes exceeds the 32-bit index limit (4 GiB - 2)");
}

std::size_t region_bytes(std::size_t count, std::size_t element) {
  const std::size_t bytes = std::max<std::size_t>(1, count) * element;
  return (bytes + 255) / 256 * 256;
}

/// One device allocation per call, carved into 256-byte aligned regions: a cudaMalloc and
/// cudaFree per buffer would cost more than the whole computation on the paper's inputs.
/// mark()/reset() let a later stage reuse an earlier stage's scratch.
class Arena {
 public:
  Arena(int device, std::size_t bytes) : buffer_(device, bytes) {}
  template <class T>
  T* take(std::size_t count) {
    const std::size_t bytes = region_bytes(count, sizeof(T));
    if (used_ + bytes > buffer_.size())
      throw Error("internal error: LCS device arena of " + std::to_string(buffer_.size()) +
                  " bytes is too small");
    T* p = reinterpret_cast<T*>(buffer_.get() + used_);
    used_ += bytes;
    return p;
  }
  std::size_t mark() const { return used_; }
  void reset(std::size_t mark) { used_ = mark; }

 private:
  DeviceBuffer<std::uint8_t> buffer_;
  std::size_t used_ = 0;
};

/// CUB temporary storage of the prefix-doubling rounds (radix sort and scan share it).
std::size_t doubling_temp_bytes(std::int64_t n, int device, cudaStream_t s) {
  cub::DoubleBuffer<std::uint64_t> keys(nullptr, nullptr);
  cub::DoubleBuffer<std::uint32_t> values(nullptr, nullptr);
  std::size_t sort_bytes = 0, scan_bytes = 0;
  WARPMATCH_CUDA_CHECK(device, cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, keys, values, n, 0, 64, s));
  WARPMATCH_CUDA_CHECK(device, cub::DeviceScan::InclusiveSum(nullptr, scan_bytes, static_cast<std::uint32_t*>(nullptr),
                                                              static_cast<std::uint32_t*>(nullptr), n, s));
  return std::max(sort_bytes, scan_bytes);
}

/// Scratch of the doubling rounds beyond the text and the two suffix buffers.
std::size_t doubling_scratch_bytes(std::int64_t n, std::size_t temp_bytes) {
  const auto count = static_cast<std::size_t>(n);
  return 2 * region_bytes(count, 8) + 3 * region_bytes(count, 4) + region_bytes(temp_bytes, 1);
}

/// Prefix doubling on the device text. `suffixes_a/b` (n entries each) alternate as the radix
/// sort's value buffers; returns the one holding the suffix array. Scratch comes from the
/// arena and is handed back on return.
std::uint32_t* build_suffix_array(Arena& arena, const std::uint8_t* d_text, std::int64_t n,
                                  std::uint32_t* suffixes_a, std::uint32_t* suffixes_b,
                                  std::size_t temp_bytes, int device, const Stream& stream) {
  const cudaStream_t s = stream.get();
  const auto count = static_cast<std::size_t>(n);
  const std::size_t scratch_mark = arena.mark();
  cub::DoubleBuffer<std::uint64_t> keys(arena.take<std::uint64_t>(count), arena.take<std::uint64_t>(count));
  cub::DoubleBuffer<std::uint32_t> suffixes(suffixes_a, suffixes_b);
  std::uint32_t* rank = arena.take<std::uint32_t>(count);
  std::uint32_t* heads = arena.take<std::uint32_t>(count);
  std::uint32_t* new_rank = arena.take<std::uint32_t>(count);
  std::uint8_t* temp = arena.take<std::uint8_t>(temp_bytes);

  kn::doubling_initial_ranks<<<blocks_for(n), kThreadsPerBlock, 0, s>>>(d_text, n, rank);
  check_launch("doubling_initial_ranks", device);
  std::uint64_t groups = kn::kInitialRankLimit;  // bound on the ranks so far
  for (std::int64_t h = kn::kInitialBytes;; h *= 2) {
    const int rank_bits = bits_for(groups);
    kn::doubling_keys<<<blocks_for(n), kThreadsPerBlock, 0, s>>>(rank, n, h, rank_bits, keys.Current(),
                                                                 suffixes.Current());
    check_launch("doubling_keys", device);
    std::size_t bytes = temp_bytes;
    WARPMATCH_CUDA_CHECK(device, cub::DeviceRadixSort::SortPairs(temp, bytes, keys, suffixes, n, 0,
                                                                 2 * rank_bits, s));
    kn::doubling_group_heads<<<blocks_for(n), kThreadsPerBlock, 0, s>>>(keys.Current(), n, heads);
    check_launch("doubling_group_heads", device);
    bytes = temp_bytes;
    WARPMATCH_CUDA_CHECK(device, cub::DeviceScan::InclusiveSum(temp, bytes, heads, new_rank, n, s));
    kn::doubling_scatter_ranks<<<blocks_for(n), kThreadsPerBlock, 0, s>>>(suffixes.Current(), new_rank, n, rank);
    check_launch("doubling_scatter_ranks", device);
    std::uint32_t distinct = 0;
    WARPMATCH_CUDA_CHECK(device, cudaMemcpyAsync(&distinct, new_rank + (n - 1), sizeof distinct,
                                                 cudaMemcpyDeviceToHost, s));
    stream.synchronize();
    groups = distinct;
    if (static_cast<std::int64_t>(distinct) == n || h >= n) break;
  }
  arena.reset(scratch_mark);
  return suffixes.Current();
}

// PLCP work per thread before the device gives up on a repetitive input (the host then
// computes the LCP): 64 consecutive positions per thread, 256 comparisons per position.
constexpr std::int64_t kPlcpChunk = 64;
constexpr std::int64_t kPlcpBudget = 256 * kPlcpChunk;
// SA positions per thread in the nearest-B scans.
constexpr std::int64_t kScanBlock = 1024;

}  // namespace

std::vector<std::int64_t> lcs_suffix_array(ByteSpan text, int device, double* device_ms) {
  detail::require_device(device);
  require_32bit_text(text.size());
  const auto n = static_cast<std::int64_t>(text.size());
  std::vector<std::int64_t> sa(text.size());
  if (n == 0) return sa;
  DeviceGuard guard(device);
  Stream stream(device);
  const auto count = static_cast<std::size_t>(n);
  const std::size_t temp_bytes = doubling_temp_bytes(n, device, stream.get());
  Arena arena(device, region_bytes(count, 1) + 2 * region_bytes(count, 4) + doubling_scratch_bytes(n, temp_bytes));
  std::uint8_t* d_text = arena.take<std::uint8_t>(count);
  std::uint32_t* suffixes_a = arena.take<std::uint32_t>(count);
  std::uint32_t* suffixes_b = arena.take<std::uint32_t>(count);
  Event start(device, true), stop(device, true);
  WARPMATCH_CUDA_CHECK(device, cudaMemcpyAsync(d_text, text.data(), text.size(), cudaMemcpyHostToDevice,
                                               stream.get()));
  start.record(stream.get());
  const std::uint32_t* d_sa =
      build_suffix_array(arena, d_text, n, suffixes_a, suffixes_b, temp_bytes, device, stream);
  stop.record(stream.get());
  std::vector<std::uint32_t> sa32(text.size());
  WARPMATCH_CUDA_CHECK(device, cudaMemcpyAsync(sa32.data(), d_sa, text.size() * sizeof(std::uint32_t),
                                               cudaMemcpyDeviceToHost, stream.get()));
  stream.synchronize();
  if (device_ms) *device_ms = stop.ms_since(start);
  std::copy(sa32.begin(), sa32.end(), sa.begin());
  return sa;
}

bool lcs_suffix_array_scan(ByteSpan a, ByteSpan b, std::uint64_t max_matches, int device, LcsResult& out,
                           double* device_ms) {
  detail::require_device(device);
  require_32bit_text(a.size() + b.size());
  out.length = out.count = out.total_pairs = 0;
  out.pairs.clear();
  const auto m = static_cast<std::int64_t>(a.size());
  const auto n = static_cast<std::int64_t>(a.size() + b.size());
  if (a.empty() || b.empty()) return true;
  DeviceGuard guard(device);
  Stream stream(device);
  const cudaStream_t s = stream.get();
  const auto count = static_cast<std::size_t>(n);
  const std::int64_t scan_blocks = (n + kScanBlock - 1) / kScanBlock;
  // Sizes first, so one allocation serves both stages: the doubling scratch is reused by
  // the LCP, scan and selection buffers (which need less).
  const std::size_t temp_bytes = doubling_temp_bytes(n, device, s);
  std::size_t select_bytes = 0;
  WARPMATCH_CUDA_CHECK(device, cub::DeviceSelect::Flagged(nullptr, select_bytes, static_cast<const std::uint32_t*>(nullptr),
                                                          static_cast<std::uint8_t*>(nullptr),
                                                          static_cast<std::uint32_t*>(nullptr),
                                                          static_cast<std::int64_t*>(nullptr), n, s));
  const std::size_t scan_stage = 4 * region_bytes(count, 4) + region_bytes(count, 1) +
                                 2 * region_bytes(scan_blocks, sizeof(kn::NearestB)) + 3 * region_bytes(2, 8) +
                                 region_bytes(select_bytes, 1);
  Arena arena(device, region_bytes(count, 1) + 2 * region_bytes(count, 4) +
                          std::max(doubling_scratch_bytes(n, temp_bytes), scan_stage));
  std::uint8_t* d_text = arena.take<std::uint8_t>(count);
  std::uint32_t* suffixes_a = arena.take<std::uint32_t>(count);
  std::uint32_t* suffixes_b = arena.take<std::uint32_t>(count);
  Event start(device, true), stop(device, true);
  WARPMATCH_CUDA_CHECK(device, cudaMemcpyAsync(d_text, a.data(), a.size(), cudaMemcpyHostToDevice, s));
  WARPMATCH_CUDA_CHECK(device, cudaMemcpyAsync(d_text + a.size(), b.data(), b.size(), cudaMemcpyHostToDevice, s));
  start.record(s);
  const std::uint32_t* sa =
      build_suffix_array(arena, d_text, n, suffixes_a, suffixes_b, temp_bytes, device, stream);

  // LCP by Φ on the device, unless the input is too repetitive for the per-thread budget.
  std::uint32_t* plcp = arena.take<std::uint32_t>(count);
  std::uint32_t* lcp = arena.take<std::uint32_t>(count);
  int* exhausted = arena.take<int>(1);
  WARPMATCH_CUDA_CHECK(device, cudaMemsetAsync(exhausted, 0, sizeof(int), s));
  kn::lcp_phi<<<blocks_for(n), kThreadsPerBlock, 0, s>>>(sa, n, plcp);
  check_launch("lcp_phi", device);
  const std::int64_t plcp_threads = (n + kPlcpChunk - 1) / kPlcpChunk;
  kn::lcp_plcp_chunks<<<blocks_for(plcp_threads), kThreadsPerBlock, 0, s>>>(d_text, n, kPlcpChunk, kPlcpBudget,
                                                                            plcp, exhausted);
  check_launch("lcp_plcp_chunks", device);
  int gave_up = 0;
  WARPMATCH_CUDA_CHECK(device, cudaMemcpyAsync(&gave_up, exhausted, sizeof gave_up, cudaMemcpyDeviceToHost, s));
  stream.synchronize();
  if (gave_up) return false;
  kn::lcp_gather<<<blocks_for(n), kThreadsPerBlock, 0, s>>>(sa, plcp, n, lcp);
  check_launch("lcp_gather", device);

  // The length: nearest B-suffix scans in blocks, chained on the host.
  kn::NearestB* forward = arena.take<kn::NearestB>(scan_blocks);
  kn::NearestB* backward = arena.take<kn::NearestB>(scan_blocks);
  unsigned long long* d_best = arena.take<unsigned long long>(1);
  WARPMATCH_CUDA_CHECK(device, cudaMemsetAsync(d_best, 0, sizeof(unsigned long long), s));
  kn::nearest_b_summaries<<<blocks_for(scan_blocks), kThreadsPerBlock, 0, s>>>(
      sa, lcp, n, static_cast<std::uint32_t>(m), kScanBlock, forward, backward);
  check_launch("nearest_b_summaries", device);
  std::vector<kn::NearestB> fwd(scan_blocks), bwd(scan_blocks);
  WARPMATCH_CUDA_CHECK(device, cudaMemcpyAsync(fwd.data(), forward, scan_blocks * sizeof(kn::NearestB),
                                               cudaMemcpyDeviceToHost, s));
  WARPMATCH_CUDA_CHECK(device, cudaMemcpyAsync(bwd.data(), backward, scan_blocks * sizeof(kn::NearestB),
                                               cudaMemcpyDeviceToHost, s));
  stream.synchronize();
  // Incoming state of each block (lcs_thread::chain).
  std::vector<kn::NearestB> fwd_in(scan_blocks, kn::NearestB{0, kn::kInfiniteLcp});
  std::vector<kn::NearestB> bwd_in(scan_blocks, kn::NearestB{0, kn::kInfiniteLcp});
  for (std::int64_t k = 1; k < scan_blocks; ++k) fwd_in[k] = lcs_thread::chain(fwd_in[k - 1], fwd[k - 1]);
  for (std::int64_t k = scan_blocks - 2; k >= 0; --k) bwd_in[k] = lcs_thread::chain(bwd_in[k + 1], bwd[k + 1]);
  WARPMATCH_CUDA_CHECK(device, cudaMemcpyAsync(forward, fwd_in.data(), scan_blocks * sizeof(kn::NearestB),
                                               cudaMemcpyHostToDevice, s));
  WARPMATCH_CUDA_CHECK(device, cudaMemcpyAsync(backward, bwd_in.data(), scan_blocks * sizeof(kn::NearestB),
                                               cudaMemcpyHostToDevice, s));
  // plcp is free again: it serves as the scratch of left-side values.
  kn::nearest_b_best<<<blocks_for(scan_blocks), kThreadsPerBlock, 0, s>>>(
      sa, lcp, n, static_cast<std::uint32_t>(m), kScanBlock, forward, backward,
      plcp, d_best);
  check_launch("nearest_b_best", device);
  unsigned long long length = 0;
  WARPMATCH_CUDA_CHECK(device, cudaMemcpyAsync(&length, d_best, sizeof length, cudaMemcpyDeviceToHost, s));
  stream.synchronize();
  if (length == 0) {
    stop.record(s);
    stream.synchronize();
    if (device_ms) *device_ms = stop.ms_since(start);
    return true;
  }

  // The runs of LCP >= length, compacted (CUB select) and copied back: their SA entries
  // and LCPs are all the host needs to form the groups.
  std::uint8_t* member = arena.take<std::uint8_t>(count);
  kn::run_members<<<blocks_for(n), kThreadsPerBlock, 0, s>>>(lcp, n, static_cast<std::uint32_t>(length),
                                                             member);
  check_launch("run_members", device);
  std::uint32_t* sel_sa = arena.take<std::uint32_t>(count);
  std::uint32_t* sel_lcp = arena.take<std::uint32_t>(count);
  std::int64_t* selected = arena.take<std::int64_t>(2);
  std::uint8_t* select_temp = arena.take<std::uint8_t>(select_bytes);
  std::size_t bytes = select_bytes;
  WARPMATCH_CUDA_CHECK(device, cub::DeviceSelect::Flagged(select_temp, bytes, sa, member,
                                                          sel_sa, selected, n, s));
  bytes = select_bytes;
  WARPMATCH_CUDA_CHECK(device, cub::DeviceSelect::Flagged(select_temp, bytes, static_cast<const std::uint32_t*>(lcp), member,
                                                          sel_lcp, selected + 1, n, s));
  stop.record(s);
  std::int64_t members = 0;
  WARPMATCH_CUDA_CHECK(device, cudaMemcpyAsync(&members, selected, sizeof members, cudaMemcpyDeviceToHost, s));
  stream.synchronize();
  if (device_ms) *device_ms = stop.ms_since(start);
  std::vector<std::uint32_t> run_sa(static_cast<std::size_t>(members)), run_lcp(static_cast<std::size_t>(members));
  if (members > 0) {
    WARPMATCH_CUDA_CHECK(device, cudaMemcpyAsync(run_sa.data(), sel_sa, members * sizeof(std::uint32_t),
                                                 cudaMemcpyDeviceToHost, s));
    WARPMATCH_CUDA_CHECK(device, cudaMemcpyAsync(run_lcp.data(), sel_lcp, members * sizeof(std::uint32_t),
                                                 cudaMemcpyDeviceToHost, s));
  }
  stream.synchronize();

  // A run starts where the member's own LCP is below the length; runs are contiguous in SA
  // order, hence in the compacted list.
  std::vector<core::OccurrenceGroup> groups;
  core::OccurrenceGroup current;
  auto close = [&] {
    if (!current.a.empty() && !current.b.empty()) groups.push_back(std::move(current));
    current = core::OccurrenceGroup{};
  };
  for (std::size_t e = 0; e < run_sa.size(); ++e) {
    if (run_lcp[e] < length) close();
    const std::int64_t i = run_sa[e];
    if (i >= m) current.b.push_back(static_cast<std::uint64_t>(i - m));
    else if (static_cast<std::uint64_t>(m - i) >= length) current.a.push_back(static_cast<std::uint64_t>(i));
  }
  close();
  core::finish_lcs_from_groups(groups, length, max_matches, out);
  return true;
}

void lcs_diagonal(ByteSpan a, ByteSpan b, std::uint64_t max_matches, int device, LcsResult& out,
                  double* device_ms) {
  detail::require_device(device);
  out.length = out.count = out.total_pairs = 0;
  out.pairs.clear();
  const auto m = static_cast<std::int64_t>(a.size()), n = static_cast<std::int64_t>(b.size());
  if (m == 0 || n == 0) return;
  if (a.size() >= std::numeric_limits<std::uint32_t>::max() || b.size() >= std::numeric_limits<std::uint32_t>::max())
    throw InvalidArgument("GPU diagonal: inputs must be shorter than 4 GiB (32-bit run lengths)");
  DeviceGuard guard(device);
  Stream stream(device);
  const cudaStream_t s = stream.get();
  const std::int64_t diagonals = m + n - 1;
  DeviceBuffer<std::uint8_t> d_a(device, a.size()), d_b(device, b.size());
  DeviceBuffer<std::uint32_t> longest(device, diagonals);
  DeviceBuffer<std::uint32_t> d_max(device, 1);
  DeviceBuffer<std::uint64_t> run_count(device, diagonals), first_slot(device, diagonals);
  std::size_t reduce_bytes = 0, scan_bytes = 0;
  WARPMATCH_CUDA_CHECK(device, cub::DeviceReduce::Max(nullptr, reduce_bytes, longest.get(), d_max.get(), diagonals, s));
  WARPMATCH_CUDA_CHECK(device, cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, run_count.get(),
                                                              first_slot.get(), diagonals, s));
  DeviceBuffer<std::uint8_t> temp(device, std::max(reduce_bytes, scan_bytes));

  Event start(device, true), stop(device, true);
  WARPMATCH_CUDA_CHECK(device, cudaMemcpyAsync(d_a.get(), a.data(), a.size(), cudaMemcpyHostToDevice, s));
  WARPMATCH_CUDA_CHECK(device, cudaMemcpyAsync(d_b.get(), b.data(), b.size(), cudaMemcpyHostToDevice, s));
  start.record(s);
  kn::diagonal_longest_run<<<blocks_for(diagonals), kThreadsPerBlock, 0, s>>>(d_a.get(), d_b.get(), m, n,
                                                                              longest.get());
  check_launch("diagonal_longest_run", device);
  std::size_t bytes = temp.size();
  WARPMATCH_CUDA_CHECK(device, cub::DeviceReduce::Max(temp.get(), bytes, longest.get(), d_max.get(), diagonals, s));
  std::uint32_t length = 0;
  WARPMATCH_CUDA_CHECK(device, cudaMemcpyAsync(&length, d_max.get(), sizeof length, cudaMemcpyDeviceToHost, s));
  stream.synchronize();
  if (length == 0) {
    stop.record(s);
    stream.synchronize();
    if (device_ms) *device_ms = stop.ms_since(start);
    return;
  }
  kn::diagonal_emit_runs<<<blocks_for(diagonals), kThreadsPerBlock, 0, s>>>(
      d_a.get(), d_b.get(), m, n, longest.get(), length, run_count.get(), nullptr, nullptr, nullptr);
  check_launch("diagonal_emit_runs (count)", device);
  bytes = temp.size();
  WARPMATCH_CUDA_CHECK(device, cub::DeviceScan::ExclusiveSum(temp.get(), bytes, run_count.get(),
                                                              first_slot.get(), diagonals, s));
  std::uint64_t last_slot = 0, last_count = 0;
  WARPMATCH_CUDA_CHECK(device, cudaMemcpyAsync(&last_slot, first_slot.get() + (diagonals - 1), sizeof last_slot,
                                               cudaMemcpyDeviceToHost, s));
  WARPMATCH_CUDA_CHECK(device, cudaMemcpyAsync(&last_count, run_count.get() + (diagonals - 1), sizeof last_count,
                                               cudaMemcpyDeviceToHost, s));
  stream.synchronize();
  const std::uint64_t total = last_slot + last_count;

  DeviceBuffer<std::uint64_t> keys_in(device, total), keys_out(device, total);
  DeviceBuffer<std::uint8_t> a_flags(device, a.size());
  WARPMATCH_CUDA_CHECK(device, cudaMemsetAsync(a_flags.get(), 0, a.size(), s));
  kn::diagonal_emit_runs<<<blocks_for(diagonals), kThreadsPerBlock, 0, s>>>(
      d_a.get(), d_b.get(), m, n, longest.get(), length, run_count.get(), first_slot.get(), keys_in.get(),
      a_flags.get());
  check_launch("diagonal_emit_runs (write)", device);
  const int key_bits = bits_for(static_cast<std::uint64_t>(m) * static_cast<std::uint64_t>(n));
  std::size_t sort_bytes = 0;
  WARPMATCH_CUDA_CHECK(device, cub::DeviceRadixSort::SortKeys(nullptr, sort_bytes, keys_in.get(), keys_out.get(),
                                                              static_cast<std::int64_t>(total), 0, key_bits, s));
  DeviceBuffer<std::uint8_t> sort_temp(device, sort_bytes);
  WARPMATCH_CUDA_CHECK(device, cub::DeviceRadixSort::SortKeys(sort_temp.get(), sort_bytes, keys_in.get(),
                                                              keys_out.get(), static_cast<std::int64_t>(total), 0,
                                                              key_bits, s));
  stop.record(s);
  const std::uint64_t keep = std::min(max_matches, total);
  std::vector<std::uint64_t> keys(keep);
  std::vector<std::uint8_t> flags(a.size());
  if (keep)
    WARPMATCH_CUDA_CHECK(device, cudaMemcpyAsync(keys.data(), keys_out.get(), keep * sizeof(std::uint64_t),
                                                 cudaMemcpyDeviceToHost, s));
  WARPMATCH_CUDA_CHECK(device, cudaMemcpyAsync(flags.data(), a_flags.get(), a.size(), cudaMemcpyDeviceToHost, s));
  stream.synchronize();
  if (device_ms) *device_ms = stop.ms_since(start);

  out.length = length;
  out.total_pairs = total;
  out.pairs.reserve(keep);
  for (const std::uint64_t k : keys)
    out.pairs.push_back({k / static_cast<std::uint64_t>(n), k % static_cast<std::uint64_t>(n)});
  std::vector<std::uint64_t> starts;
  for (std::size_t i = 0; i < flags.size(); ++i)
    if (flags[i]) starts.push_back(i);
  out.count = core::count_distinct_substrings(a, starts, length);
}

}  // namespace warpmatch::cuda
