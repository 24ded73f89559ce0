// warpmatch — common vocabulary of the public API: bytes, backends, execution, reports,
// matches, sinks, statistics, errors.
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

/// Text in the memory of a CUDA device (cudaMalloc, CuPy, PyTorch or Numba arrays), for the
/// scans that take it (ExactMatcher and MultiMatcher: count_device_text, scan_device_text;
/// MultiMatcher::count_per_pattern_device_text; ApproxMatcher::scan_device_text): the CUDA
/// backend reads it there, chunk by chunk device-to-device into its padded buffers, never
/// through the host (a split over Execution::devices copies the other GPUs' shares
/// peer-to-peer); approximate search copies to the host only the few bytes before each hit
/// that its start and CIGAR recovery read. The memory must be device
/// or managed memory of one of the matcher's GPUs; a matcher on the cpu backend, host memory
/// or another GPU's memory is an InvalidArgument. Results are those of the same bytes on the host.
struct DeviceSpan {
  const std::uint8_t* data = nullptr;
  std::uint64_t size = 0;
  /// The cudaStream_t (as an integer) whose queued work produces the text; the scan waits
  /// for it before reading. 0 or 1: the legacy default stream (CuPy's and DLPack's default),
  /// 2: the per-thread default stream (the __cuda_array_interface__ convention).
  std::uintptr_t stream = 0;
};

/// Where an operation runs. `automatic` picks CUDA when a GPU is present, else the CPU.
enum class Backend { automatic, cpu, cuda };

std::string_view backend_name(Backend b);
/// Parses "cpu", "cuda" or "auto"; throws InvalidArgument otherwise.
Backend parse_backend(std::string_view name);

/// Where and how wide an operation runs. Every operation's options derive from it
/// (ExactOptions, MultiOptions, ApproxOptions, DistanceOptions, LcsOptions), so `opt.backend`,
/// `opt.threads` and `opt.device` read the same everywhere and one Execution can set them all.
struct Execution {
  Backend backend = Backend::automatic;
  int threads = 0;  // CPU threads; 0 = all hardware threads; < 0 is an InvalidArgument
  int device = 0;   // CUDA device ordinal; one the runtime does not list is an InvalidArgument
  /// Several GPUs for one call (find, multi-pattern and approximate search, distance batches
  /// and matrices): empty = `device` alone. The work is split over the listed GPUs (text
  /// ranges with the operation's overlap, or pair and row batches), one host thread each,
  /// and the results merged in the one-GPU order, so they are identical to one GPU's. Work
  /// too small to gain from a split runs on the first listed GPU. An ordinal may repeat
  /// (several workers on one GPU). Every ordinal must be one the runtime lists, else
  /// InvalidArgument naming it; a list with the cpu backend is an InvalidArgument (the CPU
  /// takes `threads`). Operations without a split (lcs, one pair's distance, approximate
  /// search in best mode) run on the first listed GPU.
  std::vector<int> devices;
  /// The most device memory, in bytes, warpmatch may hold on each GPU while this call (a
  /// compile or a scan) allocates: everything the library holds there counts (compiled
  /// tables, scan buffers, those kept by other matchers for their next scan). 0 = the
  /// environment's WARPMATCH_DEVICE_MEMORY_LIMIT ("512M", "2G"; bytes with a K/M/G suffix)
  /// when set, else only the GPU's own memory. An allocation past it throws DeviceOutOfMemory,
  /// as the GPU running out does; streaming scans (exact, multi-pattern and approximate
  /// search) first size their chunks to what is left (down to 1 MiB). The cpu backend
  /// ignores it.
  std::uint64_t device_memory_limit = 0;
};

/// How much an operation reports (edlib's task): each level adds to the one before, and
/// asking for less is faster.
enum class Report {
  ends,    // end positions and distances (approximate search); the distance (edit distance)
  starts,  // also each hit's start (approximate search: O(m * d) per hit delivered); edit
           // distance: as `ends` (a global alignment always spans both strings)
  cigar,   // also the alignment as an extended CIGAR
};

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
/// Receives the same matches a batch at a time (a call per batch, not per match: what a
/// caller collecting millions of matches wants); returns false to stop the scan after it.
using MatchBatchSink = std::function<bool(std::span<const Match>)>;

