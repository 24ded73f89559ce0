// CUDA pigeonhole seed filter (see seed_filter.hpp and the kernel's header): why. The set
// kernel (short_set.cu) costs ~19 integer operations per pattern and text byte, so 1000 20-mers
// over 256 MiB take ~240 ms on an H200 whatever the text. A 20-mer within k = 2 edits of a
// substring holds one of its three 6-7-base pieces exactly; in random DNA such a piece of one
// of 1000 patterns starts at about a third of the positions, and each occurrence costs one
// Myers run over m + 3k bytes: ~10 steps per byte instead of ~1000 patterns' worth. The text
// goes up in chunks owning their ends (the margins hold the windows that reach them); hits come
// back as (end, pattern, distance), are sorted and made unique on the host.
#include <cooperative_groups.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "cuda/approx/seed_filter.hpp"
#include "cuda/approx/seed_filter_kernels.cuh"
#include "cuda/approx/tuning.hpp"
#include "cuda/runtime/device_runtime.cuh"
#include "cuda/runtime/scratch_pool.hpp"

namespace warpmatch::cuda {

namespace {

using detail::DeviceBuffer;
using kernels::SeedHit;

/// A scan's device buffers, kept in the filter's pool for the next scan (the API scans a long
/// text in 8 Mi-end segments: one allocation for all of them).
struct SeedScratch {
  explicit SeedScratch(int device, std::uint64_t capacity)
      : text(device), hits(device, capacity), count(device, 1), capacity(capacity) {}
  DeviceBuffer<std::uint8_t> text;
  DeviceBuffer<SeedHit> hits;
  DeviceBuffer<unsigned long long> count;
  unsigned long long capacity;
};

}  // namespace

class SeedFilterDevice {
 public:
  SeedFilterDevice(std::unique_ptr<const core::SeedPlan> p, int device)
      : device(device), plan(std::move(p)), bitmap(device), bucket_start(device), entry_key(device),
        entry_piece(device), piece_offsets(device), piece_bytes(device), use_start(device), use_member(device),
        use_offset(device), members(device), peq(device) {
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
    // A pageable cudaMemcpy may return before its DMA lands; later streams do not wait for it.
    WARPMATCH_CUDA_CHECK(device, cudaStreamSynchronize(cudaStreamLegacy));
  }

