// CUDA approximate search, host side: uploads each pattern's tables once, copies the text to
// the device once per segment (all patterns run against it) and launches a Myers kernel or the
// paper's wavefront kernel. Myers: the kernel itself reports the ends within k (best mode:
// a few candidates per thread, see logic::EndReporter) into a hit buffer; one copy brings back the
// count, the minimum and the first hits; the host keeps the best ones and sorts them.
// Wavefront (the paper): distances of every end, a warp-shuffle minimum, then
// cub::DeviceSelect compacts the hits on the device.
// Starts and CIGARs are recovered on the host by src/core for reported hits only.
#include <cooperative_groups.h>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdlib>
#include <memory>
#include <vector>

#include "core/approx_align.hpp"
#include "cuda/approx/approx_cuda.hpp"
#include "cuda/approx/hamming.hpp"
#include "cuda/approx/kernels.cuh"
#include "cuda/approx/seed_filter.hpp"
#include "cuda/approx/short_set.hpp"
#include "cuda/approx/timing.hpp"
#include "cuda/approx/tuning.hpp"
#include "cuda/runtime/device_runtime.cuh"
#include "cuda/runtime/devices.hpp"
#include "cuda/runtime/scratch_pool.hpp"
#include "cuda/runtime/tuning.hpp"

namespace warpmatch::cuda {

namespace {

using detail::DeviceBuffer;
using detail::Event;
using detail::PinnedBuffer;
using detail::Stream;

constexpr std::uint32_t kLaneMaxPerLane = 32;     // 32 lanes x 32 words x 32 bits
constexpr std::uint32_t kThreadMaxWords = 32;     // thread per chunk: m <= 1024
constexpr std::uint64_t kWavefrontMaxPattern = 32000;  // 3 x (m+1) x 2 bytes <= 192 KiB
constexpr std::uint64_t kTextPadding = 64;   // the kernels read whole 16-byte blocks

using logic::with_width;

template <class T>
void upload_vector(int device, DeviceBuffer<T>& to, const std::vector<T>& from) {
  to.reserve(from.size());
  WARPMATCH_CUDA_CHECK(device, cudaMemcpy(to.get(), from.data(), from.size() * sizeof(T), cudaMemcpyHostToDevice));
}

/// One pattern's device tables, uploaded once (approx_upload) and read by every scan.
struct PatternTables {
  PatternTables(const core::ApproxPattern& p, bool myers, std::uint32_t max_lanes, int shared_optin, int device)
      : pattern(p), code(device), thread_peq(device), lane_peq(device), bytes(device), fold(device) {
    shape = logic::myers_shape(static_cast<std::uint32_t>(p.size()), max_lanes);
    if (myers) upload_myers(device);
    else upload_wavefront(shared_optin, device);
  }

  core::ApproxPattern pattern;
  logic::MyersShape shape;
  // Myers: logic::EqTables on the device.
  std::uint32_t zero_row = 0;
  DeviceBuffer<std::uint8_t> code;
  std::uint32_t thread_width = 0;       // words per thread (0: m > 1024, lanes only)
  std::uint32_t thread_stride = 0;      // words per Eq row, padded
  std::uint32_t thread_pad = 0;         // dummy rows above the pattern
  DeviceBuffer<std::uint32_t> thread_peq;  // [rows][thread_stride]
  DeviceBuffer<std::uint32_t> lane_peq;    // [rows][shape.per_lane][32]
  DeviceBuffer<std::uint8_t> bytes;    // wavefront: the folded pattern
  DeviceBuffer<std::uint8_t> fold;     // wavefront: text byte -> pattern's view of it
  int thread_blocks_per_sm = 1;  // occupancy of its Myers kernels
  int lane_blocks_per_sm = 1;
  std::uint32_t rows() const { return zero_row + 1; }
  std::size_t thread_shared() const { return std::size_t{rows()} * thread_stride * 4; }
  bool lane_table_shared() const {
    return std::size_t{rows()} * shape.per_lane * 32 * 4 <= ApproxPolicy::lane_shared_table;
  }

 private:
  void upload_myers(int device) {
    const logic::EqTables t = logic::make_eq_tables(pattern, kThreadMaxWords, shape);
    zero_row = t.zero_row;
    upload_vector(device, code, t.code);
    thread_width = t.thread_width;
    thread_stride = t.thread_stride;
    thread_pad = t.thread_pad;
    if (t.thread_width) upload_vector(device, thread_peq, t.thread_table);
    upload_vector(device, lane_peq, t.lane_table);
    // Resident blocks per SM of the thread-per-chunk kernel and of the lane kernel (the
    // lane kernel's opt-in beyond 48 KiB of shared memory first).
    if (thread_width) with_width(thread_width, [&](auto w) {
      WARPMATCH_CUDA_CHECK(device, cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                                       &thread_blocks_per_sm, kernels::myers_thread_kernel<decltype(w)::value>,
                                       kernels::kMyersThreadThreads, thread_shared()));
    });
    thread_blocks_per_sm = std::max(1, thread_blocks_per_sm);
    with_width(shape.per_lane, [&](auto w) {
      constexpr int Q = decltype(w)::value;
      const bool shared = lane_table_shared();
      const std::size_t bytes = shared ? std::size_t{rows()} * Q * 32 * 4 : 0;
      if (bytes > 48 * 1024)
        WARPMATCH_CUDA_CHECK(device, cudaFuncSetAttribute(kernels::myers_lane_kernel<Q, true>,
                                                          cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                          static_cast<int>(bytes)));
      auto query = [&](auto kernel, std::size_t shared_bytes) {
        WARPMATCH_CUDA_CHECK(device, cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                                         &lane_blocks_per_sm, kernel, kernels::kMyersLaneThreads, shared_bytes));
      };
      if (shared) query(kernels::myers_lane_kernel<Q, true>, bytes);
      else query(kernels::myers_lane_kernel<Q, false>, 0);
    });
    lane_blocks_per_sm = std::clamp(lane_blocks_per_sm, 1, 32);
  }

