// The CUDA Hamming kernel (host side: hamming.cu, which includes this file only): one thread
// per window start, logic::window_mismatches, hits appended to a buffer. The CUDA built-ins
// come from nvcc or, in tests/test_sequence.cpp, from the host shim
// tests/support/cuda_host_shim.hpp, which runs this very text on the CPU.
#pragma once

#include <cstdint>

#include "cuda/approx/hamming_agent.hpp"

namespace warpmatch::cuda::kernels {

constexpr int kHammingThreads = 256;

__global__ void __launch_bounds__(kHammingThreads)
    hamming_windows(const std::uint8_t* __restrict__ text, std::uint32_t starts, const std::uint32_t* __restrict__ table,
                    std::uint32_t words, std::uint32_t m, std::uint32_t limit, unsigned long long* __restrict__ count,
                    uint2* __restrict__ hits, unsigned long long capacity, bool table_in_shared) {
  extern __shared__ std::uint32_t shared_table[];
  if (table_in_shared) {
    for (std::uint32_t i = threadIdx.x; i < 256 * words; i += blockDim.x) shared_table[i] = table[i];
    __syncthreads();
  }
  const std::uint32_t* lookup = table_in_shared ? shared_table : table;
  const std::uint32_t stride = gridDim.x * blockDim.x;
  for (std::uint32_t s = blockIdx.x * blockDim.x + threadIdx.x; s < starts; s += stride) {
    const std::uint32_t miss = logic::window_mismatches(text + s, lookup, words, m, limit);
    if (miss <= limit) {
      const unsigned long long at = atomicAdd(count, 1ull);
      if (at < capacity) hits[at] = make_uint2(s, miss);
    }
  }
}

}  // namespace warpmatch::cuda::kernels
