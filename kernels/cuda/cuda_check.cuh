#pragma once
// Error checking for the CUDA backend: every runtime call and launch goes through these so that a
// failure names what was being done; running out of memory becomes kernels::OutOfMemory (so the
// trainer can tell "too many Gaussians" apart from a bug).
#include <cuda_runtime.h>

namespace splat::kernels::cuda {

// Throws OutOfMemory for cudaErrorMemoryAllocation, std::runtime_error otherwise ("<what>: <cuda message>").
void check(cudaError_t e, const char* what);

// Checks the launch configuration of the kernel launched just before (does not synchronise).
inline void check_launch(const char* kernel_name) { check(cudaGetLastError(), kernel_name); }

// Grid size for grid-stride loops over n items: one thread per item up to 65536 blocks (plenty to
// fill the GPU), at least one block so that empty launches stay valid.
inline unsigned stride_blocks(long long n, int threads) {
  const long long b = (n + threads - 1) / threads;
  return static_cast<unsigned>(b < 1 ? 1 : (b > 65536 ? 65536 : b));
}

}  // namespace splat::kernels::cuda
