// Approximate search, the public entry: validates options, resolves backend and algorithm
// once at compile(), routes each scan to src/cpu or src/cuda (which return end positions and
// distances), then applies the reporting options (clusters, max hits) and recovers starts
// and CIGARs only for the hits that are delivered, in parallel batches on the host.
#include <algorithm>
#include <chrono>

#include "api/backend_choice.hpp"
#include "api/multi_device.hpp"
#include "api/scan_stats.hpp"
#include "api/segment_groups.hpp"
#include "api/tuning_hooks.hpp"
#include "core/device_split.hpp"
#include "core/approx_align.hpp"
#include "core/host_copy.hpp"
#include "cpu/approx_cpu.hpp"
#include "cpu/approx_set_cpu.hpp"
#include "cuda/approx/approx_cuda.hpp"
#include "warpmatch/approx.hpp"

namespace warpmatch {

struct ApproxMatcher::Impl {
  ApproxOptions options;
  tuning_hooks::ApproxKnobs knobs;
  // The searched patterns: each user pattern, and/or its reverse complement (Strand), in
  // the order hits are delivered; user_index and strand say what each one reports as.
  std::vector<core::ApproxPattern> patterns;
  std::vector<std::uint32_t> user_index;
  std::vector<char> strand;
  std::vector<std::size_t> user_lengths;
  Backend backend = Backend::cpu;
  std::string algorithm;
  cpu::ApproxAlgorithm cpu_algorithm = cpu::ApproxAlgorithm::myers;
  std::shared_ptr<const cpu::ApproxSet> cpu_set;  // myers on the cpu: the set's tables, built once
  cuda::ApproxAlgorithm cuda_algorithm = cuda::ApproxAlgorithm::myers;
  // cuda: the patterns uploaded at compile to each GPU a segment is split over (workers, in
  // order; one for a single device); scans reuse their scratches.
  std::vector<std::shared_ptr<const cuda::ApproxDevicePatterns>> device_patterns;
  int threads = 1;
  std::vector<int> workers;  // cuda: the GPUs a segment is split over (Execution::devices)
  std::string device_label;

  /// scan and scan_device_text: `text` is in GPU memory when on_device (the cuda backend's
  /// kernels copy it device-to-device; recovery reads copies of the hits' windows).
  std::uint64_t scan(ByteSpan text, bool on_device, const ApproxSink& sink, ScanStats* stats,
                     ScanProgress* progress) const;

  /// compile() with the knobs (a member: it may call ApproxMatcher's private constructor).
  static ApproxMatcher compile(const std::vector<std::vector<std::uint8_t>>& patterns,
                               const ApproxOptions& options, const tuning_hooks::ApproxKnobs& knobs);

  core::ApproxQuery query_for(const core::ApproxPattern& p) const {
    core::ApproxQuery q;
    q.mode = options.best ? core::ApproxMode::best : core::ApproxMode::all_within_k;
    const std::uint64_t m = p.size();
    q.k = static_cast<std::uint32_t>(options.k < 0 ? m : std::min<std::uint64_t>(options.k, m));
    q.chunk_ends = knobs.chunk_ends;
    return q;
  }

  /// The ends of every pattern whose end lies in (own_begin, own_end] (text offsets), for
  /// the given queries: the backend sees text[from, own_end) with from = own_begin - the
  /// longest overlap (m + k), so every alignment ending in the segment lies inside it.
  /// On the cuda backend in all-hits mode the segment's ends are split over the workers: each
  /// takes a sub-range of ends (with this same overlap before it) and the hits are joined
  /// pattern by pattern in sub-range order, as one device finds them. Best mode (the
  /// minimum of a piece is not the minimum of its sub-ranges) stays on the first device.
  std::vector<std::vector<core::EndHit>> find_ends(ByteSpan text, std::uint64_t own_begin,
                                                   std::uint64_t own_end,
                                                   const std::vector<core::ApproxQuery>& queries,
                                                   cpu::SetRoute cpu_route) const {
    const bool best_mode = std::any_of(queries.begin(), queries.end(),
                                       [](const core::ApproxQuery& q) { return q.mode == core::ApproxMode::best; });
    const std::uint64_t min_share =
        multi_device::min_share(multi_device::SplitPolicy::approx_share_work / std::max<std::size_t>(patterns.size(), 1));
    const std::vector<core::Chunk> shares =
        backend == Backend::cuda && !best_mode
            ? core::plan_device_shares(own_end - own_begin, workers.size(), 0, std::max<std::uint64_t>(min_share, 1))
            : std::vector<core::Chunk>{};
    if (shares.size() <= 1) return find_ends_on(text, own_begin, own_end, queries, 0, cpu_route);
    std::vector<std::vector<std::vector<core::EndHit>>> parts(shares.size());
    multi_device::run_per_device(shares.size(), [&](std::size_t i) {
      parts[i] = find_ends_on(text, own_begin + shares[i].begin, own_begin + shares[i].owned_end, queries, i, cpu_route);
    }, workers);
    std::vector<std::vector<core::EndHit>> out = std::move(parts[0]);
    for (std::size_t i = 1; i < parts.size(); ++i)
      for (std::size_t p = 0; p < out.size(); ++p) out[p].insert(out[p].end(), parts[i][p].begin(), parts[i][p].end());
    return out;
  }

