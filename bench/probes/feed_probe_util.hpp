// What the GPU-feed probes share (populate_feed_probe.cu, pread_feed_probe.cu,
// staged_feed_probe.cu; each is built on its own with one nvcc command): a CUDA check that
// exits, seconds since a time point, a copy with non-temporal stores (as the pipelines'
// staging copies), and a function run on T fresh threads.
#pragma once
#include <cuda_runtime.h>
#include <immintrin.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)
using C = std::chrono::steady_clock;
static double sec(C::time_point a) { return std::chrono::duration<double>(C::now() - a).count(); }

__attribute__((target("avx2"))) static void nt_copy(unsigned char* d, const unsigned char* s, size_t n) {
  size_t i = 0;
  while (i < n && ((uintptr_t)(d + i) & 31)) { d[i] = s[i]; ++i; }
  for (; i + 128 <= n; i += 128) {
    __m256i a = _mm256_loadu_si256((const __m256i*)(s + i)), b = _mm256_loadu_si256((const __m256i*)(s + i + 32));
    __m256i c = _mm256_loadu_si256((const __m256i*)(s + i + 64)), e = _mm256_loadu_si256((const __m256i*)(s + i + 96));
    _mm256_stream_si256((__m256i*)(d + i), a); _mm256_stream_si256((__m256i*)(d + i + 32), b);
    _mm256_stream_si256((__m256i*)(d + i + 64), c); _mm256_stream_si256((__m256i*)(d + i + 96), e);
  }
  for (; i < n; ++i) d[i] = s[i];
  _mm_sfence();
}

template <class F> static void on_threads(int T, F f) {
  std::vector<std::thread> th;
  for (int k = 0; k < T; ++k) th.emplace_back(f, k);
  for (auto& t : th) t.join();
}
