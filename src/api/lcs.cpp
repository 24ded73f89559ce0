// Longest common substring and MEMs, the public entry: validates options, resolves backend
// and algorithm, routes to src/cpu or src/cuda. Inputs whose suffix array does not fit one
// GPU (lcs runs on one; no split over several yet) run on the CPU under the automatic
// backend, saying why in ScanStats::note, and are a DeviceOutOfMemory naming the sizes and
// the limit when the cuda backend was asked for.
#include <chrono>

#include "api/backend_choice.hpp"
#include "api/scan_stats.hpp"
#include "core/lcs_suffix.hpp"
#include "cpu/lcs_cpu.hpp"
#include "cuda/lcs/lcs_cuda.hpp"
#include "cuda/runtime/tuning.hpp"
#include "warpmatch/lcs.hpp"

namespace warpmatch {

namespace {

struct LcsPlan {
  Backend backend = Backend::cpu;
  cpu::LcsAlgorithm cpu_algorithm = cpu::LcsAlgorithm::suffix_array;
  std::string algorithm;  // resolved name
  int threads = 1;
  ScanStats info;  // backend, algorithm, device and note of the run
};

LcsPlan plan(const LcsOptions& options, bool mems) {
  LcsPlan p;
  p.threads = core::execution_threads(options);
  const std::string& algo = options.algorithm;
  // MEMs have no diagonal kernel on the GPU, so for MEMs "diagonal" is CPU-only too.
  p.backend = mems ? core::backend_for_algorithm(options.backend, algo, {"dp", "diagonal"}, {})
                   : core::backend_for_algorithm(options.backend, algo, {"dp"}, {});
  if (algo == "auto" || algo == "suffix-array") {
    p.algorithm = "suffix-array";
  } else if (algo == "diagonal" && (p.backend == Backend::cpu || !mems)) {
    p.algorithm = "diagonal";
    p.cpu_algorithm = cpu::LcsAlgorithm::diagonal;
    if (p.backend == Backend::cpu) p.threads = 1;
  } else if (algo == "dp" && p.backend == Backend::cpu && !mems) {
    p.algorithm = "dp";
    p.cpu_algorithm = cpu::LcsAlgorithm::dp;
    p.threads = 1;
  } else {
    const std::string expected =
        mems ? (p.backend == Backend::cpu ? "auto, suffix-array or diagonal" : "auto or suffix-array")
             : (p.backend == Backend::cpu ? "auto, suffix-array, diagonal or dp"
                                          : "auto, suffix-array or diagonal");
    throw InvalidArgument("unknown algorithm '" + algo + "' for " +
                          (mems ? "maximal exact matches" : "longest common substring") +
                          " on the " + std::string(backend_name(p.backend)) +
                          " backend (expected " + expected + ")");
  }
  if (p.backend == Backend::cuda) {
    p.info.device = core::cuda_device_label(options);
  } else {
    p.info.device = core::cpu_device_label(p.threads);
  }
  p.info.backend = p.backend;
  p.info.algorithm = p.algorithm;
  return p;
}

/// True when inputs of a + b bytes fit the GPU suffix array on options.device (its memory
/// within the device-memory cap, and 32-bit indices). Otherwise: with the cuda backend asked
/// for, DeviceOutOfMemory (memory) or InvalidArgument (index limit) naming the sizes and the
/// limit; under the automatic backend the plan is switched to the CPU with a note saying why,
/// and false is returned.
bool gpu_suffix_array_fits(std::uint64_t a_bytes, std::uint64_t b_bytes, const LcsOptions& options, LcsPlan& p,
                           bool mems, int cpu_threads) {
  const core::LcsDeviceFit fit = core::lcs_device_fit(a_bytes, b_bytes, cuda::lcs_device_free_bytes(options.device));
  if (fit.fits()) return true;
  std::string shortfall = fit.shortfall("CUDA device " + std::to_string(options.device) + " (" + p.info.device + ")");
  if (const std::uint64_t cap = cuda::device_memory_limit(); fit.fits_index())
    shortfall += cap ? " under the device-memory cap of " + std::to_string(cap) + " bytes" : " (the GPU's free memory)";
  if (options.backend == Backend::cuda) {
    const std::string what = std::string(mems ? "maximal exact matches" : "longest common substring") +
                             " on the cuda backend: " + shortfall +
                             "; lcs runs on one GPU (its suffix array is not split over several): "
                             "the cpu or automatic backend computes it on the host";
    if (!fit.fits_index()) throw InvalidArgument(what);
    throw DeviceOutOfMemory(what, fit.needed, 0, fit.available);
  }
  p.info.note = shortfall + ": computed on the CPU instead";
  p.backend = Backend::cpu;
  p.threads = cpu_threads;
  p.info.backend = Backend::cpu;
  p.info.device = core::cpu_device_label(cpu_threads);
  return false;
}

std::vector<std::uint8_t> concatenate(ByteSpan a, ByteSpan b) {
  std::vector<std::uint8_t> t(a.size() + b.size());
  std::copy(a.begin(), a.end(), t.begin());
  std::copy(b.begin(), b.end(), t.begin() + static_cast<std::ptrdiff_t>(a.size()));
  return t;
}

/// lcs runs on one GPU (no suffix array split over several): a device list
/// (Execution::devices) is checked, then its first GPU is the one used.
LcsOptions on_first_listed_device(LcsOptions options) {
  core::check_device_list(options);
  if (!options.devices.empty()) options.device = options.devices.front();
  return options;
}

using api::seconds_since;

}  // namespace

LcsResult longest_common_substring(ByteSpan a, ByteSpan b, const LcsOptions& requested) {
  const auto t0 = std::chrono::steady_clock::now();
  const cuda::DeviceMemoryLimitScope cap(requested.device_memory_limit);
  const LcsOptions options = on_first_listed_device(requested);
  LcsPlan p = plan(options, /*mems=*/false);
  LcsResult out;
  if (a.empty() || b.empty()) {
    // Nothing is common; no backend work.
  } else if (p.backend == Backend::cuda && p.algorithm == "diagonal") {
    cuda::lcs_diagonal(a, b, options.max_matches, options.device, out);
  } else if (p.backend == Backend::cuda &&
             gpu_suffix_array_fits(a.size(), b.size(), options, p, /*mems=*/false, core::execution_threads(options))) {
    if (!cuda::lcs_suffix_array_scan(a, b, options.max_matches, options.device, out)) {
      // Long repeats exceed the device LCP's work budget: LCP and scan on the host instead.
      p.info.note = "inputs too repetitive for the GPU LCP kernel's work budget: LCP computed on the host";
      const std::vector<std::uint8_t> t = concatenate(a, b);
      const std::vector<std::int64_t> sa = cuda::lcs_suffix_array(t, options.device);
      const std::vector<std::int64_t> lcp = core::lcp_from_suffix_array<std::int64_t>(t, sa, core::execution_threads(options));
      core::lcs_from_suffix_array<std::int64_t>(t, a.size(), sa, lcp, options.max_matches, core::execution_threads(options), out);
    }
  } else {
    cpu::lcs(a, b, p.cpu_algorithm, options.max_matches, p.threads, out);
  }
  out.stats = p.info;
  out.stats.bytes = a.size() + b.size();
  out.stats.seconds = seconds_since(t0);
  return out;
}

MemResult maximal_exact_matches(ByteSpan a, ByteSpan b, std::uint64_t min_length,
                                const LcsOptions& requested) {
  const auto t0 = std::chrono::steady_clock::now();
  const cuda::DeviceMemoryLimitScope cap(requested.device_memory_limit);
  const LcsOptions options = on_first_listed_device(requested);
  if (min_length == 0)
    throw InvalidArgument("minimum MEM length must be at least 1 (got 0)");
  LcsPlan p = plan(options, /*mems=*/true);
  MemResult out;
  if (a.empty() || b.empty()) {
    // No MEMs.
  } else if (p.backend == Backend::cuda &&
             gpu_suffix_array_fits(a.size(), b.size(), options, p, /*mems=*/true, core::execution_threads(options))) {
    const std::vector<std::uint8_t> t = concatenate(a, b);
    const std::vector<std::int64_t> sa = cuda::lcs_suffix_array(t, options.device);
    const std::vector<std::int64_t> lcp = core::lcp_from_suffix_array<std::int64_t>(t, sa, core::execution_threads(options));
    core::mems_from_suffix_array<std::int64_t>(t, a.size(), sa, lcp, min_length, options.max_matches,
                                 core::execution_threads(options), out);
  } else {
    cpu::mems(a, b, min_length, p.cpu_algorithm, options.max_matches, p.threads, out);
  }
  out.stats = p.info;
  out.stats.bytes = a.size() + b.size();
  out.stats.seconds = seconds_since(t0);
  return out;
}

}  // namespace warpmatch
