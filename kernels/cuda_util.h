#pragma once
// The CUDA runtime helpers that code outside kernels/ may use: the error check and the current
// device's scope. Host code that calls the CUDA runtime itself (rank copies, NCCL, the viewer's
// CUDA-GL interop) includes this header and nothing under kernels/cuda/, whose headers are the
// backend's own (docs/ARCHITECTURE.md "Layers").
#include <cuda_runtime.h>

#include <new>

namespace splat::kernels::cuda {

// Every runtime call goes through check() so that a failure names what was being done. Throws
// kernels::OutOfMemory for cudaErrorMemoryAllocation (so the trainer can tell "too many Gaussians"
// apart from a bug), std::runtime_error otherwise ("<what>: <cuda message>").
void check(cudaError_t e, const char* what);

// Makes one CUDA device current on the calling thread for a scope (see kernels/device_context.h):
// every CUDA entry point opens one for its context's ordinal, so a backend object or buffer works
// whichever device the calling thread had current, and leaves that device current afterwards
// (the GUI thread's viewer, or another rank's objects driven from the same thread, rely on it).
// When the ordinal is already current (one GPU, or a rank thread on its own device) this costs one
// cudaGetDevice, a thread-local read.
class DeviceScope {
 public:
  // Throws std::invalid_argument naming the ordinal (and how many devices exist) when there is no
  // such device; other failures go through check().
  explicit DeviceScope(int ordinal);
  // For destructors and release paths, which must not throw: ok() says whether the device is
  // current; when it is not (a lost device) the caller skips the release.
  DeviceScope(int ordinal, std::nothrow_t) noexcept;
  ~DeviceScope();
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

  bool ok() const { return ok_; }

 private:
  cudaError_t enter(int ordinal) noexcept;

  int previous_ = -1;  // -1: nothing to restore
  bool ok_ = true;
};

}  // namespace splat::kernels::cuda
