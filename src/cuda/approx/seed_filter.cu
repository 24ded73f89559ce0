// CUDA pigeonhole seed filter (see seed_filter.hpp and the kernels' header): why. The set
// kernel (short_set.cu) costs ~19 integer operations per pattern and text byte, so 1000 20-mers
// over 256 MiB take ~240 ms on an H200 whatever the text. A 20-mer within k = 2 edits of a
// substring holds one of its three 6-7-base pieces exactly; in random DNA such a piece of one
// of 1000 patterns starts at about a third of the positions, and each occurrence costs one
// Myers run over m + 3k bytes: ~10 steps per byte instead of ~1000 patterns' worth. The text
// is searched in chunks owning their ends (the margins hold the windows that reach them), each
// in passes of two kernels (candidates found, then verified; kernels::seed_chunk_passes sizes
// them); hits come back as (end, pattern, distance), are sorted and made unique on the host.
#include <cooperative_groups.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "cuda/approx/seed_filter.hpp"
#include "cuda/approx/seed_filter_kernels.cuh"
#include "cuda/approx/timing.hpp"
#include "cuda/approx/tuning.hpp"
#include "cuda/runtime/device_runtime.cuh"
#include "cuda/runtime/devices.hpp"
#include "cuda/runtime/scratch_pool.hpp"

namespace warpmatch::cuda {

namespace {

using detail::DeviceBuffer;
using kernels::SeedCandidate;
using kernels::SeedHit;

/// A scan's device buffers, kept in the filter's pool for the next scan (the API scans a long
/// text in groups of 8 Mi-end segments: one allocation for all of them). Host text goes
/// through two slots: chunk i + 1 goes through the upload ring into the other slot's
/// device buffer (on the copy stream) while chunk i's kernels run.
struct SeedScratch {
  struct Slot {
    explicit Slot(int device) : text(device), upload(device), uploaded(device, false) {}
    DeviceBuffer<std::uint8_t> text;
    detail::TextUpload upload;  // host text through the upload ring
    detail::Event uploaded;     // the chunk's text is on the device
  };
  explicit SeedScratch(int device)
      : slots{Slot(device), Slot(device)}, copy(device), candidates(device), hits(device), counts(device, 2) {}
  Slot slots[2];                    // slots[0].text holds the whole text of a resident timing
  detail::Stream copy;              // non-blocking: its copies overlap the default stream's kernels
  DeviceBuffer<SeedCandidate> candidates;
  DeviceBuffer<SeedHit> hits;
  DeviceBuffer<unsigned long long> counts;  // candidates, hits
  unsigned long long candidate_capacity = 0, hit_capacity = 0;
};

}  // namespace

class SeedFilterDevice {
 public:
  SeedFilterDevice(std::unique_ptr<const core::SeedPlan> p, int device)
      : device(device), plan(std::move(p)), bitmap(device), bucket_start(device), entry_key(device),
        entry_piece(device), piece_offsets(device), piece_bytes(device), use_start(device), use_member(device),
        use_offset(device), members(device), peq(device), class_of(device), peq_top(device) {
    upload(bitmap, plan->bitmap);
    upload(bucket_start, plan->bucket_start);
    upload(entry_key, plan->entry_key);
    upload(entry_piece, plan->entry_piece);
    upload(piece_offsets, plan->piece_offsets);
    upload(piece_bytes, plan->piece_bytes);
    upload(use_start, plan->use_start);
    upload(use_member, plan->use_member);
    upload(use_offset, plan->use_offset);
    upload(members, plan->members);
    upload(peq, plan->peq);
    const core::SeedTopWords top = core::seed_top_words(*plan);
    upload(class_of, top.class_of);
    upload(peq_top, top.peq_top);
    top_classes = top.classes;
    detail::wait_for_uploads(device);
  }

  kernels::SeedTables tables() const {
    return {bitmap.get(),     bucket_start.get(), entry_key.get(),  entry_piece.get(),
            piece_offsets.get(), piece_bytes.get(), use_start.get(), use_member.get(),
            use_offset.get(), members.get(),      peq.get(),        plan->q,
            64 - plan->bitmap_bits, 64 - plan->bucket_bits, plan->case_insensitive,
            top_classes ? class_of.get() : nullptr, top_classes ? peq_top.get() : nullptr, top_classes};
  }

  int device;
  std::unique_ptr<const core::SeedPlan> plan;
  mutable detail::ScratchPool<SeedScratch> scratches;

 private:
  template <class T>
  void upload(DeviceBuffer<T>& to, const std::vector<T>& from) {
    to.reserve(from.size());
    if (!from.empty())
      WARPMATCH_CUDA_CHECK(device, cudaMemcpy(to.get(), from.data(), from.size() * sizeof(T), cudaMemcpyHostToDevice));
  }

