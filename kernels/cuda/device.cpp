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

bool can_access_peer(int from, int to) {
  int can = 0;
  if (from == to || cudaDeviceCanAccessPeer(&can, from, to) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return can != 0;
}

bool enable_peer_access(int from, int to) {
  if (!can_access_peer(from, to)) return false;
  int current = 0;
  cuda::check(cudaGetDevice(&current), "finding the current CUDA device");
  cuda::check(cudaSetDevice(from), ("making CUDA device " + std::to_string(from) + " current").c_str());
  const cudaError_t e = cudaDeviceEnablePeerAccess(to, 0);
  cudaSetDevice(current);
  const std::string what = "letting CUDA device " + std::to_string(from) + " reach device " + std::to_string(to);
  if (e == cudaErrorPeerAccessAlreadyEnabled) cudaGetLastError();
  else
    cuda::check(e, what.c_str());
  // Memory from the stream-ordered pool (cudaMallocAsync: the rasterizer's workspace, which holds the
  // projected pairs) is not covered by peer access: its pool grants it separately.
  cudaMemPool_t pool;
  cuda::check(cudaDeviceGetDefaultMemPool(&pool, to), what.c_str());
  cudaMemAccessDesc access{};
  access.location.type = cudaMemLocationTypeDevice;
  access.location.id = from;
  access.flags = cudaMemAccessFlagsProtReadWrite;
  cuda::check(cudaMemPoolSetAccess(pool, &access, 1), what.c_str());
  return true;
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
