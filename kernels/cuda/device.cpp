#include "kernels/device.h"

#include <cuda_runtime.h>

#include <string>

#include "kernels/cuda/cuda_check.cuh"

namespace splat::kernels {

int cuda_device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no driver" error so later queries start clean
    return 0;
  }
  return n;
}

void use_cuda_device(int ordinal) {
  cuda::check(cudaSetDevice(ordinal), ("making CUDA device " + std::to_string(ordinal) + " current").c_str());
}

std::optional<DeviceMemory> device_memory(int device) {
  if (device < 0 || device >= cuda_device_count()) return std::nullopt;
  int current = 0;
  if (cudaGetDevice(&current) != cudaSuccess) {
    cudaGetLastError();
    return std::nullopt;
  }
  // cudaMemGetInfo answers for the current device only; switching is per host thread, so the
  // trainer's thread keeps its own device meanwhile.
  size_t free_b = 0, total_b = 0;
  const bool ok = cudaSetDevice(device) == cudaSuccess && cudaMemGetInfo(&free_b, &total_b) == cudaSuccess;
  if (!ok) cudaGetLastError();
  cudaSetDevice(current);
  if (!ok) return std::nullopt;
  return DeviceMemory{total_b - free_b, total_b};
}

}  // namespace splat::kernels