  DeviceBuffer<std::uint64_t> bitmap;
  DeviceBuffer<std::uint32_t> bucket_start;
  DeviceBuffer<std::uint64_t> entry_key;
  DeviceBuffer<std::uint32_t> entry_piece, piece_offsets;
  DeviceBuffer<std::uint8_t> piece_bytes;
  DeviceBuffer<std::uint32_t> use_start, use_member, use_offset;
  DeviceBuffer<core::SeedPlan::Member> members;
  DeviceBuffer<std::uint64_t> peq;
  DeviceBuffer<std::uint8_t> class_of;
  DeviceBuffer<std::uint32_t> peq_top;
  std::uint32_t top_classes = 0;  // core::seed_top_words's classes; 0: none, the 256-entry words
};

std::shared_ptr<const SeedFilterDevice> seed_filter_upload(std::unique_ptr<const core::SeedPlan> plan, int device) {
  return std::make_shared<const SeedFilterDevice>(std::move(plan), device);
}

const core::SeedPlan& seed_filter_plan(const SeedFilterDevice& filter) { return *filter.plan; }

bool seed_filter_pays(const SeedFilterDevice& filter, ByteSpan text) {
  const core::SeedPlan& plan = *filter.plan;
  const SeedFilterPolicy policy;
  if (text.size() < policy.min_text_bytes) return false;  // the set kernel's one launch is cheaper
  ByteSpan sample = text.subspan(text.size() / 2 - std::min(text.size(), policy.sample_bytes) / 2,
                                 std::min(text.size(), policy.sample_bytes));
  std::vector<std::uint8_t> sample_copy;  // a DeviceSpan's text is read here from a host copy
  if (detail::is_device_memory(sample.data())) {
    sample_copy.resize(sample.size());
    copy_to_host({{sample_copy.data(), sample.data(), sample.size()}});
    sample = sample_copy;
  }
  const double uses = static_cast<double>(core::count_seed_uses(plan, sample));
  double window = 0;  // mean Myers steps of a verification
  for (const auto& m : plan.members) window += m.hamming ? m.m / 2.0 : m.m + 3.0 * m.k;
  window /= static_cast<double>(plan.members.size());
  const double filter_work = policy.position_steps + uses / static_cast<double>(sample.size()) * window;
  const double set_work = static_cast<double>(plan.members.size());  // one step per pattern and byte
  return filter_work * policy.advantage < set_work;
}

namespace {

/// The passes of one scan on the filter's device (kernels::seed_chunk_passes's runner), on the
/// legacy default stream; the hits of finished passes appended to `kept` (null: left on the
/// device, for the search-only timing).
class SeedRunner {
 public:
  SeedRunner(const SeedFilterDevice& filter, SeedScratch& scratch, std::vector<SeedHit>* kept)
      : filter_(filter), s_(scratch), kept_(kept), tables_(filter.tables()) {
    WARPMATCH_CUDA_CHECK(filter.device,
                         cudaDeviceGetAttribute(&multiprocessors_, cudaDevAttrMultiProcessorCount, filter.device));
  }
  unsigned long long candidate_capacity() const { return s_.candidate_capacity; }
  unsigned long long hit_capacity() const { return s_.hit_capacity; }
  void grow_candidates(unsigned long long n) {
    s_.candidates.reserve(n);
    s_.candidate_capacity = n;
  }
  void grow_hits(unsigned long long n) {
    s_.hits.reserve(n);
    s_.hit_capacity = n;
  }
  kernels::SeedCounts run(const kernels::SeedChunk& c, std::int64_t lo, std::int64_t hi) {
    const int device = filter_.device;
    unsigned long long* counts = s_.counts.get();
    WARPMATCH_CUDA_CHECK(device, cudaMemsetAsync(counts, 0, 2 * sizeof(unsigned long long), 0));
    const std::int64_t starts = hi - lo + 1;
    const std::int64_t most = std::int64_t{multiprocessors_} * 16;
    const auto find_blocks = static_cast<unsigned>(
        std::min<std::int64_t>((starts + kernels::kSeedThreads - 1) / kernels::kSeedThreads, most));
    kernels::seed_find_kernel<<<find_blocks, kernels::kSeedThreads>>>(
        tables_, c, lo, hi, {s_.candidates.get(), s_.candidate_capacity, counts});
    detail::check_launch("seed_find_kernel", device);
    // Sized for the buffer: the count stays on the device (no wait between the phases).
    const auto verify_blocks = static_cast<unsigned>(std::clamp<std::int64_t>(
        static_cast<std::int64_t>((s_.candidate_capacity + kernels::kSeedThreads - 1) / kernels::kSeedThreads), 1, most));
    kernels::seed_verify_kernel<<<verify_blocks, kernels::kSeedThreads>>>(
        tables_, c, s_.candidates.get(), counts, s_.candidate_capacity, {s_.hits.get(), s_.hit_capacity, counts + 1});
    detail::check_launch("seed_verify_kernel", device);
    // The host's work for the next chunk (its copy), while these kernels run.
    if (while_searching_) std::exchange(while_searching_, nullptr)();
    kernels::SeedCounts got;
    unsigned long long back[2] = {0, 0};
    WARPMATCH_CUDA_CHECK(device, cudaMemcpy(back, counts, sizeof back, cudaMemcpyDeviceToHost));
    got.candidates = back[0];
    got.hits = back[1];
    return got;
  }
  /// Runs once, after the next launch (the chunk's first pass) and before its counts are awaited.
  void while_searching(std::function<void()> work) { while_searching_ = std::move(work); }
  void keep_hits(unsigned long long count) {
    if (!kept_ || count == 0) return;
    const std::size_t had = kept_->size();
    kept_->resize(had + count);
    WARPMATCH_CUDA_CHECK(filter_.device, cudaMemcpy(kept_->data() + had, s_.hits.get(), count * sizeof(SeedHit),
                                                    cudaMemcpyDeviceToHost));
  }

