// CUDA approximate search of a whole set of short patterns (m <= 64) in one pass: why and
// how. One launch per pattern (dispatch.cu's Myers kernels) re-reads the text for every
// pattern and leaves a 20-base pattern 12 idle bits of a 32-bit word; here a block reads one
// text tile into shared memory once, as class codes (logic::make_set_classes), with a group
// of patterns' match tables, and every pattern of the group runs over it (logic::
// set_block_items: Myers/Hyyro edit distance, or bit-sliced Hamming counters). Grid: x =
// tiles, y = groups. Hits of every pattern go to one buffer as sortable 64-bit keys
// (logic::set_key) with one warp-aggregated atomic; a launch too small for them is re-run
// with a larger buffer, or split (groups, then columns) beyond ShortSetPolicy's cap; keys are
// sorted (host for a few, CUB radix sort for more) and split per pattern on the host. Best
// mode: a minimum pass (atomicMin per pattern) first, then the hits at that minimum. Tables are
// uploaded when the matcher is compiled (per list of queries: the plan follows modes and k);
// device buffers and the stream live in a pooled scratch that later scans reuse and only grow.
#include <cub/device/device_radix_sort.cuh>
#include <cooperative_groups.h>

#include <algorithm>
#include <bit>
#include <climits>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cuda/approx/approx_cuda.hpp"
#include "cuda/approx/short_set.hpp"
#include "cuda/approx/short_set_agent.hpp"
#include "cuda/approx/short_set_kernels.cuh"
#include "cuda/approx/timing.hpp"
#include "cuda/approx/tuning.hpp"
#include "cuda/runtime/device_runtime.cuh"
#include "cuda/runtime/scratch_pool.hpp"

namespace warpmatch::cuda {

namespace {

using detail::DeviceBuffer;
using detail::Event;
using detail::PinnedBuffer;
using detail::Stream;

constexpr std::uint32_t kMaxGridY = 65535;
using kernels::kSetThreads;
using kernels::SetSink;
using kernels::short_set_kernel;

/// Shared memory of a block: the group's table, the class map, the tile's codes.
template <class Word>
std::size_t set_shared_bytes(std::uint32_t classes, std::uint32_t group_size, std::uint32_t tile,
                             std::uint32_t overlap) {
  const std::size_t table = (std::size_t{classes} * group_size * sizeof(Word) + 15) / 16 * 16;
  return table + 256 + logic::tile_code_bytes(tile, overlap);
}

/// Calls f(Word{}, std::integral_constant<int, PLANES>{}) for a bucket's instance.
template <class F>
void with_instance(bool wide, int planes, F&& f) {
  auto words = [&](auto word) {
    switch (planes) {
      case -1: f(word, std::integral_constant<int, -1>{}); break;
      case 0: f(word, std::integral_constant<int, 0>{}); break;
      case 1: f(word, std::integral_constant<int, 1>{}); break;
      case 2: f(word, std::integral_constant<int, 2>{}); break;
      case 3: f(word, std::integral_constant<int, 3>{}); break;
      case 4: f(word, std::integral_constant<int, 4>{}); break;
      case 5: f(word, std::integral_constant<int, 5>{}); break;
      case 6: f(word, std::integral_constant<int, 6>{}); break;
      case 7: f(word, std::integral_constant<int, 7>{}); break;
      default: throw InvalidArgument("short-pattern set kernel: no instance for " + std::to_string(planes) + " planes");
    }
  };
  if (wide) words(std::uint64_t{});
  else words(std::uint32_t{});
}

/// A bucket's groups [first, last) of one launch.
struct GroupSpan {
  std::size_t bucket = 0;
  std::uint32_t first = 0, last = 0;
};

/// The set's plan for one list of queries (buckets and overlaps follow the modes and k), its
/// tables uploaded once; immutable, shared by every scan with these queries.
struct ShortSetTables {
  ShortSetTables(const std::vector<core::ApproxPattern>& patterns, const std::vector<core::ApproxQuery>& queries,
                 int device)
      : device(device), tuning(short_set_tuning()), queries(queries), class_of(device), m_of(device), k_of(device) {
    plan = logic::plan_short_set(patterns, queries, tuning.table_bytes);
    std::uint64_t chunk = 0;  // the queries' test hook: tiles of this many columns
    for (const auto& q : queries)
      if (q.chunk_ends) chunk = chunk ? std::min(chunk, q.chunk_ends) : q.chunk_ends;
    if (chunk) {
      tuning.tile_columns = static_cast<std::uint32_t>(std::clamp<std::uint64_t>(chunk, 4, 1u << 16));
      tuning.min_sub_columns = 4;
    }
    std::vector<std::uint32_t> m(patterns.size()), k(patterns.size());
    for (std::size_t i = 0; i < patterns.size(); ++i) {
      m[i] = static_cast<std::uint32_t>(patterns[i].size());
      k[i] = queries[i].k;
      best_any |= queries[i].mode == core::ApproxMode::best;
    }
    upload(class_of, plan.classes.code);
    upload(m_of, m);
    upload(k_of, k);
    for (const auto& b : plan.buckets) {
      tables.emplace_back(device);
      upload(tables.back(), b.table);
      ids.emplace_back(device);
      upload(ids.back(), b.ids);
    }
    detail::wait_for_uploads(device);
    sort_bits = std::min(64, logic::kSetPatternShift + static_cast<int>(std::bit_width(patterns.size())));
  }