  void upload_wavefront(int shared_optin, int device) {
    const core::ApproxPattern& p = pattern;
    const auto m = static_cast<std::uint32_t>(p.size());
    const std::size_t shared = 3 * (static_cast<std::size_t>(m) + 1) * sizeof(std::uint16_t);
    if (shared > static_cast<std::size_t>(shared_optin) - 2048)
      throw InvalidArgument("pattern of " + std::to_string(m) +
                            " bytes is too long for the wavefront kernel's shared-memory buffer on "
                            "this GPU (" + std::to_string(shared_optin) + " bytes per block)");
    std::vector<std::uint8_t> folded(256);
    for (int c = 0; c < 256; ++c) folded[c] = p.text_byte(static_cast<std::uint8_t>(c));
    upload_vector(device, bytes, p.bytes);
    upload_vector(device, fold, folded);
  }
};

/// One pattern's tables for `algorithm` on `device` (current), with the environment's lane cap.
std::unique_ptr<const PatternTables> upload_tables(const core::ApproxPattern& pattern, ApproxAlgorithm algorithm,
                                                   int device) {
  int shared_optin = 48 * 1024;
  WARPMATCH_CUDA_CHECK(device, cudaDeviceGetAttribute(&shared_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  const ApproxTuning tuning = approx_tuning();  // the policy and the environment's overrides
  const std::uint32_t max_lanes = tuning.max_lanes ? logic::pow2_at_least(tuning.max_lanes) : 0;
  auto tables = std::make_unique<const PatternTables>(pattern, algorithm != ApproxAlgorithm::wavefront, max_lanes,
                                                      shared_optin, device);
  detail::wait_for_uploads(device);
  return tables;
}

/// One pattern in one scan: its tables and this scan's query.
struct DevicePattern {
  const PatternTables& t;
  core::ApproxQuery query;
  std::uint32_t best_bound = UINT_MAX;  // best mode: an upper bound on the minimum (bound_best)
};

class ApproxRunner {
 public:
  ApproxRunner(int device, ApproxAlgorithm algorithm, int wavefront_blocks)
      : device_(device), algorithm_(algorithm), wavefront_blocks_(wavefront_blocks),
        text_(device), dist_(device), index_(device), gathered_(device), block_min_(device),
        scalars_(device, 3), hits_(device), staged_scalars_(device), staged_hits_(device), temp_(device),
        stream_(device), upload_(device) {
    // The kernels read the last 16-byte block whole (masked past the text's end).
    text_.zero_on_growth(stream_.get());
    // fetch_hits copies the buffer's first staged_hits entries before it knows the count
    // (one synchronisation instead of two).
    hits_.zero_on_growth(stream_.get(), ApproxPolicy::staged_hits);
    WARPMATCH_CUDA_CHECK(device, cudaDeviceGetAttribute(&multiprocessors_, cudaDevAttrMultiProcessorCount, device));
    staged_scalars_.reserve(3);
    staged_hits_.reserve(ApproxPolicy::staged_hits);
    const ApproxTuning tuning = approx_tuning();  // the policy and the environment's overrides
    hit_capacity_ = tuning.hit_capacity;
    latency_warps_ = tuning.latency_warps;
  }

  bool myers() const { return algorithm_ != ApproxAlgorithm::wavefront; }

  /// Copies text[from, to) to the device on the stream: from pinned host memory, pageable
  /// host memory (through the upload ring), or device-to-device from a DeviceSpan's text
  /// (peer-to-peer from another of the matcher's GPUs).
  void load_text(const std::uint8_t* source, std::uint64_t bytes) {
    text_.reserve(bytes + kTextPadding);
    text_bytes_ = bytes;
    upload_.copy(text_.get(), source, bytes, stream_.get());
  }

  /// Best mode (Myers): sets dp.best_bound to the minimum over the text's first m + 256
  /// bytes, found on the host while the text is being copied (any substring of them is one
  /// of the text, so the minimum is <= it). The kernels then need an overlap of m + bound
  /// instead of 2m: for m = 1024 on random '0'/'1' text about 1300 warm-up columns per chunk
  /// instead of 2048.
  void bound_best(DevicePattern& dp, ByteSpan text) const {
    // Longer patterns: O(m^2) host work, more than it saves.
    if (!myers() || dp.query.mode != core::ApproxMode::best || dp.t.pattern.size() > ApproxPolicy::bound_max_pattern) return;
    const std::size_t piece = std::min<std::size_t>(text.size(), dp.t.pattern.size() + 256);
    dp.best_bound = logic::minimum_distance(dp.t.pattern, text.first(piece));
  }

  /// Myers: launches the kernel over the device text's owned columns [own_lo, own_hi) for
  /// the ends with dist <= k (best: the minimum's, if <= k and <= dp.best_bound), with an
  /// overlap of m + that limit. Leaves the hits on the device; returns the threads launched.
  std::uint64_t launch_myers(DevicePattern& dp, std::uint64_t own_lo, std::uint64_t own_hi, bool best,
                             std::uint32_t k) {
    const std::uint64_t owned = own_hi - own_lo;
    if (best) k = std::min(k, dp.best_bound);  // only ends <= the bound can be the minimum
    const std::uint64_t overlap = core::approx_overlap(dp.t.pattern.size(), k);
    reserve_hits(std::min<std::uint64_t>(std::max<std::uint64_t>(owned, 1), hit_capacity_));
    std::uint32_t* init = staged_scalars_.get();
    init[0] = 0;         // count
    init[1] = UINT_MAX;  // minimum
    init[2] = UINT_MAX;  // smallest minimum with more ends than a thread keeps
    WARPMATCH_CUDA_CHECK(device_, cudaMemcpyAsync(scalars_.get(), init, 12, cudaMemcpyHostToDevice, stream_.get()));
    const auto capacity = static_cast<std::uint32_t>(std::min<std::size_t>(hits_.size(), 0xffffffffu));
    const kernels::HitSink sink{hits_.get(), capacity, scalars_.get(), scalars_.get() + 1, scalars_.get() + 2};
    const auto m = static_cast<std::uint32_t>(dp.t.pattern.size());
    const std::uint32_t blocks_end = static_cast<std::uint32_t>((text_bytes_ + 15) / 16 * 16);
    if (use_threads(dp, owned, overlap)) {
      const std::uint64_t resident = thread_resident(dp) * multiprocessors_;
      std::uint64_t chunk = dp.query.chunk_ends ? dp.query.chunk_ends : (owned + resident - 1) / resident;
      chunk = std::clamp<std::uint64_t>(chunk, 1, std::uint64_t{1} << 30);
      const std::uint64_t threads = (owned + chunk - 1) / chunk;
      const std::uint64_t blocks = (threads + kernels::kMyersThreadThreads - 1) / kernels::kMyersThreadThreads;
      const std::size_t shared = dp.t.thread_shared();
      with_width(dp.t.thread_width, [&](auto w) {
        constexpr int W = decltype(w)::value;
        kernels::myers_thread_kernel<W><<<static_cast<unsigned>(blocks), kernels::kMyersThreadThreads, shared,
                                          stream_.get()>>>(
            text_.get(), blocks_end, static_cast<std::uint32_t>(own_lo), static_cast<std::uint32_t>(own_hi),
            static_cast<std::uint32_t>(chunk), static_cast<std::uint32_t>(overlap), dp.t.thread_peq.get(),
            dp.t.code.get(), dp.t.rows() * dp.t.thread_stride, dp.t.thread_stride, m, dp.t.thread_pad, k, best, sink);
        detail::check_launch("myers_thread_kernel", device_);
      });
      return blocks * kernels::kMyersThreadThreads;
    }
    const logic::MyersShape& s = dp.t.shape;
    const std::uint64_t groups_per_warp = 32 / s.group;
    // Warm-up steps of a chunk: the overlap, its rounding down to 16 bytes, the pipeline skew.
    const std::uint64_t warm = overlap + 15 + s.group - 1;
    std::uint64_t chunk = dp.query.chunk_ends ? dp.query.chunk_ends : lane_chunk(dp, owned, warm, groups_per_warp);
    chunk = std::clamp<std::uint64_t>(chunk, 1, std::uint64_t{1} << 30);
    const std::uint64_t groups = (owned + chunk - 1) / chunk;
    const std::uint64_t warps = (groups + groups_per_warp - 1) / groups_per_warp;
    const std::uint64_t blocks = (warps * 32 + kernels::kMyersLaneThreads - 1) / kernels::kMyersLaneThreads;
    if (blocks > 0x7fffffffull) throw InvalidArgument("text too large for one kernel launch");
    const bool shared = dp.t.lane_table_shared();
    const std::uint32_t table_words = dp.t.rows() * s.per_lane * 32;
    with_width(s.per_lane, [&](auto w) {
      constexpr int Q = decltype(w)::value;
      auto launch = [&](auto kernel, std::size_t bytes) {
        if (bytes > 48 * 1024)
          WARPMATCH_CUDA_CHECK(device_, cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                             static_cast<int>(bytes)));
        kernel<<<static_cast<unsigned>(blocks), kernels::kMyersLaneThreads, bytes, stream_.get()>>>(
            text_.get(), blocks_end, static_cast<std::uint32_t>(own_lo), static_cast<std::uint32_t>(own_hi),
            static_cast<std::uint32_t>(chunk), static_cast<std::uint32_t>(overlap), dp.t.lane_peq.get(), dp.t.code.get(),
            table_words, dp.t.zero_row, m, s.lanes, s.pad, s.group, k, best, sink);
        detail::check_launch("myers_lane_kernel", device_);
      };
      if (shared) launch(kernels::myers_lane_kernel<Q, true>, std::size_t{table_words} * 4);
      else launch(kernels::myers_lane_kernel<Q, false>, 0);
    });
    return blocks * kernels::kMyersLaneThreads;
  }

  /// Room for `count` hits (their staged prefix zeroed when allocated: see the constructor).
  void reserve_hits(std::uint64_t count) { hits_.reserve(count); }

  /// Myers: the hits of the last launch (unordered), with the minimum and the overflow flag
  /// in staged_scalars_; re-runs the launch (`relaunch`) with a larger buffer if they
  /// overflowed it. One synchronisation when they fit in the staged prefix.
  template <class Relaunch>
  std::vector<std::uint64_t> fetch_hits(Relaunch&& relaunch) {
    std::uint32_t count = 0;
    for (;;) {
      WARPMATCH_CUDA_CHECK(device_, cudaMemcpyAsync(staged_scalars_.get(), scalars_.get(), 12, cudaMemcpyDeviceToHost,
                                                    stream_.get()));
      WARPMATCH_CUDA_CHECK(device_, cudaMemcpyAsync(staged_hits_.get(), hits_.get(),
                                                    std::min<std::size_t>(ApproxPolicy::staged_hits, hits_.size()) * 8,
                                                    cudaMemcpyDeviceToHost, stream_.get()));
      stream_.synchronize();
      count = staged_scalars_.get()[0];
      if (count <= hits_.size()) break;
      reserve_hits(count);  // overflow (e.g. a flood of hits): once more with room for all
      relaunch();
    }
    std::vector<std::uint64_t> packed(staged_hits_.get(), staged_hits_.get() + std::min(count, ApproxPolicy::staged_hits));
    if (count > ApproxPolicy::staged_hits) {
      packed.resize(count);
      WARPMATCH_CUDA_CHECK(device_, cudaMemcpyAsync(packed.data() + ApproxPolicy::staged_hits, hits_.get() + ApproxPolicy::staged_hits,
                                                    (count - ApproxPolicy::staged_hits) * 8ull, cudaMemcpyDeviceToHost,
                                                    stream_.get()));
      stream_.synchronize();
    }
    return packed;
  }

  /// Myers, after launch(): appends the hits to `out` in end order with end = end_base +
  /// index + 1; best mode: the ends of the minimum (returned; UINT_MAX when above k).
  std::uint32_t finish_myers(DevicePattern& dp, std::uint64_t own_lo, std::uint64_t own_hi, std::uint64_t end_base,
                             std::vector<core::EndHit>& out) {
    const std::uint32_t k = dp.query.k;
    const bool best = dp.query.mode == core::ApproxMode::best;
    std::vector<std::uint64_t> packed = fetch_hits([&] { launch_myers(dp, own_lo, own_hi, best, k); });
    std::uint32_t low = UINT_MAX;
    if (best) {
      low = staged_scalars_.get()[1];
      if (low > k) return UINT_MAX;
      if (staged_scalars_.get()[2] == low) {  // a thread had more ends at the minimum than it keeps
        launch_myers(dp, own_lo, own_hi, false, low);
        packed = fetch_hits([&] { launch_myers(dp, own_lo, own_hi, false, low); });
      } else {
        std::erase_if(packed, [&](std::uint64_t h) { return static_cast<std::uint32_t>(h) != low; });
      }
    }
    std::sort(packed.begin(), packed.end());  // by index: the kernels emit in no particular order
    out.reserve(out.size() + packed.size());
    for (const std::uint64_t h : packed) out.push_back({end_base + (h >> 32) + 1, static_cast<std::uint32_t>(h)});
    return low;
  }

  /// Wavefront: runs the paper's kernel over the device text's owned columns [own_lo,
  /// own_hi) and leaves dist[0, own_hi - own_lo) on the device. Returns the threads launched.
  std::uint64_t run_wavefront(const DevicePattern& dp, std::uint64_t own_lo, std::uint64_t own_hi) {
    const std::uint64_t owned = own_hi - own_lo;
    const std::uint64_t overlap = core::approx_overlap(dp.t.pattern.size(), dp.query.k);
    dist_.reserve(owned);
    const auto m = static_cast<std::uint32_t>(dp.t.pattern.size());
    // D pieces of `piece` owned columns each, read with the overlap before them.
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
        text_.get(), own_lo, own_hi, piece, overlap, dp.t.bytes.get(), dp.t.fold.get(), m, dist_.get(),
        block_min_.get());
    detail::check_launch("wavefront_kernel", device_);
    last_pieces_ = pieces;
    return pieces * threads;
  }

  /// Wavefront: the minimum of the pieces' minima (the paper's final warp-shuffle min), on
  /// the stream; synchronises and returns it.
  std::uint32_t minimum() {
    WARPMATCH_CUDA_CHECK(device_, cudaMemsetAsync(scalars_.get() + 1, 0xff, 4, stream_.get()));
    const std::uint64_t count = last_pieces_;
    const unsigned blocks = static_cast<unsigned>(
        std::min<std::uint64_t>((count + kernels::kReduceThreads - 1) / kernels::kReduceThreads,
                                static_cast<std::uint64_t>(multiprocessors_) * 8));
    kernels::min_reduce_kernel<<<std::max(1u, blocks), kernels::kReduceThreads, 0, stream_.get()>>>(
        block_min_.get(), count, scalars_.get() + 1);
    detail::check_launch("min_reduce_kernel", device_);
    WARPMATCH_CUDA_CHECK(device_, cudaMemcpyAsync(staged_scalars_.get() + 1, scalars_.get() + 1, 4,
                                                  cudaMemcpyDeviceToHost, stream_.get()));
    stream_.synchronize();
    return staged_scalars_.get()[1];
  }

  /// Wavefront: compacts the ends with dist <= limit (or == limit) in order; appends them to
  /// `out` as EndHits with end = end_base + index + 1.
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

  /// Starts one pattern's search kernel over owned columns [own_lo, own_hi) of the device
  /// text (on the stream); returns the threads launched.
  std::uint64_t launch(DevicePattern& dp, std::uint64_t own_lo, std::uint64_t own_hi) {
    return myers() ? launch_myers(dp, own_lo, own_hi, dp.query.mode == core::ApproxMode::best, dp.query.k)
                   : run_wavefront(dp, own_lo, own_hi);
  }

  /// After launch(): appends the hits to `out` in end order (best mode: those equal to the
  /// minimum) and returns the minimum distance within k (best mode; else or none: UINT_MAX).
  std::uint32_t finish(DevicePattern& dp, std::uint64_t own_lo, std::uint64_t own_hi, std::uint64_t end_base,
                       std::vector<core::EndHit>& out) {
    if (myers()) return finish_myers(dp, own_lo, own_hi, end_base, out);
    const std::uint64_t owned = own_hi - own_lo;
    if (dp.query.mode == core::ApproxMode::all_within_k) {
      select(owned, dp.query.k, /*equal=*/false, end_base, out);
      return UINT_MAX;
    }
    const std::uint32_t b = minimum();
    if (b > dp.query.k) return UINT_MAX;
    select(owned, b, /*equal=*/true, end_base, out);
    return b;
  }

  Stream& stream() { return stream_; }

 private:
  /// Resident threads per SM of the thread-per-chunk kernel for this pattern.
  static std::uint64_t thread_resident(const DevicePattern& dp) {
    return static_cast<std::uint64_t>(dp.t.thread_blocks_per_sm) * kernels::kMyersThreadThreads;
  }

  /// Thread per chunk when every resident thread gets a chunk of >= 4x the overlap (the
  /// re-read columns then cost <= 20 %); else the lane pipeline, which splits the pattern
  /// instead of the text.
  bool use_threads(DevicePattern& dp, std::uint64_t owned, std::uint64_t overlap) {
    if (dp.t.thread_width == 0 || algorithm_ == ApproxAlgorithm::myers_lanes) return false;
    if (algorithm_ == ApproxAlgorithm::myers_threads) return true;
    return owned >= thread_resident(dp) * multiprocessors_ * 4 * (overlap + 16);
  }

  /// Owned ends per lane group (the text split) of the lane kernel. Every group runs
  /// chunk + warm steps in lockstep, so the split trades parallelism against the overlap's
  /// recomputation. With b resident 4-warp blocks per SM (b warps per SMSP, one wave) the
  /// time is ~ steps(b) x max(b, latency_warps_) issue slots: below latency_warps_ warps an
  /// SMSP waits on the step's dependency chain (shuffle, Myers step). We take the cheapest b
  /// and prefer the largest within 3 % of it (more latency slack).
  std::uint64_t lane_chunk(DevicePattern& dp, std::uint64_t owned, std::uint64_t warm,
                           std::uint64_t groups_per_warp) {
    if (owned == 0) return 1;
    const std::uint64_t groups_per_block = kernels::kMyersLaneThreads / 32 * groups_per_warp;
    const int resident = dp.t.lane_blocks_per_sm;
    double cost[33] = {};
    std::uint64_t chunks[33] = {};
    double best = 0;
    for (int b = 1; b <= resident; ++b) {
      const std::uint64_t groups = static_cast<std::uint64_t>(multiprocessors_) * b * groups_per_block;
      chunks[b] = std::max<std::uint64_t>(1, (owned + groups - 1) / groups);
      cost[b] = static_cast<double>(chunks[b] + warm) * std::max(static_cast<double>(b), latency_warps_);
      if (b == 1 || cost[b] < best) best = cost[b];
    }
    for (int b = resident; b >= 1; --b)
      if (cost[b] <= best * 1.03) return chunks[b];
    return chunks[1];
  }

  int device_;
  ApproxAlgorithm algorithm_;
  int wavefront_blocks_;
  int multiprocessors_ = 1;
  std::uint64_t last_pieces_ = 0;
  std::uint64_t text_bytes_ = 0;
  std::uint64_t hit_capacity_ = ApproxPolicy::hit_capacity;  // first hit buffer, grown on overflow
  double latency_warps_ = ApproxPolicy::latency_warps;  // see ApproxPolicy
  DeviceBuffer<std::uint8_t> text_;
  DeviceBuffer<std::uint32_t> dist_, index_, gathered_, block_min_;  // wavefront
  DeviceBuffer<std::uint32_t> scalars_;  // [0] hit / selected count, [1] minimum, [2] Myers overflow
  DeviceBuffer<std::uint64_t> hits_;     // myers: (index << 32) | distance
  PinnedBuffer<std::uint32_t> staged_scalars_;
  PinnedBuffer<std::uint64_t> staged_hits_;
  DeviceBuffer<std::uint8_t> temp_;
  Stream stream_;
  detail::TextUpload upload_;  // after the stream: destroyed (its DMA awaited) first
};

