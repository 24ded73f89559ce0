// Backend choice shared by every operation's compile(): under `auto`, an algorithm that
// exists on only one backend decides the backend; then resolve_backend() applies the rules
// (cuda without a GPU is an error, auto picks the GPU when present).
#pragma once

#include <algorithm>
#include <initializer_list>
#include <string_view>

#include "warpmatch/common.hpp"

namespace warpmatch::core {

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

}  // namespace warpmatch::core
