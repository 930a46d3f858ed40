#pragma once
// Makes one CUDA device current on the calling thread for a scope (see kernels/device_context.h):
// every CUDA entry point opens one for its context's ordinal, so a backend object or buffer works
// whichever device the calling thread had current, and leaves that device current afterwards
// (the GUI thread's viewer, or another rank's objects driven from the same thread, rely on it).
// When the ordinal is already current (one GPU, or a rank thread on its own device) this costs one
// cudaGetDevice, a thread-local read.
#include <cuda_runtime.h>

#include <new>

namespace splat::kernels::cuda {

class DeviceScope {
 public:
  // Throws std::invalid_argument naming the ordinal (and how many devices exist) when there is no
  // such device; other failures go through check() (cuda_check.cuh).
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
