// CUDA runtime plumbing: error messages, device discovery, build information.
#include <sys/mman.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cuda/runtime/device_runtime.cuh"

#include "core/host_copy.hpp"
#include "core/parallel.hpp"
#include "cuda/runtime/devices.hpp"
#include "cuda/runtime/tuning.hpp"

namespace warpmatch::cuda {

namespace {

std::atomic<bool> started{false};  // runtime_started(): device_list() has run

// The runtime reads CUDA_VISIBLE_DEVICES once, so the device list cannot change while the
// process runs; cudaGetDeviceProperties is slow enough to be worth querying only once.
const std::vector<DeviceInfo>& device_list() {
  static std::once_flag once;
  static std::vector<DeviceInfo> list;
  std::call_once(once, [] {
    started = true;
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
      cudaGetLastError();  // no driver / no GPU: not an error for discovery
      return;
    }
    for (int d = 0; d < count; ++d) {
      cudaDeviceProp prop{};
      if (cudaGetDeviceProperties(&prop, d) != cudaSuccess) {
        cudaGetLastError();
        continue;
      }
      DeviceInfo info;
      info.ordinal = d;
      info.name = prop.name;
      info.compute_major = prop.major;
      info.compute_minor = prop.minor;
      info.multiprocessors = prop.multiProcessorCount;
      info.global_memory_bytes = prop.totalGlobalMem;
      info.l2_bytes = static_cast<std::uint64_t>(prop.l2CacheSize);
      int khz = 0;
      if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, d) == cudaSuccess)
        info.clock_mhz = khz / 1000;
      else
        cudaGetLastError();
      list.push_back(std::move(info));
    }
  });
  return list;
}

}  // namespace

bool compiled() { return true; }
bool runtime_started() { return started; }