  template <class T>
  void upload(DeviceBuffer<T>& to, const std::vector<T>& from) {
    to.reserve(from.size());
    if (!from.empty())
      WARPMATCH_CUDA_CHECK(device, cudaMemcpy(to.get(), from.data(), from.size() * sizeof(T), cudaMemcpyHostToDevice));
  }

  bool planned_for(const std::vector<core::ApproxQuery>& other) const {
    return std::equal(queries.begin(), queries.end(), other.begin(), other.end(),
                      [](const core::ApproxQuery& a, const core::ApproxQuery& b) {
                        return a.mode == b.mode && a.k == b.k && a.chunk_ends == b.chunk_ends;
                      });
  }

  int device;
  ShortSetTuning tuning;
  std::vector<core::ApproxQuery> queries;
  logic::SetPlan plan;
  bool best_any = false;
  int sort_bits = 64;
  DeviceBuffer<std::uint8_t> class_of;
  DeviceBuffer<std::uint32_t> m_of, k_of;
  std::vector<DeviceBuffer<std::uint32_t>> tables, ids;
};

/// A scan's buffers and stream, grown to the largest scan seen.
struct ShortSetScratch {
  explicit ShortSetScratch(int device)
      : text(device), minimum(device), count(device), keys(device), keys_sorted(device), temp(device),
        staged_count(device), stream(device), upload(device) {
    count.reserve(1);
    staged_count.reserve(1);
  }
  DeviceBuffer<std::uint8_t> text;
  DeviceBuffer<unsigned int> minimum;  // best mode: running minimum per pattern id
  DeviceBuffer<unsigned long long> count, keys, keys_sorted;
  DeviceBuffer<std::uint8_t> temp;
  PinnedBuffer<unsigned long long> staged_count;
  Stream stream;
  detail::TextUpload upload;  // declared after the stream: destroyed (its DMA awaited) first
};

/// One scan of the set: the tables of its queries, a scratch.
class ShortSetRunner {
 public:
  ShortSetRunner(const ShortSetTables& tables, ShortSetScratch& scratch)
      : device_(tables.device), tuning_(tables.tuning), plan_(tables.plan), best_any_(tables.best_any),
        sort_bits_(tables.sort_bits), class_of_(tables.class_of), m_of_(tables.m_of), k_of_(tables.k_of),
        tables_(tables.tables), ids_(tables.ids), text_(scratch.text), minimum_(scratch.minimum),
        count_(scratch.count), keys_(scratch.keys), keys_sorted_(scratch.keys_sorted), temp_(scratch.temp),
        staged_count_(scratch.staged_count), stream_(scratch.stream), upload_(scratch.upload) {
    const std::size_t patterns = tables.queries.size();
    minimum_.reserve(patterns);
    WARPMATCH_CUDA_CHECK(device_, cudaMemsetAsync(minimum_.get(), 0xff, patterns * 4, stream_.get()));
    // The first hit buffer; a buffer grown by an earlier scan is kept.
    keys_.reserve(tuning_.hit_capacity);
  }
  // A scan that stopped on an error may leave work in flight: the scratch goes back idle.
  ~ShortSetRunner() { cudaStreamSynchronize(stream_.get()); }
  ShortSetRunner(const ShortSetRunner&) = delete;
  ShortSetRunner& operator=(const ShortSetRunner&) = delete;

