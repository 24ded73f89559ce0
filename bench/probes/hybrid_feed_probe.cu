// Probe of the host-to-GPU feed from a page-cache file (issue 12), the step after feed_probe.cu:
// staging (all cores copy into two pinned buffers, then DMA), pinning in place (cudaHostRegister
// read-only of chunk i+1 while chunk i copies) and both at once from the two ends of the file
// (one thread registers chunks from the end while staging takes them from the front).
// Its finding (2026-11-26, H200 host, 4 GiB): staged 30-33 GB/s, registered 11-16 GB/s
// (MAP_SHARED; 1.1 GB/s on a fresh MAP_PRIVATE mapping), both 18-20 GB/s: pinning slows the
// staging copies beside it, so the pipelines keep staging alone (bench/BASELINE.md).
// Not part of the build: on the GPU machine (or here, then carried)
//   nvcc -O2 -std=c++17 -arch=sm_90 -cudart static -o hybrid_feed_probe bench/probes/hybrid_feed_probe.cu
//   ./hybrid_feed_probe FILE      (several GiB, read once first so it is in the page cache)
#include <cuda_runtime.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)
using C = std::chrono::steady_clock;
static double sec(C::time_point a) { return std::chrono::duration<double>(C::now() - a).count(); }
size_t n, chunk; unsigned char* p; int T;
unsigned char* dbuf[4]; unsigned char* hbuf[2];
cudaStream_t st[4]; cudaEvent_t ev[2];
#include <mutex>
long front_next, back_next;  // chunk indices: front grows, back shrinks (under m)
std::mutex m;
long claim(bool front, bool hybrid) {
  std::lock_guard<std::mutex> g(m);
  if (!hybrid) { long i = front_next++; return i * (long)chunk < (long)n ? i : -1; }
  if (front_next > back_next) return -1;
  return front ? front_next++ : back_next--;
}
std::atomic<long> reg_chunks{0}, stage_chunks{0};
void stage_loop(bool limit) {
  int slot = 0; bool used[2] = {false, false};
  for (;;) {
    long i = claim(true, limit);
    if (i < 0) break;
    size_t off = i * chunk, len = std::min(chunk, n - off);
    if (used[slot]) CK(cudaEventSynchronize(ev[slot]));
    std::vector<std::thread> th;
    for (int t = 0; t < T; ++t) th.emplace_back([&, t] { size_t b = len * t / T, e = len * (t + 1) / T; memcpy(hbuf[slot] + b, p + off + b, e - b); });
    for (auto& x : th) x.join();
    CK(cudaMemcpyAsync(dbuf[slot], hbuf[slot], len, cudaMemcpyHostToDevice, st[slot]));
    CK(cudaEventRecord(ev[slot], st[slot])); used[slot] = true; slot ^= 1; ++stage_chunks;
  }
  CK(cudaStreamSynchronize(st[0])); CK(cudaStreamSynchronize(st[1]));
}
void reg_loop(bool from_back) {
  long prev = -1; int slot = 0;
  for (;;) {
    long i = claim(false, from_back);
    if (i < 0) break;
    size_t off = i * chunk, len = std::min(chunk, n - off);
    CK(cudaHostRegister(p + off, len, cudaHostRegisterReadOnly));
    CK(cudaMemcpyAsync(dbuf[2 + slot], p + off, len, cudaMemcpyHostToDevice, st[2 + slot]));
    if (prev >= 0) { CK(cudaStreamSynchronize(st[2 + (slot ^ 1)])); CK(cudaHostUnregister(p + prev * chunk)); }
    prev = i; slot ^= 1; ++reg_chunks;
  }
  if (prev >= 0) { CK(cudaStreamSynchronize(st[2 + (slot ^ 1)])); CK(cudaHostUnregister(p + prev * chunk)); }
}
int main(int argc, char** argv) {
  int fd = open(argv[1], O_RDONLY); struct stat s; fstat(fd, &s); n = s.st_size;
  T = std::thread::hardware_concurrency();
  CK(cudaFree(0));
  for (int shared : {1, 0}) {
    p = (unsigned char*)mmap(nullptr, n, PROT_READ, shared ? MAP_SHARED : MAP_PRIVATE, fd, 0);
    unsigned long sum = 0; for (size_t i = 0; i < n; i += 4096) sum += p[i];
    for (size_t c : {size_t(32) << 20, size_t(64) << 20}) {
      chunk = c;
      for (int i = 0; i < 4; ++i) { CK(cudaMalloc(&dbuf[i], chunk)); CK(cudaStreamCreateWithFlags(&st[i], cudaStreamNonBlocking)); }
      for (int i = 0; i < 2; ++i) { CK(cudaMallocHost(&hbuf[i], chunk)); CK(cudaEventCreateWithFlags(&ev[i], cudaEventDisableTiming)); }
      long chunks = (n + chunk - 1) / chunk;
      for (int rep = 0; rep < 2; ++rep) {
        front_next = 0; auto a = C::now(); stage_loop(false); double ts = sec(a);
        front_next = 0; a = C::now(); reg_loop(false); double tr = sec(a);
        front_next = 0; back_next = chunks - 1; reg_chunks = 0; stage_chunks = 0;
        a = C::now(); std::thread r([] { reg_loop(true); }); stage_loop(true); r.join(); double th = sec(a);
        printf("%s chunk %zu MiB: staged %.1f GB/s, registered %.1f GB/s, both %.1f GB/s (%ld registered, %ld staged chunks)\n",
               shared ? "MAP_SHARED " : "MAP_PRIVATE", chunk >> 20, n / ts / 1e9, n / tr / 1e9, n / th / 1e9,
               reg_chunks.load(), stage_chunks.load());
        fflush(stdout);
        if (!shared) break;
      }
      for (int i = 0; i < 4; ++i) { cudaFree(dbuf[i]); cudaStreamDestroy(st[i]); }
      for (int i = 0; i < 2; ++i) { cudaFreeHost(hbuf[i]); cudaEventDestroy(ev[i]); }
    }
    munmap(p, n);
  }
}
