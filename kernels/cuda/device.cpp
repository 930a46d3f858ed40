#include "kernels/device.h"

#include <cuda_runtime.h>

namespace splat::kernels {

int cuda_device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no driver" error so later queries start clean
    return 0;
  }
  return n;
}

}  // namespace splat::kernels
