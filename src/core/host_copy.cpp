#include "core/host_copy.hpp"

#include <emmintrin.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "core/host_affinity.hpp"
#include "core/worker_pool.hpp"

namespace warpmatch::core {

namespace {

// Pieces small enough that every thread gets several of a 32-64 MiB chunk, large enough that
// the per-piece cost is nothing; page-cache text is faulted in as it is read.
constexpr std::size_t kPiece = std::size_t{2} << 20;
constexpr unsigned kMaxThreads = 16;

void stream_copy(std::uint8_t* dst, const std::uint8_t* src, std::size_t n) {
  std::size_t head = (16 - reinterpret_cast<std::uintptr_t>(dst) % 16) % 16;
  head = std::min(head, n);
  std::memcpy(dst, src, head);
  std::size_t i = head;
  for (; i + 64 <= n; i += 64) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 16));
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 32));
    const __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i + 48));
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i), a);
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 16), b);
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 32), c);
    _mm_stream_si128(reinterpret_cast<__m128i*>(dst + i + 48), d);
  }
  std::memcpy(dst + i, src + i, n - i);
  _mm_sfence();  // the stores are visible before the caller hands the buffer to the DMA engine
}

// Pools of persistent threads, one per concurrent caller: a GPU call takes a free pool for
// its host work and gives it back after. Callers from several threads (one per GPU with
// --devices) each get a pool of their own instead of taking turns on one (the 1 M pairs
// batch over 4 GPUs ran 2x slower than on one GPU while the device threads queued for a
// single pool). A caller placed near its GPU (core/host_affinity.hpp) takes a pool whose
// threads run on the same CPUs, so its copies and packing stay on the GPU's NUMA node; a
// caller not placed (the one-GPU path) takes an unpinned pool, as before. A pool is made
// when every existing one of those CPUs is in use; pools live as long as the process (a GPU
// scan may still run while static objects are torn down at exit).
class PoolSet {
 public:
  class Lease {
   public:
    explicit Lease(PoolSet& set) : set_(set), pool_(set.take(thread_placement_cpus())) {}
    ~Lease() { set_.give_back(pool_); }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    WorkerPool& pool() { return *pool_; }

   private:
    PoolSet& set_;
    WorkerPool* pool_;
  };

 private:
  WorkerPool* take(const std::vector<int>& cpus) {
    std::lock_guard lock(mutex_);
    for (auto p = free_.rbegin(); p != free_.rend(); ++p)  // the latest given back: its caches are warm
      if ((*p)->cpus() == cpus) {
        WorkerPool* pool = *p;
        free_.erase(std::next(p).base());
        return pool;
      }
    const auto near = static_cast<unsigned>(cpus.empty() ? static_cast<std::size_t>(hardware_threads()) : cpus.size());
    return new WorkerPool(std::clamp(near, 1u, kMaxThreads), cpus);
  }
  void give_back(WorkerPool* p) {
    std::lock_guard lock(mutex_);
    free_.push_back(p);
  }

  std::mutex mutex_;
  std::vector<WorkerPool*> free_;  // never deleted (see above)
};

PoolSet& host_pools() {
  static PoolSet* p = new PoolSet;
  return *p;
}

}  // namespace

void run_on_host_pool(std::size_t tasks, const std::function<void(std::size_t)>& fn) {
  if (tasks <= 1) {
    if (tasks == 1) fn(0);
    return;
  }
  PoolSet::Lease lease(host_pools());
  lease.pool().run(tasks, fn);
}

void parallel_stream_copy(std::uint8_t* dst, const std::uint8_t* src, std::size_t n, int threads) {
  const std::size_t pieces = (n + kPiece - 1) / kPiece;
  if (pieces <= 1 || threads == 1) {
    stream_copy(dst, src, n);
    return;
  }
  PoolSet::Lease lease(host_pools());
  const std::size_t tasks = threads > 0 ? std::min<std::size_t>(pieces, static_cast<std::size_t>(threads) * 4) : pieces;
  const std::size_t per = (pieces + tasks - 1) / tasks;  // pieces per task
  lease.pool().run((pieces + per - 1) / per, [&](std::size_t t) {
    const std::size_t begin = t * per * kPiece;
    const std::size_t end = std::min(n, begin + per * kPiece);
    if (begin < end) stream_copy(dst + begin, src + begin, end - begin);
  });
}

void prefault_for_write(void* p, std::size_t bytes) {
#ifdef MADV_POPULATE_WRITE
  constexpr std::uintptr_t kPage = 4096;
  const auto lo = (reinterpret_cast<std::uintptr_t>(p) + kPage - 1) & ~(kPage - 1);
  const auto hi = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(kPage - 1);
  if (hi <= lo || hi - lo < kPiece) return;  // a few pages fault cheaply enough
  const std::size_t pieces = (hi - lo + kPiece - 1) / kPiece;
  run_on_host_pool(pieces, [&](std::size_t i) {
    const std::uintptr_t from = lo + i * kPiece, to = std::min<std::uintptr_t>(hi, from + kPiece);
    ::madvise(reinterpret_cast<void*>(from), to - from, MADV_POPULATE_WRITE);  // refused: faults later
  });
#else
  (void)p, (void)bytes;
#endif
}

}  // namespace warpmatch::core
