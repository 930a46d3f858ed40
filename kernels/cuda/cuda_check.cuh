#pragma once
// Launch checks for the CUDA backend's kernels, on the runtime error check of kernels/cuda_util.h:
// every runtime call and launch goes through them so that a failure names what was being done.
#include <cuda_runtime.h>

#include "kernels/cuda_util.h"

namespace splat::kernels::cuda {

// Checks the launch configuration of the kernel launched just before (does not synchronise).
inline void check_launch(const char* kernel_name) { check(cudaGetLastError(), kernel_name); }

// Grid size for grid-stride loops over n items: one thread per item up to 65536 blocks (plenty to
// fill the GPU), at least one block so that empty launches stay valid.
inline unsigned stride_blocks(long long n, int threads) {
  const long long b = (n + threads - 1) / threads;
  return static_cast<unsigned>(b < 1 ? 1 : (b > 65536 ? 65536 : b));
}

// The blocks of `threads` threads of `kernel` (no dynamic shared memory) that device `device` runs at
// once: its SMs times the kernel's occupancy. `what` names the kernel in an error.
template <class Kernel>
int blocks_at_once(int device, Kernel kernel, int threads, const char* what) {
  int sms = 0, per_sm = 0;
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "asking for the SM count");
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0), what);
  return sms * per_sm;
}

}  // namespace splat::kernels::cuda
