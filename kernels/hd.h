#pragma once
// SPLAT_HD marks math that compiles for both the CPU reference and CUDA kernels, so that
// both backends evaluate literally the same function.
#if defined(__CUDACC__)
#define SPLAT_HD __host__ __device__ __forceinline__
#else
#define SPLAT_HD inline
#endif
