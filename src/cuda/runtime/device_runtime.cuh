// CUDA runtime plumbing shared by the CUDA backend's .cu files: error checks that throw
// warpmatch::DeviceError naming the call and the device, and RAII owners for device memory,
// pinned host memory, streams and events. Included only by nvcc-compiled sources.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/timing.hpp"
#include "warpmatch/common.hpp"

namespace warpmatch::cuda::detail {

/// Throws DeviceError: "<call> failed on CUDA device <n> (<name>): <reason> [<code>]".
[[noreturn]] void throw_cuda_error(cudaError_t error, const char* call, int device);

inline void check(cudaError_t error, const char* call, int device) {
  if (error != cudaSuccess) throw_cuda_error(error, call, device);
}
/// After a kernel launch: launch-configuration errors surface through cudaGetLastError.
inline void check_launch(const char* kernel, int device) {
  const cudaError_t error = cudaGetLastError();
  if (error != cudaSuccess) throw_cuda_error(error, kernel, device);
}

#define WARPMATCH_CUDA_CHECK(device, call) ::warpmatch::cuda::detail::check((call), #call, (device))

// ---- the device-memory ledger ----------------------------------------------------------------
// Every device allocation of the library (DeviceBuffer, AsyncDeviceBuffer, lcs's arena) goes
// through allocate_counted / free_counted, which count the bytes held on each GPU, so that the
// cap (cuda::device_memory_limit(): Execution::device_memory_limit, else
// WARPMATCH_DEVICE_MEMORY_LIMIT) fails an allocation exactly as the GPU running out does.

/// Bytes warpmatch holds on `device` now.
std::uint64_t device_memory_held(int device);
/// Device memory a scan may still take on `device`: the GPU's free memory, no more than the
/// cap leaves (0 when it is reached).
std::uint64_t device_memory_available(int device);
/// Counts `bytes` to `device`; throws DeviceOutOfMemory (as a failed "<call>(<bytes> bytes)")
/// when the cap would be exceeded.
void charge_device_memory(int device, std::size_t bytes, const char* call);
void refund_device_memory(int device, std::size_t bytes) noexcept;
/// An allocation "<call>(<bytes> bytes)" failed with `error` (its charge refunded): throws
/// DeviceOutOfMemory for cudaErrorMemoryAllocation, else as throw_cuda_error.
[[noreturn]] void throw_allocation_error(cudaError_t error, const char* call, int device, std::size_t bytes);

/// Charges `bytes`, then allocate(void**) -> cudaError_t; the charge is refunded and the
/// failure thrown when it fails.
template <class Allocate>
void* allocate_counted(int device, std::size_t bytes, const char* call, Allocate&& allocate) {
  charge_device_memory(device, bytes, call);
  void* p = nullptr;
  const cudaError_t e = allocate(&p);
  if (e != cudaSuccess) {
    refund_device_memory(device, bytes);
    throw_allocation_error(e, call, device, bytes);
  }
  return p;
}
/// After freeing what allocate_counted returned (`bytes` as charged).
inline void free_counted(int device, std::size_t bytes) noexcept { refund_device_memory(device, bytes); }

/// A streaming scan of `operation` runs in chunks of `chunk` bytes instead of `wanted`
/// because the device memory left (the GPU's free memory or the cap's remainder) is short:
/// kept, the first time in the process, for cuda::device_memory_note().
void note_smaller_chunks(int device, const char* operation, std::uint64_t chunk, std::uint64_t wanted);

/// After a streaming scan's setup ran out of device memory: halves `chunk` (down to
/// RuntimePolicy::min_chunk_bytes, noted as above) and returns true, or false when it is
/// already there.
bool halve_chunk(std::uint64_t& chunk, int device, const char* operation);

/// The fault-injection hook (cuda/runtime/tuning.hpp, WARPMATCH_FAULT_INJECT): a streaming
/// scan calls it before it hands each chunk's results on; it throws DeviceError for the one
/// chunk the hook names. Costs an atomic increment only while the hook is set.
void chunk_fault_point(int device);

/// Throws BackendUnavailable when no GPU is visible, InvalidArgument for a bad ordinal.
void require_device(int device);
/// The GPU's name for messages ("" when unknown); never throws.
std::string device_name(int device);

/// Makes `device` current for the calling thread and restores the previous one on exit.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device) : device_(device) {
    if (cudaGetDevice(&previous_) != cudaSuccess) previous_ = -1;
    WARPMATCH_CUDA_CHECK(device, cudaSetDevice(device));
  }
  ~DeviceGuard() {
    if (previous_ >= 0 && previous_ != device_) cudaSetDevice(previous_);
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int device_;
  int previous_ = -1;
};

