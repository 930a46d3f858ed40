// Buffer's allocation and copies for both backends (this file sees the CUDA runtime).
#include "kernels/buffer.h"

#include <cuda_runtime.h>

#include <cstdlib>
#include <cstring>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda_util.h"
#include "kernels/host_waits.h"

namespace splat::kernels {
namespace {

std::string mib(size_t bytes) { return std::to_string((bytes + (1 << 20) - 1) >> 20) + " MiB"; }
std::string on_device(const ComputeContext& c) { return "CUDA device " + std::to_string(c.ordinal); }
cudaStream_t stream_of(const ComputeContext& c) { return static_cast<cudaStream_t>(c.stream); }
// cuda::check naming the device; the message is built only on failure (copies run every step).
void check_on(cudaError_t e, const char* what, const ComputeContext& c) {
  if (e != cudaSuccess) cuda::check(e, (what + on_device(c)).c_str());
}

// The one host copy: counted, then a memcpy on the CPU backend, or enqueued on the CUDA stream and
// waited for.
void host_copy(void* dst, const void* src, size_t bytes, const ComputeContext& device, bool to_host,
               const char* wait) {
  if (bytes == 0) return;
  note_host_wait(wait);
  if (device.device == Device::CPU) {
    std::memcpy(dst, src, bytes);
    return;
  }
  const char* what = to_host ? "copying to the host from " : "copying from the host to ";
  cuda::DeviceScope scope(device.ordinal);
  check_on(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream_of(device)), what, device);
  check_on(cudaStreamSynchronize(stream_of(device)), what, device);
}

}  // namespace

void* device_alloc(const ComputeContext& where, size_t bytes) {
  if (where.device == Device::CPU) {
    // 64-byte alignment so that vectorised CPU loops and pinned-style copies behave.
    void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!p) throw OutOfMemory("out of host memory: could not allocate " + mib(bytes));
    return p;
  }
  cuda::DeviceScope scope(where.ordinal);
  void* p = nullptr;
  const cudaError_t e = cudaMalloc(&p, bytes);
  if (e != cudaSuccess) check_on(e, ("allocating " + mib(bytes) + " on ").c_str(), where);
  return p;
}

void device_free(const ComputeContext& where, void* p) {
  if (where.device == Device::CPU) {
    std::free(p);
    return;
  }
  if (!p) return;
  // cudaFree waits for the device to finish with the memory; it is counted. Buffers growing on a
  // stream of their own do not come here (device_regrow).
  note_host_wait("freeing device memory");
  // Errors here (e.g. a lost device) must not throw from destructors.
  const cuda::DeviceScope scope(where.ordinal, std::nothrow);
  if (scope.ok()) cudaFree(p);
}

void* device_regrow(const ComputeContext& where, void* old, size_t bytes) {
  if (where.device == Device::CPU || !where.stream) {
    device_free(where, old);
    return device_alloc(where, bytes);
  }
  cuda::DeviceScope scope(where.ordinal);
  const cudaStream_t stream = stream_of(where);
  // Given back first, so that the pool may hand the same memory to the new block in stream order.
  if (old) check_on(cudaFreeAsync(old, stream), "giving back a buffer's memory on ", where);
  void* p = nullptr;
  const cudaError_t e = cudaMallocAsync(&p, bytes, stream);
  if (e != cudaSuccess) check_on(e, ("allocating " + mib(bytes) + " on ").c_str(), where);
  return p;  // device_free's cudaFree takes pool memory too
}

void copy_to_host(void* host, const void* src, const ComputeContext& from, size_t bytes, const char* what) {
  host_copy(host, src, bytes, from, true, what);
}

void copy_from_host(void* dst, const ComputeContext& to, const void* host, size_t bytes, const char* what) {
  host_copy(dst, host, bytes, to, false, what);
}

void copy_bytes(void* dst, const ComputeContext& to, const void* src, const ComputeContext& from, size_t bytes) {
  if (bytes == 0) return;
  const bool host_dst = to.device == Device::CPU, host_src = from.device == Device::CPU;
  if (host_dst && host_src) {
    std::memcpy(dst, src, bytes);
    return;
  }
  if (host_dst) return copy_to_host(dst, src, from, bytes);
  if (host_src) return copy_from_host(dst, to, src, bytes);
  cuda::DeviceScope scope(to.ordinal);
  if (to == from) {  // one stream: stream order is all the caller needs
    check_on(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, stream_of(to)), "copying on ", to);
    return;
  }
  note_host_wait("a copy between CUDA streams or devices");
  const std::string what = "copying from " + on_device(from) + " to " + on_device(to);
  {
    cuda::DeviceScope source(from.ordinal);
    cuda::check(cudaStreamSynchronize(stream_of(from)), what.c_str());
  }
  cuda::check(cudaMemcpyPeerAsync(dst, to.ordinal, src, from.ordinal, bytes, stream_of(to)), what.c_str());
  cuda::check(cudaStreamSynchronize(stream_of(to)), what.c_str());
}

void zero_bytes(const ComputeContext& where, void* p, size_t bytes) {
  if (where.device == Device::CPU) {
    std::memset(p, 0, bytes);
    return;
  }
  cuda::DeviceScope scope(where.ordinal);
  check_on(cudaMemsetAsync(p, 0, bytes, stream_of(where)), "zeroing on ", where);
}

}  // namespace splat::kernels
