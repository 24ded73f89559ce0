// Copying host text into page-locked staging for the GPU feeders, at memory speed: one memcpy
// thread reaches ~10 GB/s, short of the ~55 GB/s the bus takes, so pieces are copied on a
// persistent pool of threads (no thread start per chunk), with non-temporal stores (the
// destination is read next by the DMA engine, not by a core: no read-for-ownership, no cache
// pollution).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace warpmatch::core {

/// dst = src[0, n), on up to `threads` threads of a persistent pool (0 = up to 16, the
/// hardware's count at most). Callers from several threads at once (one per GPU) each get a
/// pool of their own; a caller in a ThreadPlacementScope (core/host_affinity.hpp) gets one
/// whose threads run on its CPUs.
void parallel_stream_copy(std::uint8_t* dst, const std::uint8_t* src, std::size_t n, int threads = 0);

/// fn(0..tasks-1) on the same pools (host work of a GPU call, e.g. packing a batch of pairs):
/// no threads started per call; concurrent callers each get a pool of their own.
void run_on_host_pool(std::size_t tasks, const std::function<void(std::size_t)>& fn);

/// Maps the pages of [p, p + bytes) for writing before their first use, in parallel on the
/// same pools: the first touch of a fresh large allocation otherwise faults page by page on
/// one thread (a 1 M-pair batch's 40 MB of results took 17-26 ms so on the 4-GPU host, more
/// than its kernels). A no-op where the kernel lacks MADV_POPULATE_WRITE (Linux < 5.14).
void prefault_for_write(void* p, std::size_t bytes);

/// v.resize(n) with the new storage's pages mapped first (prefault_for_write).
template <class T>
void resize_prefaulted(std::vector<T>& v, std::size_t n) {
  if (n > v.capacity()) {
    v.reserve(n);
    prefault_for_write(v.data() + v.size(), (n - v.size()) * sizeof(T));
  }
  v.resize(n);
}

}  // namespace warpmatch::core
