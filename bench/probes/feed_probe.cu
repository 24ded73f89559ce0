// Probe of the host-to-GPU feed from a page-cache file (issue 12): pinning a mapped file in
// place (cudaHostRegister, read-only) against copying it into pinned staging with all cores.
// Its finding (2026-11-26, H200 machines): pinning is fast only for MAP_SHARED mappings on
// some hosts (54-66 GB/s once, 16-28 GB/s on another), 2 GB/s for the MAP_PRIVATE mapping the
// CLI makes, against 37 GB/s for staging on all cores; so the pipelines keep staging.
// Not part of the build: on the GPU machine (or here, then carried)
//   nvcc -O2 -std=c++17 -arch=sm_90 -cudart static -o feed_probe bench/probes/feed_probe.cu
//   ./feed_probe FILE      (a file of several GiB, read once first so it is in the page cache)
#include <cuda_runtime.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); return 1; } } while (0)
using C = std::chrono::steady_clock;
static double ms(C::time_point a) { return std::chrono::duration<double, std::milli>(C::now() - a).count(); }
int main(int argc, char** argv) {
  int fd = open(argv[1], O_RDONLY);
  struct stat st; fstat(fd, &st);
  size_t n = st.st_size;
  auto* p = (unsigned char*)mmap(nullptr, n, PROT_READ, MAP_SHARED, fd, 0);
  madvise(p, n, MADV_SEQUENTIAL);
  unsigned long sum = 0;
  auto t0 = C::now();
  for (size_t i = 0; i < n; i += 4096) sum += p[i];  // fault the mapping in (page cache)
  printf("touch %zu MiB: %.1f ms (sum %lu)\n", n >> 20, ms(t0), sum);
  CK(cudaFree(0));
  unsigned char* d; CK(cudaMalloc(&d, size_t(1) << 30));
  cudaStream_t s[2]; CK(cudaStreamCreate(&s[0])); CK(cudaStreamCreate(&s[1]));
  for (size_t chunk : {size_t(64) << 20, size_t(256) << 20, size_t(1) << 30}) {
    for (unsigned flags : {unsigned(cudaHostRegisterReadOnly), unsigned(cudaHostRegisterDefault)}) {
      double reg = 0, cp = 0, unreg = 0;
      size_t done = 0;
      auto all = C::now();
      for (size_t off = 0; off + chunk <= n; off += chunk) {
        auto a = C::now();
        cudaError_t e = cudaHostRegister(p + off, chunk, flags);
        if (e != cudaSuccess) { printf("register failed: %s\n", cudaGetErrorString(e)); cudaGetLastError(); break; }
        reg += ms(a); a = C::now();
        CK(cudaMemcpyAsync(d, p + off, chunk, cudaMemcpyHostToDevice, s[0])); CK(cudaStreamSynchronize(s[0]));
        cp += ms(a); a = C::now();
        CK(cudaHostUnregister(p + off));
        unreg += ms(a);
        done += chunk;
      }
      double w = ms(all);
      printf("chunk %4zu MiB flags %u: register %.2f GB/s, copy %.2f GB/s, unregister %.2f GB/s, serial total %.2f GB/s\n",
             chunk >> 20, flags, done / reg / 1e6, done / cp / 1e6, done / unreg / 1e6, done / w / 1e6);
    }
    // Pipelined: register chunk i+1 (host) while chunk i copies.
    {
      size_t done = 0; auto all = C::now();
      size_t chunks = n / chunk;
      CK(cudaHostRegister(p, chunk, cudaHostRegisterReadOnly));
      for (size_t i = 0; i < chunks; ++i) {
        CK(cudaMemcpyAsync(d, p + i * chunk, chunk, cudaMemcpyHostToDevice, s[i & 1]));
        if (i + 1 < chunks) CK(cudaHostRegister(p + (i + 1) * chunk, chunk, cudaHostRegisterReadOnly));
        CK(cudaStreamSynchronize(s[i & 1]));
        CK(cudaHostUnregister(p + i * chunk));
        done += chunk;
      }
      printf("chunk %4zu MiB pipelined register+copy: %.2f GB/s\n", chunk >> 20, done / ms(all) / 1e6);
    }
  }
  // Staged: 16 threads copy into pinned buffers, then DMA (what the pipeline does today).
  {
    size_t chunk = size_t(256) << 20;
    unsigned char* h[2]; CK(cudaMallocHost(&h[0], chunk)); CK(cudaMallocHost(&h[1], chunk));
    int T = std::thread::hardware_concurrency();
    auto all = C::now(); size_t done = 0; double copyms = 0;
    for (size_t i = 0; i * chunk + chunk <= n; ++i) {
      CK(cudaStreamSynchronize(s[i & 1]));
      auto a = C::now();
      std::vector<std::thread> th;
      for (int t = 0; t < T; ++t) th.emplace_back([&, t] { size_t b = chunk * t / T, e = chunk * (t + 1) / T; memcpy(h[i & 1] + b, p + i * chunk + b, e - b); });
      for (auto& x : th) x.join();
      copyms += ms(a);
      CK(cudaMemcpyAsync(d, h[i & 1], chunk, cudaMemcpyHostToDevice, s[i & 1]));
      done += chunk;
    }
    CK(cudaDeviceSynchronize());
    printf("staged (%d threads memcpy + DMA, 2 x 256 MiB): host copy %.2f GB/s, total %.2f GB/s\n", T, done / copyms / 1e6, done / ms(all) / 1e6);
  }
  // Pinned-to-device ceiling.
  {
    unsigned char* h; size_t c = size_t(1) << 30; CK(cudaMallocHost(&h, c)); memset(h, 1, c);
    auto a = C::now(); for (int r = 0; r < 4; ++r) CK(cudaMemcpy(d, h, c, cudaMemcpyHostToDevice));
    printf("pinned H2D ceiling: %.2f GB/s\n", 4.0 * c / ms(a) / 1e6);
  }
  return 0;
}
