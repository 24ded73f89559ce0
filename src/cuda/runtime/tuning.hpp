// Tuning of the CUDA runtime layer (host side, plain C++): the device-memory cap and the
// fault-injection test hook, the only environment settings this layer reads. Parsed by
// functions of their own so that a CPU-only test checks them.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "core/size_text.hpp"
#include "warpmatch/common.hpp"

namespace warpmatch::cuda {

struct RuntimePolicy {
  // Streaming scans size their chunks to the device memory left (the GPU's free memory or
  // the cap's remainder), never below this: smaller chunks cost a launch and a copy each
  // for little text (a 1 MiB chunk is ~20 us of PCIe at 55 GB/s against ~10 us of launches).
  static constexpr std::uint64_t min_chunk_bytes = std::uint64_t{1} << 20;
};

/// A byte count from the environment variable `name` (the pipelines' chunk overrides): 0 when
/// unset, empty or not a plain number.
inline std::uint64_t bytes_from_env(const char* name) {
  const char* s = std::getenv(name);
  if (!s || !*s) return 0;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(s, &end, 10);
  return (end && *end == '\0') ? v : 0;
}

/// A WARPMATCH_DEVICE_MEMORY_LIMIT value: bytes with an optional K/M/G suffix; 0 for unset or
/// empty. InvalidArgument naming the variable for anything else, 0 included (no GPU works
/// with no memory; unset the variable to lift the cap).
inline std::uint64_t parse_device_memory_limit(const char* text) {
  if (!text || !*text) return 0;
  std::uint64_t bytes = 0;
  try {
    bytes = core::parse_size(text);
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(std::string("WARPMATCH_DEVICE_MEMORY_LIMIT: ") + e.what());
  }
  if (bytes == 0) throw InvalidArgument("WARPMATCH_DEVICE_MEMORY_LIMIT: must be at least 1 byte (got '" + std::string(text) + "')");
  return bytes;
}

/// The cap of WARPMATCH_DEVICE_MEMORY_LIMIT (read once; 0 = none). A bad value throws at
/// every device allocation, so that no GPU work runs under a cap the user did not mean.
inline std::uint64_t environment_device_memory_limit() {
  static const std::uint64_t limit = parse_device_memory_limit(std::getenv("WARPMATCH_DEVICE_MEMORY_LIMIT"));
  return limit;
}

/// Testing hook WARPMATCH_FAULT_INJECT=scan-error-after-chunks:N: the streaming scans
/// (exact, multi-pattern and approximate search on CUDA) finish N chunks in this process,
/// then the next chunk fails once with a DeviceError, as a GPU fault in the middle of a
/// stream would. nullopt when unset; InvalidArgument naming the variable for another value.
inline std::optional<std::uint64_t> parse_fault_inject(const char* text) {
  if (!text || !*text) return std::nullopt;
  constexpr std::string_view kind = "scan-error-after-chunks:";
  const std::string_view value(text);
  if (value.substr(0, kind.size()) == kind) {
    const std::string count(value.substr(kind.size()));
    char* end = nullptr;
    const unsigned long long n = std::strtoull(count.c_str(), &end, 10);
    if (!count.empty() && count[0] != '-' && end && *end == '\0') return n;
  }
  throw InvalidArgument("WARPMATCH_FAULT_INJECT: expected scan-error-after-chunks:N, got '" + std::string(value) + "'");
}

inline std::optional<std::uint64_t> fault_inject_after_chunks() {
  static const std::optional<std::uint64_t> after = parse_fault_inject(std::getenv("WARPMATCH_FAULT_INJECT"));
  return after;
}

/// The calling thread's device-memory cap from Execution::device_memory_limit: set by each
/// operation's front around its calls into the CUDA backend and carried to the worker
/// threads of a split (multi_device::run_per_device). A scope of 0 keeps the one around it.
class DeviceMemoryLimitScope {
 public:
  explicit DeviceMemoryLimitScope(std::uint64_t limit) : before_(current_) {
    if (limit) current_ = limit;
  }
  ~DeviceMemoryLimitScope() { current_ = before_; }
  DeviceMemoryLimitScope(const DeviceMemoryLimitScope&) = delete;
  DeviceMemoryLimitScope& operator=(const DeviceMemoryLimitScope&) = delete;
  static std::uint64_t current() { return current_; }

 private:
  static inline thread_local std::uint64_t current_ = 0;
  std::uint64_t before_;
};

/// The cap in force for the calling thread: its scope's, else the environment's; 0 = none.
inline std::uint64_t device_memory_limit() {
  const std::uint64_t scoped = DeviceMemoryLimitScope::current();
  return scoped ? scoped : environment_device_memory_limit();
}

}  // namespace warpmatch::cuda