/// Owned ends per device segment: the policy's (WARPMATCH_APPROX_SEGMENT_ENDS: tests' seams),
/// fewer when the device has less left (its free memory or the device-memory cap's
/// remainder): a segment takes its text and up to one 8-byte hit per end, and half of what
/// is left is kept for the rest (wavefront buffers, CUB's temporary storage).
std::uint64_t segment_ends_that_fit(int device, std::uint64_t text_bytes) {
  const std::uint64_t policy = approx_tuning().segment_ends;
  const std::uint64_t fits =
      std::max(detail::device_memory_available(device) / 2 / (1 + 8), RuntimePolicy::min_chunk_bytes);
  if (fits < std::min(policy, text_bytes)) detail::note_smaller_chunks(device, "approximate search", fits, policy);
  return std::min(policy, fits);
}

/// Runs every pattern on one device segment [seg_from, seg_own_end) of the text whose owned
/// ends start at seg_own_begin; best[] and out[] carry state across segments.
void run_segment(ApproxRunner& runner, std::vector<DevicePattern>& patterns,
                 std::uint64_t seg_from, std::uint64_t seg_own_begin, std::uint64_t seg_own_end,
                 std::vector<std::uint32_t>& best, std::vector<std::vector<core::EndHit>>& out) {
  const std::uint64_t own_lo = seg_own_begin - seg_from, own_hi = seg_own_end - seg_from;
  for (std::size_t p = 0; p < patterns.size(); ++p) {
    DevicePattern& dp = patterns[p];
    runner.launch(dp, own_lo, own_hi);
    if (dp.query.mode == core::ApproxMode::all_within_k) {
      runner.finish(dp, own_lo, own_hi, seg_own_begin, out[p]);
      continue;
    }
    std::vector<core::EndHit> hits;
    const std::uint32_t segment_best = runner.finish(dp, own_lo, own_hi, seg_own_begin, hits);
    if (segment_best == UINT_MAX || segment_best > best[p]) continue;
    if (segment_best < best[p]) {
      out[p].clear();
      best[p] = segment_best;
    }
    out[p].insert(out[p].end(), hits.begin(), hits.end());
  }
}

}  // namespace

