// Probe: does reading a page-cache file with pread() straight into pinned staging (the
// kernel's copy through its direct map: no user page faults or 4 KiB TLB misses on the source)
// feed the GPU faster than copying from a mapping of the file (what the pipelines do: 64 MiB
// chunks, 2 slots, non-temporal stores on all cores)? Prints, per round: DMA alone, pread only,
// mmap copy only, pread+DMA and mmap copy+DMA for 2 and 3 slots, on T and T/2 threads.
// Not part of the build:
//   nvcc -O2 -std=c++17 -arch=sm_90 -o pread_probe bench/probes/pread_feed_probe.cu
//   ./pread_probe FILE      (several GiB, read once first so it is in the page cache)
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
#include "feed_probe_util.hpp"

int main(int argc, char** argv) {
  int fd = open(argv[1], O_RDONLY);
  struct stat st; fstat(fd, &st);
  const size_t n = st.st_size;
  const int T0 = std::thread::hardware_concurrency();
  CK(cudaFree(0));
  const size_t chunk = size_t(64) << 20;
  enum { S = 4 };
  unsigned char* stag[S]; unsigned char* dev[S]; cudaStream_t str[S]; cudaEvent_t ev[S];
  for (int s = 0; s < S; ++s) {
    CK(cudaHostAlloc((void**)&stag[s], chunk, cudaHostAllocPortable)); memset(stag[s], 0, chunk);
    CK(cudaMalloc(&dev[s], chunk)); CK(cudaStreamCreateWithFlags(&str[s], cudaStreamNonBlocking));
    CK(cudaEventCreateWithFlags(&ev[s], cudaEventDisableTiming));
  }
  // One slice of a chunk into staging: by pread (p == nullptr) or by a copy from the mapping.
  auto fill = [&](unsigned char* p, int s, size_t off, size_t len, int T) {
    const size_t per = ((len + T - 1) / T + 4095) & ~size_t(4095);
    on_threads(T, [&](int k) {
      size_t b = k * per, e = std::min(len, b + per);
      if (b >= e) return;
      if (!p) {
        for (size_t done = b; done < e;) {
          ssize_t r = pread(fd, stag[s] + done, e - done, off + done);
          if (r <= 0) { perror("pread"); exit(1); }
          done += r;
        }
      } else {
        nt_copy(stag[s] + b, p + off + b, e - b);
      }
    });
  };
  auto fill_only = [&](unsigned char* p, int T) {
    auto t = C::now();
    for (size_t off = 0, i = 0; off < n; off += chunk, ++i) fill(p, i % S, off, std::min(chunk, n - off), T);
    return n / sec(t) / 1e9;
  };
  auto with_dma = [&](unsigned char* p, int T, int slots) {
    bool used[S] = {};
    auto t = C::now();
    for (size_t off = 0, i = 0; off < n; off += chunk, ++i) {
      const size_t len = std::min(chunk, n - off); const int s = i % slots;
      if (used[s]) CK(cudaEventSynchronize(ev[s]));
      fill(p, s, off, len, T);
      CK(cudaMemcpyAsync(dev[s], stag[s], len, cudaMemcpyHostToDevice, str[s])); CK(cudaEventRecord(ev[s], str[s])); used[s] = true;
    }
    for (int s = 0; s < S; ++s) CK(cudaStreamSynchronize(str[s]));
    return n / sec(t) / 1e9;
  };
  auto dma_only = [&] {
    auto t = C::now();
    for (size_t off = 0, i = 0; off < n; off += chunk, ++i)
      CK(cudaMemcpyAsync(dev[i % 2], stag[i % 2], std::min(chunk, n - off), cudaMemcpyHostToDevice, str[i % 2]));
    for (int s = 0; s < S; ++s) CK(cudaStreamSynchronize(str[s]));
    return n / sec(t) / 1e9;
  };
  auto map = [&] { return (unsigned char*)mmap(nullptr, n, PROT_READ, MAP_PRIVATE, fd, 0); };
  for (int round = 0; round < 3; ++round) {
    printf("round %d: DMA only %.1f GB/s\n", round, dma_only());
    for (int T : {T0, T0 / 2}) {
      printf("  T=%2d pread only %.1f GB/s", T, fill_only(nullptr, T));
      unsigned char* p = map(); printf("; mmap copy only %.1f GB/s\n", fill_only(p, T)); munmap(p, n);
      for (int slots : {2, 3}) {
        printf("  T=%2d slots=%d pread+DMA %.1f GB/s", T, slots, with_dma(nullptr, T, slots));
        p = map(); printf("; mmap copy+DMA %.1f GB/s\n", with_dma(p, T, slots)); munmap(p, n);
      }
    }
    fflush(stdout);
  }
  return 0;
}