std::string runtime_version() {
  int v = 0;
  if (cudaRuntimeGetVersion(&v) != cudaSuccess) return "";
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

std::vector<DeviceInfo> devices() {
  try {
    return device_list();
  } catch (...) {
    return {};
  }
}

namespace detail {

std::string device_name(int device) {
  for (const auto& d : device_list())
    if (d.ordinal == device) return d.name;
  return "";
}

namespace {

/// "<call> failed on CUDA device <n> (<name>): <reason> [<detail>]".
std::string failure_text(const std::string& call, int device, const std::string& reason, const std::string& detail) {
  std::string msg = call + " failed on CUDA device " + std::to_string(device);
  const std::string name = device_name(device);
  if (!name.empty()) msg += " (" + name + ")";
  return msg + ": " + reason + " [" + detail + "]";
}

std::string sized_call(const char* call, std::size_t bytes) {
  return std::string(call) + "(" + std::to_string(bytes) + " bytes)";
}

struct MemoryLedger {
  std::mutex mutex;
  std::map<int, std::uint64_t> held;  // bytes per device ordinal
};
MemoryLedger& memory_ledger() {
  static MemoryLedger* ledger = new MemoryLedger;  // never destroyed: buffers outlive statics
  return *ledger;
}

/// Free bytes of `device` (cudaMemGetInfo on it; 0 when the query fails).
std::uint64_t device_free_bytes(int device) {
  int previous = -1;
  if (cudaGetDevice(&previous) != cudaSuccess) previous = -1;
  if (previous != device) cudaSetDevice(device);
  std::size_t free_bytes = 0, total = 0;
  if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess) {
    cudaGetLastError();
    free_bytes = 0;
  }
  if (previous >= 0 && previous != device) cudaSetDevice(previous);
  return free_bytes;
}

}  // namespace

void throw_cuda_error(cudaError_t error, const char* call, int device) {
  // A failed call also leaves its error as the thread's last error: clear it, or the next
  // launch check (cudaGetLastError) would report this failure again under another name.
  cudaGetLastError();
  const std::string msg = failure_text(call, device, cudaGetErrorString(error), cudaGetErrorName(error));
  if (error == cudaErrorMemoryAllocation) throw DeviceOutOfMemory(msg, 0, device_memory_held(device), 0);
  throw DeviceError(msg);
}

std::uint64_t device_memory_held(int device) {
  MemoryLedger& ledger = memory_ledger();
  std::lock_guard lock(ledger.mutex);
  const auto it = ledger.held.find(device);
  return it == ledger.held.end() ? 0 : it->second;
}

std::uint64_t device_memory_available(int device) {
  const std::uint64_t free_bytes = device_free_bytes(device);
  const std::uint64_t limit = cuda::device_memory_limit();
  if (limit == 0) return free_bytes;
  const std::uint64_t held = device_memory_held(device);
  return std::min(free_bytes, limit > held ? limit - held : 0);
}

void charge_device_memory(int device, std::size_t bytes, const char* call) {
  const std::uint64_t limit = cuda::device_memory_limit();
  MemoryLedger& ledger = memory_ledger();
  std::unique_lock lock(ledger.mutex);
  std::uint64_t& held = ledger.held[device];
  if (limit != 0 && (bytes > limit || held > limit - bytes)) {
    const std::uint64_t held_now = held;
    lock.unlock();
    throw DeviceOutOfMemory(failure_text(sized_call(call, bytes), device, cudaGetErrorString(cudaErrorMemoryAllocation),
                                         "the device memory limit of " + std::to_string(limit) + " bytes, " +
                                             std::to_string(held_now) + " held"),
                            bytes, held_now, limit);
  }
  held += bytes;
}

void refund_device_memory(int device, std::size_t bytes) noexcept {
  MemoryLedger& ledger = memory_ledger();
  std::lock_guard lock(ledger.mutex);
  std::uint64_t& held = ledger.held[device];
  held -= std::min<std::uint64_t>(held, bytes);
}

void throw_allocation_error(cudaError_t error, const char* call, int device, std::size_t bytes) {
  cudaGetLastError();  // out of memory is not sticky; clear it for later calls
  const std::string msg = failure_text(sized_call(call, bytes), device, cudaGetErrorString(error), cudaGetErrorName(error));
  if (error != cudaErrorMemoryAllocation) throw DeviceError(msg);
  // What the GPU had for warpmatch: what it held plus what was still free.
  const std::uint64_t held = device_memory_held(device);
  throw DeviceOutOfMemory(msg, bytes, held, held + device_free_bytes(device));
}

namespace {
struct MemoryNote {
  std::mutex mutex;
  std::string text;
};
MemoryNote& memory_note() {
  static MemoryNote* note = new MemoryNote;
  return *note;
}
std::string mib_text(std::uint64_t bytes) {
  constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
  return bytes >= kMiB ? std::to_string((bytes + kMiB - 1) / kMiB) + " MiB" : std::to_string(bytes) + " bytes";
}
}  // namespace

void note_smaller_chunks(int device, const char* operation, std::uint64_t chunk, std::uint64_t wanted) {
  MemoryNote& note = memory_note();
  std::lock_guard lock(note.mutex);
  if (!note.text.empty()) return;
  const std::uint64_t limit = cuda::device_memory_limit();
  note.text = std::string(operation) + " on CUDA device " + std::to_string(device) + ": chunks of " +
              mib_text(chunk) + " instead of " + mib_text(wanted) + ", to fit the device memory left (" +
              (limit ? "a limit of " + mib_text(limit) + ", " + mib_text(device_memory_held(device)) + " held"
                     : mib_text(device_free_bytes(device)) + " free on the GPU") +
              ")";
}

bool halve_chunk(std::uint64_t& chunk, int device, const char* operation) {
  if (chunk <= RuntimePolicy::min_chunk_bytes) return false;
  const std::uint64_t before = chunk;
  chunk = std::max(chunk / 2, RuntimePolicy::min_chunk_bytes);
  note_smaller_chunks(device, operation, chunk, before);
  return true;
}

void chunk_fault_point(int device) {
  const std::optional<std::uint64_t> after = cuda::fault_inject_after_chunks();
  if (!after) return;
  static std::atomic<std::uint64_t> chunks{0};
  if (chunks.fetch_add(1, std::memory_order_relaxed) == *after)
    throw DeviceError(failure_text("scan chunk " + std::to_string(*after + 1), device,
                                   "fault injected by WARPMATCH_FAULT_INJECT (a testing hook)",
                                   "scan-error-after-chunks:" + std::to_string(*after)));
}

void parallel_copy(std::uint8_t* dst, const std::uint8_t* src, std::size_t n) {
  // Page-cache text (a mapped file) is faulted in as it is copied: 8 MiB pieces on 8 threads
  // gave 4 copying threads for a 32 MiB chunk and 11 GB/s host-fed `find -c` over 8 GiB on the
  // H200 (issue 12); 2 MiB pieces on a persistent pool of up to 16 threads let every core
  // fault and copy, with no thread started per chunk.
  core::parallel_stream_copy(dst, src, n);
}

namespace {

// The upload ring (upload_pageable): per lane, kRingSlots pinned slots of kRingSlot bytes and
// a stream. Small slots stay in the last-level cache between the copy into them and the DMA out
// of them, so a byte crosses DRAM once on its way to the GPU, not three times (read, staging
// write, DMA read). bench/probes/ring_feed_probe.cu, H200 host, 8 GiB page-cache file: 8-16
// lanes of 2 x 4 MiB with memcpy 52.6-53.5 GB/s (the DMA alone: 53.7); all cores copying each
// 64 MiB chunk into 2 large buffers with non-temporal stores, as before: 31-37 GB/s. The CLI's
// `find -c --backend cuda` over 8 GiB: 31.6-35.2 GB/s scanning -> 48.9-50.5 GB/s.
constexpr std::size_t kRingSlot = std::size_t{4} << 20;
constexpr int kRingSlots = 2;
constexpr std::size_t kRingLanes = 8;

// The ring's memory: transparent huge pages, mapped on all cores, then page-locked. On the
// H200 host (bench/probes/ring_feed_probe.cu) cudaHostAlloc of 64 MiB took 23-31 ms, most of
// it mapping and zeroing 4 KiB pages on one thread; huge pages mapped 10-14 ms on one thread and
// registered in 1.3-1.7 ms. cudaHostAlloc where registering is refused.
std::uint8_t* pin_ring_memory(int device) {
  constexpr std::size_t kHuge = std::size_t{2} << 20;
  const std::size_t bytes = kRingLanes * kRingSlots * kRingSlot;
  if (void* q = std::aligned_alloc(kHuge, bytes)) {
#ifdef MADV_HUGEPAGE
    ::madvise(q, bytes, MADV_HUGEPAGE);  // a hint: refused, the pages are 4 KiB ones
#endif
    core::prefault_for_write(q, bytes);
    if (cudaHostRegister(q, bytes, cudaHostRegisterPortable) == cudaSuccess) return static_cast<std::uint8_t*>(q);
    cudaGetLastError();
    std::free(q);
  }
  void* p = nullptr;
  const cudaError_t e = cudaHostAlloc(&p, bytes, cudaHostAllocPortable);
  if (e != cudaSuccess) {
    cudaGetLastError();
    throw_cuda_error(e, ("cudaHostAlloc(" + std::to_string(bytes) + " bytes)").c_str(), device);
  }
  return static_cast<std::uint8_t*>(p);
}

struct UploadRing {
  struct Lane {
    cudaStream_t stream = nullptr;
    cudaEvent_t slot_free[kRingSlots] = {};  // recorded after the DMA out of each slot
    bool slot_used[kRingSlots] = {};
    int next_slot = 0;
    cudaEvent_t done = nullptr;  // recorded after this lane's last DMA of an upload
  };
  std::mutex busy;                 // one upload at a time uses the ring
  std::uint8_t* pinned = nullptr;  // kRingLanes * kRingSlots * kRingSlot bytes
  cudaEvent_t before = nullptr;    // the destination's earlier work, waited for by every lane
  std::array<Lane, kRingLanes> lanes;

  explicit UploadRing(int device) {
    DeviceGuard guard(device);
    pinned = pin_ring_memory(device);
    WARPMATCH_CUDA_CHECK(device, cudaEventCreateWithFlags(&before, cudaEventDisableTiming));
    for (Lane& l : lanes) {
      WARPMATCH_CUDA_CHECK(device, cudaStreamCreateWithFlags(&l.stream, cudaStreamNonBlocking));
      WARPMATCH_CUDA_CHECK(device, cudaEventCreateWithFlags(&l.done, cudaEventDisableTiming));
      for (auto& ev : l.slot_free) WARPMATCH_CUDA_CHECK(device, cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
    }
  }
  std::uint8_t* slot(std::size_t lane, int slot) const {
    return pinned + (lane * kRingSlots + static_cast<std::size_t>(slot)) * kRingSlot;
  }
};

// One ring per device, made at its first upload and kept for the process (a scan may still
// run while static objects are torn down at exit).
UploadRing& upload_ring(int device) {
  static std::mutex mutex;
  static auto* rings = new std::map<int, std::unique_ptr<UploadRing>>;
  std::lock_guard lock(mutex);
  auto& r = (*rings)[device];
  if (!r) r = std::make_unique<UploadRing>(device);
  return *r;
}

}  // namespace

void prepare_upload_ring(int device) { upload_ring(device); }

void upload_pageable(int device, std::uint8_t* dst, const std::uint8_t* src, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  UploadRing& ring = upload_ring(device);
  std::lock_guard lock(ring.busy);
  // The lanes' copies must not overwrite `dst` before `stream`'s earlier work (a kernel still
  // reading the chunk that was there) is done.
  WARPMATCH_CUDA_CHECK(device, cudaEventRecord(ring.before, stream));
  const std::size_t pieces = (n + kRingSlot - 1) / kRingSlot;
  const std::size_t lanes = std::min(kRingLanes, pieces);
  std::atomic<std::size_t> next{0};
  std::atomic<int> failed{static_cast<int>(cudaSuccess)};
  core::run_on_host_pool(lanes, [&](std::size_t k) {
    UploadRing::Lane& lane = ring.lanes[k];
    cudaError_t e = cudaSetDevice(device);
    if (e == cudaSuccess) e = cudaStreamWaitEvent(lane.stream, ring.before, 0);
    for (std::size_t piece; e == cudaSuccess && failed.load() == cudaSuccess && (piece = next.fetch_add(1)) < pieces;) {
      const std::size_t off = piece * kRingSlot, len = std::min(kRingSlot, n - off);
      const int s = lane.next_slot;
      lane.next_slot = (s + 1) % kRingSlots;
      if (lane.slot_used[s] && (e = cudaEventSynchronize(lane.slot_free[s])) != cudaSuccess) break;
      std::memcpy(ring.slot(k, s), src + off, len);  // ordinary stores: the lines stay cached for the DMA
      if ((e = cudaMemcpyAsync(dst + off, ring.slot(k, s), len, cudaMemcpyHostToDevice, lane.stream)) != cudaSuccess) break;
      if ((e = cudaEventRecord(lane.slot_free[s], lane.stream)) != cudaSuccess) break;
      lane.slot_used[s] = true;
    }
    if (e == cudaSuccess) e = cudaEventRecord(lane.done, lane.stream);
    int none = cudaSuccess;
    if (e != cudaSuccess) failed.compare_exchange_strong(none, static_cast<int>(e));
  });
  if (failed.load() != cudaSuccess)
    throw_cuda_error(static_cast<cudaError_t>(failed.load()), "cudaMemcpyAsync (upload ring)", device);
  for (std::size_t k = 0; k < lanes; ++k)
    WARPMATCH_CUDA_CHECK(device, cudaStreamWaitEvent(stream, ring.lanes[k].done, 0));
}

namespace {
struct StagingCache {
  std::mutex mutex;
  std::vector<std::pair<std::uint8_t*, std::size_t>> free;  // buffers not in use
  std::size_t cached_bytes = 0;
};
StagingCache& staging_cache() {
  static StagingCache* c = new StagingCache;  // never destroyed: freed by the process's end
  return *c;
}
}  // namespace

void StagingBuffer::reserve(std::size_t bytes) {
  bytes = std::max<std::size_t>(bytes, 1);
  if (ptr_ && bytes_ >= bytes) return;
  release();
  {
    // The smallest cached buffer that is large enough, and at most twice the size: an earlier
    // job's larger buffers (one GPU's whole batch, then two GPUs' halves) handed to the four
    // workers of a four-GPU call left one of them pinning its own every call, whose release
    // evicted another (1 M pairs on 4 GPUs: 71 ms against 36 on one); a right-sized buffer
    // pinned once stays cached for the calls after it.
    StagingCache& c = staging_cache();
    std::lock_guard lock(c.mutex);
    auto best = c.free.end();
    for (auto it = c.free.begin(); it != c.free.end(); ++it)
      if (it->second >= bytes && it->second / 2 <= bytes && (best == c.free.end() || it->second < best->second))
        best = it;
    if (best != c.free.end()) {
      ptr_ = best->first;
      bytes_ = best->second;
      c.cached_bytes -= bytes_;
      c.free.erase(best);
      return;
    }
  }
  void* p = nullptr;
  const cudaError_t e = cudaHostAlloc(&p, bytes, cudaHostAllocPortable);
  if (e != cudaSuccess) {
    cudaGetLastError();
    throw_cuda_error(e, ("cudaHostAlloc(" + std::to_string(bytes) + " bytes)").c_str(), device_);
  }
  ptr_ = static_cast<std::uint8_t*>(p);
  bytes_ = bytes;
}

void StagingBuffer::release() noexcept {
  if (!ptr_) return;
  // The buffer just released is the likeliest to be asked for again (the next call of the
  // same shape), so it stays cached and the least recently released ones make room: when the
  // released one was freed instead, a cache full of smaller buffers (an earlier job's) made
  // every later call pin and unpin its own, and cudaHostAlloc / cudaFreeHost are serialised
  // in the driver, so several GPUs' workers queued on them (1 M pairs on 4 GPUs took twice
  // one GPU's time).
  std::vector<std::uint8_t*> evicted;
  StagingCache& c = staging_cache();
  if (bytes_ <= kCachedBytes) {
    std::lock_guard lock(c.mutex);
    c.free.emplace_back(ptr_, bytes_);  // oldest first
    c.cached_bytes += bytes_;
    auto oldest = c.free.begin();
    while (c.cached_bytes > kCachedBytes) {
      c.cached_bytes -= oldest->second;
      evicted.push_back(oldest->first);
      ++oldest;
    }
    c.free.erase(c.free.begin(), oldest);
  } else {
    evicted.push_back(ptr_);
  }
  ptr_ = nullptr;
  bytes_ = 0;
  for (std::uint8_t* p : evicted) cudaFreeHost(p);  // outside the lock
}

void TextUpload::copy(std::uint8_t* to, const std::uint8_t* from, std::size_t bytes, cudaStream_t stream) {
  if (bytes == 0) return;
  if (copies_directly(from)) WARPMATCH_CUDA_CHECK(device_, cudaMemcpyAsync(to, from, bytes, cudaMemcpyDefault, stream));
  else upload_pageable(device_, to, from, bytes, stream);
}

AsyncDeviceBuffer::AsyncDeviceBuffer(int device, cudaStream_t stream, std::size_t bytes)
    : device_(device), stream_(stream), bytes_(std::max<std::size_t>(bytes, 1)) {
  static std::mutex mutex;
  static std::vector<int> kept;  // devices whose pool keeps freed memory
  {
    std::lock_guard lock(mutex);
    if (std::find(kept.begin(), kept.end(), device) == kept.end()) {
      cudaMemPool_t pool = nullptr;
      std::uint64_t keep_all = UINT64_MAX;
      WARPMATCH_CUDA_CHECK(device, cudaDeviceGetDefaultMemPool(&pool, device));
      WARPMATCH_CUDA_CHECK(device, cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_all));
      kept.push_back(device);
    }
  }
  ptr_ = static_cast<std::uint8_t*>(allocate_counted(device, bytes_, "cudaMallocAsync", [&](void** p) {
    return cudaMallocAsync(p, bytes_, stream);
  }));
}

bool is_pinned(const void* p) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return a.type == cudaMemoryTypeHost || a.type == cudaMemoryTypeManaged;
}

