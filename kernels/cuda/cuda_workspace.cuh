#pragma once
// A caching device allocator for per-call scratch: each named slot keeps one device block that
// grows (by 25 % headroom, so slowly growing Gaussian counts do not reallocate every step). Blocks
// come from the device's stream-ordered pool (cudaMallocAsync / cudaFreeAsync on the owner's
// stream): growing or giving back a block is ordered after the work that used it, with no host
// wait, so a model that grows (densification) does not stall the steps that follow. trim() bounds
// the high-water mark: a block much larger than what its slot has recently needed is given back.
#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

namespace splat::kernels::cuda {

class CudaWorkspace {
 public:
  // The blocks live on CUDA device `ordinal` and are used on `stream` only; get()/bytes() are called
  // with the device current (inside the owner's DeviceScope), the destructor makes it current itself.
  explicit CudaWorkspace(int ordinal = 0, cudaStream_t stream = nullptr) : ordinal_(ordinal), stream_(stream) {}
  CudaWorkspace(const CudaWorkspace&) = delete;
  CudaWorkspace& operator=(const CudaWorkspace&) = delete;
  ~CudaWorkspace();

  // Device memory for `count` elements of T in slot `slot`; contents are undefined after growth
  // and otherwise whatever the previous user of the slot left there.
  template <class T>
  T* get(int slot, size_t count) {
    return static_cast<T*>(bytes(slot, count * sizeof(T)));
  }
  void* bytes(int slot, size_t n);

  // Called where nothing kept in the workspace is needed any more (the start of a forward). Every
  // kTrimWindow calls, each block larger than twice the largest request its slot served in that
  // window (plus 1 MiB) is freed; the next request allocates it anew with headroom. So a close-up
  // view or a densification burst does not keep its memory for the rest of the run, and a slot
  // whose need swings by less than 2x is never reallocated.
  static constexpr int kTrimWindow = 100;
  void trim();

  // Bytes currently held over all slots, and the largest that total has been.
  size_t held_bytes() const { return held_; }
  size_t peak_bytes() const { return peak_; }

 private:
  struct Block {
    void* ptr = nullptr;
    size_t capacity = 0;
    size_t window_need = 0;  // largest request since the last trim window ended
  };
  int ordinal_;
  cudaStream_t stream_;
  int trim_calls_ = 0;
  std::vector<Block> blocks_;
  size_t held_ = 0;
  size_t peak_ = 0;
};

}  // namespace splat::kernels::cuda
