// Exact search on CUDA, host side: picks kernels and grids, streams host text through the
// device in overlapping chunks, orders hits and hands them to the sink; benchmark entries.
//
// Pipeline (see exact_scan below): chunks from core::plan_chunks overlap by m - 1 bytes, so
// each start position is owned by exactly one chunk. Two slots (stream + device buffers)
// alternate, so chunk i+1's copy (pageable text through the device's upload ring) runs while
// chunk i is searched. Counting
// never waits on the host until the end. Reporting counts each chunk first (per-segment
// counts, then a CUB scan: exact output offsets), then writes the hits in ascending order
// (fast) or appends and sorts them (bf), copies them back and calls the sink from this
// thread, one chunk behind the copies.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <memory>
#include <vector>

#include "core/chunking.hpp"
#include "cuda/runtime/device_runtime.cuh"
#include "cuda/runtime/scratch_pool.hpp"
#include "cuda/runtime/tuning.hpp"
#include "cuda/exact/exact_cuda.hpp"
#include "cuda/exact/kernels.cuh"
#include "cuda/exact/timing.hpp"
#include "cuda/exact/tuning.hpp"

namespace warpmatch::cuda {

namespace {

using detail::check_launch;
using detail::DeviceBuffer;
using detail::DeviceGuard;
using detail::Event;
using detail::PinnedBuffer;
using detail::Stream;
using detail::copies_directly;
using detail::median;
using detail::parallel_copy;
namespace kn = kernels;

/// Bytes past a chunk that kernels may load (16-byte vectors past the end, one look-ahead).
constexpr std::uint64_t kTextPadding = 64;

std::uint64_t round_up(std::uint64_t x, std::uint64_t to) { return (x + to - 1) / to * to; }

std::uint64_t positions_in(const core::Chunk& c, std::uint64_t m) {
  // Owned starts [begin, owned_end) whose occurrence fits before read_end.
  if (c.read_end - c.begin < m) return 0;
  return std::min(c.owned_end, c.read_end - m + 1) - c.begin;
}

// ---- kernel launch ----------------------------------------------------------------------

using kn::bf_kernel;
using kn::fast_kernel;

/// Per-stream scratch of the count kernels.
struct CountScratch {
  explicit CountScratch(int device) : block_totals(device), temp(device) {}
  DeviceBuffer<unsigned long long> block_totals;  // bf: one per block
  DeviceBuffer<std::uint8_t> temp;                // CUB temporary storage
};

/// The compiled pattern on one device plus the launch logic shared by the pipeline and the
/// benchmarks. Everything is enqueued on the caller's stream.
class ExactKernels {
 public:
  ExactKernels(const core::ExactPattern& pattern, ExactAlgorithm algorithm, int device)
      : device_(device), algorithm_(algorithm), pattern_bytes_(device) {
    const auto& bytes = pattern.bytes;
    const std::uint32_t m = static_cast<std::uint32_t>(bytes.size());
    fold_ = pattern.case_insensitive;
    params_ = kn::make_pattern_params(pattern);
    if (m > kn::kInlinePattern) {
      pattern_bytes_.reserve(m);
      WARPMATCH_CUDA_CHECK(device, cudaMemcpy(pattern_bytes_.get(), bytes.data(), m,
                                              cudaMemcpyHostToDevice));
      detail::wait_for_uploads(device);
      params_.global = pattern_bytes_.get();
    }
    WARPMATCH_CUDA_CHECK(device, cudaDeviceGetAttribute(&sms_, cudaDevAttrMultiProcessorCount, device));
    WARPMATCH_CUDA_CHECK(device, cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                                     &bf_blocks_per_sm_, bf_kernel(fold_, false), kn::kBfBlock, 0));
    WARPMATCH_CUDA_CHECK(device, cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                                     &fast_blocks_per_sm_,
                                     fast_kernel<kn::FastMode::count_total>(algorithm_, fold_, m),
                                     kn::kFastBlock, 0));
    bf_blocks_per_sm_ = std::max(1, bf_blocks_per_sm_);
    fast_blocks_per_sm_ = std::max(1, fast_blocks_per_sm_);
  }

