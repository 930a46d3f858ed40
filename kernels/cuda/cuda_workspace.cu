#include "kernels/cuda/cuda_workspace.cuh"

#include <stdexcept>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda_util.h"

namespace splat::kernels::cuda {

CudaWorkspace::~CudaWorkspace() {
  if (blocks_.empty()) return;
  // No throwing from a destructor; a lost device is reported elsewhere.
  const DeviceScope scope(ordinal_, std::nothrow);
  if (!scope.ok()) return;
  for (Block& b : blocks_)
    if (b.ptr) cudaFree(b.ptr);
}

void* CudaWorkspace::bytes(int slot, size_t n) {
  if (slot < 0) throw std::invalid_argument("CudaWorkspace: negative slot");
  if (static_cast<size_t>(slot) >= blocks_.size()) blocks_.resize(slot + 1);
  Block& b = blocks_[slot];
  if (n > b.window_need) b.window_need = n;
  if (n <= b.capacity) return b.ptr;
  // Growth frees first so that the old block's memory is available to the new one; stream order
  // keeps the new block's users after the old one's.
  if (b.ptr) check(cudaFreeAsync(b.ptr, stream_), "freeing a workspace block");
  held_ -= b.capacity;
  b.ptr = nullptr;
  b.capacity = 0;
  const size_t want = (n + n / 4 + 255) / 256 * 256;
  check(cudaMallocAsync(&b.ptr, want, stream_), "allocating rasterizer workspace");
  b.capacity = want;
  held_ += want;
  if (held_ > peak_) peak_ = held_;
  return b.ptr;
}

void CudaWorkspace::trim() {
  if (++trim_calls_ < kTrimWindow) return;
  trim_calls_ = 0;
  constexpr size_t kSlack = size_t(1) << 20;
  for (Block& b : blocks_) {
    if (b.ptr && b.capacity > 2 * b.window_need + kSlack) {
      check(cudaFreeAsync(b.ptr, stream_), "freeing a workspace block");
      held_ -= b.capacity;
      b.ptr = nullptr;
      b.capacity = 0;
    }
    b.window_need = 0;
  }
}

}  // namespace splat::kernels::cuda