std::uint64_t approx_max_pattern_length(ApproxAlgorithm algorithm) {
  switch (algorithm) {
    case ApproxAlgorithm::wavefront: return kWavefrontMaxPattern;
    case ApproxAlgorithm::myers_threads: return std::uint64_t{kThreadMaxWords} * 32;
    default: return std::uint64_t{kLaneMaxPerLane} * 32 * 32;
  }
}

class ApproxDevicePatterns : detail::DeviceOwner {
 public:
  ApproxDevicePatterns(const std::vector<core::ApproxPattern>& patterns, const std::vector<core::ApproxQuery>& queries,
                       ApproxAlgorithm algorithm, int wavefront_blocks, int device)
      : DeviceOwner(device), device(device), algorithm(algorithm), wavefront_blocks(wavefront_blocks), count(patterns.size()) {
    // Sets of short patterns (m <= 64, edit distance or Hamming) under the automatic algorithm:
    // one pass of the set kernel over the text (short_set.cu) instead of a launch per pattern.
    if (algorithm == ApproxAlgorithm::myers && short_set_applies(patterns)) {
      short_set = short_set_upload(patterns, queries, device);
      // The seed filter beside it where the set qualifies (no IUPAC, every end within k, pieces
      // of >= 4 bytes; not under the tile test hook); each scan picks one (seed_filter_pays).
      const bool hooked = std::any_of(queries.begin(), queries.end(), [](const auto& q) { return q.chunk_ends != 0; });
      if (!hooked && seed_filter_use() != SeedFilterUse::never) {
        std::vector<std::uint32_t> all(patterns.size());
        for (std::uint32_t i = 0; i < all.size(); ++i) all[i] = i;
        if (auto plan = core::plan_seeds(patterns, all, queries)) {
          seed = seed_filter_upload(std::move(plan), device);
          seed_queries = queries;
        }
      }
      return;
    }
    // Hamming search (substitutions only) has its own kernel; the option is the matcher's, so
    // every pattern of the set has it or none does.
    if (!patterns.empty() && patterns.front().hamming) {
      hamming = hamming_upload(patterns, device);
      return;
    }
    for (std::size_t p = 0; p < patterns.size(); ++p) {
      if (patterns[p].size() > approx_max_pattern_length(algorithm))
        throw InvalidArgument("pattern " + std::to_string(p) + " too long for the cuda kernel");
      tables.push_back(upload_tables(patterns[p], algorithm, device));
    }
  }
  ~ApproxDevicePatterns() { free_on_device(); }
  ApproxDevicePatterns(const ApproxDevicePatterns&) = delete;
  ApproxDevicePatterns& operator=(const ApproxDevicePatterns&) = delete;