  ExactAlgorithm algorithm() const { return algorithm_; }

  /// Most blocks a bf launch uses (sizes CountScratch::block_totals).
  std::uint64_t bf_max_grid() const { return std::uint64_t(sms_) * bf_blocks_per_sm_; }

  void prepare(CountScratch& s) const {
    if (algorithm_ != ExactAlgorithm::bf) return;
    s.block_totals.reserve(bf_max_grid());
    std::size_t bytes = 0;
    WARPMATCH_CUDA_CHECK(device_, cub::DeviceReduce::Sum(nullptr, bytes, s.block_totals.get(),
                                                         s.block_totals.get(),
                                                         static_cast<int>(bf_max_grid())));
    s.temp.reserve(bytes);
  }

  /// *total = number of matches at starts [0, npos) of `text` (overwritten).
  void count(cudaStream_t stream, const std::uint8_t* text, std::uint64_t text_vecs,
             std::uint64_t npos, unsigned long long* total, CountScratch& s) const {
    if (algorithm_ != ExactAlgorithm::bf) {
      WARPMATCH_CUDA_CHECK(device_, cudaMemsetAsync(total, 0, sizeof *total, stream));
      if (npos == 0) return;
      launch_fast<kn::FastMode::count_total>(stream, text, text_vecs, npos, total, nullptr,
                                             nullptr, nullptr);
      return;
    }
    if (npos == 0) {
      WARPMATCH_CUDA_CHECK(device_, cudaMemsetAsync(total, 0, sizeof *total, stream));
      return;
    }
    const int grid = bf_grid(npos);
    bf_kernel(fold_, false)<<<grid, kn::kBfBlock, 0, stream>>>(text, npos, params_,
                                                               s.block_totals.get(), nullptr,
                                                               nullptr);
    check_launch("exact_bf_kernel<count>", device_);
    std::size_t bytes = s.temp.size();
    WARPMATCH_CUDA_CHECK(device_, cub::DeviceReduce::Sum(s.temp.get(), bytes,
                                                         s.block_totals.get(), total, grid,
                                                         stream));
  }

  template <kn::FastMode M>
  void launch_fast(cudaStream_t stream, const std::uint8_t* text, std::uint64_t text_vecs,
                   std::uint64_t npos, unsigned long long* total, std::uint32_t* seg_counts,
                   const std::uint32_t* seg_offsets, std::uint32_t* out) const {
    const std::uint64_t segments = kn::fast_segments(npos);
    const std::uint64_t warps_per_block = kn::kFastBlock / 32;
    const std::uint64_t wanted = (segments + warps_per_block - 1) / warps_per_block;
    // Persistent-style grid: enough resident warps to saturate memory, each warp then
    // strides over segments.
    const int grid = static_cast<int>(
        std::max<std::uint64_t>(1, std::min<std::uint64_t>(wanted, std::uint64_t(sms_) * fast_blocks_per_sm_)));
    fast_kernel<M>(algorithm_, fold_, params_.length)<<<grid, kn::kFastBlock, 0, stream>>>(
        text, text_vecs, npos, params_, total, seg_counts, seg_offsets, out);
    check_launch("exact_fast_kernel", device_);
  }

  int bf_grid(std::uint64_t npos) const {
    const std::uint64_t wanted = (npos + kn::kBfBlock - 1) / kn::kBfBlock;
    return static_cast<int>(std::max<std::uint64_t>(1, std::min(wanted, bf_max_grid())));
  }

  void launch_bf_emit(cudaStream_t stream, const std::uint8_t* text, std::uint64_t npos,
                      std::uint32_t* out, unsigned int* cursor) const {
    bf_kernel(fold_, true)<<<bf_grid(npos), kn::kBfBlock, 0, stream>>>(text, npos, params_,
                                                                       nullptr, out, cursor);
    check_launch("exact_bf_kernel<emit>", device_);
  }

