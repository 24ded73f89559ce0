// CUDA Hamming search, host side (the kernel: hamming_kernels.cuh): the text is copied to the
// device once per segment, each pattern's match table (256 x ceil(m/32) words, IUPAC and case
// folding built in) sits in shared memory, one thread per window start counts mismatches
// with an early exit above k (logic::window_mismatches) and appends (start, mismatches) to a
// hit buffer; the host sorts the hits by end (atomics give no order) and keeps the fewest in best mode.
#include <algorithm>
#include <vector>

#include "cuda/approx/hamming.hpp"
#include "cuda/approx/hamming_agent.hpp"
#include "cuda/approx/hamming_kernels.cuh"
#include "cuda/runtime/device_runtime.cuh"

namespace warpmatch::cuda {

namespace {

using detail::DeviceBuffer;

using kernels::hamming_windows;
using kernels::kHammingThreads;

// Window starts per device segment (local indices stay 32-bit; the API front hands over
// 2^23-end segments, so one device segment is the rule).
constexpr std::uint64_t kSegmentStarts = std::uint64_t{1} << 28;
constexpr std::uint64_t kFirstHitCapacity = std::uint64_t{1} << 20;

}  // namespace

std::vector<std::vector<core::EndHit>> hamming_scan(const std::vector<core::ApproxPattern>& patterns,
                                                    const std::vector<core::ApproxQuery>& queries,
                                                    ByteSpan text, int device) {
  detail::require_device(device);
  detail::DeviceGuard guard(device);
  std::vector<std::vector<core::EndHit>> out(patterns.size());
  std::uint64_t longest = 0;
  for (const auto& p : patterns) longest = std::max<std::uint64_t>(longest, p.size());
  if (text.size() == 0 || longest == 0) return out;

  int multiprocessors = 0, shared_optin = 0;
  WARPMATCH_CUDA_CHECK(device, cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
  WARPMATCH_CUDA_CHECK(device, cudaDeviceGetAttribute(&shared_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  DeviceBuffer<std::uint8_t> d_text(device);
  DeviceBuffer<unsigned long long> d_count(device);
  DeviceBuffer<uint2> d_hits(device);
  std::uint64_t capacity = kFirstHitCapacity;
  d_count.reserve(1);
  d_hits.reserve(capacity);
  std::vector<DeviceBuffer<std::uint32_t>> tables;
  std::vector<std::uint32_t> words;
  for (const auto& p : patterns) {
    const logic::HammingTable t = logic::make_hamming_table(p);
    tables.emplace_back(device);
    tables.back().reserve(t.bits.size());
    WARPMATCH_CUDA_CHECK(device, cudaMemcpy(tables.back().get(), t.bits.data(), t.bits.size() * 4, cudaMemcpyHostToDevice));
    words.push_back(t.words);
  }
  const std::uint64_t n = text.size();
  std::vector<uint2> host_hits;
  for (std::uint64_t first = 0; first + 1 <= n; first += kSegmentStarts) {
    // Windows starting in [first, first + kSegmentStarts): their bytes, up to the longest pattern.
    const std::uint64_t bytes = std::min(n - first, kSegmentStarts + longest - 1);
    d_text.reserve(bytes);
    WARPMATCH_CUDA_CHECK(device, cudaMemcpy(d_text.get(), text.data() + first, bytes, cudaMemcpyHostToDevice));
    for (std::size_t pi = 0; pi < patterns.size(); ++pi) {
      const std::uint64_t m = patterns[pi].size();
      if (bytes < m) continue;
      const auto starts = static_cast<std::uint32_t>(std::min<std::uint64_t>(bytes - m + 1, kSegmentStarts));
      const std::uint32_t limit = queries[pi].k;
      // Tables of patterns up to ~7000 bytes sit in shared memory; longer ones are read from global.
      const bool in_shared = 256 * std::size_t{words[pi]} * 4 <= static_cast<std::size_t>(shared_optin);
      const std::size_t shared = in_shared ? 256 * std::size_t{words[pi]} * 4 : 0;
      if (shared > 48 * 1024)
        WARPMATCH_CUDA_CHECK(device, cudaFuncSetAttribute(hamming_windows, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                          static_cast<int>(shared)));
      const int blocks = static_cast<int>(std::min<std::uint64_t>((starts + kHammingThreads - 1) / kHammingThreads,
                                                                  static_cast<std::uint64_t>(multiprocessors) * 16));
      for (;;) {  // once, or twice when the hit buffer was too small
        WARPMATCH_CUDA_CHECK(device, cudaMemset(d_count.get(), 0, sizeof(unsigned long long)));
        hamming_windows<<<blocks, kHammingThreads, shared>>>(d_text.get(), starts, tables[pi].get(), words[pi],
                                                           static_cast<std::uint32_t>(m), limit, d_count.get(),
                                                           d_hits.get(), capacity, in_shared);
        WARPMATCH_CUDA_CHECK(device, cudaGetLastError());
        unsigned long long found = 0;
        WARPMATCH_CUDA_CHECK(device, cudaMemcpy(&found, d_count.get(), sizeof found, cudaMemcpyDeviceToHost));
        if (found > capacity) {
          capacity = found;
          d_hits.reserve(capacity);
          continue;
        }
        host_hits.resize(found);
        if (found)
          WARPMATCH_CUDA_CHECK(device, cudaMemcpy(host_hits.data(), d_hits.get(), found * sizeof(uint2), cudaMemcpyDeviceToHost));
        break;
      }
      std::sort(host_hits.begin(), host_hits.end(), [](const uint2& a, const uint2& b) { return a.x < b.x; });
      for (const uint2& h : host_hits) out[pi].push_back({first + h.x + m, h.y});
    }
  }
  for (std::size_t pi = 0; pi < patterns.size(); ++pi) {
    if (queries[pi].mode != core::ApproxMode::best || out[pi].empty()) continue;
    std::uint32_t low = out[pi].front().distance;
    for (const auto& h : out[pi]) low = std::min(low, h.distance);
    std::erase_if(out[pi], [&](const core::EndHit& h) { return h.distance != low; });
  }
  return out;
}

}  // namespace warpmatch::cuda
