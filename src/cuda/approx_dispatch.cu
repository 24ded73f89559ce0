// CUDA approximate search, host side: uploads each pattern's tables once, copies the text to
// the device once per segment (all patterns run against it), launches the Myers or the
// wavefront kernel, finds the minimum (best mode) with a warp-shuffle reduction, and compacts
// the hits (end, distance) on the device with cub::DeviceSelect before copying them back.
// Starts and CIGARs are recovered on the host by src/core for reported hits only.
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <memory>
#include <vector>

#include "core/approx_align.hpp"
#include "cuda/approx_cuda.hpp"
#include "cuda/approx_kernels.cuh"
#include "cuda/device_runtime.cuh"

namespace warpmatch::cuda {

namespace {

using detail::DeviceBuffer;
using detail::Event;
using detail::PinnedBuffer;
using detail::Stream;

// Owned end positions per device segment: indices stay 32-bit and CUB's item count an int.
constexpr std::uint64_t kSegmentEnds = std::uint64_t{1} << 30;
constexpr std::uint32_t kMyersMaxPerLane = 32;  // 32 lanes x 32 words x 32 bits
constexpr std::uint64_t kWavefrontMaxPattern = 32000;  // 3 x (m+1) x 2 bytes <= 192 KiB
// Myers launches use blocks of 4 warps (one per SMSP), below the kernel's __launch_bounds__
// maximum (same register budget): the split can then give every SMSP 1, 2, 3, ... warps
// evenly instead of steps of 2 (see myers_chunk).
constexpr int kMyersLaunchThreads = 128;
static_assert(kMyersLaunchThreads % 32 == 0 && kMyersLaunchThreads <= kernels::kMyersBlockThreads);

/// One pattern's device tables.
struct DevicePattern {
  core::ApproxPattern pattern;
  core::ApproxQuery query;
  logic::MyersShape shape;
  DeviceBuffer<std::uint32_t> peq;     // myers: [256][words]
  DeviceBuffer<std::uint8_t> bytes;    // wavefront: the folded pattern
  DeviceBuffer<std::uint8_t> fold;     // wavefront: text byte -> pattern's view of it
  DevicePattern(int device) : peq(device), bytes(device), fold(device) {}
};

class ApproxRunner {
 public:
  ApproxRunner(int device, ApproxAlgorithm algorithm, int wavefront_blocks)
      : device_(device), algorithm_(algorithm), wavefront_blocks_(wavefront_blocks),
        text_(device), dist_(device), index_(device), gathered_(device), block_min_(device),
        scalars_(device, 2), temp_(device), stream_(device) {
    WARPMATCH_CUDA_CHECK(device, cudaDeviceGetAttribute(&multiprocessors_, cudaDevAttrMultiProcessorCount, device));
    WARPMATCH_CUDA_CHECK(device, cudaDeviceGetAttribute(&shared_optin_, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  }

  std::unique_ptr<DevicePattern> upload(const core::ApproxPattern& p, const core::ApproxQuery& q) {
    auto dp = std::make_unique<DevicePattern>(device_);
    dp->pattern = p;
    dp->query = q;
    const auto m = static_cast<std::uint32_t>(p.size());
    dp->shape = logic::myers_shape(m);
    if (algorithm_ == ApproxAlgorithm::myers) {
      const std::uint32_t words = dp->shape.words;
      std::vector<std::uint32_t> peq(256 * static_cast<std::size_t>(words), 0);
      for (int c = 0; c < 256; ++c) {
        const std::uint8_t t = p.text_byte(static_cast<std::uint8_t>(c));
        for (std::uint32_t i = 0; i < m; ++i)
          if (p.bytes[i] == t) peq[c * words + i / 32] |= 1u << (i % 32);
      }
      dp->peq.reserve(peq.size());
      WARPMATCH_CUDA_CHECK(device_, cudaMemcpy(dp->peq.get(), peq.data(), peq.size() * 4, cudaMemcpyHostToDevice));
    } else {
      const std::size_t shared = 3 * (static_cast<std::size_t>(m) + 1) * sizeof(std::uint16_t);
      if (shared > static_cast<std::size_t>(shared_optin_) - 2048)
        throw InvalidArgument("pattern of " + std::to_string(m) +
                              " bytes is too long for the wavefront kernel's shared-memory buffer on "
                              "this GPU (" + std::to_string(shared_optin_) + " bytes per block)");
      std::uint8_t fold[256];
      for (int c = 0; c < 256; ++c) fold[c] = p.text_byte(static_cast<std::uint8_t>(c));
      dp->bytes.reserve(m);
      dp->fold.reserve(256);
      WARPMATCH_CUDA_CHECK(device_, cudaMemcpy(dp->bytes.get(), p.bytes.data(), m, cudaMemcpyHostToDevice));
      WARPMATCH_CUDA_CHECK(device_, cudaMemcpy(dp->fold.get(), fold, 256, cudaMemcpyHostToDevice));
    }
    return dp;
  }

  /// Copies text[from, to) to the device (from pinned or pageable memory) on the stream.
  void load_text(const std::uint8_t* host, std::uint64_t bytes) {
    text_.reserve(bytes);
    if (bytes)
      WARPMATCH_CUDA_CHECK(device_, cudaMemcpyAsync(text_.get(), host, bytes, cudaMemcpyHostToDevice, stream_.get()));
  }

  /// Runs one pattern over the device text's owned columns [own_lo, own_hi) and leaves
  /// dist[0, own_hi - own_lo) on the device. Returns the number of threads launched.
  std::uint64_t run_kernel(const DevicePattern& dp, std::uint64_t own_lo, std::uint64_t own_hi) {
    const std::uint64_t owned = own_hi - own_lo;
    const std::uint64_t overlap = core::approx_overlap(dp.pattern.size(), dp.query.k);
    dist_.reserve(owned);
    const auto m = static_cast<std::uint32_t>(dp.pattern.size());
    if (algorithm_ == ApproxAlgorithm::myers) {
      const logic::MyersShape& s = dp.shape;
      const std::uint64_t groups_per_warp = 32 / s.group;
      std::uint64_t chunk = dp.query.chunk_ends
                                ? dp.query.chunk_ends
                                : myers_chunk(owned, overlap + s.group - 1, groups_per_warp, s.per_lane);
      chunk = std::min<std::uint64_t>(chunk, std::uint64_t{1} << 30);
      const std::uint64_t groups = (owned + chunk - 1) / chunk;
      const std::uint64_t warps = (groups + groups_per_warp - 1) / groups_per_warp;
      const std::uint64_t blocks = (warps * 32 + kMyersLaunchThreads - 1) / kMyersLaunchThreads;
      if (blocks > 0x7fffffffull) throw InvalidArgument("text too large for one kernel launch");
      launch_myers(s.per_lane, static_cast<unsigned>(blocks), own_lo, own_hi, chunk, overlap, dp.peq.get(), m,
                   s.words, s.group);
      return blocks * kMyersLaunchThreads;
    }
    // Wavefront: D pieces of `piece` owned columns each, read with the overlap before them.
    std::uint64_t pieces = wavefront_blocks_ > 0 ? static_cast<std::uint64_t>(wavefront_blocks_)
                                                 : static_cast<std::uint64_t>(multiprocessors_) * 2;
    pieces = std::max<std::uint64_t>(1, std::min(pieces, owned));
    const std::uint64_t piece = (owned + pieces - 1) / pieces;
    pieces = (owned + piece - 1) / piece;
    block_min_.reserve(pieces);
    const unsigned threads = static_cast<unsigned>(std::min<std::uint64_t>(1024, (m + 31) / 32 * 32));
    const std::size_t shared = 3 * (static_cast<std::size_t>(m) + 1) * sizeof(std::uint16_t);
    WARPMATCH_CUDA_CHECK(device_, cudaFuncSetAttribute(kernels::wavefront_kernel,
                                                       cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                       static_cast<int>(shared)));
    kernels::wavefront_kernel<<<static_cast<unsigned>(pieces), threads, shared, stream_.get()>>>(
        text_.get(), own_lo, own_hi, piece, overlap, dp.bytes.get(), dp.fold.get(), m, dist_.get(),
        block_min_.get());
    detail::check_launch("wavefront_kernel", device_);
    last_pieces_ = pieces;
    return pieces * threads;
  }

  /// The minimum of dist (myers) or of the pieces' minima (wavefront, the paper's final
  /// warp-shuffle min), on the stream; synchronises and returns it.
  std::uint32_t minimum(std::uint64_t owned) {
    WARPMATCH_CUDA_CHECK(device_, cudaMemsetAsync(scalars_.get() + 1, 0xff, 4, stream_.get()));
    const bool pieces = algorithm_ == ApproxAlgorithm::wavefront;
    const std::uint32_t* values = pieces ? block_min_.get() : dist_.get();
    const std::uint64_t count = pieces ? last_pieces_ : owned;
    const unsigned blocks = static_cast<unsigned>(
        std::min<std::uint64_t>((count + kernels::kReduceThreads - 1) / kernels::kReduceThreads,
                                static_cast<std::uint64_t>(multiprocessors_) * 8));
    kernels::min_reduce_kernel<<<std::max(1u, blocks), kernels::kReduceThreads, 0, stream_.get()>>>(
        values, count, scalars_.get() + 1);
    detail::check_launch("min_reduce_kernel", device_);
    std::uint32_t best = 0;
    WARPMATCH_CUDA_CHECK(device_, cudaMemcpyAsync(&best, scalars_.get() + 1, 4, cudaMemcpyDeviceToHost, stream_.get()));
    stream_.synchronize();
    return best;
  }

  /// Compacts the ends with dist <= limit (or == limit) in order; appends them to `out` as
  /// EndHits with end = end_base + index + 1.
  void select(std::uint64_t owned, std::uint32_t limit, bool equal, std::uint64_t end_base,
              std::vector<core::EndHit>& out) {
    if (owned == 0) return;
    index_.reserve(owned);
    gathered_.reserve(owned);
    const kernels::DistanceSelect predicate{dist_.get(), limit, equal};
    const thrust::counting_iterator<std::uint32_t> indices(0);
    const auto items = static_cast<std::int64_t>(owned);
    std::size_t temp_bytes = 0;
    WARPMATCH_CUDA_CHECK(device_, cub::DeviceSelect::If(nullptr, temp_bytes, indices, index_.get(), scalars_.get(),
                                                        items, predicate, stream_.get()));
    temp_.reserve(temp_bytes);
    WARPMATCH_CUDA_CHECK(device_, cub::DeviceSelect::If(temp_.get(), temp_bytes, indices, index_.get(),
                                                        scalars_.get(), items, predicate, stream_.get()));
    const unsigned blocks = static_cast<unsigned>(static_cast<std::uint64_t>(multiprocessors_) * 8);
    kernels::gather_kernel<<<blocks, 256, 0, stream_.get()>>>(dist_.get(), index_.get(), scalars_.get(),
                                                             gathered_.get());
    detail::check_launch("gather_kernel", device_);
    std::uint32_t count = 0;
    WARPMATCH_CUDA_CHECK(device_, cudaMemcpyAsync(&count, scalars_.get(), 4, cudaMemcpyDeviceToHost, stream_.get()));
    stream_.synchronize();
    if (count == 0) return;
    std::vector<std::uint32_t> idx(count), dist(count);
    WARPMATCH_CUDA_CHECK(device_, cudaMemcpyAsync(idx.data(), index_.get(), count * 4ull, cudaMemcpyDeviceToHost, stream_.get()));
    WARPMATCH_CUDA_CHECK(device_, cudaMemcpyAsync(dist.data(), gathered_.get(), count * 4ull, cudaMemcpyDeviceToHost, stream_.get()));
    stream_.synchronize();
    out.reserve(out.size() + count);
    for (std::uint32_t i = 0; i < count; ++i) out.push_back({end_base + idx[i] + 1, dist[i]});
  }

  Stream& stream() { return stream_; }

 private:
  void launch_myers(std::uint32_t per_lane, unsigned blocks, std::uint64_t own_lo, std::uint64_t own_hi,
                    std::uint64_t chunk, std::uint64_t overlap, const std::uint32_t* peq, std::uint32_t m,
                    std::uint32_t words, std::uint32_t group) {
    const dim3 grid(blocks), block(kMyersLaunchThreads);
    cudaStream_t s = stream_.get();
    std::uint8_t* t = text_.get();
    std::uint32_t* d = dist_.get();
#define WARPMATCH_MYERS_CASE(Q)                                                               \
  if (per_lane <= Q) {                                                                        \
    kernels::myers_kernel<Q><<<grid, block, 0, s>>>(t, own_lo, own_hi, chunk, overlap, peq, m, \
                                                     words, group, d);                        \
    detail::check_launch("myers_kernel<" #Q ">", device_);                                    \
    return;                                                                                   \
  }
    WARPMATCH_MYERS_CASE(1)
    WARPMATCH_MYERS_CASE(2)
    WARPMATCH_MYERS_CASE(4)
    WARPMATCH_MYERS_CASE(8)
    WARPMATCH_MYERS_CASE(16)
    WARPMATCH_MYERS_CASE(32)
#undef WARPMATCH_MYERS_CASE
    throw InvalidArgument("pattern too long for the cuda myers kernel");
  }

  /// Resident blocks per SM of the myers kernel instantiation serving `per_lane` (cached).
  int myers_resident_blocks(std::uint32_t per_lane) {
    int q = 0;
    while (q < 5 && (1u << q) < per_lane) ++q;
    if (myers_resident_[q] > 0) return myers_resident_[q];
    int blocks = 0;
    auto query = [&](auto kernel) {
      WARPMATCH_CUDA_CHECK(device_, cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                                        &blocks, kernel, kMyersLaunchThreads, 0));
    };
    switch (q) {
      case 0: query(kernels::myers_kernel<1>); break;
      case 1: query(kernels::myers_kernel<2>); break;
      case 2: query(kernels::myers_kernel<4>); break;
      case 3: query(kernels::myers_kernel<8>); break;
      case 4: query(kernels::myers_kernel<16>); break;
      default: query(kernels::myers_kernel<32>); break;
    }
    myers_resident_[q] = std::max(1, blocks);
    return myers_resident_[q];
  }

  /// Owned ends per lane group (the text split) of the myers kernel. Every group runs
  /// chunk + warm steps in lockstep (warm = overlap + group - 1: the m + k columns re-read
  /// before the chunk, plus the pipeline skew), so the split trades parallelism against the
  /// overlap's recomputation. Model, calibrated on the H200 numbers: the old split (enough
  /// groups for 64 warps per SM, chunk >= overlap / 2) gave m = 1024, n = 4 Mi: chunk 1024 ->
  /// 4096 groups = 4096 warps, ~31 per SM (~8 per SMSP), 3103 steps each = 12.7 M warp-steps
  /// of which only 4.2 M useful; 8 warps x 3103 steps x ~99 cycles / 1.98 GHz = 1.24 ms, the
  /// measured kernel time, and ~99 cycles per warp-step is also what the 1 GiB m = 256 run
  /// achieves at full occupancy: an SMSP is throughput-bound at ~99 cycles per warp-step
  /// once it holds more warps than one step's latency (~200-250 cycles) covers, ~2.5. So with
  /// b resident 4-warp blocks per SM (b warps per SMSP, one wave) the time is
  /// ~ steps(b) x max(b, 2.5) x 99 cycles. We try b = 1 .. the resident limit, take the
  /// cheapest and prefer the largest b within 3% of it (more latency slack at the same
  /// predicted time; large texts keep full occupancy exactly as before, e.g. 1 GiB m = 256:
  /// b = 16 = 64 warps per SM). m = 1024, n = 4 Mi: b = 3 -> 396 blocks, 1584 groups
  /// (12 warps per SM), chunk 2648, 4727 steps each, 7.5 M warp-steps: ~0.71 ms predicted
  /// instead of 1.24 ms (b = 2 would be ~0.6-0.75 ms depending on the latency, b = 4 0.81 ms).
  /// Results do not depend on the split: each chunk restarts the DP `overlap` columns early.
  std::uint64_t myers_chunk(std::uint64_t owned, std::uint64_t warm, std::uint64_t groups_per_warp,
                            std::uint32_t per_lane) {
    if (owned == 0) return 1;
    const std::uint64_t groups_per_block = kMyersLaunchThreads / 32 * groups_per_warp;
    const int resident = std::min(myers_resident_blocks(per_lane), 32);
    double cost[33] = {};
    std::uint64_t chunks[33] = {};
    double best = 0;
    for (int b = 1; b <= resident; ++b) {
      const std::uint64_t groups = static_cast<std::uint64_t>(multiprocessors_) * b * groups_per_block;
      chunks[b] = std::max<std::uint64_t>(1, (owned + groups - 1) / groups);
      cost[b] = static_cast<double>(chunks[b] + warm) * std::max(static_cast<double>(b), 2.5);
      if (b == 1 || cost[b] < best) best = cost[b];
    }
    std::uint64_t chunk = chunks[1];
    for (int b = resident; b >= 1; --b)
      if (cost[b] <= best * 1.03) {
        chunk = chunks[b];
        break;
      }
    return chunk;
  }

  int device_;
  ApproxAlgorithm algorithm_;
  int wavefront_blocks_;
  int multiprocessors_ = 1;
  int shared_optin_ = 48 * 1024;
  std::uint64_t last_pieces_ = 0;
  int myers_resident_[6] = {};
  DeviceBuffer<std::uint8_t> text_;
  DeviceBuffer<std::uint32_t> dist_, index_, gathered_, block_min_;
  DeviceBuffer<std::uint32_t> scalars_;  // [0] selected count, [1] minimum
  DeviceBuffer<std::uint8_t> temp_;
  Stream stream_;
};

/// Runs every pattern on one device segment [seg_from, seg_own_end) of the text whose owned
/// ends start at seg_own_begin; best[] and out[] carry state across segments.
void run_segment(ApproxRunner& runner, const std::vector<std::unique_ptr<DevicePattern>>& patterns,
                 std::uint64_t seg_from, std::uint64_t seg_own_begin, std::uint64_t seg_own_end,
                 std::vector<std::uint32_t>& best, std::vector<std::vector<core::EndHit>>& out) {
  const std::uint64_t own_lo = seg_own_begin - seg_from, own_hi = seg_own_end - seg_from;
  const std::uint64_t owned = own_hi - own_lo;
  for (std::size_t p = 0; p < patterns.size(); ++p) {
    const DevicePattern& dp = *patterns[p];
    runner.run_kernel(dp, own_lo, own_hi);
    if (dp.query.mode == core::ApproxMode::all_within_k) {
      runner.select(owned, dp.query.k, /*equal=*/false, seg_own_begin, out[p]);
      continue;
    }
    const std::uint32_t segment_best = runner.minimum(owned);
    if (segment_best > dp.query.k || segment_best > best[p]) continue;
    if (segment_best < best[p]) {
      out[p].clear();
      best[p] = segment_best;
    }
    runner.select(owned, segment_best, /*equal=*/true, seg_own_begin, out[p]);
  }
}

}  // namespace

std::uint64_t approx_max_pattern_length(ApproxAlgorithm algorithm) {
  return algorithm == ApproxAlgorithm::myers ? std::uint64_t{kMyersMaxPerLane} * 32 * 32 : kWavefrontMaxPattern;
}

std::vector<std::vector<core::EndHit>> approx_scan(const std::vector<core::ApproxPattern>& patterns,
                                                   const std::vector<core::ApproxQuery>& queries,
                                                   ByteSpan text, ApproxAlgorithm algorithm,
                                                   int wavefront_blocks, int device) {
  detail::require_device(device);
  detail::DeviceGuard guard(device);
  std::vector<std::vector<core::EndHit>> out(patterns.size());
  if (text.empty()) return out;
  ApproxRunner runner(device, algorithm, wavefront_blocks);
  std::vector<std::unique_ptr<DevicePattern>> uploaded;
  std::uint64_t overlap = 0;
  for (std::size_t p = 0; p < patterns.size(); ++p) {
    if (patterns[p].size() > approx_max_pattern_length(algorithm))
      throw InvalidArgument("pattern " + std::to_string(p) + " too long for the cuda kernel");
    uploaded.push_back(runner.upload(patterns[p], queries[p]));
    overlap = std::max(overlap, core::approx_overlap(patterns[p].size(), queries[p].k));
  }
  std::vector<std::uint32_t> best(patterns.size(), UINT_MAX);
  const std::uint64_t n = text.size();
  // Test hook: WARPMATCH_APPROX_SEGMENT_ENDS forces small device segments (segment seams).
  std::uint64_t segment = kSegmentEnds;
  if (const char* env = std::getenv("WARPMATCH_APPROX_SEGMENT_ENDS"))
    segment = std::clamp<std::uint64_t>(std::strtoull(env, nullptr, 10), 1, kSegmentEnds);
  for (std::uint64_t own_begin = 0; own_begin < n; own_begin += segment) {
    const std::uint64_t own_end = std::min(n, own_begin + segment);
    const std::uint64_t from = own_begin > overlap ? own_begin - overlap : 0;
    runner.load_text(text.data() + from, own_end - from);
    run_segment(runner, uploaded, from, own_begin, own_end, best, out);
  }
  return out;
}

ApproxTiming bench_approx(const core::ApproxPattern& pattern, const core::ApproxQuery& query, ByteSpan text,
                          ApproxAlgorithm algorithm, int wavefront_blocks, int device, int repeats) {
  detail::require_device(device);
  detail::DeviceGuard guard(device);
  if (text.size() > kSegmentEnds) throw InvalidArgument("bench_approx: text larger than one device segment");
  ApproxRunner runner(device, algorithm, wavefront_blocks);
  const auto dp = runner.upload(pattern, query);
  PinnedBuffer<std::uint8_t> pinned(device);
  pinned.reserve(text.size());
  std::copy(text.begin(), text.end(), pinned.get());
  const std::uint64_t n = text.size();
  ApproxTiming timing;
  Event start(device, true), searched(device, true), stop(device, true);
  std::vector<double> search_ms, kernel_ms, total_ms;
  runner.load_text(pinned.get(), n);
  runner.stream().synchronize();
  for (int r = -1; r < std::max(1, repeats); ++r) {  // r = -1: warm-up
    // Resident: kernels + minimum/compaction + hits back, text already on the device.
    std::vector<std::uint32_t> best(1, UINT_MAX);
    std::vector<std::vector<core::EndHit>> hits(1);
    start.record(runner.stream().get());
    timing.threads = runner.run_kernel(*dp, 0, n);
    searched.record(runner.stream().get());
    if (query.mode == core::ApproxMode::all_within_k) {
      runner.select(n, query.k, false, 0, hits[0]);
    } else {
      const std::uint32_t b = runner.minimum(n);
      if (b <= query.k) runner.select(n, b, true, 0, hits[0]);
      timing.best = b;
    }
    stop.record(runner.stream().get());
    stop.synchronize();
    if (r >= 0) {
      search_ms.push_back(searched.ms_since(start));
      kernel_ms.push_back(stop.ms_since(start));
    }
    timing.hits = hits[0].size();
    // End to end: the text copied from pinned host memory first.
    hits[0].clear();
    start.record(runner.stream().get());
    runner.load_text(pinned.get(), n);
    runner.run_kernel(*dp, 0, n);
    if (query.mode == core::ApproxMode::all_within_k) {
      runner.select(n, query.k, false, 0, hits[0]);
    } else {
      const std::uint32_t b = runner.minimum(n);
      if (b <= query.k) runner.select(n, b, true, 0, hits[0]);
    }
    stop.record(runner.stream().get());
    stop.synchronize();
    if (r >= 0) total_ms.push_back(stop.ms_since(start));
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  timing.search_ms = median(search_ms);
  timing.kernel_ms = median(kernel_ms);
  timing.end_to_end_ms = median(total_ms);
  return timing;
}

}  // namespace warpmatch::cuda