 private:
  int device_;
  ExactAlgorithm algorithm_;
  bool fold_ = false;
  kn::PatternParams params_{};
  DeviceBuffer<std::uint8_t> pattern_bytes_;
  int sms_ = 1;
  int bf_blocks_per_sm_ = 1;
  int fast_blocks_per_sm_ = 1;
};

// ---- per-scan state, reused ---------------------------------------------------------------

/// One stream and its buffers; chunks alternate between the slots so that chunk i+1's copy
/// overlaps chunk i's search.
struct Slot {
  explicit Slot(int d)
      : stream(d), counted(d, false), text(d), scratch(d),
        seg_counts(d), seg_offsets(d), hits(d), sorted(d), sort_temp(d), cursor(d),
        bf_total(d), host_total32(d), host_total64(d), host_hits(d) {}
  Slot(Slot&&) = default;
  ~Slot() {
    if (stream.get()) cudaStreamSynchronize(stream.get());
  }
  Stream stream;
  Event counted;   // reporting: the chunk's hit count is on the host
  DeviceBuffer<std::uint8_t> text;
  CountScratch scratch;
  // Reporting only.
  DeviceBuffer<std::uint32_t> seg_counts, seg_offsets;  // fast: per segment; offsets[0] = 0
  DeviceBuffer<std::uint32_t> hits, sorted;
  DeviceBuffer<std::uint8_t> sort_temp;
  DeviceBuffer<unsigned int> cursor;             // bf: append position
  DeviceBuffer<unsigned long long> bf_total;     // bf: hits in the chunk
  PinnedBuffer<std::uint32_t> host_total32;
  PinnedBuffer<unsigned long long> host_total64;
  PinnedBuffer<std::uint32_t> host_hits;
  core::Chunk chunk;
  std::uint64_t npos = 0;
};

/// What a scan needs besides the pattern: created by the first scan that finds none free,
/// its buffers grown to the largest scan seen, kept by the pattern's pool for the next.
struct ExactScratch {
  explicit ExactScratch(int device) : chunk_totals(device) {
    slots.reserve(ExactPolicy::slots);
    for (int i = 0; i < ExactPolicy::slots; ++i) slots.emplace_back(device);
  }
  std::vector<Slot> slots;
  DeviceBuffer<unsigned long long> chunk_totals;  // counting: one total per chunk
};

}  // namespace

class ExactDevicePattern : detail::DeviceOwner {
 public:
  ExactDevicePattern(const core::ExactPattern& pattern, ExactAlgorithm algorithm, int device)
      : DeviceOwner(device), device(device), length(pattern.size()), kernels(pattern, algorithm, device) {}
  ~ExactDevicePattern() { free_on_device(); }
  ExactDevicePattern(const ExactDevicePattern&) = delete;
  ExactDevicePattern& operator=(const ExactDevicePattern&) = delete;

  int device;
  std::uint64_t length;
  ExactKernels kernels;
  mutable detail::ScratchPool<ExactScratch> scratches;
};

namespace {

// ---- the streaming pipeline ----------------------------------------------------------------

class ExactPipeline {
 public:
  ExactPipeline(const ExactDevicePattern& pattern, ExactScratch& scratch, ByteSpan text, bool count_only)
      : device_(pattern.device),
        text_(text),
        m_(pattern.length),
        count_only_(count_only),
        kernels_(pattern.kernels),
        slots_(scratch.slots),
        chunk_totals_(scratch.chunk_totals) {
    // A host buffer that is already page-locked (cudaMallocHost / cudaHostRegister) or text
    // in device memory (DeviceSpan) is copied from directly; anything else goes through
    // the upload ring.
    direct_ = copies_directly(text.data()) && copies_directly(text.data() + text.size() - 1);
    plan(choose_chunk_bytes());
  }

