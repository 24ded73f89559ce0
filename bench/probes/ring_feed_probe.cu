// Probe: can staging that stays in the last-level cache feed the GPU from the page cache past
// the 31-37 GB/s of the pipelines' staging (64 MiB chunks, 2 slots, all cores copying each
// chunk, non-temporal stores: staged_feed_probe.cu)? There every byte crosses DRAM three times
// (read from the page cache, written to staging, read by the DMA). Here each thread owns R
// small pinned slots (S bytes each) and its own stream: it claims the next S-byte piece of the
// file, waits for its slot's last DMA, copies the piece with ordinary stores (the lines stay in
// cache) and issues the DMA at once, so the DMA may read the piece from cache. Prints, for
// threads x S x R x store kind, the feed's GB/s over a fresh MAP_PRIVATE mapping (as the CLI
// maps a file). Also times the CUDA start-up steps a CLI run pays (cudaFree(0), a 128 MiB
// cudaMallocHost, a 1 GiB cudaMalloc).
// Not part of the build:
//   nvcc -O2 -std=c++17 -arch=sm_90 -o ring_probe bench/probes/ring_feed_probe.cu
//   ./ring_probe FILE      (several GiB, read once first so it is in the page cache)
#include <cuda_runtime.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "feed_probe_util.hpp"

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  int fd = open(argv[1], O_RDONLY);
  struct stat st;
  fstat(fd, &st);
  const size_t n = st.st_size;
  const int maxT = std::thread::hardware_concurrency();
  {
    auto t = C::now();
    CK(cudaFree(0));
    printf("cudaFree(0) (context): %.1f ms\n", sec(t) * 1e3);
    void* h;
    t = C::now();
    CK(cudaMallocHost(&h, size_t(128) << 20));
    printf("cudaMallocHost 128 MiB: %.1f ms\n", sec(t) * 1e3);
    t = C::now();
    CK(cudaFreeHost(h));
    printf("cudaFreeHost 128 MiB: %.1f ms\n", sec(t) * 1e3);
    void* d;
    t = C::now();
    CK(cudaMalloc(&d, size_t(1) << 30));
    printf("cudaMalloc 1 GiB: %.1f ms\n", sec(t) * 1e3);
    CK(cudaFree(d));
    // Pinning 64 MiB: cudaHostAlloc, and cudaHostRegister of memory backed by 4 KiB pages and
    // by transparent huge pages (fewer pages to lock and map).
    const size_t pin = size_t(64) << 20;
    for (int round = 0; round < 2; ++round) {
      t = C::now();
      CK(cudaHostAlloc(&h, pin, cudaHostAllocPortable));
      printf("cudaHostAlloc 64 MiB: %.1f ms\n", sec(t) * 1e3);
      for (int huge = 0; huge < 2; ++huge) {
        void* q = aligned_alloc(size_t(2) << 20, pin);
        if (huge) madvise(q, pin, MADV_HUGEPAGE);
        t = C::now();
        memset(q, 0, pin);
        const double touch = sec(t) * 1e3;
        t = C::now();
        CK(cudaHostRegister(q, pin, cudaHostRegisterPortable));
        printf("%s pages: touch %.1f ms, cudaHostRegister 64 MiB %.1f ms\n", huge ? "huge" : "4 KiB", touch, sec(t) * 1e3);
        CK(cudaHostUnregister(q));
        free(q);
      }
      CK(cudaFreeHost(h));
    }
  }
  if (argc > 2) return 0;  // pinning costs only
  const size_t maxS = size_t(8) << 20;
  const int maxR = 4;
  // Device side: each thread's slot r lands in its own device buffer (what a kernel would read).
  std::vector<unsigned char*> host(maxT * maxR), dev(maxT * maxR);
  std::vector<cudaStream_t> stream(maxT);
  std::vector<cudaEvent_t> event(maxT * maxR);
  for (int i = 0; i < maxT * maxR; ++i) {
    CK(cudaMallocHost((void**)&host[i], maxS));
    memset(host[i], 0, maxS);
    CK(cudaMalloc(&dev[i], maxS));
    CK(cudaEventCreateWithFlags(&event[i], cudaEventDisableTiming));
  }
  for (int t = 0; t < maxT; ++t) CK(cudaStreamCreateWithFlags(&stream[t], cudaStreamNonBlocking));
  {
    auto t = C::now();
    size_t done = 0;
    for (int r = 0; r < 256; ++r) {
      CK(cudaMemcpyAsync(dev[r % 8], host[r % 8], maxS, cudaMemcpyHostToDevice, stream[0]));
      done += maxS;
    }
    CK(cudaStreamSynchronize(stream[0]));
    printf("DMA only (pinned, 8 MiB pieces): %.1f GB/s\n", done / sec(t) / 1e9);
  }
  for (int round = 0; round < 2; ++round)
    for (int T : {maxT, maxT * 3 / 4, maxT / 2})
      for (size_t S : {size_t(512) << 10, size_t(1) << 20, size_t(2) << 20, size_t(4) << 20, size_t(8) << 20})
        for (int R : {2, 4})
          for (int nt : {0, 1}) {
            if (nt && (R != 2 || S < (size_t(2) << 20))) continue;
            auto* p = (unsigned char*)mmap(nullptr, n, PROT_READ, MAP_PRIVATE, fd, 0);
            std::atomic<size_t> next{0};
            auto t = C::now();
            on_threads(T, [&](int k) {
              bool used[maxR] = {};
              for (size_t i = 0;; ++i) {
                const size_t off = next.fetch_add(S);
                if (off >= n) break;
                const size_t len = std::min(S, n - off);
                const int r = static_cast<int>(i % R), slot = k * maxR + r;
                if (used[r]) CK(cudaEventSynchronize(event[slot]));
                if (nt) nt_copy(host[slot], p + off, len);
                else memcpy(host[slot], p + off, len);
                CK(cudaMemcpyAsync(dev[slot], host[slot], len, cudaMemcpyHostToDevice, stream[k]));
                CK(cudaEventRecord(event[slot], stream[k]));
                used[r] = true;
              }
              CK(cudaStreamSynchronize(stream[k]));
            });
            const double w = sec(t);
            munmap(p, n);
            printf("round %d threads %2d slot %4zu KiB x %d %s: %.1f GB/s\n", round, T, S >> 10, R, nt ? "nt    " : "memcpy",
                   n / w / 1e9);
            fflush(stdout);
          }
  return 0;
}
