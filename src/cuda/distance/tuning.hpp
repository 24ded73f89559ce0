// Tuning of edit distance on CUDA (host side): the batch path's policy. Kernel shapes tied to a
// kernel's registers (kThreadMaxWords, kThreadMaxSigma, kThreadBlock, the lane groups) stay in
// kernels.cuh, which the host emulation test compiles.
#pragma once

#include <cstddef>

namespace warpmatch::cuda {

struct DistancePolicy {
  // Plain pair batches are packed and uploaded in slices of this many pairs, so the bus carries
  // one slice while the host packs the next, then one kernel runs them all. 100,172 pairs of
  // 100-300 bytes on the H200 machine (2026-11-26, same run): 5.135 ms in-process unsliced,
  // 5.107 ms in slices of 32 Ki (packing, not the bus, is most of the time); one launch per
  // slice instead of one in all had doubled the kernel time (0.32 -> 0.76 ms).
  static constexpr std::size_t batch_slice_pairs = std::size_t{1} << 15;
};

}  // namespace warpmatch::cuda