  /// Grows the scratch's buffers for the planned chunks; DeviceOutOfMemory when they do not
  /// fit (then halve_chunks() and a fresh scratch may).
  void allocate() {
    // The scratch's buffers only grow: a smaller scan after a larger one allocates nothing.
    const std::uint64_t buffer = round_up(chunk_ + m_ - 1, 16) + kTextPadding;
    for (std::size_t i = 0; i < used_; ++i) {
      Slot& s = slots_[i];
      // The kernels load whole vectors past a chunk's end (masked).
      s.text.zero_on_growth(s.stream.get());
      s.text.reserve(buffer);
      if (!direct_) detail::prepare_upload_ring(device_);
      kernels_.prepare(s.scratch);
      if (!count_only_) prepare_report(s);
    }
    if (count_only_) chunk_totals_.reserve(std::max<std::size_t>(1, chunks_.size()));
  }

  /// After allocate() ran out of device memory: plans chunks half as large, down to
  /// RuntimePolicy::min_chunk_bytes; false when already there.
  bool halve_chunks() {
    std::uint64_t chunk = chunk_;
    if (!detail::halve_chunk(chunk, device_, "exact search")) return false;
    plan(chunk);
    return true;
  }

  ~ExactPipeline() {
    // An early stop or an error may leave chunks in flight: the scratch goes back to the
    // pool only when its streams are idle (errors are moot here).
    for (std::size_t i = 0; i < used_; ++i) cudaStreamSynchronize(slots_[i].stream.get());
  }
  ExactPipeline(const ExactPipeline&) = delete;
  ExactPipeline& operator=(const ExactPipeline&) = delete;

  std::uint64_t run(const core::StartsSink& sink) {
    if (chunks_.empty()) return 0;
    if (count_only_) {
      for (std::size_t i = 0; i < chunks_.size(); ++i) {
        detail::chunk_fault_point(device_);
        front(slot_of(i), chunks_[i], i);
      }
      for (std::size_t i = 0; i < used_; ++i) slots_[i].stream.synchronize();
      std::vector<unsigned long long> totals(chunks_.size());
      WARPMATCH_CUDA_CHECK(device_, cudaMemcpy(totals.data(), chunk_totals_.get(),
                                               totals.size() * sizeof(unsigned long long),
                                               cudaMemcpyDeviceToHost));
      std::uint64_t sum = 0;
      for (auto t : totals) sum += t;
      return sum;
    }
    // Reporting: chunk i is finished (hits back on the host, sink called) after chunk i+1's
    // copy and count were enqueued, so the device always has the next chunk to work on.
    for (std::size_t i = 0; i < chunks_.size(); ++i) {
      front(slot_of(i), chunks_[i], i);
      if (i >= 1 && !back(slot_of(i - 1), sink)) return delivered_;
    }
    back(slot_of(chunks_.size() - 1), sink);
    return delivered_;
  }

 private:
  Slot& slot_of(std::size_t chunk_index) { return slots_[chunk_index % used_]; }

  void plan(std::uint64_t chunk) {
    chunk_ = chunk;
    chunks_ = core::plan_chunks(text_.size(), chunk_, m_ - 1);
    while (!chunks_.empty() && positions_in(chunks_.back(), m_) == 0) chunks_.pop_back();
    used_ = std::min(slots_.size(), chunks_.size());
  }

  std::uint64_t choose_chunk_bytes() const {
    std::uint64_t c = exact_chunk_override();
    const bool forced = c != 0;
    if (!forced)
      c = !direct_ ? (count_only_ ? ExactPolicy::staged_count_chunk : ExactPolicy::staged_chunk)
                   : (count_only_ ? ExactPolicy::direct_chunk : ExactPolicy::report_chunk);
    // Device bytes per owned text byte and slot: the text, plus when reporting a worst case
    // of one 32-bit hit per position (bf: twice, for the sort, plus its temporary storage).
    const std::uint64_t per_byte =
        count_only_ ? 1 : (kernels_.algorithm() == ExactAlgorithm::bf ? 13 : 5);
    // What the device has left: its free memory, no more than the device-memory cap leaves.
    const std::uint64_t budget = detail::device_memory_available(device_) / 2 / ExactPolicy::slots;
    const std::uint64_t cap = budget > m_ ? (budget - m_) / per_byte : 0;
    const std::uint64_t fits = std::max<std::uint64_t>(cap, RuntimePolicy::min_chunk_bytes);
    if (!forced && fits < std::min<std::uint64_t>(c, text_.size()))
      detail::note_smaller_chunks(device_, "exact search", fits, c);
    if (!forced) c = std::min(c, fits);
    c = std::min(c, ExactPolicy::max_chunk);
    c = std::min<std::uint64_t>(c, text_.size());
    return std::max<std::uint64_t>(c, 1);
  }