  /// The ends of the consecutive segments of `segment` ends in (begin, end], one element per
  /// segment. On several GPUs in all-hits mode the segments are dealt out in contiguous runs,
  /// one run per GPU, each GPU scanning its run's segments one after another while the others
  /// do theirs: a text of many segments keeps every GPU busy with whole segments and the host
  /// waits once per run, where splitting each segment over the GPUs gave each a sliver per
  /// launch and a synchronisation per segment (1000 guides, 4 GPUs: 2.8x). A single segment
  /// is still split over the GPUs by find_ends.
  std::vector<std::vector<std::vector<core::EndHit>>> find_ends_of_segments(
      ByteSpan text, std::uint64_t begin, std::uint64_t end, std::uint64_t segment,
      const std::vector<core::ApproxQuery>& queries, cpu::SetRoute cpu_route) const {
    const std::uint64_t count = (end - begin + segment - 1) / segment;
    std::vector<std::vector<std::vector<core::EndHit>>> out(count);
    if (count == 1) {
      out[0] = find_ends(text, begin, end, queries, cpu_route);
      return out;
    }
    // Each worker scans its run of consecutive segments at once, and the hits, sorted by end
    // per pattern, are cut back into the segments they are delivered in: the same hits in the
    // same order as segment by segment. The cpu's threads then meet once per group, not once
    // per 8 Mi-end segment; a GPU copies its run's next chunk while it searches the current one
    // (segment by segment, each call copied its text, then searched it).
    auto scan_run = [&](std::size_t worker, std::uint64_t first, std::uint64_t last) {
      const std::uint64_t b = begin + first * segment, e = std::min(end, begin + last * segment);
      std::vector<std::vector<core::EndHit>> all = find_ends_on(text, b, e, queries, worker, cpu_route);
      for (std::uint64_t i = first; i < last; ++i) out[i].resize(all.size());
      for (std::size_t p = 0; p < all.size(); ++p)
        for (const core::EndHit& h : all[p]) out[(h.end - begin - 1) / segment][p].push_back(h);
    };
    if (backend != Backend::cuda) {
      scan_run(0, 0, count);
      return out;
    }
    const std::size_t runs = std::min<std::size_t>(count, workers.size());
    multi_device::run_per_device(runs, [&](std::size_t w) {
      scan_run(w, count * w / runs, count * (w + 1) / runs);
    }, workers);
    return out;
  }

  /// The cpu set's route for a scan of `text`, chosen once on the whole text (a segment is too
  /// small to sample); automatic where there is no set.
  cpu::SetRoute cpu_route_for(ByteSpan text, const std::vector<core::ApproxQuery>& queries) const {
    return backend == Backend::cpu && cpu_set ? cpu_set->choose_route(text, queries) : cpu::SetRoute::automatic;
  }

  /// How many segments find_ends_of_segments takes at once (their hits are held until
  /// delivered in order), in all-hits mode: on the cpu kCpuSegments (16 threads finish an
  /// 8 Mi-end segment in well under a millisecond, so a pool round per segment cost a third of
  /// one 20-mer's rate: 9.7 GB/s, H200 host); on the GPUs up to kSegmentsPerDevice per GPU
  /// (a GPU's run is one call, whose chunks' copies overlap its searches); else one. An early
  /// stop wastes at most that many segments' work.
  std::uint64_t segments_at_once(const std::vector<core::ApproxQuery>& queries, std::uint64_t n,
                                 std::uint64_t segment) const {
    constexpr std::uint64_t kSegmentsPerDevice = 16, kCpuSegments = 4;
    const bool best_mode = std::any_of(queries.begin(), queries.end(),
                                       [](const core::ApproxQuery& q) { return q.mode == core::ApproxMode::best; });
    if (best_mode) return 1;
    if (backend != Backend::cuda) return threads > 1 ? kCpuSegments : 1;
    const std::uint64_t segments = (n + segment - 1) / segment;
    const std::uint64_t per_device = (segments + workers.size() - 1) / workers.size();
    return workers.size() * std::clamp<std::uint64_t>(per_device, 1, kSegmentsPerDevice);
  }

