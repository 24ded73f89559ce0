// Longest common substring on CUDA, host side.
//  - lcs_diagonal: seed paper 004's method. The longest run per diagonal, CUB max-reduce for
//    L, then the diagonals holding L count (CUB exclusive scan -> exact slots) and write their
//    occurrence pairs as a * n + b keys, CUB radix-sorted so the first max_matches in (a, b)
//    order are copied back; flagged A starts give the distinct count on the host.
//  - lcs_suffix_array: prefix doubling. The bytes present are compacted to codes 1..sigma
//    (0 past the end), and the first sort (CUB radix sort) is of keys packing as many codes
//    as fit in 56 bits (11 letters, 18 DNA bases, 6 arbitrary bytes). Ranks are the SA
//    position of the group's first suffix, so a later round re-sorts only the suffixes still
//    sharing a group (CUB select), by (rank[i], rank[i + h]), and leaves the others alone:
//    after the first sort that is a few suffixes on most texts. The host reads one word per
//    round (how many still share a group), nothing else.
//  - lcs_suffix_array_scan: after the SA, everything stays on the device and in one stream:
//    Φ-LCP, the nearest-B scans as CUB scans with an associative operator, a max-reduce for
//    the length and a CUB select of the runs holding it; the host waits once, reading the
//    summary and the first runs in one copy.
//  Device memory comes from a per-device stream-ordered pool that keeps what it holds between
//  calls (up to LcsPolicy::pool_keep_bytes): a cudaMalloc/cudaFree pair costs more than the whole
//  computation on the paper's inputs.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/tabulate_output_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "core/lcs_suffix.hpp"
#include "cuda/runtime/device_runtime.cuh"
#include "cuda/lcs/lcs_cuda.hpp"
#include "cuda/lcs/kernels.cuh"
#include "cuda/lcs/tuning.hpp"