  void prepare_report(Slot& s) {
    s.host_total32.reserve(1);
    s.host_total64.reserve(1);
    if (kernels_.algorithm() != ExactAlgorithm::bf) {
      const std::uint64_t segs = kn::fast_segments(chunk_);
      s.seg_counts.reserve(segs);
      s.seg_offsets.reserve(segs + 1);
      // offsets[0] = 0 once; the inclusive scan writes offsets[1..], so offsets[s] is the
      // exclusive prefix and offsets[segments] the chunk's total.
      WARPMATCH_CUDA_CHECK(device_, cudaMemsetAsync(s.seg_offsets.get(), 0, sizeof(std::uint32_t),
                                                    s.stream.get()));
      std::size_t bytes = 0;
      WARPMATCH_CUDA_CHECK(device_, cub::DeviceScan::InclusiveSum(
                                        nullptr, bytes, s.seg_counts.get(),
                                        s.seg_offsets.get() + 1, static_cast<int>(segs)));
      s.scratch.temp.reserve(std::max(bytes, s.scratch.temp.size()));
    } else {
      s.cursor.reserve(1);
      s.bf_total.reserve(1);
    }
  }

  /// Copies the chunk in and counts it (reporting: also fetches the count to the host).
  void front(Slot& s, const core::Chunk& c, std::size_t index) {
    const cudaStream_t st = s.stream.get();
    const std::uint64_t len = c.read_end - c.begin;
    s.chunk = c;
    s.npos = positions_in(c, m_);
    const std::uint8_t* src = text_.data() + c.begin;
    // Pageable host text through the upload ring; otherwise host-to-device from pinned
    // memory, or device-to-device for device-resident text.
    if (direct_) WARPMATCH_CUDA_CHECK(device_, cudaMemcpyAsync(s.text.get(), src, len, cudaMemcpyDefault, st));
    else detail::upload_pageable(device_, s.text.get(), src, len, st);
    const std::uint64_t text_vecs = s.text.size() / 16;

    if (count_only_) {
      kernels_.count(st, s.text.get(), text_vecs, s.npos, chunk_totals_.get() + index, s.scratch);
      return;
    }
    if (kernels_.algorithm() != ExactAlgorithm::bf) {
      const std::uint64_t segs = kn::fast_segments(s.npos);
      kernels_.launch_fast<kn::FastMode::count_segments>(st, s.text.get(), text_vecs, s.npos,
                                                         nullptr, s.seg_counts.get(), nullptr,
                                                         nullptr);
      std::size_t bytes = s.scratch.temp.size();
      WARPMATCH_CUDA_CHECK(device_, cub::DeviceScan::InclusiveSum(
                                        s.scratch.temp.get(), bytes, s.seg_counts.get(),
                                        s.seg_offsets.get() + 1, static_cast<int>(segs), st));
      WARPMATCH_CUDA_CHECK(device_, cudaMemcpyAsync(s.host_total32.get(), s.seg_offsets.get() + segs,
                                                    sizeof(std::uint32_t),
                                                    cudaMemcpyDeviceToHost, st));
    } else {
      kernels_.count(st, s.text.get(), text_vecs, s.npos, s.bf_total.get(), s.scratch);
      WARPMATCH_CUDA_CHECK(device_, cudaMemcpyAsync(s.host_total64.get(), s.bf_total.get(),
                                                    sizeof(unsigned long long),
                                                    cudaMemcpyDeviceToHost, st));
    }
    s.counted.record(st);
  }

