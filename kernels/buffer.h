#pragma once
// A typed, owning array on the CPU or on the current CUDA device. The trainer, the viewer
// and the tests hold parameters, gradients and images in these, so the same code path
// serves both backends; changing precision later means changing T, not the call sites.
#include <algorithm>
#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kernels/rasterizer.h"

namespace splat::kernels {

// Thrown when an allocation fails; the message says how much was asked on which device.
class OutOfMemory : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

void* device_alloc(Device d, size_t bytes);
void device_free(Device d, void* p);
// Copies between any two devices (host<->CUDA, CUDA<->CUDA, host<->host); synchronous.
void copy_bytes(void* dst, Device dst_dev, const void* src, Device src_dev, size_t bytes);
void zero_bytes(Device d, void* p, size_t bytes);

template <class T>
class Buffer {
 public:
  Buffer() = default;
  explicit Buffer(Device d, size_t n = 0) : dev_(d) { resize(n); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  Buffer(Buffer&& o) noexcept { swap(o); }
  Buffer& operator=(Buffer&& o) noexcept {
    Buffer tmp(std::move(o));
    swap(tmp);
    return *this;
  }
  ~Buffer() { release(); }

  Device device() const { return dev_; }
  size_t size() const { return n_; }
  size_t bytes() const { return n_ * sizeof(T); }
  T* data() { return ptr_; }
  const T* data() const { return ptr_; }

  // Sets the size; contents are not kept. The allocation is kept while it is large enough and
  // grows by at least half when it is not, so that buffers resized every few steps (the model's
  // columns under densification) stop paying for cudaMalloc/cudaFree each time.
  size_t capacity() const { return capacity_; }
  void resize(size_t n) {
    if (n > capacity_) {
      const size_t grown = std::max(n, capacity_ + capacity_ / 2);
      release();
      ptr_ = static_cast<T*>(device_alloc(dev_, grown * sizeof(T)));
      capacity_ = grown;
    }
    n_ = n;
  }
  void zero() {
    if (n_) zero_bytes(dev_, ptr_, bytes());
  }
  void upload(std::span<const T> host) {
    resize(host.size());
    if (n_) copy_bytes(ptr_, dev_, host.data(), Device::CPU, bytes());
  }
  std::vector<T> download() const {
    std::vector<T> h(n_);
    if (n_) copy_bytes(h.data(), Device::CPU, ptr_, dev_, bytes());
    return h;
  }

 private:
  void release() {
    if (ptr_) device_free(dev_, ptr_);
    ptr_ = nullptr;
    n_ = capacity_ = 0;
  }
  void swap(Buffer& o) noexcept {
    std::swap(dev_, o.dev_);
    std::swap(ptr_, o.ptr_);
    std::swap(n_, o.n_);
    std::swap(capacity_, o.capacity_);
  }
  Device dev_ = Device::CPU;
  T* ptr_ = nullptr;
  size_t n_ = 0;
  size_t capacity_ = 0;
};

}  // namespace splat::kernels