  std::uint32_t overlap() const { return plan_.overlap; }
  Stream& stream() { return stream_; }

  /// Copies `bytes` of text (a device segment) to the device: from host memory (pageable
  /// text through the upload ring), or device-to-device from a DeviceSpan's text.
  void load_text(const std::uint8_t* source, std::uint64_t bytes) {
    text_.reserve(bytes + 16);
    text_bytes_ = bytes;
    upload_.copy(text_.get(), source, bytes, stream_.get());
    // Whole words are read past the text's end: zeros there (compute-sanitizer initcheck).
    WARPMATCH_CUDA_CHECK(device_, cudaMemsetAsync(text_.get() + bytes, 0, 16, stream_.get()));
  }

  /// Best mode's first pass over owned columns [own_lo, own_hi) of the device segment: the
  /// running minimum of every best-mode pattern (kept across segments).
  void minimum_pass(std::uint32_t own_lo, std::uint32_t own_hi) {
    for (std::size_t b = 0; b < plan_.buckets.size(); ++b)
      if (plan_.buckets[b].best) launch({b, 0, plan_.buckets[b].groups()}, {own_lo, own_hi, own_lo}, true);
  }

  /// Every pattern's hits over owned columns [own_lo, own_hi) (all mode: within k; best mode:
  /// within the running minimum), appended to out[pattern] in end order, end = end_base +
  /// column - own_lo + 1.
  void hits_pass(std::uint32_t own_lo, std::uint32_t own_hi, std::uint64_t end_base,
                 std::vector<std::vector<core::EndHit>>& out) {
    std::vector<GroupSpan> spans;
    for (std::size_t b = 0; b < plan_.buckets.size(); ++b) spans.push_back({b, 0, plan_.buckets[b].groups()});
    collect(spans, {own_lo, own_hi, own_lo}, end_base, out);
  }

  /// Launches only (benchmarks): both passes over [0, text bytes), hits left on the device.
  void launch_all() {
    const auto n = static_cast<std::uint32_t>(text_bytes_);
    if (best_any_) minimum_pass(0, n);
    WARPMATCH_CUDA_CHECK(device_, cudaMemsetAsync(count_.get(), 0, sizeof(unsigned long long), stream_.get()));
    for (std::size_t b = 0; b < plan_.buckets.size(); ++b) launch({b, 0, plan_.buckets[b].groups()}, {0, n, 0}, false);
  }

 private:
  /// One bucket's groups over one range (grid y in pieces of at most 65535 groups).
  void launch(const GroupSpan& span, const logic::SetRange& range, bool minimum_only) {
    if (range.own_hi <= range.own_lo || span.last <= span.first) return;
    const logic::SetBucket& b = plan_.buckets[span.bucket];
    with_instance(b.wide, b.planes, [&](auto word, auto planes) {
      using Word = decltype(word);
      constexpr int kPlanes = decltype(planes)::value;
      logic::SetArgs<Word> a;
      a.table = reinterpret_cast<const Word*>(tables_[span.bucket].get());
      a.ids = ids_[span.bucket].get();
      a.slots = static_cast<std::uint32_t>(b.ids.size());
      a.group_size = b.group_size;
      a.classes = plan_.classes.count();
      a.m_of = m_of_.get();
      a.k_of = k_of_.get();
      a.cap_of = b.best ? minimum_.get() : k_of_.get();
      a.range = range;
      a.overlap = b.overlap;
      a.minimum_only = minimum_only;
      if (minimum_only) a.cap_of = k_of_.get();
      a.geometry = logic::set_geometry(tuning_.tile_columns, b.group_size, kSetThreads, b.overlap,
                                       tuning_.min_sub_columns);
      const std::size_t shared = set_shared_bytes<Word>(a.classes, b.group_size, a.geometry.tile, b.overlap);
      auto kernel = short_set_kernel<Word, kPlanes>;
      if (shared > 48 * 1024)
        WARPMATCH_CUDA_CHECK(device_, cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                           static_cast<int>(shared)));
      const std::uint64_t tiles = (std::uint64_t{range.own_hi - range.own_lo} + a.geometry.tile - 1) / a.geometry.tile;
      const SetSink sink{keys_.get(), keys_.size(), count_.get(), minimum_.get()};
      for (std::uint32_t g = span.first; g < span.last; g += kMaxGridY) {
        a.group_first = g;
        const dim3 grid(static_cast<unsigned>(tiles), std::min(kMaxGridY, span.last - g));
        kernel<<<grid, kSetThreads, shared, stream_.get()>>>(text_.get(), class_of_.get(), a, sink);
        detail::check_launch("short_set_kernel", device_);
      }
    });
  }

