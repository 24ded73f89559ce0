// The CUDA runtime as the rest of the library sees it: whether CUDA is compiled in, its
// version and the GPUs it sees. A plain C++ header (no CUDA types); defined in
// src/cuda/runtime/device_runtime.cu when CUDA is on, in src/cuda/runtime/cuda_unavailable.cpp
// otherwise (compiled() is false, devices() is empty).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "warpmatch/common.hpp"

namespace warpmatch::cuda {

/// True when this build contains CUDA code (the GPU may still be absent).
bool compiled();
/// Version string of the CUDA runtime linked in ("" without CUDA).
std::string runtime_version();
/// GPUs visible to the runtime; never throws (empty on any failure).
std::vector<DeviceInfo> devices();
/// Whether this process has started CUDA (read its device list, which every GPU path does
/// first). The CLI then ends with _Exit after flushing its output, the driver's release of the
/// context left to a helper process (cli/process_end.hpp): ~0.1 s of a run's wall time.
bool runtime_started();
/// Makes `device`'s upload ring (the pinned slots that pageable host text is streamed through
/// to the GPU: ~12 ms on the H200) now rather than in the first scan: the CLI calls it on the
/// thread that starts CUDA while the CPU counts. Throws DeviceError; nothing without CUDA.
void prepare_host_upload(int device);
/// Every ordered pair of distinct GPUs and how they are linked (device_links.cu); never
/// throws (empty with fewer than two GPUs or without CUDA).
std::vector<DeviceLink> device_links();
/// The CPUs and NUMA node near each GPU, in ordinal order (device_links.cu): NVML's CPU
/// affinity of the GPU's node when NVML is there, else sysfs; never throws (empty without a
/// GPU; a GPU neither could tell about has no CPUs).
std::vector<DeviceHostAffinity> device_host_affinity();

/// The first time in this process that a streaming scan (exact, multi-pattern or approximate
/// search) ran in smaller chunks than its policy's because device memory was short, what it
/// did: "exact search on CUDA device 0: chunks of 1 MiB instead of 64 MiB, to fit the device
/// memory left (...)"; "" until then (and without CUDA). For the CLI's one note under --stats.
std::string device_memory_note();

/// Throws InvalidArgument unless all of `text` lies in device (or managed) memory of one of
/// the GPUs `devices`: what a scan of a DeviceSpan requires. Then waits for text.stream, so
/// the text is complete before a pipeline's own streams copy it. `what` names the caller.
void require_text_on_device(DeviceSpan text, const std::vector<int>& devices, std::string_view what);

/// One copy of device-resident text bytes to host memory (copy_to_host).
struct DeviceToHostCopy {
  std::uint8_t* host = nullptr;
  const std::uint8_t* device = nullptr;
  std::uint64_t bytes = 0;
};
/// Copies each piece (memory of any GPU, or managed), then waits for all: the few bytes the
/// host needs of a DeviceSpan's text (approximate search's start and CIGAR recovery).
/// Throws DeviceError.
void copy_to_host(const std::vector<DeviceToHostCopy>& pieces);

/// Throws BackendUnavailable saying how to get a CUDA build. Defined only in a build without
/// CUDA (cuda_unavailable.cpp), for code that has nothing CUDA to call there.
[[noreturn]] void throw_unavailable();

}  // namespace warpmatch::cuda
