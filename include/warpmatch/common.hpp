// warpmatch — common vocabulary of the public API: bytes, backends, matches, sinks, errors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace warpmatch {

/// Text and patterns are byte spans: every byte value (NUL included) is a character.
using ByteSpan = std::span<const std::uint8_t>;

inline ByteSpan as_bytes(std::string_view s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

/// Where an operation runs. `automatic` picks CUDA when a GPU is present, else the CPU.
enum class Backend { automatic, cpu, cuda };

std::string_view backend_name(Backend b);
/// Parses "cpu", "cuda" or "auto"; throws InvalidArgument otherwise.
Backend parse_backend(std::string_view name);

/// One occurrence: [start, end) byte offsets into the scanned text (64-bit everywhere).
/// `pattern` is the index of the pattern that matched (0 for single-pattern search).
struct Match {
  std::uint32_t pattern = 0;
  char strand = '+';  // '-': the pattern's reverse complement matched (sequence search); in the
                      // padding after `pattern`, so a hit stays 24 bytes (initialise by name)
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  friend bool operator==(const Match&, const Match&) = default;
};

/// Receives matches in ascending order of (start, pattern); returns false to stop the scan.
using MatchSink = std::function<bool(const Match&)>;

/// Base of every error warpmatch throws; what() names the input and the limit involved.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
/// A caller-supplied value is out of range (empty pattern, unknown algorithm, bad backend).
class InvalidArgument : public Error {
 public:
  using Error::Error;
};
/// The CUDA backend was asked for but no usable GPU (or no CUDA build) is present.
class BackendUnavailable : public Error {
 public:
  using Error::Error;
};
/// A CUDA runtime failure, out-of-memory included.
class DeviceError : public Error {
 public:
  using Error::Error;
};

/// What this build and machine offer (used by `warpmatch info` and `auto`).
struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int compute_major = 0, compute_minor = 0;
  int multiprocessors = 0;
  std::uint64_t global_memory_bytes = 0;
  std::uint64_t l2_bytes = 0;
  int clock_mhz = 0;
};
struct BuildInfo {
  std::string version;
  bool cuda_compiled = false;      // built with nvcc
  std::string cuda_architectures;  // e.g. "90"
  std::string cuda_runtime_version;
};
BuildInfo build_info();
/// GPUs the CUDA runtime sees; empty without a CUDA build or without a GPU (never throws).
std::vector<DeviceInfo> cuda_devices();
/// Resolves `automatic` to cpu/cuda; throws BackendUnavailable for `cuda` without a GPU.
Backend resolve_backend(Backend requested);
/// Hardware threads of this host (at least 1).
int hardware_threads();

}  // namespace warpmatch