  kernels::SeedTables tables() const {
    return {bitmap.get(),     bucket_start.get(), entry_key.get(),  entry_piece.get(),
            piece_offsets.get(), piece_bytes.get(), use_start.get(), use_member.get(),
            use_offset.get(), members.get(),      peq.get(),        plan->q,
            64 - plan->bitmap_bits, 64 - plan->bucket_bits, plan->case_insensitive};
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
};

std::shared_ptr<const SeedFilterDevice> seed_filter_upload(std::unique_ptr<const core::SeedPlan> plan, int device) {
  return std::make_shared<const SeedFilterDevice>(std::move(plan), device);
}

const core::SeedPlan& seed_filter_plan(const SeedFilterDevice& filter) { return *filter.plan; }

bool seed_filter_pays(const SeedFilterDevice& filter, ByteSpan text) {
  const core::SeedPlan& plan = *filter.plan;
  const SeedFilterPolicy policy;
  if (text.size() < policy.min_text_bytes) return false;  // the set kernel's one launch is cheaper
  const ByteSpan sample = text.subspan(text.size() / 2 - std::min(text.size(), policy.sample_bytes) / 2,
                                       std::min(text.size(), policy.sample_bytes));
  const double uses = static_cast<double>(core::count_seed_uses(plan, sample));
  double window = 0;  // mean Myers steps of a verification
  for (const auto& m : plan.members) window += m.hamming ? m.m / 2.0 : m.m + 3.0 * m.k;
  window /= static_cast<double>(plan.members.size());
  const double filter_work = policy.position_steps + uses / static_cast<double>(sample.size()) * window;
  const double set_work = static_cast<double>(plan.members.size());  // one step per pattern and byte
  return filter_work * policy.advantage < set_work;
}

std::optional<std::vector<std::vector<core::EndHit>>> seed_filter_scan(const SeedFilterDevice& filter, ByteSpan text,
                                                                       std::size_t patterns) {
  detail::DeviceGuard guard(filter.device);
  const core::SeedPlan& plan = *filter.plan;
  const SeedFilterPolicy policy;
  std::vector<std::vector<core::EndHit>> out(patterns);
  const auto n = static_cast<std::int64_t>(text.size());
  if (n == 0) return out;
  const kernels::SeedTables tables = filter.tables();
  const auto max_m = static_cast<std::int64_t>(plan.max_m), max_k = static_cast<std::int64_t>(plan.max_k);
  const auto scratch = filter.scratches.take([&] { return std::make_unique<SeedScratch>(filter.device, policy.hit_capacity); });
  DeviceBuffer<std::uint8_t>& dtext = scratch->text;
  DeviceBuffer<SeedHit>& dhits = scratch->hits;
  DeviceBuffer<unsigned long long>& dcount = scratch->count;
  unsigned long long& capacity = scratch->capacity;
  std::vector<SeedHit> hits;
  int multiprocessors = 0;
  WARPMATCH_CUDA_CHECK(filter.device,
                       cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, filter.device));
  for (std::int64_t e_lo = 0; e_lo < n; e_lo += static_cast<std::int64_t>(policy.chunk_ends)) {
    // Pieces whose windows reach ends (e_lo, e_hi]; the bytes those windows and pieces read.
    kernels::SeedChunk c = kernels::seed_chunk(n, e_lo, static_cast<std::int64_t>(policy.chunk_ends),
                                               static_cast<std::int64_t>(plan.q), max_m, max_k);
    if (c.s_hi < c.s_lo) continue;
    dtext.reserve(static_cast<std::size_t>(c.bytes));
    WARPMATCH_CUDA_CHECK(filter.device, cudaMemcpy(dtext.get(), text.data() + c.base, static_cast<std::size_t>(c.bytes),
                                                   cudaMemcpyHostToDevice));
    c.text = dtext.get();
    const std::int64_t positions = c.s_hi - c.s_lo + 1;
    const auto blocks = static_cast<unsigned>(std::min<std::int64_t>(
        (positions + kernels::kSeedThreads - 1) / kernels::kSeedThreads, std::int64_t{multiprocessors} * 16));
    for (;;) {
      WARPMATCH_CUDA_CHECK(filter.device, cudaMemset(dcount.get(), 0, sizeof(unsigned long long)));
      kernels::seed_filter_kernel<<<blocks, kernels::kSeedThreads>>>(tables, c, {dhits.get(), capacity, dcount.get()});
      detail::check_launch("seed_filter_kernel", filter.device);
      unsigned long long count = 0;
      WARPMATCH_CUDA_CHECK(filter.device, cudaMemcpy(&count, dcount.get(), sizeof count, cudaMemcpyDeviceToHost));
      if (count <= capacity) {
        const std::size_t had = hits.size();
        hits.resize(had + count);
        if (count)
          WARPMATCH_CUDA_CHECK(filter.device, cudaMemcpy(hits.data() + had, dhits.get(), count * sizeof(SeedHit),
                                                         cudaMemcpyDeviceToHost));
        break;
      }
      if (count > policy.max_hit_capacity) return std::nullopt;  // a flood: the set kernel splits
      capacity = count;
      dhits.reserve(capacity);
    }
  }
  // Per pattern, ends ascending, each once (every report of an end carries its true distance).
  std::sort(hits.begin(), hits.end(), [](const SeedHit& a, const SeedHit& b) {
    return a.member != b.member ? a.member < b.member : a.end != b.end ? a.end < b.end : a.distance < b.distance;
  });
  for (std::size_t i = 0; i < hits.size(); ++i) {
    if (i > 0 && hits[i].member == hits[i - 1].member && hits[i].end == hits[i - 1].end) continue;
    out[plan.members[hits[i].member].index].push_back({hits[i].end, hits[i].distance});
  }
  return out;
}

}  // namespace warpmatch::cuda
