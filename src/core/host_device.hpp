// WARPMATCH_HD: a function written once for the device and the host (kernels' per-thread
// logic that the CPU backend and the emulation tests also run). Backend-neutral: without nvcc
// it is plain `inline`, so src/core and src/cpu can use such functions.
// WARPMATCH_HD_INLINE: the same, always inlined on the host too (the host half of nvcc's
// __forceinline__), for inner-loop steps that must vanish into the loop that calls them,
// also into SIMD loops compiled for another target (approx_set_cpu.cpp).
#pragma once

#if defined(__CUDACC__)
#define WARPMATCH_HD __host__ __device__ __forceinline__
#define WARPMATCH_HD_INLINE __host__ __device__ __forceinline__
#else
#define WARPMATCH_HD inline
#define WARPMATCH_HD_INLINE inline __attribute__((always_inline))
#endif