namespace warpmatch::cuda {

namespace {

using detail::check;
using detail::check_launch;
using detail::DeviceBuffer;
using detail::DeviceGuard;
using detail::Event;
using detail::Stream;
namespace kn = kernels;

constexpr int kThreadsPerBlock = 256;
static_assert(kThreadsPerBlock == 256, "doubling_initial_keys fills its code table one thread per byte value");

unsigned blocks_for(std::int64_t items) {
  return static_cast<unsigned>((items + kThreadsPerBlock - 1) / kThreadsPerBlock);
}

int bits_for(std::uint64_t max_value) { return std::max(1, static_cast<int>(std::bit_width(max_value))); }

}  // namespace

std::uint64_t lcs_device_free_bytes(int device) {
  detail::require_device(device);
  DeviceGuard guard(device);
  return detail::device_memory_available(device);  // the cap counts (device_runtime.cuh)
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

/// The device's pool for this file's allocations, created on first use; it keeps up to
/// LcsPolicy::pool_keep_bytes when a stream synchronises, so later calls allocate without the driver.
cudaMemPool_t scratch_pool(int device) {
  static std::mutex mutex;
  static std::map<int, cudaMemPool_t> pools;
  const std::lock_guard lock(mutex);
  if (const auto it = pools.find(device); it != pools.end()) return it->second;
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  cudaMemPool_t pool = nullptr;
  WARPMATCH_CUDA_CHECK(device, cudaMemPoolCreate(&pool, &props));
  std::uint64_t keep = LcsPolicy::pool_keep_bytes;
  WARPMATCH_CUDA_CHECK(device, cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
  pools.emplace(device, pool);
  return pool;
}

/// One stream-ordered allocation per call from scratch_pool(), carved into 256-byte aligned
/// regions; mark()/reset() let a later stage reuse an earlier stage's scratch. Freed in
/// stream order on destruction: declare it after the Stream it uses.
class Arena {
 public:
  Arena(int device, std::size_t bytes, cudaStream_t stream) : device_(device), stream_(stream), size_(bytes) {
    cudaMemPool_t pool = scratch_pool(device);
    base_ = static_cast<std::uint8_t*>(detail::allocate_counted(device, bytes, "cudaMallocFromPoolAsync", [&](void** p) {
      return cudaMallocFromPoolAsync(p, bytes, pool, stream);
    }));
  }
  ~Arena() {
    cudaFreeAsync(base_, stream_);
    detail::free_counted(device_, size_);
  }
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  template <class T>
  T* take(std::size_t count) {
    const std::size_t bytes = region_bytes(count, sizeof(T));
    if (used_ + bytes > size_)
      throw Error("internal error: LCS device arena of " + std::to_string(size_) + " bytes is too small");
    T* p = reinterpret_cast<T*>(base_ + used_);
    used_ += bytes;
    return p;
  }
  std::size_t mark() const { return used_; }
  void reset(std::size_t mark) { used_ = mark; }

 private:
  int device_;
  cudaStream_t stream_;
  std::size_t size_;
  std::uint8_t* base_ = nullptr;
  std::size_t used_ = 0;
};

/// The CUB steps of ranking `count` sorted keys (of the suffixes at SA positions `positions`;
/// null: all, in order): the group ranks by a max-scan of lcs_thread::group_start_rank, and
/// the SA positions of the suffixes still sharing a group, compacted. With temp == nullptr
/// only sets temp_bytes to the larger temporary storage of the two, as CUB does.
void rank_groups(void* temp, std::size_t& temp_bytes, const std::uint64_t* sorted_keys,
                 const std::uint32_t* positions, std::int64_t count, std::uint32_t* group_ranks,
                 std::uint32_t* shared_positions, std::int64_t* shared_count, int device, cudaStream_t s) {
  const thrust::counting_iterator<std::int64_t> js(0);
  const auto starts = thrust::make_transform_iterator(js, kn::GroupStartRank{sorted_keys, positions});
  const auto position_of = thrust::make_transform_iterator(js, kn::PositionOf{positions});
  const auto shared = thrust::make_transform_iterator(js, kn::InSharedGroup{sorted_keys, count});
  std::size_t scan_bytes = temp_bytes, select_bytes = temp_bytes;
  check(cub::DeviceScan::InclusiveScan(temp, scan_bytes, starts, group_ranks, kn::MaxOp{}, count, s),
        "cub::DeviceScan::InclusiveScan (group ranks)", device);
  check(cub::DeviceSelect::Flagged(temp, select_bytes, position_of, shared, shared_positions, shared_count, count, s),
        "cub::DeviceSelect::Flagged (suffixes sharing a group)", device);
  if (!temp) temp_bytes = std::max(scan_bytes, select_bytes);
}

/// CUB temporary storage of the prefix-doubling rounds (radix sort, scan and select share it).
std::size_t doubling_temp_bytes(std::int64_t n, int device, cudaStream_t s) {
  cub::DoubleBuffer<std::uint64_t> keys(nullptr, nullptr);
  cub::DoubleBuffer<std::uint32_t> values(nullptr, nullptr);
  std::size_t sort_bytes = 0, rank_bytes = 0;
  WARPMATCH_CUDA_CHECK(device, cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, keys, values, n, 0, 64, s));
  rank_groups(nullptr, rank_bytes, nullptr, nullptr, n, nullptr, nullptr, nullptr, device, s);
  return std::max(sort_bytes, rank_bytes);
}

/// Scratch of the doubling rounds beyond the text and the two suffix buffers.
std::size_t doubling_scratch_bytes(std::int64_t n, std::size_t temp_bytes) {
  const auto count = static_cast<std::size_t>(n);
  return 2 * region_bytes(count, 8) + 3 * region_bytes(count, 4) + region_bytes(temp_bytes, 1) +
         region_bytes(kn::kAlphabetWords, 4) + region_bytes(2, 8);
}

/// Prefix doubling on the device text. `suffixes_a/b` (n entries each): the first sort's
/// value buffers, one of which then holds the suffix array (returned); the other is scratch.
/// The first sort ranks all suffixes by their initial keys; each later round re-sorts only
/// the suffixes still sharing a group (few after the first on most texts) by
/// (rank[i], rank[i + h]), doubling h. Scratch comes from the arena and is handed back.
std::uint32_t* build_suffix_array(Arena& arena, const std::uint8_t* d_text, std::int64_t n,
                                  std::uint32_t* suffixes_a, std::uint32_t* suffixes_b,
                                  std::size_t temp_bytes, int device, const Stream& stream) {
  const cudaStream_t s = stream.get();
  const auto count = static_cast<std::size_t>(n);
  const std::size_t scratch_mark = arena.mark();
  cub::DoubleBuffer<std::uint64_t> keys(arena.take<std::uint64_t>(count), arena.take<std::uint64_t>(count));
  cub::DoubleBuffer<std::uint32_t> suffixes(suffixes_a, suffixes_b);
  std::uint32_t* rank = arena.take<std::uint32_t>(count);
  std::uint32_t* positions = arena.take<std::uint32_t>(count);
  std::uint32_t* round_suffixes = arena.take<std::uint32_t>(count);
  std::uint8_t* temp = arena.take<std::uint8_t>(temp_bytes);
  std::uint32_t* present = arena.take<std::uint32_t>(kn::kAlphabetWords);
  // [0] suffixes still sharing a group, [1] characters per initial key.
  auto* round_info = arena.take<std::int64_t>(2);

  // After a sort of `sorted` suffixes (values in sorted_suffixes, at SA positions
  // `at_positions`, null: all): places them in the SA, ranks them, and leaves the positions of
  // those still sharing a group in `positions`; returns how many there are (the host's wait).
  std::uint32_t* sa = nullptr;
  auto rank_sorted = [&](const std::uint32_t* sorted_suffixes, const std::uint32_t* at_positions,
                         std::int64_t sorted) {
    // The free key buffer holds the group ranks and the new positions (2 x 4 bytes per entry).
    auto* group_ranks = reinterpret_cast<std::uint32_t*>(keys.Alternate());
    std::uint32_t* shared_positions = group_ranks + count;
    std::size_t bytes = temp_bytes;
    rank_groups(temp, bytes, keys.Current(), at_positions, sorted, group_ranks, shared_positions, round_info,
                device, s);
    kn::doubling_place_ranks<<<blocks_for(sorted), kThreadsPerBlock, 0, s>>>(sorted_suffixes, at_positions,
                                                                             group_ranks, sorted, sa, rank);
    check_launch("doubling_place_ranks", device);
    std::int64_t info[2] = {0, 0};
    WARPMATCH_CUDA_CHECK(device, cudaMemcpyAsync(info, round_info, sizeof info, cudaMemcpyDeviceToHost, s));
    stream.synchronize();
    if (info[0] > 0)
      WARPMATCH_CUDA_CHECK(device, cudaMemcpyAsync(positions, shared_positions, info[0] * sizeof(std::uint32_t),
                                                   cudaMemcpyDeviceToDevice, s));
    return std::pair<std::int64_t, std::int64_t>{info[0], info[1]};
  };

  WARPMATCH_CUDA_CHECK(device, cudaMemsetAsync(present, 0, kn::kAlphabetWords * sizeof(std::uint32_t), s));
  kn::mark_present_bytes<<<std::min(blocks_for(n), LcsPolicy::byte_set_blocks), kThreadsPerBlock, 0, s>>>(d_text, n, present);
  check_launch("mark_present_bytes", device);
  kn::doubling_initial_keys<<<blocks_for(n), kThreadsPerBlock, 0, s>>>(d_text, n, present, keys.Current(),
                                                                       suffixes.Current(), round_info + 1);
  check_launch("doubling_initial_keys", device);
  std::size_t sort_bytes = temp_bytes;
  WARPMATCH_CUDA_CHECK(device, cub::DeviceRadixSort::SortPairs(temp, sort_bytes, keys, suffixes, n,
                                                               64 - kn::kInitialKeyBits, 64, s));
  sa = suffixes.Current();
  auto [shared, h] = rank_sorted(sa, nullptr, n);
  // Ranks now order the suffixes by their first h characters; each round doubles h.
  cub::DoubleBuffer<std::uint32_t> round_values(suffixes.Alternate(), round_suffixes);
  const int rank_bits = bits_for(static_cast<std::uint64_t>(n));
  for (; shared > 0 && h < n; h *= 2) {
    kn::doubling_keys<<<blocks_for(shared), kThreadsPerBlock, 0, s>>>(sa, positions, shared, rank, n, h, rank_bits,
                                                                      keys.Current(), round_values.Current());
    check_launch("doubling_keys", device);
    std::size_t bytes = temp_bytes;
    WARPMATCH_CUDA_CHECK(device, cub::DeviceRadixSort::SortPairs(temp, bytes, keys, round_values, shared, 0,
                                                                 2 * rank_bits, s));
    shared = rank_sorted(round_values.Current(), positions, shared).first;
  }
  arena.reset(scratch_mark);
  return sa;
}

/// What the host reads back after the suffix-array scan, in front of the selected runs.
struct ScanSummary {
  std::uint32_t length;    // of the longest common substring
  std::int32_t exhausted;  // the PLCP budget ran out: the LCP and all after it are void
  std::int64_t members;    // selected run members
};
static_assert(sizeof(ScanSummary) == 16, "the runs follow the summary 8-byte aligned");

/// Device arrays of the scan after the LCP (null when only sizing CUB's storage).
struct ScanArrays {
  const std::uint32_t* sa = nullptr;
  const std::uint32_t* lcp = nullptr;
  std::uint32_t* left = nullptr;  // left LCPs, then clamped matches
  std::uint32_t* length = nullptr;
  std::int64_t* members = nullptr;
  std::uint64_t* runs = nullptr;  // sa << 32 | lcp of each run member
};

/// The length and the runs holding it, on the device: the forward and backward nearest-B
/// scans (CUB scans over per-position elements with the associative lcs_thread::chain), a
/// max-reduce of the clamped matches, and a select of the run members. With temp == nullptr
/// only sets temp_bytes to the largest temporary storage of the steps, as CUB does.
void length_and_runs(void* temp, std::size_t& temp_bytes, const ScanArrays& x, std::int64_t n, std::uint32_t m,
                     int device, cudaStream_t s) {
  const thrust::counting_iterator<std::int64_t> positions(0);
  const auto forward = thrust::make_transform_iterator(positions, kn::ForwardElement{x.sa, x.lcp, m});
  const auto backward = thrust::make_transform_iterator(positions, kn::BackwardElement{x.sa, x.lcp, n, m});
  const auto store_left = thrust::make_tabulate_output_iterator(kn::StoreLeft{x.left});
  const auto store_match = thrust::make_tabulate_output_iterator(kn::StoreClampedMatch{x.sa, n, m, x.left});
  const auto member_flags = thrust::make_transform_iterator(positions, kn::RunMember{x.lcp, n, x.length});
  const auto packed_members = thrust::make_transform_iterator(positions, kn::PackRunMember{x.sa, x.lcp});
  std::size_t bytes = temp_bytes, most = 0;
  auto done = [&](cudaError_t e, const char* step) {
    check(e, step, device);
    most = std::max(most, bytes);
    bytes = temp_bytes;
  };
  done(cub::DeviceScan::InclusiveScan(temp, bytes, forward, store_left, kn::ChainOp{}, n, s),
       "cub::DeviceScan::InclusiveScan (nearest B, forward)");
  done(cub::DeviceScan::InclusiveScan(temp, bytes, backward, store_match, kn::ChainOp{}, n, s),
       "cub::DeviceScan::InclusiveScan (nearest B, backward)");
  done(cub::DeviceReduce::Max(temp, bytes, x.left, x.length, n, s), "cub::DeviceReduce::Max (length)");
  done(cub::DeviceSelect::Flagged(temp, bytes, packed_members, member_flags, x.runs, x.members, n, s),
       "cub::DeviceSelect::Flagged (run members)");
  if (!temp) temp_bytes = most;
}

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
  Arena arena(device, region_bytes(count, 1) + 2 * region_bytes(count, 4) + doubling_scratch_bytes(n, temp_bytes),
              stream.get());
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
  // Sizes first, so one allocation serves both stages: the doubling scratch is reused by
  // the LCP and scan buffers (which need less).
  const std::size_t temp_bytes = doubling_temp_bytes(n, device, s);
  std::size_t scan_temp_bytes = 0;
  length_and_runs(nullptr, scan_temp_bytes, ScanArrays{}, n, static_cast<std::uint32_t>(m), device, s);
  const std::size_t scan_stage = 2 * region_bytes(count, 4) + region_bytes(sizeof(ScanSummary) + count * 8, 1) +
                                 region_bytes(scan_temp_bytes, 1);
  Arena arena(device, region_bytes(count, 1) + 2 * region_bytes(count, 4) +
                          std::max(doubling_scratch_bytes(n, temp_bytes), scan_stage), s);
  std::uint8_t* d_text = arena.take<std::uint8_t>(count);
  std::uint32_t* suffixes_a = arena.take<std::uint32_t>(count);
  std::uint32_t* suffixes_b = arena.take<std::uint32_t>(count);
  Event start(device, true), stop(device, true);
  WARPMATCH_CUDA_CHECK(device, cudaMemcpyAsync(d_text, a.data(), a.size(), cudaMemcpyHostToDevice, s));
  WARPMATCH_CUDA_CHECK(device, cudaMemcpyAsync(d_text + a.size(), b.data(), b.size(), cudaMemcpyHostToDevice, s));
  start.record(s);
  const std::uint32_t* sa =
      build_suffix_array(arena, d_text, n, suffixes_a, suffixes_b, temp_bytes, device, stream);

  // LCP by Φ on the device; a thread past its budget marks the summary (repetitive input),
  // and the host finds out when it reads the summary at the end.
  std::uint32_t* plcp = arena.take<std::uint32_t>(count);
  std::uint32_t* lcp = arena.take<std::uint32_t>(count);
  auto* results = arena.take<std::uint8_t>(sizeof(ScanSummary) + count * 8);
  auto* summary = reinterpret_cast<ScanSummary*>(results);
  auto* runs = reinterpret_cast<std::uint64_t*>(results + sizeof(ScanSummary));
  std::uint8_t* scan_temp = arena.take<std::uint8_t>(scan_temp_bytes);
  // The summary, and the run members the one wait below copies before it knows their count
  // (never-written entries are read there; compute-sanitizer initcheck).
  const std::int64_t eager = std::min(n, LcsPolicy::eager_run_members);
  const std::size_t head_bytes = sizeof(ScanSummary) + static_cast<std::size_t>(eager) * 8;
  WARPMATCH_CUDA_CHECK(device, cudaMemsetAsync(results, 0, head_bytes, s));
  kn::lcp_phi<<<blocks_for(n), kThreadsPerBlock, 0, s>>>(sa, n, plcp);
  check_launch("lcp_phi", device);
  const std::int64_t plcp_threads = (n + kn::kPlcpChunk - 1) / kn::kPlcpChunk;
  kn::lcp_plcp_chunks<<<blocks_for(plcp_threads), kThreadsPerBlock, 0, s>>>(
      d_text, n, kn::kPlcpChunk, kn::kPlcpBudget, plcp, &summary->exhausted);
  check_launch("lcp_plcp_chunks", device);
  kn::lcp_gather<<<blocks_for(n), kThreadsPerBlock, 0, s>>>(sa, plcp, n, lcp);
  check_launch("lcp_gather", device);

  // plcp is free again: it holds the left LCPs and then the clamped matches.
  const ScanArrays arrays{sa, lcp, plcp, &summary->length, &summary->members, runs};
  length_and_runs(scan_temp, scan_temp_bytes, arrays, n, static_cast<std::uint32_t>(m), device, s);
  stop.record(s);

  // The one wait: the summary and the first run members in one copy.
  std::vector<std::uint8_t> head(head_bytes);
  WARPMATCH_CUDA_CHECK(device, cudaMemcpyAsync(head.data(), results, head.size(), cudaMemcpyDeviceToHost, s));
  stream.synchronize();
  ScanSummary got{};
  std::memcpy(&got, head.data(), sizeof got);
  if (got.exhausted) return false;  // the caller computes the LCP on the host
  if (device_ms) *device_ms = stop.ms_since(start);
  const std::uint64_t length = got.length;
  if (length == 0) return true;
  std::vector<std::uint64_t> members(static_cast<std::size_t>(got.members));
  const std::int64_t in_head = std::min(got.members, eager);
  std::memcpy(members.data(), head.data() + sizeof(ScanSummary), static_cast<std::size_t>(in_head) * 8);
  if (got.members > in_head) {
    WARPMATCH_CUDA_CHECK(device, cudaMemcpyAsync(members.data() + in_head, runs + in_head,
                                                 static_cast<std::size_t>(got.members - in_head) * 8,
                                                 cudaMemcpyDeviceToHost, s));
    stream.synchronize();
  }

  // A run starts where the member's own LCP is below the length; runs are contiguous in SA
  // order, hence in the compacted list.
  std::vector<core::OccurrenceGroup> groups;
  core::OccurrenceGroup current;
  auto close = [&] {
    if (!current.a.empty() && !current.b.empty()) groups.push_back(std::move(current));
    current = core::OccurrenceGroup{};
  };
  for (const std::uint64_t member : members) {
    const std::int64_t i = static_cast<std::int64_t>(member >> 32);
    if ((member & 0xFFFFFFFFu) < length) close();
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