  /// find_ends on one device (the cuda backend's workers[worker]); on the cpu, the set's
  /// route chosen for the whole text (cpu::ApproxSet::choose_route).
  std::vector<std::vector<core::EndHit>> find_ends_on(ByteSpan text, std::uint64_t own_begin, std::uint64_t own_end,
                                                      const std::vector<core::ApproxQuery>& queries,
                                                      std::size_t worker, cpu::SetRoute cpu_route) const {
    std::uint64_t overlap = 0;
    for (std::size_t i = 0; i < patterns.size(); ++i)
      overlap = std::max(overlap, core::approx_overlap(patterns[i].size(), queries[i].k));
    const std::uint64_t from = own_begin > overlap ? own_begin - overlap : 0;
    const ByteSpan piece = text.subspan(from, own_end - from);
    std::vector<std::vector<core::EndHit>> out;
    if (backend == Backend::cuda) {
      const cuda::DeviceMemoryLimitScope cap(options.device_memory_limit);
      out = cuda::approx_scan(*device_patterns[worker], queries, piece);
    } else if (cpu_set) {
      out = cpu_set->scan(piece, queries, threads, nullptr, cpu_route);
    } else {
      for (std::size_t i = 0; i < patterns.size(); ++i)
        out.push_back(cpu::approx_scan(patterns[i], piece, queries[i], cpu_algorithm, threads));
    }
    for (auto& hits : out) {
      // Ends at or before own_begin belong to the segment before (best mode: the piece's
      // minimum may lie there, so the caller re-checks the minimum of what is kept).
      const auto first = std::find_if(hits.begin(), hits.end(),
                                      [&](const core::EndHit& h) { return from + h.end > own_begin; });
      hits.erase(hits.begin(), first);
      for (auto& h : hits) h.end += from;
    }
    return out;
  }
};

namespace {

/// Of each maximal run of consecutive end positions keep the smallest distance (leftmost),
/// across segments: the run still open at a segment's last end is carried to the next.
struct ClusterCarry {
  bool open = false;
  core::EndHit best;
  std::uint64_t last_end = 0;
};

std::vector<core::EndHit> best_of_clusters(const std::vector<core::EndHit>& hits, ClusterCarry& carry,
                                           std::uint64_t segment_end, bool last_segment) {
  std::vector<core::EndHit> kept;
  for (const core::EndHit& h : hits) {
    if (carry.open && h.end == carry.last_end + 1) {
      if (h.distance < carry.best.distance) carry.best = h;
      carry.last_end = h.end;
    } else {
      if (carry.open) kept.push_back(carry.best);
      carry = {true, h, h.end};
    }
  }
  // A run that stops before the segment's last end cannot continue in the next segment.
  if (carry.open && (last_segment || carry.last_end < segment_end)) {
    kept.push_back(carry.best);
    carry.open = false;
  }
  return kept;
}

/// The text bytes the host reads to recover hits' starts and CIGARs: the scanned text itself,
/// or for a text in GPU memory (scan_device_text) copies of only the m + d bytes before each
/// hit's end (all recover_start and recover_cigar read), fetched batch by batch with nearby
/// windows merged into one copy.
class HitText {
 public:
  HitText(ByteSpan text, bool on_device) : text_(text), on_device_(on_device) {}

  /// Text as recovery sees it for one hit: `text` holds text[base, base + text.size()).
  struct View {
    ByteSpan text;
    std::uint64_t base = 0;
  };

