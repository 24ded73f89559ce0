#include "core/host_copy.hpp"

#include <emmintrin.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <thread>

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

struct CopyPool {
  std::mutex turn;  // one parallel copy at a time (WorkerPool runs one loop at a time)
  WorkerPool pool{std::clamp(std::thread::hardware_concurrency(), 1u, kMaxThreads)};
};

CopyPool& copy_pool() {
  // Never destroyed: a GPU scan may still run while static objects are torn down at exit.
  static CopyPool* p = new CopyPool;
  return *p;
}

}  // namespace

void run_on_host_pool(std::size_t tasks, const std::function<void(std::size_t)>& fn) {
  if (tasks <= 1) {
    if (tasks == 1) fn(0);
    return;
  }
  CopyPool& cp = copy_pool();
  std::lock_guard lock(cp.turn);
  cp.pool.run(tasks, fn);
}

void parallel_stream_copy(std::uint8_t* dst, const std::uint8_t* src, std::size_t n, int threads) {
  const std::size_t pieces = (n + kPiece - 1) / kPiece;
  if (pieces <= 1 || threads == 1) {
    stream_copy(dst, src, n);
    return;
  }
  CopyPool& cp = copy_pool();
  std::lock_guard lock(cp.turn);
  const std::size_t tasks = threads > 0 ? std::min<std::size_t>(pieces, static_cast<std::size_t>(threads) * 4) : pieces;
  const std::size_t per = (pieces + tasks - 1) / tasks;  // pieces per task
  cp.pool.run((pieces + per - 1) / per, [&](std::size_t t) {
    const std::size_t begin = t * per * kPiece;
    const std::size_t end = std::min(n, begin + per * kPiece);
    if (begin < end) stream_copy(dst + begin, src + begin, end - begin);
  });
}

}  // namespace warpmatch::core
