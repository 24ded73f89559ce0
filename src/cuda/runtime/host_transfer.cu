// Pinned host memory and the aggregate host-to-device bandwidth of several GPUs
// (host_transfer.hpp), for the benchmarks' scaling table.
#include "cuda/runtime/host_transfer.hpp"

#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/timing.hpp"
#include "cuda/runtime/device_runtime.cuh"

namespace warpmatch::cuda {

std::uint8_t* pinned_alloc(std::size_t bytes) {
  void* p = nullptr;
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) device = 0;
  detail::check(cudaHostAlloc(&p, std::max<std::size_t>(bytes, 1), cudaHostAllocPortable),
                ("cudaHostAlloc(" + std::to_string(bytes) + " bytes)").c_str(), device);
  return static_cast<std::uint8_t*>(p);
}

void pinned_free(std::uint8_t* p) noexcept {
  if (p) cudaFreeHost(p);
}

double concurrent_host_to_device_ms(const std::vector<int>& devices, std::uint64_t bytes, int repeats) {
  for (const int d : devices) detail::require_device(d);
  std::unique_ptr<std::uint8_t, void (*)(std::uint8_t*)> source(pinned_alloc(bytes), [](std::uint8_t* p) {
    pinned_free(p);
  });
  std::memset(source.get(), 0x5a, bytes);  // touched: no page faults inside the timing
  std::vector<detail::DeviceBuffer<std::uint8_t>> targets;
  std::vector<std::unique_ptr<detail::Stream>> streams;
  for (const int d : devices) {
    detail::DeviceGuard guard(d);
    targets.emplace_back(d, bytes);
    streams.push_back(std::make_unique<detail::Stream>(d));
  }
  auto round = [&] {
    for (std::size_t i = 0; i < devices.size(); ++i) {
      detail::DeviceGuard guard(devices[i]);
      WARPMATCH_CUDA_CHECK(devices[i], cudaMemcpyAsync(targets[i].get(), source.get(), bytes,
                                                       cudaMemcpyHostToDevice, streams[i]->get()));
    }
    for (std::size_t i = 0; i < devices.size(); ++i)
      WARPMATCH_CUDA_CHECK(devices[i], cudaStreamSynchronize(streams[i]->get()));
  };
  round();  // warm-up: contexts, first touch of the device buffers
  return core::median_wall_ms(repeats, round);
}

}  // namespace warpmatch::cuda
