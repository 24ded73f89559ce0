// The seed filter's kernels (src/cuda/approx/seed_filter_kernels.cuh) compiled for the host under
// the kernel shim and driven as src/cuda/approx/seed_filter.cu drives them (chunks owning their
// ends, margins, passes through kernels::seed_chunk_passes, hits sorted and made unique). Used by tests/test_approx_seed_emulation.cpp and
// the fuzz target fuzz/fuzz_kernels.cpp.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/approx_align.hpp"
#include "core/seed_plan.hpp"
#include "cuda_host_shim.hpp"
#include "emulation_check.hpp"
#define kernels approx_seed_kernel_emulation
#include "cuda/approx/seed_filter_kernels.cuh"
#undef kernels

namespace approx_seed_emulation {

using Bytes = std::vector<std::uint8_t>;
namespace kk = warpmatch::cuda::approx_seed_kernel_emulation;
namespace core = warpmatch::core;

/// seed_filter.cu's runner of kernels::seed_chunk_passes, the two kernels emulated; buffers
/// start tiny so that passes grow them and re-run.
struct EmulatedSeedRunner {
  const kk::SeedTables& t;
  unsigned grid, threads;
  std::vector<kk::SeedHit>& kept;
  std::vector<kk::SeedCandidate> candidates = std::vector<kk::SeedCandidate>(4);
  std::vector<kk::SeedHit> found = std::vector<kk::SeedHit>(8);

  unsigned long long candidate_capacity() const { return candidates.size(); }
  unsigned long long hit_capacity() const { return found.size(); }
  void grow_candidates(unsigned long long n) { candidates.resize(n); }
  void grow_hits(unsigned long long n) { found.resize(n); }
  kk::SeedCounts run(const kk::SeedChunk& c, std::int64_t lo, std::int64_t hi) {
    unsigned long long counts[2] = {0, 0};
    emu::launch(grid, threads, [&] {
      kk::seed_find_kernel(t, c, lo, hi, {candidates.data(), candidates.size(), &counts[0]});
    });
    emu::launch(grid, threads, [&] {
      kk::seed_verify_kernel(t, c, candidates.data(), &counts[0], candidates.size(), {found.data(), found.size(), &counts[1]});
    });
    return {counts[0], counts[1]};
  }
  void keep_hits(unsigned long long count) {
    kept.insert(kept.end(), found.begin(), found.begin() + static_cast<std::ptrdiff_t>(count));
  }
};

/// seed_filter_scan's host side, the kernels emulated: chunks of `chunk` owned ends, passes of
/// at most max_candidates candidates (fewer starts a pass beyond that).
inline std::vector<std::vector<core::EndHit>> emulated_seed_scan(const core::SeedPlan& plan, const Bytes& text,
                                                                 std::size_t patterns, std::int64_t chunk, unsigned grid,
                                                                 unsigned threads,
                                                                 unsigned long long max_candidates = 64) {
  const core::SeedTopWords top = core::seed_top_words(plan);
  const kk::SeedTables t{plan.bitmap.data(),      plan.bucket_start.data(), plan.entry_key.data(),
                         plan.entry_piece.data(), plan.piece_offsets.data(), plan.piece_bytes.data(),
                         plan.use_start.data(),   plan.use_member.data(),   plan.use_offset.data(),
                         plan.members.data(),     plan.peq.data(),          plan.q,
                         64 - plan.bitmap_bits,   64 - plan.bucket_bits,    plan.case_insensitive,
                         top.classes ? top.class_of.data() : nullptr,
                         top.classes ? top.peq_top.data() : nullptr, top.classes};
  const auto n = static_cast<std::int64_t>(text.size());
  const auto max_m = static_cast<std::int64_t>(plan.max_m), max_k = static_cast<std::int64_t>(plan.max_k);
  std::vector<kk::SeedHit> hits;
  EmulatedSeedRunner runner{t, grid, threads, hits};
  std::int64_t span = std::numeric_limits<std::int64_t>::max();  // a chunk in one pass, until too many
  for (std::int64_t e_lo = 0; e_lo < n; e_lo += chunk) {
    kk::SeedChunk c = kk::seed_chunk(n, e_lo, chunk, static_cast<std::int64_t>(plan.q), max_m, max_k);
    if (c.s_hi < c.s_lo) continue;
    // Only the chunk's bytes, so a read outside them is an AddressSanitizer finding.
    const Bytes piece(text.begin() + c.base, text.begin() + c.base + c.bytes);
    c.text = piece.data();
    emu::check(kk::seed_chunk_passes(runner, c, span, max_candidates, ~0ull), "seed filter: gave up as on a flood, with no cap on hits");
  }
  std::sort(hits.begin(), hits.end(), [](const kk::SeedHit& a, const kk::SeedHit& b) {
    return a.member != b.member ? a.member < b.member : a.end != b.end ? a.end < b.end : a.distance < b.distance;
  });
  std::vector<std::vector<core::EndHit>> out(patterns);
  for (std::size_t i = 0; i < hits.size(); ++i) {
    if (i > 0 && hits[i].member == hits[i - 1].member && hits[i].end == hits[i - 1].end) {
      emu::check(hits[i].distance == hits[i - 1].distance, "seed filter: an end reported with two distances");
      continue;
    }
    out[plan.members[hits[i].member].index].push_back({hits[i].end, hits[i].distance});
  }
  return out;
}

}  // namespace approx_seed_emulation
