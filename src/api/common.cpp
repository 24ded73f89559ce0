// Backend selection and build/device information shared by every operation.
#include <thread>

#include "cuda/runtime/devices.hpp"
#include "warpmatch/common.hpp"

namespace warpmatch {

std::string_view backend_name(Backend b) {
  switch (b) {
    case Backend::cpu: return "cpu";
    case Backend::cuda: return "cuda";
    case Backend::automatic: return "auto";
  }
  return "unknown";
}

Backend parse_backend(std::string_view name) {
  if (name == "cpu") return Backend::cpu;
  if (name == "cuda" || name == "gpu") return Backend::cuda;
  if (name == "auto") return Backend::automatic;
  throw InvalidArgument("unknown backend '" + std::string(name) + "' (expected cpu, cuda or auto)");
}

BuildInfo build_info() {
  BuildInfo info;
  info.version = WARPMATCH_VERSION;
  info.cuda_compiled = cuda::compiled();
  info.cuda_architectures = info.cuda_compiled ? WARPMATCH_CUDA_ARCHITECTURES : "";
  info.cuda_runtime_version = cuda::runtime_version();
  return info;
}

std::vector<DeviceInfo> cuda_devices() { return cuda::devices(); }

std::vector<DeviceLink> cuda_device_links() { return cuda::device_links(); }

std::vector<DeviceHostAffinity> cuda_device_host_affinity() { return cuda::device_host_affinity(); }

Backend resolve_backend(Backend requested) {
  if (requested == Backend::cpu) return Backend::cpu;
  const bool have_gpu = !cuda::devices().empty();
  if (requested == Backend::automatic) return have_gpu ? Backend::cuda : Backend::cpu;
  if (!cuda::compiled())
    throw BackendUnavailable(
        "backend 'cuda' requested but this build of warpmatch has no CUDA support "
        "(built without a CUDA compiler; WARPMATCH_CUDA=ON makes one required)");
  if (!have_gpu)
    throw BackendUnavailable("backend 'cuda' requested but no CUDA GPU is visible "
                             "(the cpu backend and auto need none)");
  return Backend::cuda;
}

int hardware_threads() {
  // Once per process: hardware_concurrency() reads /sys (open, read, close: ~5 us in a VM),
  // which was most of a 100-byte pair's edit distance through the API.
  static const int n = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return n;
}

}  // namespace warpmatch
