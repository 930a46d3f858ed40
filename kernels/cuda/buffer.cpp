#include "kernels/buffer.h"

#include <cuda_runtime.h>

#include <cstdlib>
#include <cstring>

namespace splat::kernels {
namespace {
void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
std::string mib(size_t bytes) { return std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB"; }
}  // namespace

void* device_alloc(Device d, size_t bytes) {
  if (d == Device::CPU) {
    // 64-byte alignment so that vectorised CPU loops and pinned-style copies behave.
    void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!p) throw OutOfMemory("out of host memory: could not allocate " + mib(bytes));
    return p;
  }
  void* p = nullptr;
  const cudaError_t e = cudaMalloc(&p, bytes);
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();
    size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    throw OutOfMemory("out of GPU memory: could not allocate " + mib(bytes) + " (" + mib(free_b) + " free of " +
                      mib(total_b) + ")");
  }
  check(e, "cudaMalloc");
  return p;
}

void device_free(Device d, void* p) {
  if (d == Device::CPU)
    std::free(p);
  else
    cudaFree(p);  // errors here (e.g. a lost device) must not throw from destructors
}

void copy_bytes(void* dst, Device dst_dev, const void* src, Device src_dev, size_t bytes) {
  if (dst_dev == Device::CPU && src_dev == Device::CPU) {
    std::memcpy(dst, src, bytes);
    return;
  }
  check(cudaMemcpy(dst, src, bytes, cudaMemcpyDefault), "cudaMemcpy");
}

void zero_bytes(Device d, void* p, size_t bytes) {
  if (d == Device::CPU)
    std::memset(p, 0, bytes);
  else
    check(cudaMemset(p, 0, bytes), "cudaMemset");
}

}  // namespace splat::kernels
