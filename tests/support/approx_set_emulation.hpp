// The short-pattern set kernel (src/cuda/approx/short_set_kernels.cuh) compiled for the host
// under the kernel shim, with the same planning (src/cuda/approx/short_set_agent.hpp) and the
// host's side of short_set_scan (segments, the minimum pass, hit keys sorted and split per
// pattern, best mode's filter); knobs (tile, sub-range, threads, table budget, segment) the
// caller shrinks to put hits on seams. Used by tests/test_approx_set_emulation.cpp and the fuzz
// target fuzz/fuzz_kernels.cpp.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "core/approx_align.hpp"
#include "core/exact_pattern.hpp"
#include "cuda/approx/short_set_agent.hpp"
#include "cuda_host_shim.hpp"
#include "emulation_check.hpp"
#define kernels approx_set_kernel_emulation
#include "cuda/approx/short_set_kernels.cuh"
#undef kernels

// The kernel's dynamic shared memory (128 KiB).
namespace warpmatch::cuda::approx_set_kernel_emulation {
inline uint4 shared_raw[1 << 13];
}

namespace approx_set_emulation {

using Bytes = std::vector<std::uint8_t>;
namespace core = warpmatch::core;
namespace kk = warpmatch::cuda::approx_set_kernel_emulation;
namespace logic = warpmatch::cuda::logic;  // the planning the host shares with short_set.cu

/// The knobs the emulation shrinks to put hits on seams.
struct Knobs {
  std::uint32_t tile = 8192, min_sub = 64, threads = 256;
  std::size_t table_bytes = 32 * 1024;
  std::uint64_t segment = std::uint64_t{1} << 30;
};

/// One launch of kernels::short_set_kernel<Word, PLANES>: every block (tile x group) of
/// `bucket` over `range`, as short_set.cu's launch() does with the emulation's knobs; keys
/// appended, minima published.
template <class Word, int PLANES>
inline void emulate_launch(const logic::SetPlan& plan, const logic::SetBucket& bucket, const Bytes& segment,
                    const std::vector<std::uint32_t>& m_of, const std::vector<std::uint32_t>& k_of,
                    std::vector<std::uint32_t>& minimum, const logic::SetRange& range, bool minimum_only,
                    const Knobs& knobs, std::vector<std::uint64_t>& keys) {
  logic::SetArgs<Word> a;
  a.table = reinterpret_cast<const Word*>(bucket.table.data());  // 64-bit entries: 32-bit words, little-endian
  a.ids = bucket.ids.data();
  a.slots = static_cast<std::uint32_t>(bucket.ids.size());
  a.group_size = bucket.group_size;
  a.classes = plan.classes.count();
  a.m_of = m_of.data();
  a.k_of = k_of.data();
  a.cap_of = bucket.best && !minimum_only ? minimum.data() : k_of.data();
  a.range = range;
  a.overlap = bucket.overlap;
  a.minimum_only = minimum_only;
  a.geometry = logic::set_geometry(knobs.tile, bucket.group_size, knobs.threads, bucket.overlap, knobs.min_sub);
  emu::check(a.geometry.sub % 4 == 0, "approx set: a sub-range not a whole number of words");
  emu::check(std::uint64_t{a.geometry.sub} * a.geometry.subs >= a.geometry.tile, "approx set: sub-ranges short of the tile");
  const std::uint32_t tiles = (range.own_hi - range.own_lo + a.geometry.tile - 1) / a.geometry.tile;
  // The block's shared memory: the group's table, the class map, the tile's codes.
  const std::size_t table_bytes = (std::size_t{a.classes} * a.group_size * sizeof(Word) + 15) / 16 * 16;
  const std::size_t code_bytes = logic::tile_code_bytes(a.geometry.tile, bucket.overlap);
  emu::check(table_bytes + 256 + code_bytes <= sizeof(kk::shared_raw), "approx set: shared memory larger than its array");
  auto* codes = reinterpret_cast<std::uint8_t*>(kk::shared_raw) + table_bytes + 256;
  std::memset(codes, 0xee, code_bytes);  // garbage past the loaded codes
  // As the host: a launch whose hits overflow the buffer runs again with room for all.
  std::vector<unsigned long long> found(4096);
  unsigned long long count = 0;
  for (bool again = true; again; again = count > found.size()) {
    if (count > found.size()) found.resize(count);
    count = 0;
    const kk::SetSink sink{found.data(), found.size(), &count, minimum.data()};
    emu::launch(
        emu::Dim{tiles, bucket.groups(), 1}, knobs.threads,
        [&] { kk::short_set_kernel<Word, PLANES>(segment.data(), plan.classes.code.data(), a, sink); },
        [&](emu::Dim block) {
          const logic::TileSpan t = logic::tile_span(block.x, range, a.geometry.tile, a.overlap);
          emu::check(!t.empty, "approx set: a block with an empty tile");
          // Items read up to 3 bytes past the tile's end (whole words): those must be class codes too.
          for (std::uint32_t i = 0; i < t.hi - t.from + 8; ++i)
            emu::check(codes[i] < a.classes, "approx set: a tile code past the loaded ones is no class");
        });
  }
  keys.insert(keys.end(), found.begin(), found.begin() + static_cast<std::ptrdiff_t>(count));
}

inline void emulate_bucket(const logic::SetPlan& plan, const logic::SetBucket& b, const Bytes& segment,
                    const std::vector<std::uint32_t>& m_of, const std::vector<std::uint32_t>& k_of,
                    std::vector<std::uint32_t>& minimum, const logic::SetRange& range, bool minimum_only,
                    const Knobs& knobs, std::vector<std::uint64_t>& keys) {
  auto go = [&](auto word, auto planes) {
    emulate_launch<decltype(word), decltype(planes)::value>(plan, b, segment, m_of, k_of, minimum, range,
                                                            minimum_only, knobs, keys);
  };
  auto with_planes = [&](auto word) {
    switch (b.planes) {
      case -1: go(word, std::integral_constant<int, -1>{}); break;
      case 0: go(word, std::integral_constant<int, 0>{}); break;
      case 1: go(word, std::integral_constant<int, 1>{}); break;
      case 2: go(word, std::integral_constant<int, 2>{}); break;
      case 3: go(word, std::integral_constant<int, 3>{}); break;
      case 4: go(word, std::integral_constant<int, 4>{}); break;
      case 5: go(word, std::integral_constant<int, 5>{}); break;
      case 6: go(word, std::integral_constant<int, 6>{}); break;
      case 7: go(word, std::integral_constant<int, 7>{}); break;
      default: emu::check(false, "approx set: planes " + std::to_string(b.planes));
    }
  };
  if (b.wide) with_planes(std::uint64_t{});
  else with_planes(std::uint32_t{});
}

/// short_set_scan with the kernels emulated.
inline std::vector<std::vector<core::EndHit>> emulate_set(const std::vector<core::ApproxPattern>& patterns,
                                                   const std::vector<core::ApproxQuery>& queries, const Bytes& text,
                                                   const Knobs& knobs) {
  std::vector<std::vector<core::EndHit>> out(patterns.size());
  if (text.empty()) return out;
  const logic::SetPlan plan = logic::plan_short_set(patterns, queries, knobs.table_bytes);
  std::vector<std::uint32_t> m_of, k_of, minimum(patterns.size(), logic::kNoMinimum);
  for (std::size_t i = 0; i < patterns.size(); ++i) {
    m_of.push_back(static_cast<std::uint32_t>(patterns[i].size()));
    k_of.push_back(queries[i].k);
  }
  const std::uint64_t n = text.size();
  for (std::uint64_t own_begin = 0; own_begin < n; own_begin += knobs.segment) {
    const std::uint64_t own_end = std::min(n, own_begin + knobs.segment);
    const std::uint64_t from = own_begin > plan.overlap ? own_begin - plan.overlap : 0;
    const Bytes segment(text.begin() + static_cast<std::ptrdiff_t>(from), text.begin() + static_cast<std::ptrdiff_t>(own_end));
    const logic::SetRange range{static_cast<std::uint32_t>(own_begin - from), static_cast<std::uint32_t>(own_end - from),
                                static_cast<std::uint32_t>(own_begin - from)};
    std::vector<std::uint64_t> keys;
    for (const auto& b : plan.buckets)
      if (b.best) emulate_bucket(plan, b, segment, m_of, k_of, minimum, range, true, knobs, keys);
    emu::check(keys.empty(), "approx set: the minimum pass emitted hits");
    for (const auto& b : plan.buckets) emulate_bucket(plan, b, segment, m_of, k_of, minimum, range, false, knobs, keys);
    std::sort(keys.begin(), keys.end());
    logic::append_set_hits(keys.data(), keys.size(), own_begin, out);
  }
  for (std::size_t i = 0; i < patterns.size(); ++i)
    if (queries[i].mode == core::ApproxMode::best) logic::keep_best_hits(out[i]);
  return out;
}

inline core::ApproxQuery query(core::ApproxMode mode, std::uint32_t k, std::size_t m) {
  core::ApproxQuery q;
  q.mode = mode;
  q.k = std::min<std::uint32_t>(k, static_cast<std::uint32_t>(m));
  return q;
}

inline core::ApproxPattern pattern_of(Bytes bytes, bool hamming = false, bool iupac = false, bool folded = false) {
  core::ApproxPattern p;
  p.hamming = hamming;
  p.iupac = iupac;
  p.case_insensitive = folded;
  if (folded)
    for (auto& c : bytes) c = core::fold_ascii(c);
  p.bytes = std::move(bytes);
  return p;
}

}  // namespace approx_set_emulation
