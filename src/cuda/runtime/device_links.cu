// How the GPUs of this machine are linked, for `warpmatch info`: peer access and the P2P
// performance rank from the CUDA runtime, NVLink or PCIe from NVML. NVML is opened at run time
// (dlopen of the driver's libnvidia-ml.so.1) so the library never links it: without it the
// transport is left unknown. Nothing here enables peer access or NVLink multicast.
#include <dlfcn.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cuda/runtime/device_runtime.cuh"
#include "cuda/runtime/devices.hpp"

namespace warpmatch::cuda {

namespace {

// The few NVML declarations used, as nvml.h gives them (the header is not needed to build).
using NvmlReturn = int;  // NVML_SUCCESS = 0
using NvmlDevice = struct NvmlDeviceOpaque*;
constexpr NvmlReturn kNvmlSuccess = 0;
constexpr int kNvmlP2PCapsIndexNvlink = 2;  // NVML_P2P_CAPS_INDEX_NVLINK
constexpr int kNvmlP2PStatusOk = 0;         // NVML_P2P_STATUS_OK

/// NVML opened for one query, closed (nvmlShutdown, dlclose) when it ends.
class Nvml {
 public:
  Nvml() {
    library_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library_) return;
    init_ = reinterpret_cast<NvmlReturn (*)()>(dlsym(library_, "nvmlInit_v2"));
    shutdown_ = reinterpret_cast<NvmlReturn (*)()>(dlsym(library_, "nvmlShutdown"));
    by_bus_id_ = reinterpret_cast<NvmlReturn (*)(const char*, NvmlDevice*)>(
        dlsym(library_, "nvmlDeviceGetHandleByPciBusId_v2"));
    p2p_status_ = reinterpret_cast<NvmlReturn (*)(NvmlDevice, NvmlDevice, int, int*)>(
        dlsym(library_, "nvmlDeviceGetP2PStatus"));
    ready_ = init_ && shutdown_ && by_bus_id_ && p2p_status_ && init_() == kNvmlSuccess;
  }
  ~Nvml() {
    if (ready_) shutdown_();
    if (library_) dlclose(library_);
  }
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  bool ready() const { return ready_; }

  /// The NVML handle of CUDA device `ordinal` (matched by PCI bus id), or null.
  NvmlDevice handle(int ordinal) const {
    char bus_id[32] = {};
    if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, ordinal) != cudaSuccess) {
      cudaGetLastError();
      return nullptr;
    }
    NvmlDevice device = nullptr;
    return by_bus_id_(bus_id, &device) == kNvmlSuccess ? device : nullptr;
  }

  /// "nvlink" when NVML reports NVLink P2P between the two (direct or through NVSwitch), "pcie" otherwise.
  std::string transport(NvmlDevice a, NvmlDevice b) const {
    int status = -1;
    const bool nvlink = p2p_status_(a, b, kNvmlP2PCapsIndexNvlink, &status) == kNvmlSuccess && status == kNvmlP2PStatusOk;
    return nvlink ? "nvlink" : "pcie";
  }

 private:
  void* library_ = nullptr;
  bool ready_ = false;
  NvmlReturn (*init_)() = nullptr;
  NvmlReturn (*shutdown_)() = nullptr;
  NvmlReturn (*by_bus_id_)(const char*, NvmlDevice*) = nullptr;
  NvmlReturn (*p2p_status_)(NvmlDevice, NvmlDevice, int, int*) = nullptr;
};

}  // namespace

std::vector<DeviceLink> device_links() {
  std::vector<DeviceLink> links;
  const std::size_t count = devices().size();
  if (count < 2) return links;
  try {
    Nvml nvml;
    std::vector<NvmlDevice> handles(count, nullptr);
    if (nvml.ready())
      for (std::size_t d = 0; d < count; ++d) handles[d] = nvml.handle(static_cast<int>(d));
    for (int from = 0; from < static_cast<int>(count); ++from)
      for (int to = 0; to < static_cast<int>(count); ++to) {
        if (from == to) continue;
        DeviceLink link;
        link.from = from;
        link.to = to;
        int can = 0;
        if (cudaDeviceCanAccessPeer(&can, from, to) == cudaSuccess) link.peer_access = can != 0;
        else cudaGetLastError();
        int rank = -1;
        if (cudaDeviceGetP2PAttribute(&rank, cudaDevP2PAttrPerformanceRank, from, to) == cudaSuccess)
          link.performance_rank = rank;
        else
          cudaGetLastError();
        if (handles[from] && handles[to]) link.transport = nvml.transport(handles[from], handles[to]);
        links.push_back(std::move(link));
      }
  } catch (...) {
    // Discovery never throws: what was found so far is the answer.
  }
  return links;
}

}  // namespace warpmatch::cuda
