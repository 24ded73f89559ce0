// The exact-search kernels (src/cuda/exact/kernels.cuh) compiled for the host under the kernel
// shim and launched as the dispatch launches them, its own parts (chunks, CUB scans and sorts)
// as plain host loops: the filters' three passes and the brute force. Used by
// tests/test_exact_emulation.cpp and the fuzz target fuzz/fuzz_kernels.cpp.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "core/exact_pattern.hpp"
#include "cuda/exact/exact_cuda.hpp"
#include "cuda_host_shim.hpp"
#include "emulation_check.hpp"

// The kernels go to their own namespace here, so that their host definitions never meet the
// CUDA build's launch stubs of the same names at link time.
#define kernels exact_kernel_emulation
#include "cuda/exact/kernels.cuh"
#undef kernels

namespace exact_emulation {

namespace kk = warpmatch::cuda::exact_kernel_emulation;
namespace core = warpmatch::core;
using warpmatch::cuda::ExactAlgorithm;
using Bytes = std::vector<std::uint8_t>;
using Starts = std::vector<std::uint64_t>;

inline constexpr ExactAlgorithm kFilters[] = {ExactAlgorithm::fast, ExactAlgorithm::first_last, ExactAlgorithm::prefix};

inline core::ExactPattern make_pattern(const Bytes& bytes, bool case_insensitive) {
  core::ExactPattern p{.bytes = {}, .case_insensitive = case_insensitive};
  for (const std::uint8_t c : bytes) p.bytes.push_back(case_insensitive ? core::fold_ascii(c) : c);
  return p;
}

/// The oracle: compare at every start position.
inline Starts naive(const Bytes& text, const core::ExactPattern& pattern) {
  Starts out;
  for (std::uint64_t i = 0; i + pattern.size() <= text.size(); ++i)
    if (pattern.matches_at(warpmatch::ByteSpan(text), i)) out.push_back(i);
  return out;
}

/// The text as a chunk buffer on the device: whole 16-byte vectors plus the dispatch's 64
/// bytes of padding, filled here with copies of the pattern (a chunk buffer holds whatever an
/// earlier chunk left): the kernels must never report a start past npos.
struct DeviceText {
  DeviceText(const Bytes& text, const core::ExactPattern& pattern) {
    const std::size_t bytes = (text.size() + 15) / 16 * 16 + 64;
    vectors.resize(bytes / 16);
    auto* p = reinterpret_cast<std::uint8_t*>(vectors.data());
    for (std::size_t i = 0; i < bytes; ++i) p[i] = pattern.bytes[i % pattern.size()];
    if (!text.empty()) std::memcpy(p, text.data(), text.size());
  }
  const std::uint8_t* data() const { return reinterpret_cast<const std::uint8_t*>(vectors.data()); }
  std::uint64_t text_vecs() const { return vectors.size(); }
  std::vector<uint4> vectors;
};

inline kk::PatternParams params_of(const core::ExactPattern& pattern) {
  kk::PatternParams p = kk::make_pattern_params(pattern);
  if (pattern.size() > kk::kInlinePattern) p.global = pattern.bytes.data();
  return p;
}

/// A filter kernel's three passes on `grid` blocks over starts [0, npos) (a chunk may own
/// fewer starts than its buffer holds whole occurrences for): the total, then per-segment counts, their
/// exclusive prefix sum (CUB's scan on the device), the ordered emit. Checks that the passes
/// agree and returns the emitted starts.
inline Starts run_filter(const Bytes& text, const core::ExactPattern& pattern, ExactAlgorithm algorithm, unsigned grid,
                         std::uint64_t npos) {
  const DeviceText dt(text, pattern);
  const kk::PatternParams params = params_of(pattern);
  const auto m = static_cast<std::uint32_t>(pattern.size());
  const bool fold = pattern.case_insensitive;

  unsigned long long total = 0;
  const auto count = kk::fast_kernel<kk::FastMode::count_total>(algorithm, fold, m);
  emu::launch(grid, kk::kFastBlock, [&] { count(dt.data(), dt.text_vecs(), npos, params, &total, nullptr, nullptr, nullptr); });

  const std::uint64_t segments = kk::fast_segments(npos);
  std::vector<std::uint32_t> seg_counts(segments, 0xdeadbeefu), seg_offsets(segments + 1, 0);
  const auto per_segment = kk::fast_kernel<kk::FastMode::count_segments>(algorithm, fold, m);
  emu::launch(grid, kk::kFastBlock, [&] {
    per_segment(dt.data(), dt.text_vecs(), npos, params, nullptr, seg_counts.data(), nullptr, nullptr);
  });
  std::partial_sum(seg_counts.begin(), seg_counts.end(), seg_offsets.begin() + 1);
  emu::check(seg_offsets[segments] == total, "exact: per-segment counts differ from the total");

  std::vector<std::uint32_t> out(seg_offsets[segments]);
  const auto emit = kk::fast_kernel<kk::FastMode::emit>(algorithm, fold, m);
  emu::launch(grid, kk::kFastBlock, [&] {
    emit(dt.data(), dt.text_vecs(), npos, params, nullptr, nullptr, seg_offsets.data(), out.data());
  });
  return Starts(out.begin(), out.end());
}

/// The brute force on `grid` blocks: block totals summed (CUB's reduce on the device), then the
/// appends sorted (CUB's radix sort). Checks that the count matches the appends.
inline Starts run_bf(const Bytes& text, const core::ExactPattern& pattern, unsigned grid, std::uint64_t npos) {
  const DeviceText dt(text, pattern);
  const kk::PatternParams params = params_of(pattern);
  std::vector<unsigned long long> block_totals(grid, 0);
  const auto count = kk::bf_kernel(pattern.case_insensitive, false);
  emu::launch(grid, kk::kBfBlock, [&] { count(dt.data(), npos, params, block_totals.data(), nullptr, nullptr); });
  const unsigned long long total = std::accumulate(block_totals.begin(), block_totals.end(), 0ull);

  std::vector<std::uint32_t> out(npos);
  unsigned int cursor = 0;
  const auto emit = kk::bf_kernel(pattern.case_insensitive, true);
  emu::launch(grid, kk::kBfBlock, [&] { emit(dt.data(), npos, params, nullptr, out.data(), &cursor); });
  emu::check(cursor == total, "exact: bf appends differ from the block totals");
  out.resize(cursor);
  std::sort(out.begin(), out.end());
  return Starts(out.begin(), out.end());
}

}  // namespace exact_emulation
