// WARPMATCH_HD: a function written once for the device and the host (kernels' per-thread
// logic that the tests also run on the CPU).
#pragma once

#if defined(__CUDACC__)
#define WARPMATCH_HD __host__ __device__ __forceinline__
#else
#define WARPMATCH_HD inline
#endif
