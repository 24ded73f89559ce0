// CUDA runtime plumbing: error messages, device discovery, build information.
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cuda/device_runtime.cuh"
#include "core/parallel.hpp"
#include "cuda/exact_cuda.hpp"

namespace warpmatch::cuda {

namespace {

// The runtime reads CUDA_VISIBLE_DEVICES once, so the device list cannot change while the
// process runs; cudaGetDeviceProperties is slow enough to be worth querying only once.
const std::vector<DeviceInfo>& device_list() {
  static std::once_flag once;
  static std::vector<DeviceInfo> list;
  std::call_once(once, [] {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
      cudaGetLastError();  // no driver / no GPU: not an error for discovery
      return;
    }
    for (int d = 0; d < count; ++d) {
      cudaDeviceProp prop{};
      if (cudaGetDeviceProperties(&prop, d) != cudaSuccess) {
        cudaGetLastError();
        continue;
      }
      DeviceInfo info;
      info.ordinal = d;
      info.name = prop.name;
      info.compute_major = prop.major;
      info.compute_minor = prop.minor;
      info.multiprocessors = prop.multiProcessorCount;
      info.global_memory_bytes = prop.totalGlobalMem;
      info.l2_bytes = static_cast<std::uint64_t>(prop.l2CacheSize);
      int khz = 0;
      if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, d) == cudaSuccess)
        info.clock_mhz = khz / 1000;
      else
        cudaGetLastError();
      list.push_back(std::move(info));
    }
  });
  return list;
}

}  // namespace

bool compiled() { return true; }

std::string runtime_version() {
  int v = 0;
  if (cudaRuntimeGetVersion(&v) != cudaSuccess) return "";
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

std::vector<DeviceInfo> devices() {
  try {
    return device_list();
  } catch (...) {
    return {};
  }
}

namespace detail {

std::string device_name(int device) {
  for (const auto& d : device_list())
    if (d.ordinal == device) return d.name;
  return "";
}

void throw_cuda_error(cudaError_t error, const char* call, int device) {
  std::string msg = std::string(call) + " failed on CUDA device " + std::to_string(device);
  const std::string name = device_name(device);
  if (!name.empty()) msg += " (" + name + ")";
  msg += ": ";
  msg += cudaGetErrorString(error);
  msg += " [";
  msg += cudaGetErrorName(error);
  msg += "]";
  throw DeviceError(msg);
}

void parallel_copy(std::uint8_t* dst, const std::uint8_t* src, std::size_t n) {
  // Page-cache text (a mapped file) is faulted in as it is copied: 8 MiB pieces on 8 threads
  // gave 4 copying threads for a 32 MiB chunk and 11 GB/s host-fed `find -c` over 8 GiB on the
  // H200 (issue 12); 2 MiB pieces over up to 16 threads let every core fault and copy.
  constexpr std::size_t kPiece = 2u << 20;
  constexpr int kThreads = 16;
  const std::size_t pieces = (n + kPiece - 1) / kPiece;
  if (pieces <= 1) {
    if (n) std::memcpy(dst, src, n);
    return;
  }
  const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  core::parallel_for(pieces, std::min(hw, kThreads), [&](std::size_t i) {
    const std::size_t off = i * kPiece;
    std::memcpy(dst + off, src + off, std::min(kPiece, n - off));
  });
}

bool is_pinned(const void* p) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return a.type == cudaMemoryTypeHost || a.type == cudaMemoryTypeManaged;
}

void require_device(int device) {
  const auto& list = device_list();
  if (list.empty())
    throw BackendUnavailable("CUDA backend requested but no CUDA GPU is visible "
                             "(use --backend cpu or auto)");
  if (device < 0 || device >= static_cast<int>(list.size()))
    throw InvalidArgument("CUDA device " + std::to_string(device) + " does not exist (" +
                          std::to_string(list.size()) + " visible)");
}

}  // namespace detail
}  // namespace warpmatch::cuda
