#include "kernels/cuda_util.h"

#include <stdexcept>
#include <string>

#include "kernels/buffer.h"

namespace splat::kernels::cuda {

void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  const std::string msg = std::string("CUDA: ") + what + ": " + cudaGetErrorString(e);
  // The runtime also keeps a failure as its last error, which the next launch check reads
  // (check_launch): cleared here, that check names its own kernel's failure and not this call's. A
  // sticky error (a fault in a kernel) stays whatever is cleared. Allocation failures are not
  // sticky, so the caller may retry smaller.
  cudaGetLastError();
  if (e == cudaErrorMemoryAllocation) {
    size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    throw OutOfMemory(msg + " (" + std::to_string(free_b >> 20) + " MiB free of " + std::to_string(total_b >> 20) +
                      " MiB)");
  }
  throw std::runtime_error(msg);
}

}  // namespace splat::kernels::cuda