  int device;
  ApproxAlgorithm algorithm;
  int wavefront_blocks;
  std::size_t count;
  std::shared_ptr<const ShortSetDevice> short_set;        // the set kernel's route (and
  std::shared_ptr<const SeedFilterDevice> seed;           //  the seed filter's beside it), or
  std::vector<core::ApproxQuery> seed_queries;            // what the filter was planned for
  mutable std::atomic<int> seed_choice{0};                 // 0 undecided, 1 the filter, 2 the set kernel
  std::shared_ptr<const HammingDevicePatterns> hamming;   // the Hamming kernel's, or
  std::vector<std::unique_ptr<const PatternTables>> tables;  // one kernel launch per pattern
  mutable detail::ScratchPool<ApproxRunner> scratches;
};

std::shared_ptr<const ApproxDevicePatterns> approx_upload(const std::vector<core::ApproxPattern>& patterns,
                                                          const std::vector<core::ApproxQuery>& queries,
                                                          ApproxAlgorithm algorithm, int wavefront_blocks,
                                                          int device) {
  detail::require_device(device);
  if (queries.size() != patterns.size()) throw InvalidArgument("approx_upload: one query per pattern");
  detail::DeviceGuard guard(device);
  return std::make_shared<const ApproxDevicePatterns>(patterns, queries, algorithm, wavefront_blocks, device);
}

