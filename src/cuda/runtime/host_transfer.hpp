// Host-to-device transfers measured for the benchmarks (bench/, through api/kernel_timing):
// pinned host memory the host-fed rows can scan, and the aggregate bandwidth with several GPUs
// copying at once. A plain C++ header; defined in host_transfer.cu, or throwing
// BackendUnavailable in a build without CUDA (cuda_unavailable.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace warpmatch::cuda {

/// `bytes` of page-locked host memory (cudaHostAlloc, portable: every GPU copies from it at
/// the bus's speed); pinned_free releases it.
std::uint8_t* pinned_alloc(std::size_t bytes);
void pinned_free(std::uint8_t* p) noexcept;

/// `bytes` copied from pinned host memory to each listed device at once (one buffer and one
/// stream per device, all copies issued before any is awaited); the median wall time in
/// milliseconds of `repeats` rounds after one warm-up.
double concurrent_host_to_device_ms(const std::vector<int>& devices, std::uint64_t bytes, int repeats);

}  // namespace warpmatch::cuda