  /// Makes text[lo, hi) readable for each of `count` hits, window(i) giving hit i's {lo, hi}
  /// (its end and the m + d bytes before it: all recover_start and recover_cigar read).
  template <class Window>
  void fetch(std::size_t count, const Window& window) {
    if (!on_device_) return;
    constexpr std::uint64_t kMergeGap = 4096;  // one copy for windows this close: copies cost ~10 us
    pieces_.clear();
    piece_of_.assign(count, 0);
    std::vector<cuda::DeviceToHostCopy> copies;
    std::uint64_t bytes = 0;
    for (std::size_t i = 0; i < count; ++i) {
      const auto [lo, hi] = window(i);
      if (pieces_.empty() || lo > pieces_.back().hi + kMergeGap || hi + kMergeGap < pieces_.back().lo) {
        pieces_.push_back({lo, hi, 0});
      } else {
        pieces_.back().lo = std::min(pieces_.back().lo, lo);
        pieces_.back().hi = std::max(pieces_.back().hi, hi);
      }
      piece_of_[i] = pieces_.size() - 1;
    }
    for (Piece& p : pieces_) {
      p.at = bytes;
      bytes += p.hi - p.lo;
    }
    host_.resize(bytes);
    for (const Piece& p : pieces_) copies.push_back({host_.data() + p.at, text_.data() + p.lo, p.hi - p.lo});
    cuda::copy_to_host(copies);
  }

  /// Hit i of the last fetch (host text: the whole text).
  View view(std::size_t i) const {
    if (!on_device_) return {text_, 0};
    const Piece& p = pieces_[piece_of_[i]];
    return {ByteSpan(host_).subspan(p.at, p.hi - p.lo), p.lo};
  }