namespace {

/// Whether this scan of a set takes the seed filter (else the set kernel): where the filter
/// was planned for these queries, decided once per matcher, on the first text large enough to
/// sample (or forced by WARPMATCH_APPROX_SEED_FILTER).
bool takes_seed_filter(const ApproxDevicePatterns& uploaded, const std::vector<core::ApproxQuery>& queries,
                       ByteSpan text) {
  if (!uploaded.seed || !std::equal(queries.begin(), queries.end(), uploaded.seed_queries.begin(),
                                    uploaded.seed_queries.end(), [](const auto& a, const auto& b) {
                                      return a.mode == b.mode && a.k == b.k && a.chunk_ends == b.chunk_ends;
                                    }))
    return false;
  int choice = seed_filter_use() == SeedFilterUse::always ? 1 : uploaded.seed_choice.load(std::memory_order_relaxed);
  if (choice == 0 && text.size() >= SeedFilterPolicy{}.min_text_bytes) {
    choice = seed_filter_pays(*uploaded.seed, text) ? 1 : 2;
    uploaded.seed_choice.store(choice, std::memory_order_relaxed);
  }
  return choice == 1;
}

}  // namespace

std::vector<std::vector<core::EndHit>> approx_scan(const ApproxDevicePatterns& uploaded,
                                                   const std::vector<core::ApproxQuery>& queries, ByteSpan text) {
  if (queries.size() != uploaded.count) throw InvalidArgument("approx_scan: one query per pattern");
  detail::DeviceGuard guard(uploaded.device);
  if (takes_seed_filter(uploaded, queries, text))
    if (auto found = seed_filter_scan(*uploaded.seed, text, uploaded.count)) return std::move(*found);
  if (uploaded.short_set) return short_set_scan(*uploaded.short_set, queries, text);
  if (uploaded.hamming) return hamming_scan(*uploaded.hamming, queries, text);
  std::vector<std::vector<core::EndHit>> out(uploaded.count);
  if (text.empty()) return out;
  const auto runner = uploaded.scratches.take([&] {
    return std::make_unique<ApproxRunner>(uploaded.device, uploaded.algorithm, uploaded.wavefront_blocks);
  });
  std::vector<DevicePattern> patterns;
  patterns.reserve(uploaded.count);
  std::uint64_t overlap = 0;
  // bound_best reads the text's first m + 256 bytes on the host: a DeviceSpan's are copied
  // here first (only they: the rest goes device-to-device).
  std::vector<std::uint8_t> head_copy;
  ByteSpan head = text;
  const bool best_mode = std::any_of(queries.begin(), queries.end(),
                                     [](const core::ApproxQuery& q) { return q.mode == core::ApproxMode::best; });
  if (best_mode && detail::is_device_memory(text.data())) {
    std::uint64_t longest = 0;
    for (const auto& t : uploaded.tables) longest = std::max<std::uint64_t>(longest, t->pattern.size());
    head_copy.resize(std::min<std::uint64_t>(text.size(), longest + 256));
    copy_to_host({{head_copy.data(), text.data(), head_copy.size()}});
    head = head_copy;
  }
  for (std::size_t p = 0; p < uploaded.count; ++p) {
    patterns.push_back({*uploaded.tables[p], queries[p]});
    runner->bound_best(patterns.back(), head);
    overlap = std::max(overlap, core::approx_overlap(uploaded.tables[p]->pattern.size(), queries[p].k));
  }
  std::vector<std::uint32_t> best(uploaded.count, UINT_MAX);
  const std::uint64_t n = text.size();
  const std::uint64_t segment = segment_ends_that_fit(uploaded.device, n);
  for (std::uint64_t own_begin = 0; own_begin < n; own_begin += segment) {
    detail::chunk_fault_point(uploaded.device);
    const std::uint64_t own_end = std::min(n, own_begin + segment);
    const std::uint64_t from = own_begin > overlap ? own_begin - overlap : 0;
    runner->load_text(text.data() + from, own_end - from);
    run_segment(*runner, patterns, from, own_begin, own_end, best, out);
  }
  return out;
}