  /// The hits of `spans` over `range`, appended to out; re-run with a larger buffer when
  /// they overflow it, split (groups, then columns) when they would exceed the cap.
  void collect(const std::vector<GroupSpan>& spans, const logic::SetRange& range, std::uint64_t end_base,
               std::vector<std::vector<core::EndHit>>& out) {
    unsigned long long count = 0;
    for (;;) {
      WARPMATCH_CUDA_CHECK(device_, cudaMemsetAsync(count_.get(), 0, sizeof(unsigned long long), stream_.get()));
      for (const GroupSpan& s : spans) launch(s, range, false);
      WARPMATCH_CUDA_CHECK(device_, cudaMemcpyAsync(staged_count_.get(), count_.get(), sizeof(unsigned long long),
                                                    cudaMemcpyDeviceToHost, stream_.get()));
      stream_.synchronize();
      count = *staged_count_.get();
      if (count <= keys_.size()) break;
      if (count <= tuning_.max_hit_capacity) {
        keys_.reserve(std::min<std::uint64_t>(tuning_.max_hit_capacity, count + count / 4));
        continue;
      }
      split(spans, range, end_base, out);
      return;
    }
    if (count == 0) return;
    std::vector<std::uint64_t> keys(count);
    if (count <= ShortSetPolicy::host_sort_hits) {
      WARPMATCH_CUDA_CHECK(device_, cudaMemcpyAsync(keys.data(), keys_.get(), count * 8, cudaMemcpyDeviceToHost,
                                                    stream_.get()));
      stream_.synchronize();
      std::sort(keys.begin(), keys.end());
    } else {
      keys_sorted_.reserve(count);
      std::size_t temp_bytes = 0;
      const int items = static_cast<int>(count);  // <= max_hit_capacity < 2^31
      WARPMATCH_CUDA_CHECK(device_, cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, keys_.get(), keys_sorted_.get(),
                                                                   items, 0, sort_bits_, stream_.get()));
      temp_.reserve(temp_bytes);
      WARPMATCH_CUDA_CHECK(device_, cub::DeviceRadixSort::SortKeys(temp_.get(), temp_bytes, keys_.get(),
                                                                   keys_sorted_.get(), items, 0, sort_bits_,
                                                                   stream_.get()));
      WARPMATCH_CUDA_CHECK(device_, cudaMemcpyAsync(keys.data(), keys_sorted_.get(), count * 8,
                                                    cudaMemcpyDeviceToHost, stream_.get()));
      stream_.synchronize();
    }
    logic::append_set_hits(keys.data(), keys.size(), end_base, out);
  }

