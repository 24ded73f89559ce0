// The multi-pattern kernels (src/cuda/multi/kernels.cuh) compiled for the host under the kernel
// shim and launched as the dispatch launches them on one chunk (owned starts plus the overlap):
// the tile kernel, the queued scan kernels (block / warp queue, per thread, lane filter, pair
// filters) and MBNDM, each also in its count-per-pattern mode. Used by
// tests/test_multi_kernel_emulation.cpp and the fuzz target fuzz/fuzz_kernels.cpp.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "core/multi_pair_filter.hpp"
#include "core/multi_patterns.hpp"
#include "cuda_host_shim.hpp"
#include "emulation_check.hpp"
#include "warpmatch/multi.hpp"

// The kernels go to their own namespace here, so that their host definitions never meet the
// CUDA build's launch stubs of the same names at link time.
#define detail multi_kernel_emulation
#include "cuda/multi/kernels.cuh"
#undef detail

namespace warpmatch::cuda::multi_kernel_emulation {
alignas(16) inline std::uint32_t shared_words[1 << 16];  // the kernels' dynamic shared memory
alignas(16) inline std::uint8_t page[1 << 18];
}  // namespace warpmatch::cuda::multi_kernel_emulation

namespace multi_emulation {

namespace dev = warpmatch::cuda::multi_kernel_emulation;
namespace core = warpmatch::core;
using warpmatch::as_bytes;
using warpmatch::Backend;
using warpmatch::Match;
using warpmatch::MultiMatcher;
using warpmatch::MultiOptions;

/// Room for every (start, pattern) a chunk owns, at most 2^20 hits.
inline std::uint64_t hit_capacity(std::uint64_t owned, const core::PatternSet& set) {
  return std::min<std::uint64_t>(std::uint64_t{1} << 20, owned * set.size());
}

inline std::vector<Match> decode(const std::vector<std::uint64_t>& keys, std::uint64_t count,
                          const core::PatternSet& set) {
  std::vector<std::uint64_t> sorted(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(count));
  std::sort(sorted.begin(), sorted.end());
  std::vector<Match> out;
  for (const auto k : sorted) {
    const auto id = static_cast<std::uint32_t>(k & 0xffffffffu);
    out.push_back({.pattern = id, .start = k >> 32, .end = (k >> 32) + set.length(id)});
  }
  return out;
}

// The CPU backend's matches with start < owned: what one chunk must report (`algorithm`:
// "naive" is the double loop).
inline std::vector<Match> expected(const std::vector<std::string>& patterns, const std::string& text,
                                   std::uint64_t owned, bool ci, const std::string& algorithm = "auto") {
  MultiOptions opt;
  opt.backend = Backend::cpu;
  opt.case_insensitive = ci;
  opt.algorithm = algorithm;
  std::vector<Match> out;
  for (const Match& m : MultiMatcher::compile(patterns, opt).find_all(as_bytes(text)))
    if (m.start < owned) out.push_back(m);
  return out;
}

enum class FastKernel {
  tile, scan_block_queue, scan_warp_queue, scan_per_thread, scan_lane_filter, scan_pair, scan_pair_wide,
  scan_key8,     // the 8-byte scan bitmap where the set has one, else scan_warp_queue (as the dispatcher)
  scan_long_key  // the long-key scan bitmap where the set has one, else as scan_key8 (as the dispatcher)
};

inline std::vector<Match> emulate_fast(const std::vector<std::string>& patterns, const std::string& text,
                                       std::uint64_t owned, bool ci, unsigned max_grid,
                                       FastKernel kernel = FastKernel::tile) {
  const core::PatternSet set = core::make_pattern_set(patterns, ci);
  const core::PrefixIndex index = core::build_prefix_index(set, /*long_key=*/true);
  dev::DevicePrefixIndex ix;
  ix.class_mask = index.class_mask;
  ix.bit1 = index.bit1.data();
  ix.bit2 = index.bit2.data();
  ix.bit3 = index.bit3.data();
  ix.bit4 = index.bit4.data();
  ix.bit8 = index.bit8.data();
  ix.bits3 = index.bits3;
  ix.bits4 = index.bits4;
  ix.bits8 = index.bits8;
  ix.key8 = index.key8.empty() ? nullptr : index.key8.data();
  ix.key8_bits = index.key8_bits;
  ix.long_key = index.long_key.empty() ? nullptr : index.long_key.data();
  ix.long_key_bits = index.long_key_bits;
  ix.long_key_bytes = index.long_key_bytes;
  for (int c = 0; c < core::kPrefixClasses; ++c) {
    ix.table[c] = index.table[c].empty() ? nullptr : index.table[c].data();
    ix.table_mask[c] = index.table[c].empty() ? 0 : index.table[c].size() - 1;
  }
  const std::vector<std::uint32_t> summary = dev::bit4_word_summary(index.bit4);
  ix.bit4_summary = summary.data();
  ix.short_gate = index.short_gate.data();
  ix.ids = index.ids.data();
  ix.head8 = index.head8.data();
  ix.offsets = set.offsets.data();
  ix.bytes = set.bytes.data();
  ix.case_insensitive = ci;
  // The chunk as the device holds it: owned starts plus the overlap, nothing more.
  const std::uint64_t readable = std::min<std::uint64_t>(text.size(), owned + set.max_length - 1);
  const std::vector<std::uint8_t> chunk(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(readable));
  std::vector<std::uint64_t> hits(hit_capacity(owned, set));
  unsigned long long counter = 0;
  dev::HitOutput out{&counter, hits.data(), hits.size()};
  const bool shared_bitmap = ix.bits4 <= dev::kFastSharedBitmapBits;
  auto launch_all = [&] {
    if (kernel == FastKernel::tile) {
      const std::uint64_t tiles = (owned + dev::kFastTileStarts - 1) / dev::kFastTileStarts;
      const auto grid = static_cast<unsigned>(std::min<std::uint64_t>(tiles, max_grid));
      emu::launch(grid, dev::kFastThreads, [&] {
        if (shared_bitmap) dev::multi_fast_kernel<true>(ix, chunk.data(), owned, readable, out);
        else dev::multi_fast_kernel<false>(ix, chunk.data(), owned, readable, out);
      });
    } else if (kernel == FastKernel::scan_pair || kernel == FastKernel::scan_pair_wide) {
      // As the dispatcher, with a small table (2^12 entries) so that more starts pass.
      const bool wide = kernel == FastKernel::scan_pair_wide;
      const core::PairFilter pair = core::build_pair_filter(set, 12, wide);
      const core::PairVerifyIndex verify = core::build_pair_verify_index(set);
      dev::DevicePairVerify pv;
      pv.slots = reinterpret_cast<const uint4*>(verify.slots.data());
      pv.members = verify.members.data();
      pv.slot_mask = static_cast<std::uint32_t>(verify.slots.size() - 1);
      pv.bits = verify.bits;
      const bool short_classes = (index.class_mask & 7) != 0;
      const std::uint64_t tiles = (owned + dev::kScanTileStarts - 1) / dev::kScanTileStarts;
      const auto grid = static_cast<unsigned>(std::min<std::uint64_t>(tiles, max_grid));
      auto run = [&](auto fold_tag, auto short_tag, auto wide_tag) {
        constexpr bool kFold = decltype(fold_tag)::value, kShort = decltype(short_tag)::value,
                       kWide = decltype(wide_tag)::value;
        emu::launch(grid, dev::kScanThreads, [&] {
          dev::multi_pair_scan_kernel<kFold, kShort, kWide, 5>(ix, pv, pair.words.data(), pair.bits, chunk.data(),
                                                               owned, readable, out);
        });
      };
      auto with_wide = [&](auto fold_tag, auto short_tag) {
        if (wide) run(fold_tag, short_tag, std::true_type{});
        else run(fold_tag, short_tag, std::false_type{});
      };
      if (ci && short_classes) with_wide(std::true_type{}, std::true_type{});
      else if (ci) with_wide(std::true_type{}, std::false_type{});
      else if (short_classes) with_wide(std::false_type{}, std::true_type{});
      else with_wide(std::false_type{}, std::false_type{});
    } else if ((kernel == FastKernel::scan_long_key && index.long_key_scan()) ||
               ((kernel == FastKernel::scan_key8 || kernel == FastKernel::scan_long_key) && index.key8_scan())) {
      const bool long_key = kernel == FastKernel::scan_long_key && index.long_key_scan();
      const std::uint64_t tiles = (owned + dev::kScanTileStarts - 1) / dev::kScanTileStarts;
      const auto grid = static_cast<unsigned>(std::min<std::uint64_t>(tiles, max_grid));
      auto run = [&](auto shared_tag, auto fold_tag) {
        constexpr bool kShared = decltype(shared_tag)::value, kFold = decltype(fold_tag)::value;
        emu::launch(grid, dev::kScanThreads, [&] {
          if (long_key)
            dev::multi_scan_kernel<kShared, kFold, dev::ScanVerify::warp_queue, false, false, dev::ScanKey::long_key>(
                ix, chunk.data(), owned, readable, out);
          else
            dev::multi_scan_kernel<kShared, kFold, dev::ScanVerify::warp_queue, false, false, dev::ScanKey::eight>(
                ix, chunk.data(), owned, readable, out);
        });
      };
      const bool shared_key = (long_key ? index.long_key_bits : index.key8_bits) <= dev::kFastSharedBitmapBits;
      if (shared_key && ci) run(std::true_type{}, std::true_type{});
      else if (shared_key) run(std::true_type{}, std::false_type{});
      else if (ci) run(std::false_type{}, std::true_type{});
      else run(std::false_type{}, std::false_type{});
    } else {
      // As the dispatcher: the short gate for sets with patterns shorter than 4, the lane
      // filter only with the shared bitmap and without them.
      const bool short_classes = (index.class_mask & 7) != 0;
      const std::uint64_t tiles = (owned + dev::kScanTileStarts - 1) / dev::kScanTileStarts;
      const auto grid = static_cast<unsigned>(std::min<std::uint64_t>(tiles, max_grid));
      auto run = [&](auto shared_tag, auto fold_tag) {
        constexpr bool kShared = decltype(shared_tag)::value, kFold = decltype(fold_tag)::value;
        using dev::ScanVerify;
        emu::launch(grid, dev::kScanThreads, [&] {
          if constexpr (kShared)
            if (kernel == FastKernel::scan_lane_filter && !short_classes)
              return dev::multi_scan_kernel<true, kFold, ScanVerify::warp_queue, true>(ix, chunk.data(), owned,
                                                                                       readable, out);
          if (short_classes) {
            if (kernel == FastKernel::scan_block_queue)
              dev::multi_scan_kernel<kShared, kFold, ScanVerify::block_queue, false, true>(ix, chunk.data(), owned,
                                                                                           readable, out);
            else if (kernel == FastKernel::scan_per_thread)
              dev::multi_scan_kernel<kShared, kFold, ScanVerify::per_thread, false, true>(ix, chunk.data(), owned,
                                                                                          readable, out);
            else
              dev::multi_scan_kernel<kShared, kFold, ScanVerify::warp_queue, false, true>(ix, chunk.data(), owned,
                                                                                          readable, out);
            return;
          }
          if (kernel == FastKernel::scan_block_queue)
            dev::multi_scan_kernel<kShared, kFold, ScanVerify::block_queue>(ix, chunk.data(), owned, readable, out);
          else if (kernel == FastKernel::scan_warp_queue || kernel == FastKernel::scan_lane_filter ||
                   kernel == FastKernel::scan_key8 || kernel == FastKernel::scan_long_key)
            dev::multi_scan_kernel<kShared, kFold, ScanVerify::warp_queue>(ix, chunk.data(), owned, readable, out);
          else
            dev::multi_scan_kernel<kShared, kFold, ScanVerify::per_thread>(ix, chunk.data(), owned, readable, out);
        });
      };
      if (shared_bitmap && ci) run(std::true_type{}, std::true_type{});
      else if (shared_bitmap) run(std::true_type{}, std::false_type{});
      else if (ci) run(std::false_type{}, std::true_type{});
      else run(std::false_type{}, std::false_type{});
    }
  };
  launch_all();
  emu::check(counter <= hits.size(), "multi: more hits than the buffer holds");
  const std::vector<Match> found = decode(hits, counter, set);
  // Count only with a counter per pattern (`find -c -f` on the GPU): the same occurrences,
  // none of them leaving the kernel as a hit.
  std::vector<unsigned long long> per_pattern(set.size(), 0), want(set.size(), 0);
  unsigned long long total = 0;
  out = dev::HitOutput{&total, nullptr, 0, per_pattern.data()};
  launch_all();
  for (const Match& m : found) ++want[m.pattern];
  emu::check(per_pattern == want, "multi: counts per pattern differ from the hits");
  emu::check(total == found.size(), "multi: the count differs from the hits");
  return found;
}

struct MbndmRun {
  std::vector<Match> matches;
  std::uint64_t counted = 0;  // the count-only launch
};

inline MbndmRun emulate_mbndm(const std::vector<std::string>& patterns, const std::string& text,
                              std::uint64_t owned, bool ci, int page_bytes, unsigned threads,
                              int keywords, unsigned total_blocks) {
  const core::PatternSet set = core::make_pattern_set(patterns, ci);
  const core::MbndmPlan plan = core::build_mbndm_plan(set, keywords, 64);
  dev::DeviceMbndm mb;
  mb.subsets = plan.subsets.data();
  mb.members = plan.members.data();
  mb.tables = plan.tables.data();
  mb.subset_count = static_cast<std::uint32_t>(plan.subsets.size());
  mb.offsets = set.offsets.data();
  mb.bytes = set.bytes.data();
  mb.case_insensitive = ci;
  const std::uint64_t readable = std::min<std::uint64_t>(text.size(), owned + set.max_length - 1);
  const std::vector<std::uint8_t> chunk(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(readable));
  // The dispatch's grid: subset blocks per group, groups striding over pages.
  const std::uint32_t subset_blocks = (mb.subset_count + threads - 1) / threads;
  const std::uint64_t pages = (owned + page_bytes - 1) / page_bytes;
  const std::uint64_t groups = std::max<std::uint64_t>(1, std::min<std::uint64_t>(pages, total_blocks / subset_blocks));
  const auto grid = static_cast<unsigned>(groups * subset_blocks);
  const int overlap = static_cast<int>(set.max_length);
  emu::check(static_cast<std::size_t>(page_bytes + overlap) <= sizeof(dev::page), "mbndm: page larger than its array");
  MbndmRun run;
  std::vector<std::uint64_t> hits(hit_capacity(owned, set));
  unsigned long long counter = 0;
  const dev::HitOutput out{&counter, hits.data(), hits.size()};
  emu::launch(grid, threads, [&] {
    dev::multi_mbndm_kernel(mb, chunk.data(), owned, readable, page_bytes, overlap, subset_blocks, out);
  });
  emu::check(counter <= hits.size(), "mbndm: more hits than the buffer holds");
  run.matches = decode(hits, counter, set);
  unsigned long long only = 0;
  const dev::HitOutput count_only{&only, nullptr, 0};
  emu::launch(grid, threads, [&] {
    dev::multi_mbndm_kernel(mb, chunk.data(), owned, readable, page_bytes, overlap, subset_blocks,
                            count_only);
  });
  run.counted = only;
  std::vector<unsigned long long> per_pattern(set.size(), 0), want(set.size(), 0);
  unsigned long long total = 0;
  const dev::HitOutput count_per_pattern{&total, nullptr, 0, per_pattern.data()};
  emu::launch(grid, threads, [&] {
    dev::multi_mbndm_kernel(mb, chunk.data(), owned, readable, page_bytes, overlap, subset_blocks,
                            count_per_pattern);
  });
  for (const Match& m : run.matches) ++want[m.pattern];
  emu::check(per_pattern == want, "mbndm: counts per pattern differ from the hits");
  emu::check(total == run.matches.size(), "mbndm: the count differs from the hits");
  return run;
}

}  // namespace multi_emulation
