// The command line's environment overrides: the only place of cli/ that reads the environment
// (issue 11; the library's are in src/cuda/<op>/tuning.hpp and src/core/cost_model_tuning.cpp).
#pragma once

#include <cstdlib>

namespace warpmatch::cli {

/// WARPMATCH_MEMORY_BYTES (a size such as 512M): the memory the process may use, in place of
/// /proc/meminfo's MemAvailable (see available_memory_bytes()); nullptr when unset or empty.
inline const char* memory_bytes_override() {
  const char* env = std::getenv("WARPMATCH_MEMORY_BYTES");
  return env && *env ? env : nullptr;
}

}  // namespace warpmatch::cli