 private:
  const SeedFilterDevice& filter_;
  SeedScratch& s_;
  std::vector<SeedHit>* kept_;
  kernels::SeedTables tables_;
  int multiprocessors_ = 0;
  std::function<void()> while_searching_;
};

/// Copies chunk `c`'s bytes of `text` into `slot`'s device buffer on the copy stream.
void upload_chunk(SeedScratch& scratch, SeedScratch::Slot& slot, ByteSpan text, const kernels::SeedChunk& c) {
  const auto bytes = static_cast<std::size_t>(c.bytes);
  slot.text.reserve(bytes);
  slot.upload.copy(slot.text.get(), text.data() + c.base, bytes, scratch.copy.get());
  slot.uploaded.record(scratch.copy.get());
}

/// Every chunk of `text` through the runner's passes. resident: the whole text already in
/// slots[0].text (the timing); else each chunk's bytes are uploaded into a slot, the next
/// chunk's while this one is searched. false: a flood (hits beyond the policy's cap).
bool seed_search(const SeedFilterDevice& filter, SeedScratch& scratch, ByteSpan text, bool resident,
                 std::vector<SeedHit>* kept) {
  const core::SeedPlan& plan = *filter.plan;
  const SeedFilterPolicy policy = seed_filter_policy();
  const auto n = static_cast<std::int64_t>(text.size());
  const auto max_m = static_cast<std::int64_t>(plan.max_m), max_k = static_cast<std::int64_t>(plan.max_k);
  const auto chunk_ends = static_cast<std::int64_t>(policy.chunk_ends);
  std::vector<kernels::SeedChunk> chunks;  // those with a piece start to try
  for (std::int64_t e_lo = 0; e_lo < n; e_lo += chunk_ends) {
    // Pieces whose windows reach ends (e_lo, e_hi]; the bytes those windows and pieces read.
    const kernels::SeedChunk c =
        kernels::seed_chunk(n, e_lo, chunk_ends, static_cast<std::int64_t>(plan.q), max_m, max_k);
    if (c.s_hi >= c.s_lo) chunks.push_back(c);
  }
  if (chunks.empty()) return true;
  SeedRunner runner(filter, scratch, kept);
  // First buffers: half a candidate per piece start of a chunk (random DNA under 1000 20-mers
  // at k = 2 has about a third), the policy's hits.
  const auto want = std::clamp<unsigned long long>(
      static_cast<unsigned long long>(chunks[0].s_hi - chunks[0].s_lo + 1) / 2, policy.min_candidate_capacity,
      policy.candidate_capacity);
  if (scratch.candidate_capacity < want) runner.grow_candidates(want);
  if (scratch.hit_capacity < policy.hit_capacity) runner.grow_hits(policy.hit_capacity);
  // No copy may still be writing a slot when the scratch goes back to the pool (a flood or an
  // error leaves the next chunk's upload in flight).
  struct CopiesDone {
    SeedScratch& s;
    ~CopiesDone() { cudaStreamSynchronize(s.copy.get()); }
  } copies_done{scratch};
  const int device = filter.device;
  std::size_t uploaded = 0;  // chunks [0, uploaded) are (being) copied to their slots
  auto upload = [&](std::size_t i) {
    upload_chunk(scratch, scratch.slots[i % 2], text, chunks[i]);
    uploaded = i + 1;
  };
  if (!resident) {
    // Both slots sized before the first launch: a reserve while kernels run would free (and so
    // synchronise the device) in the middle of the pipeline.
    std::int64_t largest = 0;
    for (const auto& c : chunks) largest = std::max(largest, c.bytes);
    for (std::size_t s = 0; s < std::min<std::size_t>(2, chunks.size()); ++s) {
      scratch.slots[s].text.reserve(static_cast<std::size_t>(largest));
      scratch.slots[s].upload.reserve(static_cast<std::size_t>(largest), text.data());
    }
    upload(0);
  }
  std::int64_t span = std::numeric_limits<std::int64_t>::max();  // a chunk in one pass, until too many
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    kernels::SeedChunk c = chunks[i];
    if (resident) {
      c.text = scratch.slots[0].text.get() + c.base;
    } else {
      SeedScratch::Slot& slot = scratch.slots[i % 2];
      // The default stream's kernels wait for this chunk's copy, the host does not.
      WARPMATCH_CUDA_CHECK(device, cudaStreamWaitEvent(0, slot.uploaded.get(), 0));
      c.text = slot.text.get();
      // The other slot's chunk (i - 1) is done: its counts and hits came back synchronously.
      if (i + 1 < chunks.size()) runner.while_searching([&, next = i + 1] { upload(next); });
    }
    if (!kernels::seed_chunk_passes(runner, c, span, policy.max_candidate_capacity, policy.max_hit_capacity))
      return false;
    runner.while_searching(nullptr);
    if (!resident && i + 1 < chunks.size() && uploaded <= i + 1) upload(i + 1);  // (a pass always runs: never)
  }
  return true;
}

/// Per pattern, ends ascending, each once (every report of an end carries its true distance).
std::vector<std::vector<core::EndHit>> seed_hits_by_pattern(const core::SeedPlan& plan, std::vector<SeedHit>& hits,
                                                            std::size_t patterns) {
  std::vector<std::vector<core::EndHit>> out(patterns);
  std::sort(hits.begin(), hits.end(), [](const SeedHit& a, const SeedHit& b) {
    return a.member != b.member ? a.member < b.member : a.end != b.end ? a.end < b.end : a.distance < b.distance;
  });
  for (std::size_t i = 0; i < hits.size(); ++i) {
    if (i > 0 && hits[i].member == hits[i - 1].member && hits[i].end == hits[i - 1].end) continue;
    out[plan.members[hits[i].member].index].push_back({hits[i].end, hits[i].distance});
  }
  return out;
}

}  // namespace

