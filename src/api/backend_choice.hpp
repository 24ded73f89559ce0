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
