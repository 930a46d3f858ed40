#pragma once
// SPLAT_HD marks math that compiles for both the CPU reference and CUDA kernels, so that
// both backends evaluate literally the same function.
#if defined(__CUDACC__)
#define SPLAT_HD __host__ __device__ __forceinline__
#else
#define SPLAT_HD inline
#endif
// SPLAT_UNROLL asks the CUDA compiler to unroll the loop that follows (a small fixed trip count whose
// per-iteration values should stay in registers); host compilers ignore it.
#if defined(__CUDA_ARCH__)
#define SPLAT_UNROLL _Pragma("unroll")
#else
#define SPLAT_UNROLL
#endif
