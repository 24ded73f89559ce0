// Where the host workers of a multi-GPU call run (multi_device.hpp): the GPUs' CPU lists,
// read once per process (NVML's first use costs tens of milliseconds), planned against the
// CPUs the calling thread may use at each call (a taskset or cpuset narrows them).
#include "api/multi_device.hpp"

#include <mutex>

namespace warpmatch::multi_device {

namespace {

std::mutex note_mutex;
std::string latest_note;  // guarded by note_mutex

}  // namespace

std::vector<core::HostPlacement> host_placements(std::span<const int> devices) {
  static const std::vector<DeviceHostAffinity> known = cuda_device_host_affinity();
  const std::vector<int> allowed = core::current_thread_cpus();
  std::vector<core::HostPlacement> placements = core::plan_host_placement(devices, known, allowed);
  const std::lock_guard lock(note_mutex);
  latest_note = core::describe_host_placement(placements);
  return placements;
}

std::string host_placement_note() {
  const std::lock_guard lock(note_mutex);
  return latest_note;
}

}  // namespace warpmatch::multi_device