  /// Halves a launch whose hits exceed the cap: its groups when there are several (each
  /// pattern is in one half), else its columns (left first: ends stay in order).
  void split(const std::vector<GroupSpan>& spans, const logic::SetRange& range, std::uint64_t end_base,
             std::vector<std::vector<core::EndHit>>& out) {
    std::uint64_t groups = 0;
    for (const GroupSpan& s : spans) groups += s.last - s.first;
    if (groups > 1) {
      std::vector<GroupSpan> left, right;
      std::uint64_t seen = 0;
      for (const GroupSpan& s : spans) {
        const std::uint64_t n = s.last - s.first;
        const std::uint64_t take = seen >= groups / 2 ? 0 : std::min<std::uint64_t>(n, groups / 2 - seen);
        if (take) left.push_back({s.bucket, s.first, s.first + static_cast<std::uint32_t>(take)});
        if (take < n) right.push_back({s.bucket, s.first + static_cast<std::uint32_t>(take), s.last});
        seen += n;
      }
      collect(left, range, end_base, out);
      collect(right, range, end_base, out);
      return;
    }
    if (range.own_hi - range.own_lo <= 1)
      throw DeviceError("short-pattern set kernel: more hits at one end than the hit buffer holds");
    const std::uint32_t mid = range.own_lo + (range.own_hi - range.own_lo) / 2;
    collect(spans, {range.own_lo, mid, range.segment_own_lo}, end_base, out);
    collect(spans, {mid, range.own_hi, range.segment_own_lo}, end_base, out);
  }

  int device_;
  const ShortSetTuning& tuning_;
  const logic::SetPlan& plan_;
  bool best_any_;
  int sort_bits_;
  std::uint64_t text_bytes_ = 0;
  const DeviceBuffer<std::uint8_t>& class_of_;
  const DeviceBuffer<std::uint32_t>& m_of_;
  const DeviceBuffer<std::uint32_t>& k_of_;
  const std::vector<DeviceBuffer<std::uint32_t>>& tables_;
  const std::vector<DeviceBuffer<std::uint32_t>>& ids_;
  DeviceBuffer<std::uint8_t>& text_;
  DeviceBuffer<unsigned int>& minimum_;
  DeviceBuffer<unsigned long long>& count_;
  DeviceBuffer<unsigned long long>& keys_;
  DeviceBuffer<unsigned long long>& keys_sorted_;
  DeviceBuffer<std::uint8_t>& temp_;
  PinnedBuffer<unsigned long long>& staged_count_;
  Stream& stream_;
  detail::TextUpload& upload_;
};

}  // namespace

bool short_set_applies(const std::vector<core::ApproxPattern>& patterns) {
  return logic::short_set_fits(patterns) && short_set_tuning().enabled;
}

class ShortSetDevice : detail::DeviceOwner {
 public:
  ShortSetDevice(const std::vector<core::ApproxPattern>& patterns, const std::vector<core::ApproxQuery>& queries,
                 int device)
      : DeviceOwner(device), device(device), patterns(patterns) {
    if (!logic::short_set_fits(patterns)) throw InvalidArgument("short-pattern set kernel: a pattern is not 1..64 bytes");
    plans.push_back(std::make_shared<const ShortSetTables>(patterns, queries, device));
  }
  // A plan evicted from the cache while a scan used it is freed by that scan, on this device
  // (the scan's DeviceGuard).
  ~ShortSetDevice() { free_on_device(); }
  ShortSetDevice(const ShortSetDevice&) = delete;
  ShortSetDevice& operator=(const ShortSetDevice&) = delete;

  /// The tables planned for `queries`: uploaded at compile for the matcher's own queries; a
  /// scan with others (best mode's later segments, whose k is the minimum so far) plans and
  /// uploads them once and keeps the last kKeptPlans.
  std::shared_ptr<const ShortSetTables> tables_for(const std::vector<core::ApproxQuery>& queries) const {
    {
      std::lock_guard lock(mutex);
      for (auto it = plans.begin(); it != plans.end(); ++it)
        if ((*it)->planned_for(queries)) {
          std::shared_ptr<const ShortSetTables> found = *it;
          if (it != plans.begin()) {  // most recently used first
            plans.erase(it);
            plans.insert(plans.begin(), found);
          }
          return found;
        }
    }
    auto made = std::make_shared<const ShortSetTables>(patterns, queries, device);
    std::lock_guard lock(mutex);
    plans.insert(plans.begin(), made);
    if (plans.size() > kKeptPlans) plans.pop_back();  // a scan using it holds its own reference
    return made;
  }

  static constexpr std::size_t kKeptPlans = 8;
  int device;
  std::vector<core::ApproxPattern> patterns;
  mutable std::mutex mutex;
  mutable std::vector<std::shared_ptr<const ShortSetTables>> plans;
  mutable detail::ScratchPool<ShortSetScratch> scratches;
};

