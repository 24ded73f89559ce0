// The CUDA backend's interface in a build without nvcc: nothing is compiled in, no GPU is
// visible, and every operation says how to get one.
#include "cuda/exact_cuda.hpp"

namespace warpmatch::cuda {

namespace {

[[noreturn]] void unavailable() {
  throw BackendUnavailable(
      "CUDA backend requested but this build of warpmatch has no CUDA support "
      "(rebuild with nvcc, preset 'cuda')");
}

}  // namespace

bool compiled() { return false; }
std::string runtime_version() { return ""; }
std::vector<DeviceInfo> devices() { return {}; }

std::uint64_t exact_scan(const core::ExactPattern&, ByteSpan, ExactAlgorithm, int, bool,
                         const core::StartsSink&) {
  unavailable();
}

ExactTiming bench_exact_resident(const core::ExactPattern&, ByteSpan, ExactAlgorithm, int, int) {
  unavailable();
}

ExactTiming bench_exact_host_fed(const core::ExactPattern&, ByteSpan, ExactAlgorithm, int, int) {
  unavailable();
}

}  // namespace warpmatch::cuda
