// The approximate-search kernels (src/cuda/approx/kernels.cuh) compiled for the host under the
// kernel shim and launched as dispatch.cu launches them, with the host's side of finish_myers:
// the Myers kernels (a lane group or a thread per chunk, best mode's candidates and overflow
// re-run) and the wavefront. Used by tests/test_approx_emulation.cpp and the fuzz target
// fuzz/fuzz_kernels.cpp.
#pragma once

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <vector>

#include "core/approx_align.hpp"
#include "cuda/approx/agent.hpp"
#include "cuda_host_shim.hpp"
#include "emulation_check.hpp"
#define kernels approx_kernel_emulation
#include "cuda/approx/kernels.cuh"
#undef kernels

namespace warpmatch::cuda::approx_kernel_emulation {
inline uint4 shared_table[1 << 14];          // the Myers kernels' Eq table in shared memory (256 KiB)
inline std::uint16_t diagonals[3 * 32001];   // the wavefront's three anti-diagonals
}  // namespace warpmatch::cuda::approx_kernel_emulation

namespace approx_emulation {

namespace core = warpmatch::core;
namespace logic = warpmatch::cuda::logic;
namespace kk = warpmatch::cuda::approx_kernel_emulation;
using Bytes = std::vector<std::uint8_t>;

/// What a Myers kernel leaves for the host: the emitted (end, dist), the minimum, the flag.
struct Emitted {
  std::vector<core::EndHit> hits;
  std::uint32_t low = UINT_MAX;
  std::uint32_t overflow = UINT_MAX;  // smallest minimum with more ends than a thread keeps
};

/// The host's side (finish_myers): best mode keeps the candidates equal to the minimum, or
/// re-runs in all mode with k = the minimum after an overflow; ends ascending.
template <class Run>
inline std::vector<core::EndHit> host_hits(bool best, std::uint32_t k, Run&& run) {
  Emitted e = run(best, k);
  if (best) {
    if (e.low > k) return {};
    if (e.overflow == e.low) e = run(false, e.low);
    else std::erase_if(e.hits, [&](const core::EndHit& h) { return h.distance != e.low; });
  }
  std::sort(e.hits.begin(), e.hits.end(), [](const auto& a, const auto& b) { return a.end < b.end; });
  return e.hits;
}

/// The text as the device holds it: 16-byte aligned, zeros up to the end of its last 16-byte
/// block (the kernels read whole blocks).
struct DeviceText {
  std::vector<uint4> blocks;
  std::uint32_t blocks_end;
  explicit DeviceText(const Bytes& text)
      : blocks((text.size() + 15) / 16 + 1, uint4{0, 0, 0, 0}), blocks_end(static_cast<std::uint32_t>((text.size() + 15) / 16 * 16)) {
    std::memcpy(blocks.data(), text.data(), text.size());
  }
  const std::uint8_t* data() const { return reinterpret_cast<const std::uint8_t*>(blocks.data()); }
};

/// A launch's hit sink, and what the host reads back from it.
struct Sink {
  std::vector<std::uint64_t> hits;
  std::uint32_t count = 0, best = UINT_MAX, overflow = UINT_MAX;
  explicit Sink(std::size_t capacity) : hits(capacity) {}
  kk::HitSink device() { return {hits.data(), static_cast<std::uint32_t>(hits.size()), &count, &best, &overflow}; }
  Emitted emitted() const {
    emu::check(count <= hits.size(), "approx: more hits than the buffer holds");
    Emitted e;
    for (std::uint32_t i = 0; i < count; ++i) e.hits.push_back({(hits[i] >> 32) + 1, static_cast<std::uint32_t>(hits[i])});
    e.low = best;
    e.overflow = overflow;
    return e;
  }
};

/// kernels::myers_lane_kernel<Q, SHARED> over owned columns [0, n) with `chunk` owned columns
/// per group, launched as dispatch.cu's launch_myers does (the Eq table in shared memory when
/// `shared`).
inline Emitted emulate_lanes(const core::ApproxPattern& p, const Bytes& text, std::uint32_t chunk, std::uint32_t overlap,
                      std::uint32_t k, bool best, std::uint32_t max_lanes = 0, bool shared = true) {
  const auto m = static_cast<std::uint32_t>(p.size());
  const logic::MyersShape s = logic::myers_shape(m, max_lanes);
  const logic::EqTables t = logic::make_eq_tables(p, 32, s);
  const DeviceText dt(text);
  const auto n = static_cast<std::uint32_t>(text.size());
  const std::uint64_t groups = (n + chunk - 1) / chunk;
  const std::uint64_t per_warp = 32 / s.group;
  const std::uint64_t warps = (groups + per_warp - 1) / per_warp;
  const auto blocks = static_cast<unsigned>((warps * 32 + kk::kMyersLaneThreads - 1) / kk::kMyersLaneThreads);
  const auto table_words = static_cast<std::uint32_t>(t.lane_table.size());
  emu::check(table_words * 4 <= sizeof(kk::shared_table), "approx: Eq table larger than shared memory");
  Sink sink(n + 1);
  logic::with_width(s.per_lane, [&](auto w) {
    constexpr int Q = decltype(w)::value;
    emu::launch(blocks, kk::kMyersLaneThreads, [&] {
      const auto kernel = shared ? kk::myers_lane_kernel<Q, true> : kk::myers_lane_kernel<Q, false>;
      kernel(dt.data(), dt.blocks_end, 0, n, chunk, overlap, t.lane_table.data(), t.code.data(), table_words,
             t.zero_row, m, s.lanes, s.pad, s.group, k, best, sink.device());
    });
  });
  return sink.emitted();
}

/// kernels::myers_thread_kernel<W> over owned columns [0, n), `chunk` owned columns a thread.
inline Emitted emulate_threads(const core::ApproxPattern& p, const Bytes& text, std::uint32_t chunk, std::uint32_t overlap,
                        std::uint32_t k, bool best) {
  const auto m = static_cast<std::uint32_t>(p.size());
  const logic::EqTables t = logic::make_eq_tables(p, 32, logic::myers_shape(m));
  const DeviceText dt(text);
  const auto n = static_cast<std::uint32_t>(text.size());
  const std::uint64_t threads = (n + chunk - 1) / chunk;
  const auto blocks = static_cast<unsigned>((threads + kk::kMyersThreadThreads - 1) / kk::kMyersThreadThreads);
  emu::check(t.thread_table.size() * 4 <= sizeof(kk::shared_table), "approx: Eq table larger than shared memory");
  Sink sink(n + 1);
  logic::with_width(t.thread_width, [&](auto w) {
    constexpr int W = decltype(w)::value;
    emu::launch(blocks, kk::kMyersThreadThreads, [&] {
      kk::myers_thread_kernel<W>(dt.data(), dt.blocks_end, 0, n, chunk, overlap, t.thread_table.data(), t.code.data(),
                                 static_cast<std::uint32_t>(t.thread_table.size()), t.thread_stride, m, t.thread_pad,
                                 k, best, sink.device());
    });
  });
  return sink.emitted();
}

/// kernels::wavefront_kernel for owned columns [0, n) in `pieces` pieces (dispatch.cu's
/// run_wavefront); also the pieces' minimum.
inline std::vector<std::uint32_t> emulate_wavefront(const core::ApproxPattern& p, const Bytes& text,
                                             std::uint64_t pieces, std::uint64_t overlap,
                                             std::uint32_t* best) {
  const auto m = static_cast<std::uint32_t>(p.size());
  const std::uint64_t n = text.size();
  const std::uint64_t piece = (n + pieces - 1) / pieces;
  pieces = (n + piece - 1) / piece;
  const std::uint32_t threads = std::min<std::uint32_t>(1024, (m + 31) / 32 * 32);
  emu::check(3 * (m + 1) <= std::size(kk::diagonals), "approx: pattern too long for the wavefront's diagonals");
  std::vector<std::uint8_t> fold(256);
  for (int c = 0; c < 256; ++c) fold[c] = p.text_byte(static_cast<std::uint8_t>(c));
  std::vector<std::uint32_t> dist(n, 0xdeadbeef), block_min(pieces, 0xdeadbeef);
  emu::launch(static_cast<unsigned>(pieces), threads, [&] {
    kk::wavefront_kernel(text.data(), 0, n, piece, overlap, p.bytes.data(), fold.data(), m, dist.data(),
                         block_min.data());
  });
  *best = *std::min_element(block_min.begin(), block_min.end());
  return dist;
}

/// Hits of a dist array for threshold k, as the device's compaction would select them.
inline std::vector<core::EndHit> hits_of(const std::vector<std::uint32_t>& dist, std::uint32_t k) {
  std::vector<core::EndHit> hits;
  for (std::size_t c = 0; c < dist.size(); ++c)
    if (dist[c] <= k) hits.push_back({c + 1, dist[c]});
  return hits;
}

/// The reference answer: every end within k, or (best) the ends of the minimum if <= k.
inline std::vector<core::EndHit> reference_hits(const std::vector<std::uint32_t>& dist, std::uint32_t k, bool best) {
  if (!best) return hits_of(dist, k);
  const std::uint32_t low = *std::min_element(dist.begin(), dist.end());
  return low <= k ? hits_of(dist, low) : std::vector<core::EndHit>{};
}

}  // namespace approx_emulation