 private:
  struct Piece {
    std::uint64_t lo, hi, at;  // text[lo, hi) at host_[at]
  };
  ByteSpan text_;
  bool on_device_;
  std::vector<Piece> pieces_;
  std::vector<std::size_t> piece_of_;
  std::vector<std::uint8_t> host_;
};

// End positions per segment: a segment's hits are found, delivered, then freed, so memory is
// bounded by a group of segments (segments_at_once; 16 bytes per end at most: all of them can
// be hits) whatever the text, and an early stop (the sink, max_hits) wastes at most one
// group's work (the first segment goes alone on the cpu).
constexpr std::uint64_t kSegmentEnds = std::uint64_t{1} << 23;

}  // namespace

ApproxMatcher ApproxMatcher::compile(ByteSpan pattern, const ApproxOptions& options) {
  return compile(std::vector<std::vector<std::uint8_t>>{{pattern.begin(), pattern.end()}}, options);
}

ApproxMatcher ApproxMatcher::compile(const std::vector<std::vector<std::uint8_t>>& patterns,
                                     const ApproxOptions& options) {
  return Impl::compile(patterns, options, {});
}

ApproxMatcher tuning_hooks::compile_approx(const std::vector<std::vector<std::uint8_t>>& patterns,
                                           const ApproxOptions& options, const ApproxKnobs& knobs) {
  return ApproxMatcher::Impl::compile(patterns, options, knobs);
}

ApproxMatcher tuning_hooks::compile_approx(ByteSpan pattern, const ApproxOptions& options, const ApproxKnobs& knobs) {
  return ApproxMatcher::Impl::compile(std::vector<std::vector<std::uint8_t>>{{pattern.begin(), pattern.end()}}, options,
                                      knobs);
}

ApproxMatcher ApproxMatcher::Impl::compile(const std::vector<std::vector<std::uint8_t>>& patterns,
                                           const ApproxOptions& options, const tuning_hooks::ApproxKnobs& knobs) {
  if (patterns.empty()) throw InvalidArgument("no pattern: approximate search needs at least one");
  if (patterns.size() > 0xffffffffull) throw InvalidArgument("too many patterns (limit 2^32 - 1)");
  if (options.k < -1 || (options.k == -1 && !options.best))
    throw InvalidArgument(options.k == -1
                              ? "k (the maximum number of edits) is required unless best mode is on"
                              : "k must be >= 0 (got " + std::to_string(options.k) + ")");
  const int threads = core::execution_threads(options);
  core::check_device_list(options);
  if (knobs.wavefront_blocks < 0) throw InvalidArgument("wavefront blocks must be >= 0 (0 = auto)");
  auto impl = std::make_shared<Impl>();
  impl->options = options;
  impl->knobs = knobs;
  const bool sequence = options.iupac || options.strand != Strand::forward;
  auto add = [&](std::vector<std::uint8_t> bytes, std::size_t user, char strand) {
    core::ApproxPattern p;
    p.case_insensitive = options.case_insensitive;
    p.iupac = options.iupac;
    p.hamming = options.hamming;
    p.bytes = std::move(bytes);
    if (options.case_insensitive)
      for (auto& c : p.bytes) c = core::fold_ascii(c);
    impl->patterns.push_back(std::move(p));
    impl->user_index.push_back(static_cast<std::uint32_t>(user));
    impl->strand.push_back(strand);
  };
  for (std::size_t i = 0; i < patterns.size(); ++i) {
    if (patterns[i].empty())
      throw InvalidArgument("pattern " + std::to_string(i) +
                            " is empty: approximate search needs at least one byte");
    impl->user_lengths.push_back(patterns[i].size());
    const std::string what = "pattern " + std::to_string(i);
    // The reverse complement also checks that every byte is a nucleotide or IUPAC code.
    std::vector<std::uint8_t> minus = sequence ? reverse_complement(patterns[i], what) : std::vector<std::uint8_t>{};
    if (options.strand != Strand::reverse) add(patterns[i], i, '+');
    if (options.strand != Strand::forward) add(std::move(minus), i, '-');
  }
  if (impl->patterns.size() > 0xffffffffull) throw InvalidArgument("too many patterns (limit 2^32 - 1 with both strands)");
  impl->threads = threads;

  const std::string& algo = options.algorithm;
  impl->backend = core::backend_for_algorithm(options.backend, algo, {"dp"}, {"wavefront"});
  constexpr std::string_view kOperation = "approximate search";
  if (impl->backend == Backend::cpu) {
    using A = cpu::ApproxAlgorithm;
    impl->cpu_algorithm = core::pick_algorithm<A>(algo, kOperation, Backend::cpu, {{"myers", A::myers}, {"dp", A::dp}},
                                                  "'wavefront' runs on the cuda backend", impl->algorithm);
    if (impl->cpu_algorithm == A::myers) impl->cpu_set = std::make_shared<const cpu::ApproxSet>(impl->patterns);
    impl->device_label = core::cpu_device_label(impl->threads);
  } else {
    using A = cuda::ApproxAlgorithm;
    impl->cuda_algorithm = core::pick_algorithm<A>(algo, kOperation, Backend::cuda,
                                                   {{"myers", A::myers}, {"wavefront", A::wavefront}},
                                                   "'dp' runs on the cpu backend", impl->algorithm);
    if (impl->cuda_algorithm == A::wavefront && (options.iupac || options.hamming))
      throw InvalidArgument(std::string("the cuda 'wavefront' kernel compares plain bytes with edit distance; ") +
                            (options.hamming ? "Hamming search" : "IUPAC codes") + " run on the 'myers' algorithm");
    const std::uint64_t limit = cuda::approx_max_pattern_length(impl->cuda_algorithm);
    for (std::size_t i = 0; i < impl->patterns.size(); ++i)
      if (impl->patterns[i].size() > limit)
        throw InvalidArgument("pattern " + std::to_string(i) + " has " +
                              std::to_string(impl->patterns[i].size()) +
                              " bytes; the cuda '" + impl->algorithm + "' kernel accepts at most " +
                              std::to_string(limit) + " (the cpu backend has no such limit)");
  }
  impl->workers = core::execution_devices(options, impl->backend);
  if (impl->backend == Backend::cuda) {
    impl->device_label = core::cuda_devices_label(impl->workers);
    std::vector<core::ApproxQuery> queries;
    for (const auto& p : impl->patterns) queries.push_back(impl->query_for(p));
    const cuda::DeviceMemoryLimitScope cap(options.device_memory_limit);
    for (const int device : impl->workers)
      impl->device_patterns.push_back(
          cuda::approx_upload(impl->patterns, queries, impl->cuda_algorithm, knobs.wavefront_blocks, device));
  }
  return ApproxMatcher(std::move(impl));
}

std::uint64_t ApproxMatcher::scan(ByteSpan text, const ApproxSink& sink, ScanStats* stats,
                                  ScanProgress* progress) const {
  return impl_->scan(text, /*on_device=*/false, sink, stats, progress);
}

std::uint64_t ApproxMatcher::scan_device_text(DeviceSpan text, const ApproxSink& sink, ScanStats* stats) const {
  const ByteSpan on_device = core::device_resident_text(text, impl_->options, impl_->backend, "approximate search");
  return impl_->scan(on_device, /*on_device=*/true, sink, stats, nullptr);
}

std::uint64_t ApproxMatcher::Impl::scan(ByteSpan text, bool on_device, const ApproxSink& sink, ScanStats* stats,
                                        ScanProgress* progress) const {
  const auto t0 = api::clock_for(stats);  // no clock read without stats: a read's scan is ~1 us
  const Impl& im = *this;
  const ApproxOptions& opt = im.options;
  const std::size_t np = im.patterns.size();
  const std::uint64_t n = text.size();
  // Segments are the same on both backends: hits are delivered segment by segment, pattern by
  // pattern, so the segment length is part of the output order.
  const std::uint64_t segment = im.knobs.segment_ends ? im.knobs.segment_ends : kSegmentEnds;
  std::atomic<std::uint64_t>* done = progress ? &progress->done : nullptr;
  std::vector<core::ApproxQuery> queries;
  for (const auto& p : im.patterns) queries.push_back(im.query_for(p));

  // Best mode over more than one segment: a first pass finds each pattern's minimum d*
  // (segment 0 in best mode, every later segment for ends within the minimum so far); the
  // hits are then every end within d* (the same set: no end is below the minimum), found
  // and delivered segment by segment like all-hits mode.
  if (opt.best && n > segment) {
    std::vector<std::uint32_t> best(np);
    for (std::size_t i = 0; i < np; ++i) best[i] = queries[i].k;  // the bound (m when unset)
    for (std::uint64_t b = 0; b < n; b += segment) {
      const std::uint64_t e = std::min(n, b + segment);
      std::vector<core::ApproxQuery> q = queries;
      for (std::size_t i = 0; i < np; ++i) {
        if (b > 0) q[i].mode = core::ApproxMode::all_within_k;
        q[i].k = best[i];
      }
      // The minimum's pass runs the set pass (the seed filter reports ends within k, not minima).
      const auto ends = im.find_ends(text, b, e, q, cpu::SetRoute::set_pass);
      for (std::size_t i = 0; i < np; ++i)
        for (const core::EndHit& h : ends[i])
          best[i] = std::min(best[i], h.distance);
      if (done) done->fetch_add((e - b) * im.user_lengths.size(), std::memory_order_relaxed);
    }
    // A pattern with no end within the bound keeps the bound: its query finds nothing.
    for (std::size_t i = 0; i < np; ++i) {
      queries[i].mode = core::ApproxMode::all_within_k;
      queries[i].k = best[i];
    }
    done = nullptr;
  }

  std::uint64_t delivered = 0;
  bool stopped = false;
  const bool want_start = opt.report >= Report::starts;
  const bool want_cigar = opt.report == Report::cigar;
  std::vector<ClusterCarry> carry(np);
  HitText hit_text(text, on_device);
  // Hits go out in batches of up to kBatch taken across patterns and segments in delivery
  // order, each batch's starts and CIGARs recovered on all threads at once: batches of one
  // (segment, pattern) held a few hits each, so 1000 guides' ~2,500 hits over 256 MiB were
  // recovered one at a time (1.7 ms, after 6.5 ms of search on four GPUs).
  constexpr std::size_t kBatch = 4096;
  struct Pending {
    std::size_t pattern;  // in im.patterns
    core::EndHit hit;
  };
  std::vector<Pending> pending;
  std::vector<ApproxMatch> batch;
  auto flush = [&] {
    const std::size_t count = pending.size();
    if (count == 0 || stopped) return;
    batch.assign(count, ApproxMatch{});
    if (want_start)
      hit_text.fetch(count, [&](std::size_t i) {
        const core::EndHit& h = pending[i].hit;
        const std::uint64_t reach = im.patterns[pending[i].pattern].size() + h.distance;
        return std::pair<std::uint64_t, std::uint64_t>{h.end - std::min(h.end, reach), h.end};
      });
    auto recover = [&](std::size_t i) {
      const std::size_t pi = pending[i].pattern;
      const core::EndHit& h = pending[i].hit;
      ApproxMatch& out = batch[i];
      out.pattern = im.user_index[pi];
      out.strand = im.strand[pi];
      out.end = h.end;
      out.distance = h.distance;
      if (!want_start) return;
      const core::ApproxPattern& pattern = im.patterns[pi];
      const HitText::View v = hit_text.view(i);
      out.start = v.base + core::recover_start(pattern, v.text, h.end - v.base, h.distance);
      if (want_cigar) out.cigar = core::recover_cigar(pattern, v.text, out.start - v.base, h.end - v.base, h.distance);
    };
    // On the persistent host pool, at most `threads` ranges at once: a thread started per
    // batch cost more than the recovery of a few thousand hits (64 of them on the 4-GPU host).
    constexpr std::size_t kPerTask = 64;
    const std::size_t tasks = want_start ? std::min<std::size_t>(static_cast<std::size_t>(std::max(1, im.threads)),
                                                                 (count + kPerTask - 1) / kPerTask)
                                         : 1;
    core::run_on_host_pool(tasks, [&](std::size_t t) {
      for (std::size_t i = count * t / tasks; i < count * (t + 1) / tasks; ++i) recover(i);
    });
    pending.clear();
    for (const ApproxMatch& match : batch) {
      ++delivered;
      if (!sink(match) || (opt.max_hits && delivered >= opt.max_hits)) {
        stopped = true;
        break;
      }
    }
  };
  const cpu::SetRoute cpu_route = im.cpu_route_for(text, queries);
  // Segments per group: the first group one per worker (the first hits come after that much
  // work, and it shows how dense the hits are); later ones up to segments_at_once, as many as
  // keep a group's hits within api::kGroupHits at the density seen so far.
  const std::uint64_t most = im.segments_at_once(queries, n, segment);
  const std::uint64_t fewest = std::min<std::uint64_t>(most, im.backend == Backend::cuda ? im.workers.size() : 1);
  std::uint64_t segments_now = fewest;
  for (std::uint64_t g = 0, span = 0; g < n && !stopped; g += span) {
    span = segment * segments_now;
    const auto group_ends = im.find_ends_of_segments(text, g, std::min(n, g + span), segment, queries, cpu_route);
    std::uint64_t group_hits = 0;
    for (const auto& segment_ends : group_ends)
      for (const auto& hits : segment_ends) group_hits += hits.size();
    segments_now = api::next_group_segments(group_hits, group_ends.size(), fewest, most);
    for (std::size_t s = 0; s < group_ends.size() && !stopped; ++s) {
      const std::uint64_t b = g + s * segment, e = std::min(n, b + segment);
      const bool last = e == n;
      const std::vector<std::vector<core::EndHit>>& ends = group_ends[s];
      if (done) done->fetch_add((e - b) * im.user_lengths.size(), std::memory_order_relaxed);
      for (std::size_t pi = 0; pi < np && !stopped; ++pi) {
        const std::vector<core::EndHit> clustered =
            opt.best_of_cluster ? best_of_clusters(ends[pi], carry[pi], e, last) : std::vector<core::EndHit>{};
        for (const core::EndHit& h : opt.best_of_cluster ? clustered : ends[pi]) {
          pending.push_back({pi, h});
          if (pending.size() == kBatch || (opt.max_hits && delivered + pending.size() >= opt.max_hits)) {
            flush();
            if (stopped) break;
          }
        }
      }
    }
    flush();  // a group's hits are delivered before the next group is searched
  }
  api::fill_scan_stats(stats, im.backend, im.algorithm, im.device_label, text.size(), delivered,
                       api::seconds_for(stats, t0));
  return delivered;
}

std::vector<ApproxMatch> ApproxMatcher::find_all(ByteSpan text) const {
  std::vector<ApproxMatch> out;
  scan(text, [&](const ApproxMatch& m) {
    out.push_back(m);
    return true;
  });
  return out;
}

std::size_t ApproxMatcher::pattern_count() const { return impl_->user_lengths.size(); }
std::size_t ApproxMatcher::pattern_length(std::size_t index) const { return impl_->user_lengths.at(index); }
std::int64_t ApproxMatcher::k() const { return impl_->options.k; }
Backend ApproxMatcher::backend() const { return impl_->backend; }
const std::string& ApproxMatcher::algorithm() const { return impl_->algorithm; }
const ApproxOptions& ApproxMatcher::options() const { return impl_->options; }
const std::string& ApproxMatcher::device_label() const { return impl_->device_label; }

ApproxMatcher::ApproxMatcher(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
ApproxMatcher::ApproxMatcher(ApproxMatcher&&) noexcept = default;
ApproxMatcher& ApproxMatcher::operator=(ApproxMatcher&&) noexcept = default;
ApproxMatcher::~ApproxMatcher() = default;

}  // namespace warpmatch