/// Base of an object that owns state on one device (a compiled matcher's tables and its
/// scratch pool): the owner's destructor calls free_on_device() first, so that its members are
/// freed with their device current; this base, destroyed after them, restores the caller's
/// device. Never throws.
class DeviceOwner {
 public:
  explicit DeviceOwner(int device) : owner_device_(device) {}
  ~DeviceOwner() {
    if (previous_ >= 0 && previous_ != owner_device_) cudaSetDevice(previous_);
  }
  DeviceOwner(const DeviceOwner&) = delete;
  DeviceOwner& operator=(const DeviceOwner&) = delete;

 protected:
  void free_on_device() noexcept {
    if (cudaGetDevice(&previous_) != cudaSuccess) previous_ = -1;
    if (previous_ != owner_device_) cudaSetDevice(owner_device_);
  }

 private:
  int owner_device_;
  int previous_ = -1;
};

/// Device memory for `count` elements of T (uninitialised unless zero_on_growth() asks).
/// reserve() only ever grows.
template <class T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(int device) : device_(device) {}
  DeviceBuffer(int device, std::size_t count) : device_(device) { reserve(count); }
  ~DeviceBuffer() { release(); }
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : device_(o.device_), ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)),
        bytes_(std::exchange(o.bytes_, 0)), zero_stream_(o.zero_stream_), zero_count_(o.zero_count_) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      release();
      device_ = o.device_;
      ptr_ = std::exchange(o.ptr_, nullptr);
      count_ = std::exchange(o.count_, 0);
      bytes_ = std::exchange(o.bytes_, 0);
      zero_stream_ = o.zero_stream_;
      zero_count_ = o.zero_count_;
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  /// From now on every allocation zeroes its first `count` elements (all of them by
  /// default) on `stream`: for kernels that load whole vectors past what was written and
  /// copies that fetch a prefix before its length is known, so that none reads memory
  /// nothing wrote (compute-sanitizer initcheck). Stale bytes of an earlier, longer use
  /// stay: those loads are masked, only their definedness matters.
  void zero_on_growth(cudaStream_t stream, std::size_t count = SIZE_MAX) {
    zero_stream_ = stream;
    zero_count_ = count;
  }

  /// Ensures room for at least `count` elements; old contents are not kept. Returns whether
  /// it allocated.
  bool reserve(std::size_t count) {
    if (count <= count_ && ptr_) return false;
    release();
    const std::size_t bytes = std::max<std::size_t>(1, count) * sizeof(T);
    ptr_ = static_cast<T*>(allocate_counted(device_, bytes, "cudaMalloc", [&](void** p) { return cudaMalloc(p, bytes); }));
    count_ = count;
    bytes_ = bytes;
    if (zero_count_)
      WARPMATCH_CUDA_CHECK(device_, cudaMemsetAsync(ptr_, 0, std::min(count_, zero_count_) * sizeof(T), zero_stream_));
    return true;
  }
  T* get() const { return ptr_; }
  std::size_t size() const { return count_; }

 private:
  void release() noexcept {
    if (ptr_) {
      cudaFree(ptr_);
      free_counted(device_, bytes_);
    }
    ptr_ = nullptr;
    count_ = 0;
    bytes_ = 0;
  }
  int device_;
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
  std::size_t bytes_ = 0;
  cudaStream_t zero_stream_ = nullptr;
  std::size_t zero_count_ = 0;  // elements zeroed per allocation; 0 = none
};

/// Page-locked host memory (cudaMallocHost): the DMA engines read it at full PCIe speed.
template <class T>
class PinnedBuffer {
 public:
  explicit PinnedBuffer(int device) : device_(device) {}
  ~PinnedBuffer() { release(); }
  PinnedBuffer(PinnedBuffer&& o) noexcept
      : device_(o.device_), ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  PinnedBuffer& operator=(PinnedBuffer&&) = delete;
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

