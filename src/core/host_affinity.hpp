// Host threads near their GPU (Execution::devices, issue 17): which CPUs each GPU is attached
// to (the machine says it as a CPU list, from NVML or sysfs), where each device's host worker
// and the pools that pack and copy for it then run, and the pinning itself. Backend-neutral:
// the GPUs' lists come from cuda/runtime/device_links.cu through the public
// cuda_device_host_affinity(). Nothing here fails a call: what cannot be read or set leaves
// the thread where it was, and the placement says why.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "warpmatch/common.hpp"

namespace warpmatch::core {

/// The CPUs of a Linux CPU list ("0-15,32-47", sysfs local_cpulist, cpuset.cpus), sorted and
/// unique; a trailing newline is allowed and "" is no CPU. nullopt when malformed (an empty
/// entry, a reversed range, anything but digits, '-' and ',').
std::optional<std::vector<int>> parse_cpu_list(std::string_view text);
/// The inverse: sorted unique CPUs as a CPU list ("0-15,32-47"; "" for none).
std::string format_cpu_list(std::span<const int> cpus);
/// The CPUs set in a bit mask of 64-bit words (NVML's cpuSet: CPU i is bit i % 64 of word i / 64).
std::vector<int> cpus_from_mask(std::span<const std::uint64_t> words);

/// A GPU's CPUs and NUMA node as sysfs has them: <sysfs_root>/bus/pci/devices/<bus id>/
/// local_cpulist and numa_node ("/sys" on a machine; a temporary tree in tests). The bus id
/// is the CUDA runtime's ("0000:3B:00.0"; sysfs spells it in lower case). Fields it cannot
/// read stay unknown; source is "sysfs" when the CPU list was read.
DeviceHostAffinity read_sysfs_host_affinity(const std::string& sysfs_root, std::string_view pci_bus_id);

/// Where one device's host work runs: its worker thread and the host pools it leases.
struct HostPlacement {
  int device = 0;
  std::vector<int> cpus;  // pinned to these; empty = not pinned (the thread stays as it was)
  int numa_node = -1;     // the GPU's, as reported (-1 unknown)
  std::string source;     // where the GPU's CPU list came from: "nvml", "sysfs" or ""
  std::string reason;     // not pinned: why; "" when pinned
};

/// The placement of each device in `devices` (the GPUs of one call, in worker order): the
/// CPUs near its GPU (from `known`, matched by ordinal) that `allowed` (the CPUs the calling
/// thread may run on) holds. Not pinned when the GPU's CPUs are unknown, when none of them is
/// allowed (a cpuset or taskset elsewhere), or when they cover every allowed CPU (one socket:
/// nothing to gain).
std::vector<HostPlacement> plan_host_placement(std::span<const int> devices,
                                               std::span<const DeviceHostAffinity> known,
                                               std::span<const int> allowed);

/// One line saying where the host threads ran: "GPU 0 on CPUs 0-15 (NUMA node 0, nvml),
/// GPU 1 on CPUs 16-31 (NUMA node 1, nvml)"; a device not pinned gives its reason.
std::string describe_host_placement(std::span<const HostPlacement> placements);

/// The CPUs the calling thread may run on (sched_getaffinity); empty when unknown.
std::vector<int> current_thread_cpus();
/// Pins the calling thread to `cpus` (pthread_setaffinity_np); false, nothing changed, when
/// `cpus` is empty or the system refuses.
bool pin_current_thread(std::span<const int> cpus);

/// While it lives, the calling thread runs on the placement's CPUs, and the host pools it
/// leases (core/host_copy.hpp) are pools whose threads run there too; then the thread's CPUs
/// and pool preference are what they were. A placement without CPUs changes nothing. The
/// placement must outlive the scope.
class ThreadPlacementScope {
 public:
  explicit ThreadPlacementScope(const HostPlacement& placement);
  ~ThreadPlacementScope();
  ThreadPlacementScope(const ThreadPlacementScope&) = delete;
  ThreadPlacementScope& operator=(const ThreadPlacementScope&) = delete;

 private:
  bool pinned_ = false;
  std::vector<int> cpus_before_;
  const std::vector<int>* preferred_before_ = nullptr;
};

/// The CPUs of the ThreadPlacementScope the calling thread is in; empty outside one (the
/// one-device path: host pools as before, unpinned).
const std::vector<int>& thread_placement_cpus();

}  // namespace warpmatch::core
