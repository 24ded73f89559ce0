// Edit distance on CUDA, host side: uploads, the paper's per-diagonal tile launches, the
// bit-parallel stripe passes, the batch kernel's grouping, timing with events. Kernels in
// kernels.cuh.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/parallel.hpp"
#include "core/host_copy.hpp"
#include "cuda/runtime/device_runtime.cuh"
#include "cuda/distance/distance_cuda.hpp"
#include "cuda/distance/kernels.cuh"
#include "cuda/distance/tuning.hpp"

namespace warpmatch::cuda {

namespace {

using detail::check_launch;
using detail::DeviceBuffer;
using detail::DeviceGuard;
using detail::Event;
using detail::Stream;
namespace kn = kernels;

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

std::int64_t bounded(std::int64_t d, std::int64_t k) { return k >= 0 && d > k ? -1 : d; }

/// Seed paper 001: plain-DP tiles of B x B, one launch per tile anti-diagonal.
DistanceRun run_tiles(ByteSpan a, ByteSpan b, int B, int device) {
  const auto t0 = Clock::now();
  const std::int64_t m = static_cast<std::int64_t>(a.size()), n = static_cast<std::int64_t>(b.size());
  if (m > INT32_MAX / 2 || n > INT32_MAX / 2)
    throw InvalidArgument("the 'tiles' algorithm keeps 32-bit border values: lengths up to 1073741823 (got " +
                          std::to_string(std::max(m, n)) + ")");
  const std::int64_t tile_rows = (m + B - 1) / B, tile_cols = (n + B - 1) / B;
  Stream stream(device);
  DeviceBuffer<std::uint8_t> da(device, m), db(device, n);
  DeviceBuffer<std::int32_t> H(device, n + 1), V(device, m + 1), corner(device, tile_rows);
  WARPMATCH_CUDA_CHECK(device, cudaMemcpyAsync(da.get(), a.data(), m, cudaMemcpyHostToDevice, stream.get()));
  WARPMATCH_CUDA_CHECK(device, cudaMemcpyAsync(db.get(), b.data(), n, cudaMemcpyHostToDevice, stream.get()));
  const std::size_t shared_bytes = (3 * static_cast<std::size_t>(B) + 1) * sizeof(std::int32_t);
  Event start(device, true), stop(device, true);
  start.record(stream.get());
  kn::tiles_init<<<1024, 256, 0, stream.get()>>>(H.get(), n, V.get(), m, corner.get(), tile_rows, B);
  check_launch("tiles_init", device);
  for (std::int64_t d = 0; d < tile_rows + tile_cols - 1; ++d) {
    const std::int64_t first = std::max<std::int64_t>(0, d - (tile_cols - 1));
    const std::int64_t last = std::min(d, tile_rows - 1);
    kn::tiles_diagonal<<<static_cast<unsigned>(last - first + 1), B, shared_bytes, stream.get()>>>(
        da.get(), m, db.get(), n, B, d, first, H.get(), V.get(), corner.get());
    check_launch("tiles_diagonal", device);
  }
  stop.record(stream.get());
  std::int32_t result = 0;
  WARPMATCH_CUDA_CHECK(device, cudaMemcpyAsync(&result, H.get() + n, sizeof result, cudaMemcpyDeviceToHost,
                                               stream.get()));
  stream.synchronize();
  DistanceRun run;
  run.distance = result;
  run.block_size = B;
  run.kernel_ms = stop.ms_since(start);
  run.total_ms = ms_since(t0);
  return run;
}

/// Bit-parallel stripes (kernels::myers_stripe): the pattern = the shorter string, its Peq
/// per word and the text as pattern codes; one cooperative launch per pass of co-resident
/// stripes (at most max_per_pass when > 0). k >= 0 restricts every stripe to Ukkonen's band.
DistanceRun run_myers_stripes(ByteSpan a, ByteSpan b, std::int64_t k, std::int64_t max_per_pass, int device) {
  const auto t0 = Clock::now();
  if (a.size() > b.size()) std::swap(a, b);  // rows = the shorter string: fewer words
  const std::int64_t m = static_cast<std::int64_t>(a.size()), n = static_cast<std::int64_t>(b.size());
  DistanceRun run;
  if (k >= 0 && n - m > k) {  // the length difference alone exceeds k
    run.total_ms = ms_since(t0);
    return run;
  }
  const kn::StripeInput in = kn::make_stripe_input(a.data(), m, b.data(), n, k);
  const int peq_codes = in.peq_codes;

  // Stripes per pass: as many as can be resident at once (the cooperative launch checks it).
  const bool shared_peq = peq_codes <= kn::kStripeSharedPeqCodes;
  const void* kernel = shared_peq ? reinterpret_cast<const void*>(&kn::myers_stripe<true>)
                                  : reinterpret_cast<const void*>(&kn::myers_stripe<false>);
  const std::size_t shared_bytes = kn::stripe_shared_bytes(shared_peq, peq_codes);
  int per_sm = 0, sms = 0;
  WARPMATCH_CUDA_CHECK(device, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, 32, shared_bytes));
  WARPMATCH_CUDA_CHECK(device, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const std::int64_t stripes = (m + kn::kStripeRows - 1) / kn::kStripeRows;
  std::int64_t per_pass = std::min<std::int64_t>(stripes, static_cast<std::int64_t>(per_sm) * sms);
  if (max_per_pass > 0) per_pass = std::min(per_pass, max_per_pass);
  const bool passes = per_pass < stripes;

  Stream stream(device);
  DeviceBuffer<std::uint8_t> dcodes(device, n), ring(device, (per_pass - 1) * kn::kRingColumns);
  DeviceBuffer<std::uint32_t> dpeq(device, in.peq.size());
  DeviceBuffer<long long> consumed(device, per_pass);
  DeviceBuffer<unsigned long long> vertical_sum(device, 1);
  DeviceBuffer<std::int8_t> edges(device, passes ? 2 * n : 0);  // two: one read, one written per pass
  WARPMATCH_CUDA_CHECK(device,
                       cudaMemcpyAsync(dcodes.get(), in.codes.data(), n, cudaMemcpyHostToDevice, stream.get()));
  WARPMATCH_CUDA_CHECK(device, cudaMemcpyAsync(dpeq.get(), in.peq.data(), in.peq.size() * 4, cudaMemcpyHostToDevice,
                                               stream.get()));
  Event start(device, true), stop(device, true);
  start.record(stream.get());
  WARPMATCH_CUDA_CHECK(device, cudaMemsetAsync(vertical_sum.get(), 0, sizeof(unsigned long long), stream.get()));
  for (std::int64_t first = 0, pass = 0; first < stripes; first += per_pass, ++pass) {
    const std::int64_t count = std::min(per_pass, stripes - first);
    WARPMATCH_CUDA_CHECK(device, cudaMemsetAsync(ring.get(), 0, (count - 1) * kn::kRingColumns, stream.get()));
    WARPMATCH_CUDA_CHECK(device, cudaMemsetAsync(consumed.get(), 0, count * sizeof(long long), stream.get()));
    kn::StripePass p = kn::make_stripe_pass(in, dcodes.get(), dpeq.get(), stripes, first, count, pass, edges.get(),
                                            ring.get(), consumed.get(), vertical_sum.get());
    void* args[] = {&p};
    WARPMATCH_CUDA_CHECK(device, cudaLaunchCooperativeKernel(kernel, dim3(static_cast<unsigned>(count)), dim3(32),
                                                             args, shared_bytes, stream.get()));
    check_launch("myers_stripe", device);
  }
  stop.record(stream.get());
  unsigned long long sum = 0;
  WARPMATCH_CUDA_CHECK(device,
                       cudaMemcpyAsync(&sum, vertical_sum.get(), sizeof sum, cudaMemcpyDeviceToHost, stream.get()));
  stream.synchronize();
  // D[m][n] = D[0][n] + the vertical deltas down column n (see the kernel for the band).
  run.distance = n + static_cast<std::int64_t>(sum);
  run.kernel_ms = stop.ms_since(start);
  run.total_ms = ms_since(t0);
  return run;
}

}  // namespace

DistanceRun edit_distance(ByteSpan a, ByteSpan b, std::int64_t k, DistanceAlgorithm algorithm,
                          int block_size, int device) {
  detail::require_device(device);
  DeviceGuard guard(device);
  DistanceRun run;
  if (a.empty() || b.empty()) {
    run.distance = static_cast<std::int64_t>(std::max(a.size(), b.size()));
  } else if (algorithm == DistanceAlgorithm::tiles) {
    if (block_size < 32 || block_size > 1024 || block_size % 32 != 0)
      throw InvalidArgument("block size " + std::to_string(block_size) +
                            " out of range: the tiles kernel takes a multiple of 32 from 32 to 1024");
    run = run_tiles(a, b, block_size, device);
  } else {
    if (block_size < 0) throw InvalidArgument("stripes per pass must be >= 0");
    run = run_myers_stripes(a, b, k, block_size, device);
  }
  run.distance = bounded(run.distance, k);
  return run;
}

namespace {

/// One batch launch over `members`: kind 0 = the thread-per-pair kernel, else the lane-group
/// kernel with that many lanes per pair. Metadata and bytes travel in one packed upload
/// (metadata first, every string at a 4-byte aligned offset for the thread kernel's word
/// loads, the buffer padded to a multiple of 4). Returns the raw distances.
/// A cross product's strings, each uploaded once: pair i is (strings[ids[i].first],
/// strings[ids[i].second]). Empty for plain pairs (each pair's bytes packed with it).
struct StringTable {
  std::span<const ByteSpan> strings;
  std::span<const std::pair<std::uint32_t, std::uint32_t>> ids;
  bool empty() const { return ids.empty(); }
};

std::vector<std::int64_t> run_batch_kernel(std::span<const std::pair<ByteSpan, ByteSpan>> pairs,
                                           const std::vector<std::size_t>& members, int kind, int device,
                                           Stream& stream, double* kernel_ms, const StringTable& table) {
  const std::size_t count = members.size();
  const std::size_t meta_bytes = count * sizeof(kn::BatchPair);  // a multiple of 8
  auto padded = [](std::size_t n) { return (n + 3) & ~std::size_t{3}; };
  // Each pair's place in the bytes part (after the metadata), in `members` order; for a
  // string table, each string's place instead.
  const std::size_t places = table.empty() ? count : table.strings.size();
  std::vector<std::size_t> place(places + 1, 0);
  if (table.empty()) {
    // A prefix sum over the (size-sorted, so scattered) pairs, on the host pool: each task
    // sums its range, then adds the ranges before it.
    const std::size_t tasks = std::min<std::size_t>(64, count / 4096 + 1);
    std::vector<std::size_t> task_total(tasks + 1, 0);
    core::run_on_host_pool(tasks, [&](std::size_t t) {
      std::size_t sum = 0;
      for (std::size_t x = t * count / tasks; x < (t + 1) * count / tasks; ++x) {
        sum += padded(pairs[members[x]].first.size()) + padded(pairs[members[x]].second.size());
        place[x + 1] = sum;
      }
      task_total[t + 1] = sum;
    });
    for (std::size_t t = 0; t < tasks; ++t) task_total[t + 1] += task_total[t];
    core::run_on_host_pool(tasks, [&](std::size_t t) {
      for (std::size_t x = t * count / tasks; x < (t + 1) * count / tasks; ++x) place[x + 1] += task_total[t];
    });
  } else {
    for (std::size_t x = 0; x < places; ++x) place[x + 1] = place[x] + padded(table.strings[x].size());
  }
  const std::size_t total = meta_bytes + place[places];
  // Packed into pinned staging from the process-wide cache (a call after the first reuses it:
  // no page faults, and the upload runs at the bus's speed), every byte written below.
  detail::StagingBuffer host(device);
  host.reserve(std::max(total, count * sizeof(std::int64_t)));
  auto* meta = reinterpret_cast<kn::BatchPair*>(host.get());
  std::uint8_t* bytes = host.get() + meta_bytes;
  auto put_string = [&](std::size_t at, ByteSpan s) {
    if (!s.empty()) std::memcpy(bytes + at, s.data(), s.size());
    if (padded(s.size()) > s.size()) std::memset(bytes + at + s.size(), 0, padded(s.size()) - s.size());
  };
  auto refer = [&](std::size_t x) {  // string table: metadata only, the strings are shared
    auto [ia, ib] = table.ids[members[x]];
    if (table.strings[ia].size() > table.strings[ib].size()) std::swap(ia, ib);
    kn::BatchPair bp{};
    bp.a_offset = static_cast<std::int64_t>(place[ia]);
    bp.a_length = static_cast<std::int64_t>(table.strings[ia].size());
    bp.b_offset = static_cast<std::int64_t>(place[ib]);
    bp.b_length = static_cast<std::int64_t>(table.strings[ib].size());
    std::memcpy(meta + x, &bp, sizeof bp);
  };
  auto pack = [&](std::size_t x) {
    if (!table.empty()) return refer(x);
    ByteSpan a = pairs[members[x]].first, b = pairs[members[x]].second;
    if (a.size() > b.size()) std::swap(a, b);
    kn::BatchPair bp{};
    bp.a_offset = static_cast<std::int64_t>(place[x]);
    bp.a_length = static_cast<std::int64_t>(a.size());
    put_string(place[x], a);
    bp.b_offset = static_cast<std::int64_t>(place[x] + padded(a.size()));
    bp.b_length = static_cast<std::int64_t>(b.size());
    put_string(place[x] + padded(a.size()), b);
    std::memcpy(meta + x, &bp, sizeof bp);
  };
  if (!table.empty())
    for (std::size_t x = 0; x < table.strings.size(); ++x) put_string(place[x], table.strings[x]);
  // Stream-ordered allocations from the device's pool: memory freed by the last call is
  // reused without cudaMalloc's cost or cudaFree's device-wide synchronisation.
  detail::AsyncDeviceBuffer dhost(device, stream.get(), total);
  detail::AsyncDeviceBuffer ddist_bytes(device, stream.get(), count * sizeof(std::int64_t));
  auto* ddist = reinterpret_cast<std::int64_t*>(ddist_bytes.get());
  // Plain pairs are packed and uploaded in slices (each slice's records and bytes are two
  // contiguous ranges of the layout), so the bus carries slice s while the host packs slice
  // s + 1; one kernel launch then runs every pair (a launch per slice would leave most of the
  // GPU idle at each slice's tail).
  constexpr std::size_t kSlice = DistancePolicy::batch_slice_pairs;
  const std::size_t slices = table.empty() ? std::max<std::size_t>(1, (count + kSlice - 1) / kSlice) : 1;
  for (std::size_t s = 0; s < slices; ++s) {
    const std::size_t first = count * s / slices, last = count * (s + 1) / slices, n_slice = last - first;
    // The members come size-sorted, so their strings are gathered from scattered places:
    // spread the packing over the host's persistent pool (no threads started per call).
    const std::size_t tasks = std::min<std::size_t>(64, n_slice / 2048 + 1);
    core::run_on_host_pool(tasks, [&](std::size_t t) {
      for (std::size_t x = first + t * n_slice / tasks; x < first + (t + 1) * n_slice / tasks; ++x) pack(x);
    });
    const bool whole = slices == 1;  // the string table's case too: everything in one copy
    const std::size_t meta_from = whole ? 0 : first * sizeof(kn::BatchPair);
    const std::size_t meta_to = whole ? total : last * sizeof(kn::BatchPair);
    WARPMATCH_CUDA_CHECK(device, cudaMemcpyAsync(dhost.get() + meta_from, host.get() + meta_from,
                                                 meta_to - meta_from, cudaMemcpyHostToDevice, stream.get()));
    if (!whole) {
      const std::size_t from = meta_bytes + place[first], to = meta_bytes + place[last];
      WARPMATCH_CUDA_CHECK(device, cudaMemcpyAsync(dhost.get() + from, host.get() + from, to - from,
                                                   cudaMemcpyHostToDevice, stream.get()));
    }
  }
  const auto* dmeta = reinterpret_cast<const kn::BatchPair*>(dhost.get());
  const std::uint8_t* dbytes = dhost.get() + meta_bytes;
  const auto n = static_cast<std::int64_t>(count);
  Event start(device, true), stop(device, true);
  start.record(stream.get());
  if (kind == 0) {
    const auto blocks = static_cast<unsigned>((n + kn::kThreadBlock - 1) / kn::kThreadBlock);
    kn::myers_thread_batch<<<blocks, kn::kThreadBlock, 0, stream.get()>>>(dbytes, dmeta, n, ddist);
    check_launch("myers_thread_batch", device);
  } else {
    const std::int64_t warps = (n * kind + 31) / 32;
    const auto blocks = static_cast<unsigned>((warps * 32 + 255) / 256);
    if (kind == 8) kn::myers_batch<8><<<blocks, 256, 0, stream.get()>>>(dbytes, dmeta, n, ddist);
    else if (kind == 16) kn::myers_batch<16><<<blocks, 256, 0, stream.get()>>>(dbytes, dmeta, n, ddist);
    else kn::myers_batch<32><<<blocks, 256, 0, stream.get()>>>(dbytes, dmeta, n, ddist);
    check_launch("myers_batch", device);
  }
  stop.record(stream.get());
  // Back through pinned memory too (the staging's metadata part has been uploaded by now:
  // the copy is ordered after the uploads on the stream).
  WARPMATCH_CUDA_CHECK(device, cudaMemcpyAsync(host.get(), ddist, count * sizeof(std::int64_t),
                                               cudaMemcpyDeviceToHost, stream.get()));
  stream.synchronize();
  std::vector<std::int64_t> dist;
  core::resize_prefaulted(dist, count);
  std::memcpy(dist.data(), host.get(), count * sizeof(std::int64_t));
  if (kernel_ms) *kernel_ms += stop.ms_since(start);
  return dist;
}

}  // namespace

std::vector<std::int64_t> edit_distance_batch(std::span<const std::pair<ByteSpan, ByteSpan>> pairs,
                                              std::int64_t k, int device, double* kernel_ms,
                                              std::span<const ByteSpan> strings,
                                              std::span<const std::pair<std::uint32_t, std::uint32_t>> ids) {
  const StringTable table{strings, ids};
  if (!table.empty() && ids.size() != pairs.size())
    throw InvalidArgument("edit_distance_batch: one string-table entry per pair is needed");
  detail::require_device(device);
  DeviceGuard guard(device);
  std::vector<std::int64_t> out;
  core::resize_prefaulted(out, pairs.size());
  if (kernel_ms) *kernel_ms = 0;
  // Pairs whose shorter string fits 32 x 32 rows go to a batch kernel: up to 320 rows one
  // thread per pair (kernels::myers_thread_batch: for 4-10 words a lane group idles most of
  // its steps), with the pairs whose pattern has more than kThreadMaxSigma distinct bytes
  // rerun on the 8- or 16-lane group kernel; 321-512 and 513-1024 rows groups of 16 or 32
  // lanes.
  // Longer ones run one by one on the bit-parallel stripes.
  // The thread kernel's warps run as long as their slowest pair (most words x longest text):
  // a counting sort (O(pairs)) by (words, text length / 32) puts alike pairs in one warp,
  // largest first so that the blocks left for the end of the grid are the short ones. Each
  // pair's key is computed once, in the pass that groups the pairs, and the sort reads the
  // keys rather than the pairs again (with two more passes over the pairs the grouping and the
  // sort took about 1 ms per 100 K pairs on the 2-core development machine, more than the
  // kernel's 0.32 ms on the H200).
  constexpr std::size_t kTextBuckets = 32, kKeys = (kn::kThreadMaxWords + 1) * kTextBuckets;
  std::array<std::vector<std::size_t>, 3> by_group;
  std::vector<std::size_t> long_pairs;
  std::vector<std::uint16_t> keys;
  keys.reserve(pairs.size());
  by_group[0].reserve(pairs.size());
  std::vector<std::size_t> start(kKeys + 1, 0);
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const std::size_t la = pairs[i].first.size(), lb = pairs[i].second.size();
    const std::size_t shorter = std::min(la, lb), longer = std::max(la, lb);
    if (shorter <= 32 * static_cast<std::size_t>(kn::kThreadMaxWords)) {
      const auto key = static_cast<std::uint16_t>(((shorter + 31) / 32) * kTextBuckets +
                                                  std::min(kTextBuckets - 1, longer / 32));
      by_group[0].push_back(i);
      keys.push_back(key);
      ++start[key + 1];
    } else if (shorter <= 512) {
      by_group[1].push_back(i);
    } else if (shorter <= 1024) {
      by_group[2].push_back(i);
    } else {
      long_pairs.push_back(i);
    }
  }
  {
    for (std::size_t x = 0; x < kKeys; ++x) start[x + 1] += start[x];
    std::vector<std::size_t> sorted(by_group[0].size());
    for (std::size_t x = 0; x < by_group[0].size(); ++x) sorted[sorted.size() - 1 - start[keys[x]]++] = by_group[0][x];
    by_group[0] = std::move(sorted);
  }
  Stream stream(device);
  if (!by_group[0].empty()) {
    const std::vector<std::int64_t> dist = run_batch_kernel(pairs, by_group[0], 0, device, stream, kernel_ms, table);
    std::array<std::vector<std::size_t>, 2> rerun;  // 8 lanes (<= 256 rows), 16 lanes
    for (std::size_t x = 0; x < by_group[0].size(); ++x) {
      const std::size_t i = by_group[0][x];
      if (dist[x] == kn::kThreadNeedsGroup)
        rerun[std::min(pairs[i].first.size(), pairs[i].second.size()) <= 256 ? 0 : 1].push_back(i);
      else
        out[i] = bounded(dist[x], k);
    }
    for (int r = 0; r < 2; ++r) {
      if (rerun[r].empty()) continue;
      const std::vector<std::int64_t> again = run_batch_kernel(pairs, rerun[r], 8 << r, device, stream, kernel_ms, table);
      for (std::size_t x = 0; x < rerun[r].size(); ++x) out[rerun[r][x]] = bounded(again[x], k);
    }
  }
  for (int g = 1; g < 3; ++g) {
    const auto& members = by_group[g];
    if (members.empty()) continue;
    const std::vector<std::int64_t> dist = run_batch_kernel(pairs, members, 8 << g, device, stream, kernel_ms, table);
    for (std::size_t x = 0; x < members.size(); ++x) out[members[x]] = bounded(dist[x], k);
  }
  for (const std::size_t i : long_pairs) {
    const DistanceRun run = edit_distance(pairs[i].first, pairs[i].second, k, DistanceAlgorithm::myers_stripes, 0, device);
    if (kernel_ms) *kernel_ms += run.kernel_ms;
    out[i] = run.distance;
  }
  return out;
}

