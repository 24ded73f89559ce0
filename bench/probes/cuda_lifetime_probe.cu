// Probe of a CUDA process's fixed costs (issue 12, job 3): what CUDA's start-up costs in the
// process, and what its end costs outside it (the wall a user sees after `_Exit`), by what the
// process holds when it ends. Each mode is one process; cuda_lifetime_probe.sh times them.
//   modes: none      links CUDA, never calls it
//          init      cuInit only
//          ctx       the primary context (cudaFree(0))
//          alloc     + 1 GiB of device memory and a 64 MiB pinned ring (what the CLI holds)
//          reset     alloc, then cudaDeviceReset() in the process, timed, before _Exit
//          release   alloc, then frees both and cudaDeviceReset on another thread while the main
//                    thread sleeps 200 ms (a teardown overlapped with other work)
//          hold-init init, and hold-alloc alloc, with a teardown holder: before cuInit, a helper
//                    process that shares the address space and the file table (clone with
//                    CLONE_VM | CLONE_FILES) and waits for this one to end; this process closes
//                    its standard streams and _Exits, so the last references to CUDA's files and
//                    mappings, and their release, are the helper's, after this one has ended
// Not part of the build: on the GPU machine
//   nvcc -O2 -std=c++17 -arch=sm_90 -o cuda_lifetime_probe bench/probes/cuda_lifetime_probe.cu \
//        cli/process_end.cpp -lcuda
#include <unistd.h>
#include <cuda.h>
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "../../cli/process_end.hpp"  // the CLI's own release helper, compiled in by the .sh
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); std::_Exit(1); } } while (0)
using C = std::chrono::steady_clock;
static double ms(C::time_point a) { return std::chrono::duration<double, std::milli>(C::now() - a).count(); }
int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "ctx";
  auto t = C::now();
  if (!std::strcmp(mode, "none")) { std::printf("none\n"); std::fflush(stdout); std::_Exit(0); }
  const bool hold = !std::strncmp(mode, "hold-", 5);
  if (hold) {
    if (warpmatch::cli::start_release_helper() < 0) std::printf("no helper ");
    mode += 5;
  }
  auto end = [&](int status) {
    std::fflush(stdout);
    if (hold) { close(0); close(1); close(2); }
    std::_Exit(status);
  };
  if (cuInit(0) != CUDA_SUCCESS) { std::printf("cuInit failed\n"); std::_Exit(1); }
  std::printf("cuInit %.1f ms", ms(t));
  if (!std::strcmp(mode, "init")) { std::printf("\n"); end(0); }
  t = C::now();
  CK(cudaFree(0));
  std::printf(" ctx %.1f ms", ms(t));
  void* d = nullptr;
  void* h = nullptr;
  if (std::strcmp(mode, "ctx")) {
    t = C::now();
    CK(cudaMalloc(&d, std::size_t{1} << 30));
    CK(cudaMallocHost(&h, std::size_t{64} << 20));
    std::memset(h, 1, std::size_t{64} << 20);
    CK(cudaMemcpy(d, h, std::size_t{64} << 20, cudaMemcpyHostToDevice));
    std::printf(" alloc %.1f ms", ms(t));
  }
  if (!std::strcmp(mode, "reset")) {
    t = C::now();
    CK(cudaFree(d));
    CK(cudaFreeHost(h));
    CK(cudaDeviceReset());
    std::printf(" reset %.1f ms", ms(t));
  }
  if (!std::strcmp(mode, "release")) {
    double took = 0;
    t = C::now();
    std::thread th([&] {
      auto t1 = C::now();
      cudaFree(d);
      cudaFreeHost(h);
      cudaDeviceReset();
      took = ms(t1);
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    th.join();
    std::printf(" release %.1f ms (overlapped; join after %.1f ms)", took, ms(t));
  }
  std::printf("\n");
  end(0);
}
