// Probe of the staged host-to-GPU feed (issue 12's ">= 40 GB/s host-fed" target): copy from a
// fresh MAP_PRIVATE page-cache mapping (as the CLI maps a file, page faults included) into
// pinned staging on a pool of threads, then H2D, for chunk sizes x slots x copy kind
// (non-temporal stores / memcpy) x threads; no kernel.
// Finding (2026-11-26, H200 machine, 16-core VM, 4 GiB file in the page cache): the DMA alone
// moves 55.4 GB/s; copying alone from a fresh mapping tops at 35.4 GB/s on 16 threads; the
// pipeline reaches 26-37 GB/s whatever the chunk (8-64 MiB), slots (2, 4) or copy kind, so
// staging is bound by the host copy, below 40 GB/s on this host. The pipelines keep 64 MiB
// chunks, 2 slots and non-temporal stores (36.1 GB/s, within the noise of the best row).
// Not part of the build:
//   nvcc -O2 -std=c++17 -arch=sm_90 -cudart static -o staged_probe bench/probes/staged_feed_probe.cu
//   ./staged_probe FILE      (several GiB, read once first so it is in the page cache)
#include <cuda_runtime.h>
#include <fcntl.h>
#include <immintrin.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>
#include "feed_probe_util.hpp"

struct Pool {
  std::vector<std::thread> th; std::mutex m; std::condition_variable cv, done_cv;
  std::function<void(int)> job; int gen = 0, pending = 0, n; bool stop = false;
  explicit Pool(int n) : n(n) {
    for (int i = 0; i < n; ++i) th.emplace_back([this, i] {
      int seen = 0;
      for (;;) {
        std::unique_lock l(m); cv.wait(l, [&] { return stop || gen != seen; });
        if (stop) return; seen = gen; auto j = job; l.unlock();
        j(i);
        l.lock(); if (--pending == 0) done_cv.notify_all();
      }
    });
  }
  void run(std::function<void(int)> f) {
    std::unique_lock l(m); job = std::move(f); pending = n; ++gen; cv.notify_all();
    done_cv.wait(l, [&] { return pending == 0; });
  }
  ~Pool() { { std::lock_guard l(m); stop = true; } cv.notify_all(); for (auto& t : th) t.join(); }
};

int main(int argc, char** argv) {
  int fd = open(argv[1], O_RDONLY);
  struct stat st; fstat(fd, &st);
  size_t n = st.st_size;
  int maxT = std::thread::hardware_concurrency();
  CK(cudaFree(0));
  const size_t maxchunk = size_t(64) << 20; const int maxslots = 4;
  unsigned char* stag[maxslots]; unsigned char* dev[maxslots]; cudaStream_t str[maxslots]; cudaEvent_t ev[maxslots];
  for (int s = 0; s < maxslots; ++s) {
    CK(cudaHostAlloc((void**)&stag[s], maxchunk, cudaHostAllocPortable)); memset(stag[s], 0, maxchunk);
    CK(cudaMalloc(&dev[s], maxchunk)); CK(cudaStreamCreateWithFlags(&str[s], cudaStreamNonBlocking));
    CK(cudaEventCreateWithFlags(&ev[s], cudaEventDisableTiming));
  }
  // DMA alone from pinned memory.
  { auto t = C::now(); size_t done = 0;
    for (int r = 0; r < 64; ++r) { CK(cudaMemcpyAsync(dev[r % 2], stag[r % 2], maxchunk, cudaMemcpyHostToDevice, str[0])); done += maxchunk; }
    CK(cudaStreamSynchronize(str[0])); printf("DMA only (pinned): %.1f GB/s\n", done / sec(t) / 1e9); }
  for (int T : {maxT, maxT / 2}) {
    Pool pool(T);
    for (int nt : {1, 0}) for (size_t chunk : {size_t(8) << 20, size_t(16) << 20, size_t(64) << 20}) for (int slots : {2, 4}) {
      auto* p = (unsigned char*)mmap(nullptr, n, PROT_READ, MAP_PRIVATE, fd, 0);
      bool used[maxslots] = {};
      auto t = C::now();
      size_t i = 0;
      for (size_t off = 0; off < n; off += chunk, ++i) {
        const size_t len = std::min(chunk, n - off); const int s = i % slots;
        if (used[s]) CK(cudaEventSynchronize(ev[s]));
        const size_t per = (len + T - 1) / T;
        pool.run([&](int k) { size_t b = k * per, e = std::min(len, b + per); if (b < e) { if (nt) nt_copy(stag[s] + b, p + off + b, e - b); else memcpy(stag[s] + b, p + off + b, e - b); } });
        CK(cudaMemcpyAsync(dev[s], stag[s], len, cudaMemcpyHostToDevice, str[s]));
        CK(cudaEventRecord(ev[s], str[s])); used[s] = true;
      }
      for (int s = 0; s < slots; ++s) CK(cudaStreamSynchronize(str[s]));
      double w = sec(t);
      munmap(p, n);
      printf("threads %2d %s chunk %2zu MiB slots %d: %.1f GB/s\n", T, nt ? "nt    " : "memcpy", chunk >> 20, slots, n / w / 1e9);
      fflush(stdout);
    }
  }
  // Copy alone (no DMA), nt, all threads, fresh mapping: the host side's ceiling.
  { Pool pool(maxT); auto* p = (unsigned char*)mmap(nullptr, n, PROT_READ, MAP_PRIVATE, fd, 0);
    auto t = C::now(); const size_t chunk = size_t(64) << 20; size_t i = 0;
    for (size_t off = 0; off < n; off += chunk, ++i) { const size_t len = std::min(chunk, n - off); const size_t per = (len + maxT - 1) / maxT; int s = i % 2;
      pool.run([&](int k) { size_t b = k * per, e = std::min(len, b + per); if (b < e) nt_copy(stag[s] + b, p + off + b, e - b); }); }
    printf("copy only nt, fresh mapping, %d threads: %.1f GB/s\n", maxT, n / sec(t) / 1e9); munmap(p, n); }
  return 0;
}