std::vector<std::int64_t> edit_distance_matrix(std::span<const ByteSpan> a, std::span<const ByteSpan> b,
                                               std::int64_t k, int device, double* kernel_ms) {
  const std::size_t na = a.size(), nb = b.size(), count = na * nb;
  if (kernel_ms) *kernel_ms = 0;
  if (count == 0) return {};
  std::size_t longest = 0;
  for (const ByteSpan& s : a) longest = std::max(longest, s.size());
  for (const ByteSpan& s : b) longest = std::max(longest, s.size());
  std::vector<ByteSpan> strings(a.begin(), a.end());
  strings.insert(strings.end(), b.begin(), b.end());
  if (longest > 32 * static_cast<std::size_t>(kn::kThreadMaxWords)) {
    // Some pair may need a lane group or the stripes: the general batch path, fed the string
    // table so each string still crosses the bus once.
    std::vector<std::pair<ByteSpan, ByteSpan>> pairs;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> ids;
    pairs.reserve(count);
    ids.reserve(count);
    for (std::size_t i = 0; i < na; ++i)
      for (std::size_t j = 0; j < nb; ++j) {
        pairs.emplace_back(a[i], b[j]);
        ids.emplace_back(static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(na + j));
      }
    return edit_distance_batch(pairs, k, device, kernel_ms, strings, ids);
  }
  detail::require_device(device);
  DeviceGuard guard(device);
  // Every pair fits one thread (<= 320 pattern rows): upload the string table and the strings
  // once, write the pairs' records on the device, run the thread kernel, bring the distances
  // back. Host work is O(|A| + |B|) besides the distances themselves.
  auto padded = [](std::size_t n) { return (n + 3) & ~std::size_t{3}; };
  const std::size_t table_bytes = strings.size() * sizeof(kn::StringRef);  // a multiple of 16
  std::size_t bytes_total = 0;
  for (const ByteSpan& s : strings) bytes_total += padded(s.size());
  const std::size_t upload = table_bytes + bytes_total;
  detail::StagingBuffer host(device);
  host.reserve(std::max(upload, count * sizeof(std::int64_t)));
  auto* table = reinterpret_cast<kn::StringRef*>(host.get());
  std::uint8_t* bytes = host.get() + table_bytes;
  std::size_t at = 0;
  for (std::size_t x = 0; x < strings.size(); ++x) {
    const ByteSpan s = strings[x];
    table[x] = kn::StringRef{static_cast<std::int64_t>(at), static_cast<std::int64_t>(s.size())};
    if (!s.empty()) std::memcpy(bytes + at, s.data(), s.size());
    if (padded(s.size()) > s.size()) std::memset(bytes + at + s.size(), 0, padded(s.size()) - s.size());
    at += padded(s.size());
  }
  Stream stream(device);
  detail::AsyncDeviceBuffer dupload(device, stream.get(), upload);
  detail::AsyncDeviceBuffer dpairs(device, stream.get(), count * sizeof(kn::BatchPair));
  detail::AsyncDeviceBuffer ddist_bytes(device, stream.get(), count * sizeof(std::int64_t));
  auto* ddist = reinterpret_cast<std::int64_t*>(ddist_bytes.get());
  auto* dpair = reinterpret_cast<kn::BatchPair*>(dpairs.get());
  WARPMATCH_CUDA_CHECK(device, cudaMemcpyAsync(dupload.get(), host.get(), upload, cudaMemcpyHostToDevice, stream.get()));
  Event start(device, true), stop(device, true);
  start.record(stream.get());
  const auto n = static_cast<std::int64_t>(count);
  const auto blocks = static_cast<unsigned>((n + kn::kThreadBlock - 1) / kn::kThreadBlock);
  kn::matrix_pairs<<<blocks, kn::kThreadBlock, 0, stream.get()>>>(
      reinterpret_cast<const kn::StringRef*>(dupload.get()), static_cast<std::int64_t>(na),
      static_cast<std::int64_t>(nb), dpair);
  check_launch("matrix_pairs", device);
  kn::myers_thread_batch<<<blocks, kn::kThreadBlock, 0, stream.get()>>>(dupload.get() + table_bytes, dpair, n, ddist);
  check_launch("myers_thread_batch", device);
  stop.record(stream.get());
  WARPMATCH_CUDA_CHECK(device, cudaMemcpyAsync(host.get(), ddist, count * sizeof(std::int64_t),
                                               cudaMemcpyDeviceToHost, stream.get()));
  stream.synchronize();
  if (kernel_ms) *kernel_ms += stop.ms_since(start);
  std::vector<std::int64_t> out(count);
  std::memcpy(out.data(), host.get(), count * sizeof(std::int64_t));
  // Patterns with more distinct bytes than the thread kernel keeps in registers: the batch
  // path's lane groups, as edit_distance_batch reruns them.
  std::vector<std::size_t> rerun;
  for (std::size_t x = 0; x < count; ++x) {
    if (out[x] == kn::kThreadNeedsGroup) rerun.push_back(x);
    else out[x] = bounded(out[x], k);
  }
  if (!rerun.empty()) {
    std::vector<std::pair<ByteSpan, ByteSpan>> pairs;
    pairs.reserve(rerun.size());
    for (const std::size_t x : rerun) pairs.emplace_back(a[x / nb], b[x % nb]);
    double more_ms = 0;
    const std::vector<std::int64_t> again = edit_distance_batch(pairs, k, device, &more_ms);
    for (std::size_t r = 0; r < rerun.size(); ++r) out[rerun[r]] = again[r];
    if (kernel_ms) *kernel_ms += more_ms;
  }
  return out;
}

}  // namespace warpmatch::cuda