std::optional<std::vector<std::vector<core::EndHit>>> seed_filter_scan(const SeedFilterDevice& filter, ByteSpan text,
                                                                       std::size_t patterns) {
  detail::DeviceGuard guard(filter.device);
  if (text.empty()) return std::vector<std::vector<core::EndHit>>(patterns);
  const auto scratch = filter.scratches.take([&] { return std::make_unique<SeedScratch>(filter.device); });
  std::vector<SeedHit> hits;
  if (!seed_search(filter, *scratch, text, /*resident=*/false, &hits)) return std::nullopt;  // the set kernel splits
  return seed_hits_by_pattern(*filter.plan, hits, patterns);
}

std::optional<core::ApproxSetTiming> time_seed_filter(const SeedFilterDevice& filter, ByteSpan text,
                                                      std::size_t patterns, int repeats) {
  detail::DeviceGuard guard(filter.device);
  SeedScratch scratch(filter.device);
  scratch.slots[0].text.reserve(text.size());
  if (!text.empty()) {
    WARPMATCH_CUDA_CHECK(filter.device,
                         cudaMemcpy(scratch.slots[0].text.get(), text.data(), text.size(), cudaMemcpyDefault));
    detail::wait_for_uploads(filter.device);
  }
  const detail::Event start(filter.device, true), searched(filter.device, true);
  std::vector<double> search_ms, total_ms;
  core::ApproxSetTiming timing;
  timing.route = "seed filter";
  for (int r = -1; r < std::max(1, repeats); ++r) {  // r = -1: warm-up (and the buffers grown)
    // Search only: every chunk's passes (both kernels, the counts back), hits left on the device.
    start.record(0);
    if (!seed_search(filter, scratch, text, /*resident=*/true, nullptr)) return std::nullopt;
    searched.record(0);
    searched.synchronize();
    // With the hits: the same, the hits back, sorted, made unique and split per pattern.
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<SeedHit> hits;
    (void)seed_search(filter, scratch, text, /*resident=*/true, &hits);
    const auto out = seed_hits_by_pattern(*filter.plan, hits, patterns);
    const double wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (r >= 0) {
      search_ms.push_back(searched.ms_since(start));
      total_ms.push_back(wall);
    }
    timing.hits = 0;
    for (const auto& o : out) timing.hits += o.size();
  }
  timing.search_ms = detail::median(search_ms);
  timing.with_hits_ms = detail::median(total_ms);
  return timing;
}

}  // namespace warpmatch::cuda
