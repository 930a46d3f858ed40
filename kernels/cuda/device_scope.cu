#include "kernels/cuda_util.h"

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/device.h"

namespace splat::kernels::cuda {

cudaError_t DeviceScope::enter(int ordinal) noexcept {
  if (ordinal < 0) return cudaErrorInvalidDevice;
  int current = -1;
  if (cudaGetDevice(&current) == cudaSuccess && current == ordinal) return cudaSuccess;
  const cudaError_t e = cudaSetDevice(ordinal);
  if (e != cudaSuccess) {
    cudaGetLastError();  // not sticky: clear it so that later calls start clean
    return e;
  }
  previous_ = current;  // -1 when cudaGetDevice failed: nothing to go back to
  return cudaSuccess;
}

DeviceScope::DeviceScope(int ordinal) {
  const cudaError_t e = enter(ordinal);
  if (e == cudaSuccess) return;
  const int count = cuda_device_count();
  if (ordinal < 0 || ordinal >= count)
    throw std::invalid_argument("CUDA device " + std::to_string(ordinal) + " does not exist: " +
                                (count == 0 ? std::string("no CUDA device is available")
                                            : std::to_string(count) + " CUDA device" + (count == 1 ? "" : "s") +
                                                  " (ordinals 0.." + std::to_string(count - 1) + ")"));
  check(e, ("making CUDA device " + std::to_string(ordinal) + " current").c_str());
}

DeviceScope::DeviceScope(int ordinal, std::nothrow_t) noexcept : ok_(enter(ordinal) == cudaSuccess) {}

DeviceScope::~DeviceScope() {
  if (previous_ >= 0) cudaSetDevice(previous_);  // it was current a moment ago; nothing useful to report
}

}  // namespace splat::kernels::cuda