/// What one call did (labels and timing for a statistics display): every scan and computation
/// fills it, through a pointer argument (matchers, edit distance) or in its result (longest
/// common substring, MEMs).
/// Fields an operation does not produce keep their default (0 or empty).
struct ScanStats {
  Backend backend = Backend::cpu;  // resolved: cpu or cuda (the one that ran)
  std::string algorithm;           // resolved algorithm name
  std::string device;              // "cpu (N threads)" or the GPU's name
  std::uint64_t bytes = 0;         // text bytes scanned; distance and lcs: |A| + |B| (over all pairs)
  std::uint64_t matches = 0;       // exact, multi and approximate search: matches delivered
  double seconds = 0;              // wall time of the call
  // Operation-specific extras.
  std::uint64_t pairs = 0;         // edit distance: pairs computed
  std::uint64_t cells = 0;         // edit distance: |A| x |B| summed over the pairs (the DP
                                   // table, banded or not)
  int tile_size = 0;               // edit distance "tiles": the tile side used (the paper's
                                   // block size); 0 otherwise
  std::string note;                // lcs and MEMs: how the run departed from the request (e.g.
                                   // a GPU request computed on the CPU, and why); "" normally
};

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
/// A CUDA runtime failure.
class DeviceError : public Error {
 public:
  using Error::Error;
};
/// Device memory ran out: the GPU's (cudaErrorMemoryAllocation) or the cap of
/// Execution::device_memory_limit / WARPMATCH_DEVICE_MEMORY_LIMIT. Nothing is left half
/// done on the device; matches delivered before it stand.
class DeviceOutOfMemory : public DeviceError {
 public:
  /// `requested`: the allocation that failed; `held`: bytes warpmatch held on the device
  /// then; `limit`: the cap, or for the GPU's own failure what it had (held + free); 0 = unknown.
  DeviceOutOfMemory(const std::string& what, std::uint64_t requested, std::uint64_t held, std::uint64_t limit)
      : DeviceError(what), requested_(requested), held_(held), limit_(limit) {}
  std::uint64_t requested_bytes() const { return requested_; }
  std::uint64_t held_bytes() const { return held_; }
  /// Bytes the call would have needed at that point: held + requested.
  std::uint64_t needed_bytes() const { return held_ + requested_; }
  std::uint64_t limit_bytes() const { return limit_; }

 private:
  std::uint64_t requested_, held_, limit_;
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
/// How two GPUs of this machine are linked (`warpmatch info`).
struct DeviceLink {
  int from = 0, to = 0;           // ordinals
  bool peer_access = false;       // cudaDeviceCanAccessPeer: from can map to's memory
  int performance_rank = -1;      // cudaDevP2PAttrPerformanceRank (lower = faster; -1 unknown)
  std::string transport;          // "nvlink" (NVML: peer traffic over NVLink, directly or
                                  // through NVSwitch), "pcie" (NVML: no NVLink between the two),
                                  // "" when NVML is not available
};
/// Every ordered pair of distinct GPUs; empty with fewer than two (never throws). NVML is
/// loaded at run time (libnvidia-ml.so.1) when present, never linked.
std::vector<DeviceLink> cuda_device_links();
/// The host CPUs nearest a GPU (`warpmatch info`): where the host threads that drive it run
/// when one call uses several GPUs (Execution::devices).
struct DeviceHostAffinity {
  int ordinal = 0;
  std::vector<int> cpus;  // sorted; empty = unknown
  int numa_node = -1;     // -1 = unknown, or a machine without NUMA nodes
  std::string source;     // where cpus came from: "nvml" (the GPU's NUMA node's CPUs),
                          // "sysfs" (its PCI device's local_cpulist) or "" (neither said)
};
/// One per visible GPU, in ordinal order; empty without CUDA or a GPU (never throws). NVML
/// is loaded at run time when present; sysfs is read when NVML cannot say.
std::vector<DeviceHostAffinity> cuda_device_host_affinity();
/// Resolves `automatic` to cpu/cuda; throws BackendUnavailable for `cuda` without a GPU.
Backend resolve_backend(Backend requested);
/// Hardware threads of this host (at least 1).
int hardware_threads();

}  // namespace warpmatch
