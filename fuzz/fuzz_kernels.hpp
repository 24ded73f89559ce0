// libFuzzer target body (issue 16; fuzz_kernels.cpp is the target, fuzz/kernels/<family>.cpp
// the checks, tests/test_fuzz_regressions.cpp replays the seeds and every finding): the CUDA
// kernels themselves, compiled for the host under the kernel shim and launched by the emulation
// drivers of tests/support/*_emulation.hpp, against independent references, on any machine:
//   exact search (the three filters' count / per-segment / emit passes and the brute force)
//   against a naive comparison at every start; multi-pattern search (the tile kernel, the queued
//   scan kernels, MBNDM) against the CPU backend's "naive" double loop; approximate search (Myers
//   with a lane group or a thread per chunk, best mode's host side, the wavefront) against the
//   plain DP's end distances; the short-pattern set kernel (edit distance or Hamming) against the
//   plain DP per pattern, and so is the seed filter's kernel; LCS (the suffix-array path, the
//   diagonal path) against the CPU "dp".
// The input chooses the launch geometry where the kernels leave it to the launcher: grids of 1 to
// 8 blocks, chunks that own only part of their buffer, chunk and piece sizes of a few columns,
// lane counts, shared or global Eq tables, set tiles, sub-ranges, block sizes, table budgets and
// segments of a few bytes, PLCP chunks and budgets, seed-filter chunks. Each input is a few
// kernel launches over at most 4 KiB of text.
//
// Layout: byte 0 picks the kernel, bytes 1-4 its parameters, byte 5 the pattern block's length;
// then the pattern block (a pattern, or lines for a set, or A for LCS), then the text (or B).
// A set bit 7 of byte 4 inserts a run of byte 1 (16 x (byte 4 & 0x7f) bytes) into the text.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace fuzz_kernels_detail {

using Bytes = std::vector<std::uint8_t>;

/// The decoded input: the parameter bytes, the pattern block, the text.
struct KernelInput {
  std::uint8_t a = 0, b = 0, c = 0, d = 0;
  Bytes block, text;
  std::uint32_t wide() const { return std::uint32_t{c} << 8 | d; }  // c and d as one number
};

enum class ApproxKernel { lanes, threads, wavefront };

/// Patterns of a set an input may give the approximate set kernels: the DP reference costs
/// m x n per pattern.
inline constexpr std::size_t kMaxSetPatterns = 16;

// One kernel family each (fuzz/kernels/<family>.cpp, compiled apart: each instantiates many
// kernel templates). A disagreement throws fuzz_ops_detail::Disagreement, a failed check of
// the emulation emu::CheckFailed.
void fuzz_exact_kernels(const KernelInput& in);
void fuzz_multi_kernels(const KernelInput& in);
void fuzz_approx_kernels(const KernelInput& in, ApproxKernel kernel);
void fuzz_approx_set_kernel(const KernelInput& in);
void fuzz_approx_seed_kernel(const KernelInput& in);
void fuzz_lcs_kernels(const KernelInput& in);

}  // namespace fuzz_kernels_detail

inline int fuzz_kernels_one(const std::uint8_t* data, std::size_t size) {
  constexpr std::size_t kHeader = 6, kMaxText = 4096;
  if (size < kHeader || size > kMaxText) return 0;
  fuzz_kernels_detail::KernelInput in{.a = data[1], .b = data[2], .c = data[3], .d = data[4], .block = {}, .text = {}};
  const std::size_t block = std::min<std::size_t>(data[5], size - kHeader);
  in.block.assign(data + kHeader, data + kHeader + block);
  in.text.assign(data + kHeader + block, data + size);
  if (in.d & 0x80) {  // a long run (floods, runs of NUL or 0xff) somewhere in the text
    const std::size_t run = std::min<std::size_t>(16u * (in.d & 0x7f), kMaxText - in.text.size());
    const std::size_t at = in.text.empty() ? 0 : in.c % (in.text.size() + 1);
    in.text.insert(in.text.begin() + static_cast<std::ptrdiff_t>(at), run, in.a);
  }
  namespace fk = fuzz_kernels_detail;
  switch (data[0] % 8) {
    case 0: fk::fuzz_exact_kernels(in); break;
    case 1: fk::fuzz_multi_kernels(in); break;
    case 2: fk::fuzz_approx_kernels(in, fk::ApproxKernel::lanes); break;
    case 3: fk::fuzz_approx_kernels(in, fk::ApproxKernel::threads); break;
    case 4: fk::fuzz_approx_kernels(in, fk::ApproxKernel::wavefront); break;
    case 5: fk::fuzz_approx_set_kernel(in); break;
    case 6: fk::fuzz_lcs_kernels(in); break;
    default: fk::fuzz_approx_seed_kernel(in); break;
  }
  return 0;
}
