// CUDA backend of longest common substring: a plain C++ header (no CUDA types). Built from
// src/cuda/lcs/dispatch.cu when CUDA is on, else the entries in runtime/cuda_unavailable.cpp throw
// BackendUnavailable.
#pragma once

#include <cstdint>
#include <vector>

#include "warpmatch/lcs.hpp"

namespace warpmatch::cuda {

/// Device memory lcs may take now: the GPU's free memory, no more than the device-memory cap
/// leaves (what the suffix-array path needs: core::lcs_suffix_array_device_bytes); throws
/// DeviceError / BackendUnavailable.
std::uint64_t lcs_device_free_bytes(int device);

/// Suffix array of `text` by prefix doubling on CUB radix sort. `device_ms` (optional)
/// receives the device time of the construction alone (CUDA events, no transfers).
std::vector<std::int64_t> lcs_suffix_array(ByteSpan text, int device, double* device_ms = nullptr);

/// The whole suffix-array path on the device: prefix-doubling SA, Φ-LCP (kPlcpChunk
/// positions per thread), the nearest-B scans as CUB scans for the length, CUB select of the
/// runs holding it; the host waits once per doubling round and once at the end, then forms
/// the groups from the compacted runs. Returns false (out untouched beyond zeroing) when
/// the input is too repetitive for the device LCP's work budget: the caller then computes the
/// LCP on the host from lcs_suffix_array(). `device_ms`: device time after the upload.
/// Device memory comes from a per-device pool kept between calls (up to 256 MiB).
bool lcs_suffix_array_scan(ByteSpan a, ByteSpan b, std::uint64_t max_matches, int device,
                           LcsResult& out, double* device_ms = nullptr);

/// Seed paper 004 faithfully: one thread per alignment offset (m + n - 1 of them) finds its
/// longest run; CUB picks the maximum, selects the diagonals holding it, and the occurrence
/// pairs are written, sorted (CUB radix sort) and copied back. Fills length, count,
/// total_pairs and pairs (first max_matches in (a, b) order). `device_ms` as above.
void lcs_diagonal(ByteSpan a, ByteSpan b, std::uint64_t max_matches, int device, LcsResult& out,
                  double* device_ms = nullptr);

}  // namespace warpmatch::cuda