std::vector<std::vector<core::EndHit>> approx_scan(const std::vector<core::ApproxPattern>& patterns,
                                                   const std::vector<core::ApproxQuery>& queries,
                                                   ByteSpan text, ApproxAlgorithm algorithm,
                                                   int wavefront_blocks, int device) {
  return approx_scan(*approx_upload(patterns, queries, algorithm, wavefront_blocks, device), queries, text);
}

core::ApproxTiming time_approx(const core::ApproxPattern& pattern, const core::ApproxQuery& query, ByteSpan text,
                               ApproxAlgorithm algorithm, int wavefront_blocks, int device, int repeats) {
  detail::require_device(device);
  detail::DeviceGuard guard(device);
  if (text.size() > ApproxPolicy::segment_ends) throw InvalidArgument("time_approx: text larger than one device segment");
  ApproxRunner runner(device, algorithm, wavefront_blocks);
  const auto tables = upload_tables(pattern, algorithm, device);
  const auto dp = std::make_unique<DevicePattern>(DevicePattern{*tables, query});
  PinnedBuffer<std::uint8_t> pinned(device);
  pinned.reserve(text.size());
  std::copy(text.begin(), text.end(), pinned.get());
  const std::uint64_t n = text.size();
  core::ApproxTiming timing;
  Event start(device, true), launched(device, true), searched(device, true), stop(device, true);
  std::vector<double> search_ms, kernel_ms, total_ms;
  runner.load_text(pinned.get(), n);
  runner.stream().synchronize();
  for (int r = -1; r < std::max(1, repeats); ++r) {  // r = -1: warm-up
    // Resident: search kernel + minimum/compaction + hits back, text already on the device.
    std::vector<core::EndHit> hits;
    start.record(runner.stream().get());
    runner.bound_best(*dp, text);
    launched.record(runner.stream().get());
    timing.threads = runner.launch(*dp, 0, n);
    searched.record(runner.stream().get());
    timing.best = runner.finish(*dp, 0, n, 0, hits);
    stop.record(runner.stream().get());
    stop.synchronize();
    if (r >= 0) {
      search_ms.push_back(searched.ms_since(launched));
      kernel_ms.push_back(stop.ms_since(start));
    }
    timing.hits = hits.size();
    // End to end: the text copied from pinned host memory first.
    hits.clear();
    start.record(runner.stream().get());
    runner.load_text(pinned.get(), n);
    runner.bound_best(*dp, text);  // on the host while the text is copied
    runner.launch(*dp, 0, n);
    runner.finish(*dp, 0, n, 0, hits);
    stop.record(runner.stream().get());
    stop.synchronize();
    if (r >= 0) total_ms.push_back(stop.ms_since(start));
  }
  timing.search_ms = detail::median(search_ms);
  timing.kernel_ms = detail::median(kernel_ms);
  timing.end_to_end_ms = detail::median(total_ms);
  return timing;
}

core::ApproxSetTiming time_approx_set_route(const std::vector<core::ApproxPattern>& patterns,
                                            const std::vector<core::ApproxQuery>& queries, ByteSpan text,
                                            int device, int repeats) {
  const auto uploaded = approx_upload(patterns, queries, ApproxAlgorithm::myers, 0, device);
  if (!uploaded->short_set) throw InvalidArgument("time_approx_set_route: every pattern must be 1..64 bytes");
  detail::DeviceGuard guard(device);
  if (takes_seed_filter(*uploaded, queries, text))
    if (auto timed = time_seed_filter(*uploaded->seed, text, uploaded->count, repeats)) return *timed;
  return time_approx_set(patterns, queries, text, device, repeats);
}

}  // namespace warpmatch::cuda