std::shared_ptr<const ShortSetDevice> short_set_upload(const std::vector<core::ApproxPattern>& patterns,
                                                       const std::vector<core::ApproxQuery>& queries, int device) {
  return std::make_shared<const ShortSetDevice>(patterns, queries, device);
}

std::vector<std::vector<core::EndHit>> short_set_scan(const ShortSetDevice& set,
                                                      const std::vector<core::ApproxQuery>& queries,
                                                      ByteSpan text) {
  detail::DeviceGuard guard(set.device);
  std::vector<std::vector<core::EndHit>> out(set.patterns.size());
  if (text.empty() || set.patterns.empty()) return out;
  const std::shared_ptr<const ShortSetTables> tables = set.tables_for(queries);
  const auto scratch = set.scratches.take([&] { return std::make_unique<ShortSetScratch>(set.device); });
  ShortSetRunner runner(*tables, *scratch);
  const std::uint64_t n = text.size();
  const std::uint64_t segment = std::min(approx_tuning().segment_ends, logic::kSetMaxSegmentEnds);
  const std::uint64_t overlap = runner.overlap();
  for (std::uint64_t own_begin = 0; own_begin < n; own_begin += segment) {
    const std::uint64_t own_end = std::min(n, own_begin + segment);
    const std::uint64_t from = own_begin > overlap ? own_begin - overlap : 0;
    runner.load_text(text.data() + from, own_end - from);
    const auto own_lo = static_cast<std::uint32_t>(own_begin - from), own_hi = static_cast<std::uint32_t>(own_end - from);
    runner.minimum_pass(own_lo, own_hi);
    runner.hits_pass(own_lo, own_hi, own_begin, out);
  }
  for (std::size_t i = 0; i < set.patterns.size(); ++i)
    if (queries[i].mode == core::ApproxMode::best) logic::keep_best_hits(out[i]);
  return out;
}

core::ApproxSetTiming time_approx_set(const std::vector<core::ApproxPattern>& patterns,
                                      const std::vector<core::ApproxQuery>& queries, ByteSpan text, int device,
                                      int repeats) {
  detail::require_device(device);
  detail::DeviceGuard guard(device);
  if (!logic::short_set_fits(patterns)) throw InvalidArgument("time_approx_set: every pattern must be 1..64 bytes");
  if (text.size() > logic::kSetMaxSegmentEnds) throw InvalidArgument("time_approx_set: text larger than one device segment");
  core::ApproxSetTiming timing;
  const ShortSetTables tables(patterns, queries, device);
  ShortSetScratch scratch(device);
  ShortSetRunner runner(tables, scratch);
  runner.load_text(text.data(), text.size());
  runner.stream().synchronize();
  Event start(device, true), searched(device, true), again(device, true), stop(device, true);
  std::vector<double> search_ms, total_ms;
  const auto n = static_cast<std::uint32_t>(text.size());
  for (int r = -1; r < std::max(1, repeats); ++r) {  // r = -1: warm-up
    // Search only: the kernels of both passes, hits left on the device.
    start.record(runner.stream().get());
    runner.launch_all();
    searched.record(runner.stream().get());
    searched.synchronize();
    // With the hits: both passes, the count, the sort and the keys back, split per pattern.
    std::vector<std::vector<core::EndHit>> out(patterns.size());
    again.record(runner.stream().get());
    runner.minimum_pass(0, n);
    runner.hits_pass(0, n, 0, out);
    stop.record(runner.stream().get());
    stop.synchronize();
    if (r >= 0) {
      search_ms.push_back(searched.ms_since(start));
      total_ms.push_back(stop.ms_since(again));
    }
    timing.hits = 0;
    for (std::size_t i = 0; i < out.size(); ++i) {
      if (queries[i].mode == core::ApproxMode::best) logic::keep_best_hits(out[i]);
      timing.hits += out[i].size();
    }
  }
  timing.search_ms = detail::median(search_ms);
  timing.with_hits_ms = detail::median(total_ms);
  return timing;
}

}  // namespace warpmatch::cuda
