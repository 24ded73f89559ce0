// The CUDA kernel of the short-pattern set search (host side: short_set.cu, which includes
// this file only; the why and how are written there). A thin shell around the per-thread
// logic of short_set_agent.hpp. The CUDA built-ins come from nvcc and <cooperative_groups.h>
// (short_set.cu includes it) or, in tests/test_approx_set_emulation.cpp, from the host shim
// tests/support/cuda_host_shim.hpp, which runs this very text on the CPU.
#pragma once

#include <cstdint>

#include "cuda/approx/short_set_agent.hpp"
#include "cuda/approx/tuning.hpp"

namespace warpmatch::cuda::kernels {

constexpr int kSetThreads = static_cast<int>(ShortSetPolicy::block_threads);

/// Where hits go: keys[0, capacity), count may exceed capacity (the host then re-runs).
struct SetSink {
  unsigned long long* keys;
  unsigned long long capacity;
  unsigned long long* count;
  unsigned int* minimum;  // per pattern id (minimum pass)
};

__device__ __forceinline__ void emit_set_key(const SetSink& sink, unsigned long long key) {
  const cooperative_groups::coalesced_group active = cooperative_groups::coalesced_threads();
  unsigned long long slot = 0;
  if (active.thread_rank() == 0) slot = atomicAdd(sink.count, static_cast<unsigned long long>(active.size()));
  slot = active.shfl(slot, 0) + active.thread_rank();
  if (slot < sink.capacity) sink.keys[slot] = key;
}

/// The kernel: a thin shell around logic::set_block_items (block = tile blockIdx.x x group
/// a.group_first + blockIdx.y).
template <class Word, int PLANES>
__global__ void __launch_bounds__(kSetThreads)
    short_set_kernel(const std::uint8_t* __restrict__ text, const std::uint8_t* __restrict__ class_of,
                     logic::SetArgs<Word> a, SetSink sink) {
  extern __shared__ uint4 shared_raw[];
  const std::uint32_t group = a.group_first + blockIdx.y;
  const logic::TileSpan t = logic::tile_span(blockIdx.x, a.range, a.geometry.tile, a.overlap);
  if (t.empty) return;  // uniform across the block
  Word* table = reinterpret_cast<Word*>(shared_raw);
  const std::uint32_t entries = a.classes * a.group_size;
  const Word* source = a.table + static_cast<std::size_t>(group) * entries;
  for (std::uint32_t i = threadIdx.x; i < entries; i += blockDim.x) table[i] = source[i];
  std::uint8_t* class_shared =
      reinterpret_cast<std::uint8_t*>(shared_raw) + (std::size_t{entries} * sizeof(Word) + 15) / 16 * 16;
  for (std::uint32_t i = threadIdx.x; i < 256; i += blockDim.x) class_shared[i] = class_of[i];
  std::uint8_t* codes = class_shared + 256;
  __syncthreads();
  logic::load_tile_codes(threadIdx.x, blockDim.x, text, class_shared, t, codes);
  __syncthreads();
  const std::uint32_t end_base = a.range.segment_own_lo;
  logic::set_block_items<Word, PLANES>(
      threadIdx.x, blockDim.x, blockIdx.x, group, a, codes, table,
      [&](std::uint32_t id, std::uint32_t column, std::uint32_t distance) {
        emit_set_key(sink, logic::set_key(id, column - end_base, distance));
      },
      [&](std::uint32_t id, std::uint32_t low) { atomicMin(sink.minimum + id, low); });
}

}  // namespace warpmatch::cuda::kernels
