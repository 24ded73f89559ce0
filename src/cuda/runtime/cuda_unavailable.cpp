// The CUDA backend's interface in a build without nvcc: nothing is compiled in, no GPU is
// visible, and every operation says how to get one.
#include "cuda/exact/exact_cuda.hpp"
#include "cuda/runtime/devices.hpp"

namespace warpmatch::cuda {

namespace {

[[noreturn]] void unavailable() {
  throw BackendUnavailable(
      "CUDA backend requested but this build of warpmatch has no CUDA support "
      "(rebuild with nvcc, preset 'cuda')");
}

}  // namespace

void throw_unavailable() { unavailable(); }
bool compiled() { return false; }
std::string runtime_version() { return ""; }
std::vector<DeviceInfo> devices() { return {}; }
bool runtime_started() { return false; }
void prepare_host_upload(int) {}
std::vector<DeviceLink> device_links() { return {}; }
std::vector<DeviceHostAffinity> device_host_affinity() { return {}; }
std::string device_memory_note() { return ""; }
void require_text_on_device(DeviceSpan, const std::vector<int>&, std::string_view) { unavailable(); }
void copy_to_host(const std::vector<DeviceToHostCopy>&) { unavailable(); }

class ExactDevicePattern {};
std::shared_ptr<const ExactDevicePattern> exact_upload(const core::ExactPattern&, ExactAlgorithm, int) {
  unavailable();
}
std::uint64_t exact_scan(const ExactDevicePattern&, ByteSpan, bool, const core::StartsSink&) { unavailable(); }
std::uint64_t exact_scan(const core::ExactPattern&, ByteSpan, ExactAlgorithm, int, bool,
                         const core::StartsSink&) {
  unavailable();
}

}  // namespace warpmatch::cuda

// ---- multi-pattern exact search (issue 5) ------------------------------------------------
#include "cuda/multi/multi_cuda.hpp"

namespace warpmatch::cuda {

namespace {
[[noreturn]] void multi_unavailable() {
  throw BackendUnavailable(
      "CUDA backend requested for multi-pattern search but this build of warpmatch has no "
      "CUDA support (rebuild with nvcc, preset 'cuda')");
}
}  // namespace

class MultiDeviceTables {};
std::shared_ptr<const MultiDeviceTables> multi_upload(const core::PatternSet&,
                                                      const core::PrefixIndex*, MultiAlgorithm,
                                                      const MultiLaunch&, int) {
  multi_unavailable();
}
std::uint64_t multi_device_bytes(const MultiDeviceTables&) { multi_unavailable(); }
std::uint64_t multi_scan(const MultiDeviceTables&, ByteSpan, bool, const core::MatchBatchSink&) {
  multi_unavailable();
}
std::vector<std::uint64_t> multi_count_per_pattern(const MultiDeviceTables&, ByteSpan) {
  multi_unavailable();
}

}  // namespace warpmatch::cuda

// ---- longest common substring (issue 6) ----
#include "cuda/lcs/lcs_cuda.hpp"
namespace warpmatch::cuda {
std::uint64_t lcs_device_free_bytes(int) { unavailable(); }
std::vector<std::int64_t> lcs_suffix_array(ByteSpan, int, double*) { unavailable(); }
bool lcs_suffix_array_scan(ByteSpan, ByteSpan, std::uint64_t, int, LcsResult&, double*) { unavailable(); }
void lcs_diagonal(ByteSpan, ByteSpan, std::uint64_t, int, LcsResult&, double*) { unavailable(); }
}  // namespace warpmatch::cuda

// ---- approximate search (issue 3) ----
#include "cuda/approx/approx_cuda.hpp"
namespace warpmatch::cuda {
std::uint64_t approx_max_pattern_length(ApproxAlgorithm) { return 0; }
class ApproxDevicePatterns {};
std::shared_ptr<const ApproxDevicePatterns> approx_upload(const std::vector<core::ApproxPattern>&,
                                                          const std::vector<core::ApproxQuery>&, ApproxAlgorithm,
                                                          int, int) {
  unavailable();
}
std::vector<std::vector<core::EndHit>> approx_scan(const ApproxDevicePatterns&, const std::vector<core::ApproxQuery>&,
                                                   ByteSpan) {
  unavailable();
}
std::vector<std::vector<core::EndHit>> approx_scan(const std::vector<core::ApproxPattern>&,
                                                   const std::vector<core::ApproxQuery>&, ByteSpan,
                                                   ApproxAlgorithm, int, int) { unavailable(); }
}  // namespace warpmatch::cuda

// ---- edit distance (issue 4) ----
#include "cuda/distance/distance_cuda.hpp"
namespace warpmatch::cuda {
DistanceRun edit_distance(ByteSpan, ByteSpan, std::int64_t, DistanceAlgorithm, int, int) { unavailable(); }
std::vector<std::int64_t> edit_distance_batch(std::span<const std::pair<ByteSpan, ByteSpan>>, std::int64_t,
                                              int, double*, std::span<const ByteSpan>,
                                              std::span<const std::pair<std::uint32_t, std::uint32_t>>) {
  unavailable();
}
std::vector<std::int64_t> edit_distance_matrix(std::span<const ByteSpan>, std::span<const ByteSpan>, std::int64_t,
                                               int, double*) {
  unavailable();
}
}  // namespace warpmatch::cuda

// ---- host transfers for the benchmarks (several GPUs) ----
#include "cuda/runtime/host_transfer.hpp"
namespace warpmatch::cuda {
std::uint8_t* pinned_alloc(std::size_t) { unavailable(); }
void pinned_free(std::uint8_t*) noexcept {}
double concurrent_host_to_device_ms(const std::vector<int>&, std::uint64_t, int) { unavailable(); }
}  // namespace warpmatch::cuda
