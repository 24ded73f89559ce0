// How the GPUs of this machine are linked, for `warpmatch info`: peer access and the P2P
// performance rank from the CUDA runtime, NVLink or PCIe from NVML; and which host CPUs each
// GPU is near (NVML, else sysfs), for `warpmatch info` and the host threads of a multi-GPU
// call (api/multi_device.hpp). NVML is opened at run time (dlopen of the driver's
// libnvidia-ml.so.1) so the library never links it: without it the transport is left unknown
// and the CPUs come from sysfs. Nothing here enables peer access or NVLink multicast.
#include <dlfcn.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/host_affinity.hpp"
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
constexpr unsigned kNvmlAffinityScopeNode = 0;  // NVML_AFFINITY_SCOPE_NODE
constexpr unsigned kCpuMaskWords = 64;          // 4096 CPUs

/// The PCI bus id of CUDA device `ordinal` ("0000:3B:00.0"), or "".
std::string pci_bus_id(int ordinal) {
  char bus_id[32] = {};
  if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, ordinal) != cudaSuccess) {
    cudaGetLastError();
    return "";
  }
  return bus_id;
}

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
    // Drivers before r470 lack the scoped call; the plain one gives the same node's CPUs there.
    affinity_in_scope_ = reinterpret_cast<NvmlReturn (*)(NvmlDevice, unsigned, unsigned long*, unsigned)>(
        dlsym(library_, "nvmlDeviceGetCpuAffinityWithinScope"));
    affinity_ = reinterpret_cast<NvmlReturn (*)(NvmlDevice, unsigned, unsigned long*)>(
        dlsym(library_, "nvmlDeviceGetCpuAffinity"));
    numa_node_ = reinterpret_cast<NvmlReturn (*)(NvmlDevice, unsigned*)>(dlsym(library_, "nvmlDeviceGetNumaNodeId"));
    ready_ = init_ && shutdown_ && by_bus_id_ && init_() == kNvmlSuccess;
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
    const std::string bus_id = pci_bus_id(ordinal);
    NvmlDevice device = nullptr;
    return !bus_id.empty() && by_bus_id_(bus_id.c_str(), &device) == kNvmlSuccess ? device : nullptr;
  }

  /// "nvlink" when NVML reports NVLink P2P between the two (direct or through NVSwitch), "pcie"
  /// otherwise; "" when this NVML cannot say.
  std::string transport(NvmlDevice a, NvmlDevice b) const {
    if (!p2p_status_) return "";
    int status = -1;
    const bool nvlink = p2p_status_(a, b, kNvmlP2PCapsIndexNvlink, &status) == kNvmlSuccess && status == kNvmlP2PStatusOk;
    return nvlink ? "nvlink" : "pcie";
  }

  /// The CPUs of the GPU's NUMA node (empty when NVML cannot say).
  std::vector<int> cpus(NvmlDevice device) const {
    std::vector<unsigned long> mask(kCpuMaskWords, 0);
    const bool read = affinity_in_scope_
                          ? affinity_in_scope_(device, kCpuMaskWords, mask.data(), kNvmlAffinityScopeNode) == kNvmlSuccess
                          : affinity_ && affinity_(device, kCpuMaskWords, mask.data()) == kNvmlSuccess;
    if (!read) return {};
    static_assert(sizeof(unsigned long) == sizeof(std::uint64_t));
    return core::cpus_from_mask(std::vector<std::uint64_t>(mask.begin(), mask.end()));
  }

  /// The GPU's NUMA node, or -1.
  int numa_node(NvmlDevice device) const {
    unsigned node = 0;
    return numa_node_ && numa_node_(device, &node) == kNvmlSuccess ? static_cast<int>(node) : -1;
  }

 private:
  void* library_ = nullptr;
  bool ready_ = false;
  NvmlReturn (*init_)() = nullptr;
  NvmlReturn (*shutdown_)() = nullptr;
  NvmlReturn (*by_bus_id_)(const char*, NvmlDevice*) = nullptr;
  NvmlReturn (*p2p_status_)(NvmlDevice, NvmlDevice, int, int*) = nullptr;
  NvmlReturn (*affinity_in_scope_)(NvmlDevice, unsigned, unsigned long*, unsigned) = nullptr;
  NvmlReturn (*affinity_)(NvmlDevice, unsigned, unsigned long*) = nullptr;
  NvmlReturn (*numa_node_)(NvmlDevice, unsigned*) = nullptr;
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

std::vector<DeviceHostAffinity> device_host_affinity() {
  std::vector<DeviceHostAffinity> out;
  const std::size_t count = devices().size();
  if (count == 0) return out;
  try {
    Nvml nvml;
    for (int ordinal = 0; ordinal < static_cast<int>(count); ++ordinal) {
      DeviceHostAffinity affinity = core::read_sysfs_host_affinity("/sys", pci_bus_id(ordinal));
      affinity.ordinal = ordinal;
      if (const NvmlDevice handle = nvml.ready() ? nvml.handle(ordinal) : nullptr) {
        if (std::vector<int> cpus = nvml.cpus(handle); !cpus.empty()) {
          affinity.cpus = std::move(cpus);
          affinity.source = "nvml";
        }
        if (affinity.numa_node < 0) affinity.numa_node = nvml.numa_node(handle);
      }
      out.push_back(std::move(affinity));
    }
  } catch (...) {
    // Discovery never throws: what was found so far is the answer.
  }
  return out;
}

}  // namespace warpmatch::cuda
