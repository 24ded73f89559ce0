// CUDA backend of edit distance: a plain C++ header (no CUDA types), so core code and tests
// compile without nvcc. Built from src/cuda/distance/dispatch.cu when CUDA is on; in a CPU-only
// build src/cuda/runtime/cuda_unavailable.cpp makes every entry throw BackendUnavailable.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "warpmatch/common.hpp"

namespace warpmatch::cuda {

enum class DistanceAlgorithm {
  myers_stripes,  // bit-parallel stripes of 1024 rows, one persistent warp each, banded by k
  tiles,        // seed paper 001: plain-DP tiles of block_size^2 cells, one launch per tile diagonal
};

/// One pair's result and how long the device took.
struct DistanceRun {
  std::int64_t distance = -1;  // kDistanceOverK (-1) beyond k
  int block_size = 0;          // tiles: the tile side used
  double kernel_ms = 0;        // CUDA events around the kernels (borders initialised included)
  double total_ms = 0;         // transfers and allocation included
};

/// Global edit distance on the device. k < 0: no bound. block_size: the tile side for
/// `tiles` (a multiple of 32 in [32, 1024]); for myers_stripes, 0 or the most stripes per
/// pass (tests use it to cross the pass hand-off on small inputs). Throws
/// BackendUnavailable / DeviceError / InvalidArgument (bad block size).
DistanceRun edit_distance(ByteSpan a, ByteSpan b, std::int64_t k, DistanceAlgorithm algorithm,
                          int block_size, int device);

/// Many pairs, one warp per pair (Myers, 32-bit words, the warp's lanes hold the pattern's
/// words); pairs too long for a warp's registers fall back to edit_distance per pair.
/// `strings` / `ids` (optional): every pair is (strings[ids[i].first], strings[ids[i].second])
/// — a cross product — and each string is uploaded once instead of once per pair.
std::vector<std::int64_t> edit_distance_batch(std::span<const std::pair<ByteSpan, ByteSpan>> pairs,
                                              std::int64_t k, int device, double* kernel_ms,
                                              std::span<const ByteSpan> strings = {},
                                              std::span<const std::pair<std::uint32_t, std::uint32_t>> ids = {});

/// The cross product a x b, row-major (distance of a[i] and b[j] at i * b.size() + j; -1 beyond
/// k). When every string fits the one-thread kernel (<= 320 bytes) only the strings and a
/// table of them cross the bus and the pairs are formed on the device; otherwise
/// edit_distance_batch with the string table.
std::vector<std::int64_t> edit_distance_matrix(std::span<const ByteSpan> a, std::span<const ByteSpan> b,
                                               std::int64_t k, int device, double* kernel_ms);

}  // namespace warpmatch::cuda
