// Tuning of longest common substring on CUDA (host side). Values unchanged from
// src/cuda/lcs/dispatch.cu, where they lived until issue 11; set with the pooled, one-wait
// pipeline of 5003a99 (2 x 150 KB: 2.04 -> 0.35 ms end to end on the H200), no separate
// measurement of each value recorded. Block sizes tied to a kernel's layout stay in
// dispatch.cu / agent.hpp.
#pragma once

#include <cstdint>

namespace warpmatch::cuda {

struct LcsPolicy {
  // Blocks of the grid-stride byte-set kernel (enough to fill the GPU).
  static constexpr unsigned byte_set_blocks = 1024;
  // Device memory the pool keeps between calls: the paper's inputs (~40 B per input byte) are
  // served from it; larger calls give their excess back when they end.
  static constexpr std::uint64_t pool_keep_bytes = 256ull << 20;
  // Run members copied back with the summary before the host knows how many there are: one
  // wait covers the usual case (a few occurrences), more cost a second copy.
  static constexpr std::int64_t eager_run_members = 1024;
};

}  // namespace warpmatch::cuda