bool copies_directly(const void* p) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return a.type == cudaMemoryTypeHost || a.type == cudaMemoryTypeManaged || a.type == cudaMemoryTypeDevice;
}

bool is_device_memory(const void* p) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return a.type == cudaMemoryTypeDevice;
}

void require_device(int device) {
  const auto& list = device_list();
  if (list.empty())
    throw BackendUnavailable("CUDA backend requested but no CUDA GPU is visible "
                             "(the cpu backend and auto need none)");
  if (device < 0 || device >= static_cast<int>(list.size()))
    throw InvalidArgument("CUDA device " + std::to_string(device) + " does not exist (" +
                          std::to_string(list.size()) + " visible)");
}

}  // namespace detail

void prepare_host_upload(int device) { detail::prepare_upload_ring(device); }

std::string device_memory_note() {
  detail::MemoryNote& note = detail::memory_note();
  std::lock_guard lock(note.mutex);
  return note.text;
}

void require_text_on_device(DeviceSpan text, const std::vector<int>& devices, std::string_view what) {
  for (const int d : devices) detail::require_device(d);
  if (text.size == 0) return;
  if (text.data == nullptr)
    throw InvalidArgument(std::string(what) + ": device text of " + std::to_string(text.size) +
                          " bytes at a null pointer");
  std::string listed;
  for (const int d : devices) listed += (listed.empty() ? "" : ",") + std::to_string(d);
  int home = devices.front();
  // Both ends: a span must not run from one allocation into host memory or another GPU's.
  for (const std::uint8_t* p : {text.data, text.data + (text.size - 1)}) {
    cudaPointerAttributes a{};
    const cudaError_t e = cudaPointerGetAttributes(&a, p);
    if (e != cudaSuccess) cudaGetLastError();
    const bool on_device = e == cudaSuccess && (a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged);
    if (!on_device)
      throw InvalidArgument(std::string(what) + ": device text is not in CUDA device memory (" +
                            (e == cudaSuccess && a.type == cudaMemoryTypeHost ? "page-locked host memory"
                                                                              : "host memory") +
                            "); pass host text as a ByteSpan");
    if (a.type == cudaMemoryTypeDevice) {
      if (std::find(devices.begin(), devices.end(), a.device) == devices.end())
        throw InvalidArgument(std::string(what) + ": device text is in the memory of CUDA device " +
                              std::to_string(a.device) + " but the matcher runs on CUDA device(s) " + listed);
      home = a.device;
    }
  }
  detail::DeviceGuard guard(home);
  const cudaStream_t producer = text.stream == 2   ? cudaStreamPerThread
                                : text.stream <= 1 ? cudaStreamLegacy
                                                   : reinterpret_cast<cudaStream_t>(text.stream);
  WARPMATCH_CUDA_CHECK(home, cudaStreamSynchronize(producer));
}

void copy_to_host(const std::vector<DeviceToHostCopy>& pieces) {
  if (pieces.empty()) return;
  int device = 0;
  WARPMATCH_CUDA_CHECK(-1, cudaGetDevice(&device));
  // Queued on this thread's default stream, one wait for all (a copy to pageable memory
  // returns only when done anyway; pinned or not, the wait covers every piece).
  for (const DeviceToHostCopy& c : pieces)
    if (c.bytes)
      WARPMATCH_CUDA_CHECK(device, cudaMemcpyAsync(c.host, c.device, c.bytes, cudaMemcpyDefault, cudaStreamPerThread));
  WARPMATCH_CUDA_CHECK(device, cudaStreamSynchronize(cudaStreamPerThread));
}

}  // namespace warpmatch::cuda
