// Backend and algorithm choice shared by every operation's compile(): under `auto`, an
// algorithm that exists on only one backend decides the backend; then resolve_backend()
// applies the rules (cuda without a GPU is an error, auto picks the GPU when present); then
// the algorithm's name is looked up in that backend's table. The rest of an Execution
// (threads, device) is checked and labelled here too, the same for every operation.
#pragma once

#include <algorithm>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "cuda/runtime/devices.hpp"
#include "warpmatch/common.hpp"

namespace warpmatch::core {

/// The CPU threads an Execution asks for: 0 = all hardware threads; < 0 is an InvalidArgument.
inline int execution_threads(const Execution& execution) {
  if (execution.threads < 0) throw InvalidArgument("threads must be >= 0 (0 = all cores)");
  return execution.threads > 0 ? execution.threads : hardware_threads();
}

/// The CPU backend's device label (ScanStats::device, device_label()).
inline std::string cpu_device_label(int threads) { return "cpu (" + std::to_string(threads) + " threads)"; }

/// The name of the Execution's GPU, its device label; InvalidArgument when the CUDA runtime
/// lists no such device.
inline std::string cuda_device_label(const Execution& execution) {
  const auto devices = cuda::devices();
  if (execution.device < 0 || execution.device >= static_cast<int>(devices.size()))
    throw InvalidArgument("CUDA device " + std::to_string(execution.device) + " does not exist (" +
                          std::to_string(devices.size()) + " visible)");
  return devices[static_cast<std::size_t>(execution.device)].name;
}

/// "0,1,3": an Execution's device list as error messages show it.
inline std::string device_list_text(const std::vector<int>& devices) {
  std::string text;
  for (const int d : devices) {
    if (!text.empty()) text += ',';
    text += std::to_string(d);
  }
  return text;
}

/// Checks Execution::devices before the backend is resolved: every listed ordinal must be one
/// the runtime lists (on a machine without GPUs, any is missing), and the cpu backend takes
/// none (it runs on `threads`). A list does not change how `automatic` resolves.
inline void check_device_list(const Execution& execution) {
  if (execution.devices.empty()) return;
  const std::string list = device_list_text(execution.devices);
  if (execution.backend == Backend::cpu)
    throw InvalidArgument("a GPU list (devices " + list +
                          ") was given with the cpu backend, which runs on CPU threads instead");
  const std::size_t visible = cuda::devices().size();
  for (const int d : execution.devices)
    if (d < 0 || static_cast<std::size_t>(d) >= visible)
      throw InvalidArgument("CUDA device " + std::to_string(d) + " in the device list " + list +
                            " does not exist (" + std::to_string(visible) + " visible)");
}

/// The GPUs one call runs on, one worker each: Execution::devices, or `device` alone. A list
/// with a backend resolved to cpu (an algorithm only the CPU has) is an InvalidArgument.
inline std::vector<int> execution_devices(const Execution& execution, Backend resolved) {
  if (execution.devices.empty()) return {execution.device};
  if (resolved == Backend::cpu)
    throw InvalidArgument("a GPU list (devices " + device_list_text(execution.devices) +
                          ") was given but the algorithm runs on the cpu backend");
  return execution.devices;
}

/// The device label of a call on several GPUs: "NAME" for one worker, "NAME x N" when every
/// worker's GPU has that name, else the names joined by " + ".
inline std::string cuda_devices_label(const std::vector<int>& workers) {
  Execution one;
  std::string joined;
  bool same = true;
  std::string first;
  for (const int d : workers) {
    one.device = d;
    const std::string name = cuda_device_label(one);
    if (first.empty()) first = name;
    same = same && name == first;
    if (!joined.empty()) joined += " + ";
    joined += name;
  }
  if (workers.size() <= 1) return first;
  return same ? first + " x " + std::to_string(workers.size()) : joined;
}

/// A DeviceSpan's text as the span the CUDA pipelines copy from (cudaMemcpyDefault reads it
/// device-to-device, or peer-to-peer for the shares of a split over several GPUs);
/// InvalidArgument for a matcher on the cpu backend or memory that is none of the matcher's
/// GPUs'. `what` names the scan in messages.
inline ByteSpan device_resident_text(DeviceSpan text, const Execution& execution, Backend backend,
                                     std::string_view what) {
  if (backend != Backend::cuda)
    throw InvalidArgument(std::string(what) + ": text in GPU memory needs a matcher on the cuda backend "
                          "(this one runs on the cpu); copy the text to host memory or compile with backend cuda");
  cuda::require_text_on_device(text, execution_devices(execution, backend), what);
  return {text.data, static_cast<std::size_t>(text.size)};
}

inline Backend backend_for_algorithm(Backend requested, std::string_view algorithm,
                                     std::initializer_list<std::string_view> cpu_only,
                                     std::initializer_list<std::string_view> cuda_only) {
  auto named = [&](std::initializer_list<std::string_view> names) {
    return std::find(names.begin(), names.end(), algorithm) != names.end();
  };
  if (requested == Backend::automatic && named(cpu_only)) requested = Backend::cpu;
  if (requested == Backend::automatic && named(cuda_only)) requested = Backend::cuda;
  return resolve_backend(requested);
}

/// One entry of a backend's algorithm table: the name users give and what it selects.
template <class Algorithm>
struct NamedAlgorithm {
  std::string_view name;
  Algorithm value;
};

/// The entry of `table` named `requested` ("auto": the first entry, the backend's default);
/// `resolved` gets its name. An unknown name throws InvalidArgument naming the operation and
/// the backend, listing the table, and adding `elsewhere` (e.g. "'dp' runs on the cpu backend").
template <class Algorithm>
Algorithm pick_algorithm(std::string_view requested, std::string_view operation, Backend backend,
                         std::initializer_list<NamedAlgorithm<Algorithm>> table, std::string_view elsewhere,
                         std::string& resolved) {
  for (const NamedAlgorithm<Algorithm>& entry : table)
    if (entry.name == requested || (requested == "auto" && &entry == table.begin())) {
      resolved = entry.name;
      return entry.value;
    }
  std::string expected = "auto";
  for (std::size_t i = 0; i < table.size(); ++i)
    expected += std::string(i + 1 == table.size() ? " or " : ", ") + std::string(table.begin()[i].name);
  throw InvalidArgument("unknown algorithm '" + std::string(requested) + "' for " + std::string(operation) +
                        " on the " + std::string(backend_name(backend)) + " backend (expected " + expected +
                        (elsewhere.empty() ? "" : "; " + std::string(elsewhere)) + ")");
}

}  // namespace warpmatch::core