  /// Writes the chunk's hits in order, brings them back and feeds the sink.
  bool back(Slot& s, const core::StartsSink& sink) {
    detail::chunk_fault_point(device_);
    const cudaStream_t st = s.stream.get();
    s.counted.synchronize();
    const bool fast = kernels_.algorithm() != ExactAlgorithm::bf;
    const std::uint64_t total = fast ? *s.host_total32.get() : *s.host_total64.get();
    if (total == 0) return true;
    s.hits.reserve(total);
    const std::uint32_t* result = s.hits.get();
    if (fast) {
      kernels_.launch_fast<kn::FastMode::emit>(st, s.text.get(), s.text.size() / 16, s.npos,
                                               nullptr, nullptr, s.seg_offsets.get(),
                                               s.hits.get());
    } else {
      WARPMATCH_CUDA_CHECK(device_, cudaMemsetAsync(s.cursor.get(), 0, sizeof(unsigned int), st));
      kernels_.launch_bf_emit(st, s.text.get(), s.npos, s.hits.get(), s.cursor.get());
      // Appends land in arbitrary order; sort only the bits a chunk offset can have.
      int end_bit = 1;
      while (end_bit < 32 && (std::uint64_t{1} << end_bit) < s.npos) ++end_bit;
      s.sorted.reserve(total);
      std::size_t bytes = 0;
      WARPMATCH_CUDA_CHECK(device_, cub::DeviceRadixSort::SortKeys(
                                        nullptr, bytes, s.hits.get(), s.sorted.get(),
                                        static_cast<int>(total), 0, end_bit, st));
      s.sort_temp.reserve(bytes);
      WARPMATCH_CUDA_CHECK(device_, cub::DeviceRadixSort::SortKeys(
                                        s.sort_temp.get(), bytes, s.hits.get(), s.sorted.get(),
                                        static_cast<int>(total), 0, end_bit, st));
      result = s.sorted.get();
    }
    if (s.host_hits.size() < total) s.host_hits.reserve(std::max<std::uint64_t>(total, s.host_hits.size() * 2));
    WARPMATCH_CUDA_CHECK(device_, cudaMemcpyAsync(s.host_hits.get(), result,
                                                  total * sizeof(std::uint32_t),
                                                  cudaMemcpyDeviceToHost, st));
    s.stream.synchronize();

    if (!sink) {
      delivered_ += total;
      return true;
    }
    batch_.resize(std::min<std::uint64_t>(total, ExactPolicy::sink_batch));
    for (std::uint64_t off = 0; off < total;) {
      const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(total - off, batch_.size()));
      for (std::size_t i = 0; i < n; ++i) batch_[i] = s.chunk.begin + s.host_hits.get()[off + i];
      off += n;
      delivered_ += n;
      if (!sink(std::span<const std::uint64_t>(batch_.data(), n))) return false;
    }
    return true;
  }

  int device_;
  ByteSpan text_;
  std::uint64_t m_;
  bool count_only_;
  const ExactKernels& kernels_;
  std::vector<Slot>& slots_;
  DeviceBuffer<unsigned long long>& chunk_totals_;
  std::size_t used_ = 0;  // slots this scan uses (no more than its chunks)
  bool direct_ = false;
  std::uint64_t chunk_ = 0;
  std::vector<core::Chunk> chunks_;
  std::vector<std::uint64_t> batch_;
  std::uint64_t delivered_ = 0;
};

void validate(const core::ExactPattern& pattern, int device) {
  detail::require_device(device);
  if (pattern.size() == 0)
    throw InvalidArgument("empty pattern: exact search needs at least one byte");
  if (pattern.size() > 0xffffffffull)
    throw InvalidArgument("pattern of " + std::to_string(pattern.size()) +
                          " bytes exceeds the CUDA backend's limit of 4 GiB - 1");
}

}  // namespace