  void reserve(std::size_t count) {
    if (count <= count_ && ptr_) return;
    release();
    void* p = nullptr;
    const std::size_t bytes = std::max<std::size_t>(1, count) * sizeof(T);
    const cudaError_t e = cudaMallocHost(&p, bytes);
    if (e != cudaSuccess) {
      cudaGetLastError();
      throw_cuda_error(e, ("cudaMallocHost(" + std::to_string(bytes) + " bytes)").c_str(),
                       device_);
    }
    ptr_ = static_cast<T*>(p);
    count_ = count;
  }
  T* get() const { return ptr_; }
  std::size_t size() const { return count_; }

 private:
  void release() noexcept {
    if (ptr_) cudaFreeHost(ptr_);
    ptr_ = nullptr;
    count_ = 0;
  }
  int device_;
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

/// Page-locked staging for feeding host text to a GPU, from a process-wide cache: pinning
/// costs about as much per byte as copying (two 64 MiB buffers take tens of milliseconds), so
/// a scan after the first (a stream's next window, a FASTA record, the next call) takes the
/// buffers of the one before. Released buffers stay cached (at most kCachedBytes in all; the
/// least recently released are freed first).
class StagingBuffer {
 public:
  explicit StagingBuffer(int device) : device_(device) {}
  ~StagingBuffer() { release(); }
  StagingBuffer(StagingBuffer&& o) noexcept
      : device_(o.device_), ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  StagingBuffer& operator=(StagingBuffer&&) = delete;
  StagingBuffer(const StagingBuffer&) = delete;
  StagingBuffer& operator=(const StagingBuffer&) = delete;

  /// At least `bytes` (a cached buffer when one is large enough; contents undefined).
  void reserve(std::size_t bytes);
  std::uint8_t* get() const { return ptr_; }
  std::size_t size() const { return bytes_; }

  static constexpr std::size_t kCachedBytes = std::size_t{512} << 20;

 private:
  void release() noexcept;
  int device_;
  std::uint8_t* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

/// Device memory allocated and freed in stream order from the device's memory pool
/// (cudaMallocAsync / cudaFreeAsync). The pool keeps freed memory for the next call (its
/// release threshold is raised once per device), so per-call buffers cost neither cudaMalloc
/// nor cudaFree's device-wide synchronisation.
class AsyncDeviceBuffer {
 public:
  AsyncDeviceBuffer(int device, cudaStream_t stream, std::size_t bytes);
  ~AsyncDeviceBuffer() {
    if (ptr_) {
      cudaFreeAsync(ptr_, stream_);
      free_counted(device_, bytes_);
    }
  }
  AsyncDeviceBuffer(const AsyncDeviceBuffer&) = delete;
  AsyncDeviceBuffer& operator=(const AsyncDeviceBuffer&) = delete;
  std::uint8_t* get() const { return ptr_; }

 private:
  int device_;
  cudaStream_t stream_;
  std::size_t bytes_;
  std::uint8_t* ptr_ = nullptr;
};

/// A non-blocking stream (no implicit ordering with the legacy default stream).
class Stream {
 public:
  explicit Stream(int device) : device_(device) {
    WARPMATCH_CUDA_CHECK(device, cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  }
  ~Stream() {
    if (stream_) {
      cudaStreamSynchronize(stream_);  // never free buffers under in-flight work
      cudaStreamDestroy(stream_);
    }
  }
  Stream(Stream&& o) noexcept : device_(o.device_), stream_(std::exchange(o.stream_, nullptr)) {}
  Stream& operator=(Stream&&) = delete;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  cudaStream_t get() const { return stream_; }
  void synchronize() const {
    WARPMATCH_CUDA_CHECK(device_, cudaStreamSynchronize(stream_));
  }

 private:
  int device_;
  cudaStream_t stream_ = nullptr;
};

class Event {
 public:
  Event(int device, bool timing) : device_(device) {
    WARPMATCH_CUDA_CHECK(device, cudaEventCreateWithFlags(
                                     &event_, timing ? cudaEventDefault : cudaEventDisableTiming));
  }
  ~Event() {
    if (event_) cudaEventDestroy(event_);
  }
  Event(Event&& o) noexcept : device_(o.device_), event_(std::exchange(o.event_, nullptr)) {}
  Event& operator=(Event&&) = delete;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  cudaEvent_t get() const { return event_; }
  void record(cudaStream_t stream) const {
    WARPMATCH_CUDA_CHECK(device_, cudaEventRecord(event_, stream));
  }
  void synchronize() const { WARPMATCH_CUDA_CHECK(device_, cudaEventSynchronize(event_)); }
  /// Milliseconds from `start` to this event (both recorded with timing enabled).
  float ms_since(const Event& start) const {
    float ms = 0;
    WARPMATCH_CUDA_CHECK(device_, cudaEventElapsedTime(&ms, start.event_, event_));
    return ms;
  }

