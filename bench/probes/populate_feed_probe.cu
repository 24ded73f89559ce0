// Probe: does mapping a page-cache file's pages ahead (madvise MADV_POPULATE_READ on all
// threads, e.g. while CUDA initialises) speed up the staged host-to-GPU feed, whose copy
// otherwise faults the pages in as it reads them? For a fresh MAP_PRIVATE mapping (as the CLI
// maps a file): the populate's own time on T threads, then copy-only and copy+DMA (64 MiB
// chunks, 2 slots, non-temporal stores) from a fresh and from a populated mapping.
// Finding (2026-11-26, H200 machine, 16 cores, kernel 6.18, 8 GiB file in the page cache):
// MADV_POPULATE_READ of the whole file took 1-4 ms on 4-16 threads (MAP_POPULATE at mmap
// 0.23 s), and the copy after it ran as fast as from a fresh mapping: copy only 42-45 GB/s
// either way, copy+DMA 36-38 against 37.5-39.2 GB/s. Page faults are not what holds the feed
// under 40 GB/s on this host; the copy and the DMA share the host's memory.
// Not part of the build:
//   nvcc -O2 -std=c++17 -arch=sm_90 -o populate_probe bench/probes/populate_feed_probe.cu
//   ./populate_probe FILE      (several GiB, read once first so it is in the page cache)
#include <cuda_runtime.h>
#include <fcntl.h>
#include <immintrin.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#include "feed_probe_util.hpp"

int main(int argc, char** argv) {
  int fd = open(argv[1], O_RDONLY);
  struct stat st; fstat(fd, &st);
  const size_t n = st.st_size;
  const int T = std::thread::hardware_concurrency();
  auto t0 = C::now();
  CK(cudaFree(0));
  printf("cudaFree(0): %.3f s\n", sec(t0));
  const size_t chunk = size_t(64) << 20;
  unsigned char* stag[2]; unsigned char* dev[2]; cudaStream_t str[2]; cudaEvent_t ev[2];
  for (int s = 0; s < 2; ++s) {
    CK(cudaHostAlloc((void**)&stag[s], chunk, cudaHostAllocPortable)); memset(stag[s], 0, chunk);
    CK(cudaMalloc(&dev[s], chunk)); CK(cudaStreamCreateWithFlags(&str[s], cudaStreamNonBlocking));
    CK(cudaEventCreateWithFlags(&ev[s], cudaEventDisableTiming));
  }
  auto populate = [&](unsigned char* p, int threads) {
    const size_t per = ((n + threads - 1) / threads + 4095) & ~size_t(4095);
    on_threads(threads, [&](int k) {
      size_t b = k * per, e = std::min(n, b + per);
      if (b < e && madvise(p + b, e - b, MADV_POPULATE_READ) != 0) perror("madvise");
    });
  };
  auto copy_only = [&](unsigned char* p) {
    auto t = C::now();
    for (size_t off = 0, i = 0; off < n; off += chunk, ++i) {
      const size_t len = std::min(chunk, n - off), per = (len + T - 1) / T; const int s = i % 2;
      on_threads(T, [&](int k) { size_t b = k * per, e = std::min(len, b + per); if (b < e) nt_copy(stag[s] + b, p + off + b, e - b); });
    }
    return n / sec(t) / 1e9;
  };
  auto copy_dma = [&](unsigned char* p) {
    bool used[2] = {};
    auto t = C::now();
    for (size_t off = 0, i = 0; off < n; off += chunk, ++i) {
      const size_t len = std::min(chunk, n - off), per = (len + T - 1) / T; const int s = i % 2;
      if (used[s]) CK(cudaEventSynchronize(ev[s]));
      on_threads(T, [&](int k) { size_t b = k * per, e = std::min(len, b + per); if (b < e) nt_copy(stag[s] + b, p + off + b, e - b); });
      CK(cudaMemcpyAsync(dev[s], stag[s], len, cudaMemcpyHostToDevice, str[s])); CK(cudaEventRecord(ev[s], str[s])); used[s] = true;
    }
    for (int s = 0; s < 2; ++s) CK(cudaStreamSynchronize(str[s]));
    return n / sec(t) / 1e9;
  };
  for (int round = 0; round < 2; ++round) {
    auto map = [&] { return (unsigned char*)mmap(nullptr, n, PROT_READ, MAP_PRIVATE, fd, 0); };
    unsigned char* p = map();
    printf("fresh: copy only %.1f GB/s\n", copy_only(p)); munmap(p, n);
    p = map(); printf("fresh: copy+DMA %.1f GB/s\n", copy_dma(p)); munmap(p, n);
    for (int threads : {T, T / 2, 4}) {
      p = map(); auto t = C::now(); populate(p, threads); const double ps = sec(t);
      printf("populate on %2d threads: %.3f s (%.1f GB/s)", threads, ps, n / ps / 1e9);
      printf("; then copy only %.1f GB/s", copy_only(p)); munmap(p, n);
      p = map(); populate(p, threads); printf("; copy+DMA %.1f GB/s\n", copy_dma(p)); munmap(p, n);
    }
    auto t = C::now();
    p = (unsigned char*)mmap(nullptr, n, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    printf("MAP_POPULATE mmap: %.3f s; copy+DMA %.1f GB/s\n", sec(t), copy_dma(p)); munmap(p, n);
    fflush(stdout);
  }
  return 0;
}