std::shared_ptr<const ExactDevicePattern> exact_upload(const core::ExactPattern& pattern,
                                                       ExactAlgorithm algorithm, int device) {
  validate(pattern, device);
  DeviceGuard guard(device);
  return std::make_shared<const ExactDevicePattern>(pattern, algorithm, device);
}

std::uint64_t exact_scan(const ExactDevicePattern& pattern, ByteSpan text, bool count_only,
                         const core::StartsSink& sink) {
  if (text.size() < pattern.length) return 0;
  DeviceGuard guard(pattern.device);
  const auto scratch = pattern.scratches.take([&] { return std::make_unique<ExactScratch>(pattern.device); });
  ExactPipeline pipeline(pattern, *scratch, text, count_only);
  for (;;) {
    try {
      pipeline.allocate();
      break;
    } catch (const DeviceOutOfMemory&) {
      // Smaller chunks may fit: give back what the scratch holds, then try half the size.
      if (!pipeline.halve_chunks()) throw;
      *scratch = ExactScratch(pattern.device);
    }
  }
  return pipeline.run(sink);
}

std::uint64_t exact_scan(const core::ExactPattern& pattern, ByteSpan text,
                         ExactAlgorithm algorithm, int device, bool count_only,
                         const core::StartsSink& sink) {
  validate(pattern, device);
  if (text.size() < pattern.size()) return 0;
  return exact_scan(*exact_upload(pattern, algorithm, device), text, count_only, sink);
}

core::CountTiming time_exact_resident(const core::ExactPattern& pattern, ByteSpan text,
                                      ExactAlgorithm algorithm, int device, int repeats) {
  validate(pattern, device);
  core::CountTiming timing;
  if (text.size() < pattern.size()) return timing;
  DeviceGuard guard(device);
  const std::uint64_t n = text.size();
  const std::uint64_t npos = n - pattern.size() + 1;
  ExactKernels kernels(pattern, algorithm, device);
  DeviceBuffer<std::uint8_t> d_text(device, round_up(n, 16) + kTextPadding);
  WARPMATCH_CUDA_CHECK(device, cudaMemcpy(d_text.get(), text.data(), n, cudaMemcpyHostToDevice));
  detail::wait_for_uploads(device);
  DeviceBuffer<unsigned long long> d_total(device, 1);
  CountScratch scratch(device);
  kernels.prepare(scratch);
  Stream stream(device);
  const std::uint64_t text_vecs = d_text.size() / 16;
  const double median_ms = detail::median_event_ms(device, stream, repeats, [&] {
    kernels.count(stream.get(), d_text.get(), text_vecs, npos, d_total.get(), scratch);
  });
  unsigned long long count = 0;
  WARPMATCH_CUDA_CHECK(device, cudaMemcpy(&count, d_total.get(), sizeof count, cudaMemcpyDeviceToHost));
  timing.count = count;
  timing.median_ms = median_ms;
  return timing;
}

core::CountTiming time_exact_host_fed(const core::ExactPattern& pattern, ByteSpan text,
                                      ExactAlgorithm algorithm, int device, int repeats) {
  validate(pattern, device);
  core::CountTiming timing;
  if (text.size() < pattern.size()) return timing;
  DeviceGuard guard(device);
  // The text in page-locked memory, as a caller aiming at PCIe speed would hold it.
  PinnedBuffer<std::uint8_t> pinned(device);
  pinned.reserve(text.size());
  parallel_copy(pinned.get(), text.data(), text.size());
  const ByteSpan host_text(pinned.get(), text.size());

  // Compiled once, as a matcher is; exact_scan synchronises at its end.
  const auto uploaded = exact_upload(pattern, algorithm, device);
  timing.median_ms = detail::median_wall_ms(
      repeats, [&] { timing.count = exact_scan(*uploaded, host_text, true, {}); });
  return timing;
}

}  // namespace warpmatch::cuda
