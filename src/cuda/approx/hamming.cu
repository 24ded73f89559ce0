// CUDA Hamming search, host side (the kernel: hamming_kernels.cuh): each pattern's match table
// (256 x ceil(m/32) words, IUPAC and case folding built in) is uploaded once (hamming_upload)
// and sits in shared memory during a launch; scans reuse a pooled scratch (stream, text and hit
// buffers). The text is copied to the device once per segment, one thread per window start
// counts mismatches with an early exit above k (logic::window_mismatches) and appends (start,
// mismatches) to a hit buffer; the host sorts the hits by end (atomics give no order) and keeps
// the fewest in best mode.
#include <algorithm>
#include <memory>
#include <vector>

#include "cuda/approx/hamming.hpp"
#include "cuda/approx/hamming_agent.hpp"
#include "cuda/approx/hamming_kernels.cuh"
#include "cuda/runtime/device_runtime.cuh"
#include "cuda/runtime/scratch_pool.hpp"

namespace warpmatch::cuda {

namespace {

using detail::DeviceBuffer;

using kernels::hamming_windows;
using kernels::kHammingThreads;

// Window starts per device segment (local indices stay 32-bit; the API front hands over
// 2^23-end segments, so one device segment is the rule).
constexpr std::uint64_t kSegmentStarts = std::uint64_t{1} << 28;
constexpr std::uint64_t kFirstHitCapacity = std::uint64_t{1} << 20;

/// A scan's buffers and stream, grown to the largest scan seen.
struct HammingScratch {
  explicit HammingScratch(int device) : text(device), count(device), hits(device), stream(device), upload(device) {
    count.reserve(1);
    hits.reserve(kFirstHitCapacity);
  }
  DeviceBuffer<std::uint8_t> text;
  DeviceBuffer<unsigned long long> count;
  DeviceBuffer<uint2> hits;
  detail::Stream stream;
  detail::TextUpload upload;  // after the stream: destroyed (its DMA awaited) first
};

}  // namespace

class HammingDevicePatterns : detail::DeviceOwner {
 public:
  HammingDevicePatterns(const std::vector<core::ApproxPattern>& patterns, int device)
      : DeviceOwner(device), device(device) {
    WARPMATCH_CUDA_CHECK(device, cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
    WARPMATCH_CUDA_CHECK(device, cudaDeviceGetAttribute(&shared_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    for (const auto& p : patterns) {
      const logic::HammingTable t = logic::make_hamming_table(p);
      tables.emplace_back(device);
      tables.back().reserve(t.bits.size());
      WARPMATCH_CUDA_CHECK(device, cudaMemcpy(tables.back().get(), t.bits.data(), t.bits.size() * 4, cudaMemcpyHostToDevice));
      words.push_back(t.words);
      lengths.push_back(p.size());
      longest = std::max<std::uint64_t>(longest, p.size());
    }
    detail::wait_for_uploads(device);
  }
  ~HammingDevicePatterns() { free_on_device(); }
  HammingDevicePatterns(const HammingDevicePatterns&) = delete;
  HammingDevicePatterns& operator=(const HammingDevicePatterns&) = delete;

  int device;
  int multiprocessors = 0, shared_optin = 0;
  std::uint64_t longest = 0;
  std::vector<DeviceBuffer<std::uint32_t>> tables;
  std::vector<std::uint32_t> words;
  std::vector<std::uint64_t> lengths;
  mutable detail::ScratchPool<HammingScratch> scratches;
};

std::shared_ptr<const HammingDevicePatterns> hamming_upload(const std::vector<core::ApproxPattern>& patterns,
                                                            int device) {
  return std::make_shared<const HammingDevicePatterns>(patterns, device);
}

std::vector<std::vector<core::EndHit>> hamming_scan(const HammingDevicePatterns& patterns,
                                                    const std::vector<core::ApproxQuery>& queries,
                                                    ByteSpan text) {
  const int device = patterns.device;
  detail::DeviceGuard guard(device);
  const std::size_t count = patterns.tables.size();
  std::vector<std::vector<core::EndHit>> out(count);
  const std::uint64_t longest = patterns.longest;
  if (text.size() == 0 || longest == 0) return out;

  const auto scratch = patterns.scratches.take([&] { return std::make_unique<HammingScratch>(device); });
  HammingScratch& s = *scratch;
  const cudaStream_t stream = s.stream.get();
  std::uint64_t capacity = s.hits.size();
  const std::uint64_t n = text.size();
  std::vector<uint2> host_hits;
  for (std::uint64_t first = 0; first + 1 <= n; first += kSegmentStarts) {
    // Windows starting in [first, first + kSegmentStarts): their bytes, up to the longest pattern.
    const std::uint64_t bytes = std::min(n - first, kSegmentStarts + longest - 1);
    s.text.reserve(bytes);
    // Host text (pageable through the upload ring), or a DeviceSpan's copied device-to-device.
    s.upload.copy(s.text.get(), text.data() + first, bytes, stream);
    for (std::size_t pi = 0; pi < count; ++pi) {
      const std::uint64_t m = patterns.lengths[pi];
      if (bytes < m) continue;
      const auto starts = static_cast<std::uint32_t>(std::min<std::uint64_t>(bytes - m + 1, kSegmentStarts));
      const std::uint32_t limit = queries[pi].k;
      const std::uint32_t words = patterns.words[pi];
      // Tables of patterns up to ~7000 bytes sit in shared memory; longer ones are read from global.
      const bool in_shared = 256 * std::size_t{words} * 4 <= static_cast<std::size_t>(patterns.shared_optin);
      const std::size_t shared = in_shared ? 256 * std::size_t{words} * 4 : 0;
      if (shared > 48 * 1024)
        WARPMATCH_CUDA_CHECK(device, cudaFuncSetAttribute(hamming_windows, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                          static_cast<int>(shared)));
      const int blocks = static_cast<int>(std::min<std::uint64_t>((starts + kHammingThreads - 1) / kHammingThreads,
                                                                  static_cast<std::uint64_t>(patterns.multiprocessors) * 16));
      for (;;) {  // once, or twice when the hit buffer was too small
        WARPMATCH_CUDA_CHECK(device, cudaMemsetAsync(s.count.get(), 0, sizeof(unsigned long long), stream));
        hamming_windows<<<blocks, kHammingThreads, shared, stream>>>(s.text.get(), starts, patterns.tables[pi].get(),
                                                                     words, static_cast<std::uint32_t>(m), limit,
                                                                     s.count.get(), s.hits.get(), capacity, in_shared);
        detail::check_launch("hamming_windows", device);
        unsigned long long found = 0;
        WARPMATCH_CUDA_CHECK(device, cudaMemcpyAsync(&found, s.count.get(), sizeof found, cudaMemcpyDeviceToHost, stream));
        s.stream.synchronize();
        if (found > capacity) {
          s.hits.reserve(found);
          capacity = s.hits.size();
          continue;
        }
        host_hits.resize(found);
        if (found) {
          WARPMATCH_CUDA_CHECK(device, cudaMemcpyAsync(host_hits.data(), s.hits.get(), found * sizeof(uint2),
                                                       cudaMemcpyDeviceToHost, stream));
          s.stream.synchronize();
        }
        break;
      }
      std::sort(host_hits.begin(), host_hits.end(), [](const uint2& a, const uint2& b) { return a.x < b.x; });
      for (const uint2& h : host_hits) out[pi].push_back({first + h.x + m, h.y});
    }
  }
  for (std::size_t pi = 0; pi < count; ++pi) {
    if (queries[pi].mode != core::ApproxMode::best || out[pi].empty()) continue;
    std::uint32_t low = out[pi].front().distance;
    for (const auto& h : out[pi]) low = std::min(low, h.distance);
    std::erase_if(out[pi], [&](const core::EndHit& h) { return h.distance != low; });
  }
  return out;
}

}  // namespace warpmatch::cuda