 private:
  int device_;
  cudaEvent_t event_ = nullptr;
};

/// Waits until the cudaMemcpy uploads made so far from pageable host memory have landed. Such a
/// copy may return before its DMA does, and our streams are non-blocking: they do not wait for
/// the legacy stream the copy ran on (a kernel once counted 60 % of a text still arriving).
inline void wait_for_uploads(int device) { WARPMATCH_CUDA_CHECK(device, cudaStreamSynchronize(cudaStreamLegacy)); }

// ---- host side of streaming and benchmarks ------------------------------------------

/// Copies with several threads (8 MiB pieces): one memcpy into pinned memory reaches only
/// ~10 GB/s, short of what PCIe takes.
void parallel_copy(std::uint8_t* dst, const std::uint8_t* src, std::size_t n);

/// dst[0, n) = src[0, n) on `stream`'s device, in `stream`'s order, for pageable host memory
/// (a mapped file's pages, a vector): lanes on the host pool copy 4 MiB pieces into small
/// pinned slots of their own and DMA each at once on their own streams, and `stream` waits for
/// them. Returns once every piece is in pinned memory (the DMAs may still run); the slots are
/// reused only after their DMA. One ring per device, made at its first use.
void upload_pageable(int device, std::uint8_t* dst, const std::uint8_t* src, std::size_t n, cudaStream_t stream);
/// Makes the device's upload ring now (its pinned slots: ~40 ms), not in the first upload.
void prepare_upload_ring(int device);

/// Whether `p` is page-locked (or managed) host memory, which the GPU copies from directly.
bool is_pinned(const void* p);
/// Whether cudaMemcpyAsync(cudaMemcpyDefault) reads `p` without a staging copy: page-locked
/// or managed host memory, or device memory (a DeviceSpan's text, copied device-to-device).
bool copies_directly(const void* p);
/// Whether `p` is device memory of some GPU (not host-readable; managed memory is not).
bool is_device_memory(const void* p);

/// Copies text to device memory on a stream, whatever memory it is in: pageable host text
/// (the API's and the CLI's) goes through the upload ring (upload_pageable), pinned host
/// memory, device memory (a DeviceSpan's) and a peer's directly. Every GPU approx path loads
/// its text through one of these.
class TextUpload {
 public:
  explicit TextUpload(int device) : device_(device) {}

  /// Makes the device's upload ring ahead of a pipeline (no pinning in it) when text like
  /// `like` needs it.
  void reserve(std::size_t, const std::uint8_t* like) {
    if (!copies_directly(like)) prepare_upload_ring(device_);
  }
  /// to[0, bytes) = from[0, bytes), in `stream`'s order; the host returns once the text is in
  /// pinned memory or on its way, before the DMA is done.
  void copy(std::uint8_t* to, const std::uint8_t* from, std::size_t bytes, cudaStream_t stream);

 private:
  int device_;
};

/// Median of timings (0 for none; the mean of the middle two for an even count).
using core::median;

/// Median wall-clock milliseconds of `repeats` (at least 1) calls of `run`, after one
/// warm-up call: how the host-fed timings measure a whole scan, transfers included.
template <class Run>
double median_wall_ms(int repeats, Run&& run) {
  run();
  return core::median_wall_ms(repeats, run);
}

/// Median milliseconds, CUDA events around each call on `stream`, of `repeats` (at least 1)
/// calls of `launch` (which enqueues work on `stream`), after one warm-up call (module load,
/// clocks): how the resident timings measure kernels alone.
template <class Launch>
double median_event_ms(int device, const Stream& stream, int repeats, Launch&& launch) {
  Event start(device, true), stop(device, true);
  launch();
  stream.synchronize();
  std::vector<double> ms;
  for (int r = 0; r < std::max(1, repeats); ++r) {
    start.record(stream.get());
    launch();
    stop.record(stream.get());
    stop.synchronize();
    ms.push_back(stop.ms_since(start));
  }
  return median(std::move(ms));
}

}  // namespace warpmatch::cuda::detail
