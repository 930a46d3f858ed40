#pragma once
// A typed, owning array on the CPU or on one CUDA device, tied to one ComputeContext
// (kernels/device_context.h: backend, device ordinal, stream). The trainer, the viewer and the
// tests hold parameters, gradients and images in these, so the same code path serves both
// backends; changing precision later means changing T, not the call sites.
//
// Ordering on CUDA: a buffer's allocation, zeroing and copies run on its context's device and
// stream, so they are ordered with the kernels that rank enqueues on that stream and with nothing
// else: work on another stream that touches the buffer must be synchronised by its caller.
#include <algorithm>
#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kernels/device_context.h"

namespace splat::kernels {

// Thrown when an allocation fails; the message says how much was asked on which device.
class OutOfMemory : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

void* device_alloc(const ComputeContext& where, size_t bytes);
void device_free(const ComputeContext& where, void* p);
// `bytes` in place of `old` (contents not kept). On a CUDA stream of its own (not the legacy default
// stream) both go through the device's stream-ordered pool in that stream's order: the old block is
// given back once the stream's work before it has run, with no wait for the whole device as
// cudaFree makes. Work on another stream that touched the old block must already be ordered before
// the stream (as Buffer's ordering rule asks of it, and as the exchanges do). Otherwise it is
// device_free then device_alloc.
void* device_regrow(const ComputeContext& where, void* old, size_t bytes);

// Copies between the host and the memory of `device`: the places where host code hands a device its
// input or reads what it computed. On CUDA the copy is enqueued on the device's stream and then
// waits for that stream (when it returns the copy is done, and the host side may be pageable memory
// that the caller reuses), so it also waits for every kernel enqueued before it. On the CPU backend it
// is a memcpy. Both backends count it as a host wait (kernels/host_waits.h): a CPU test sees the
// waits a GPU run would make; `what` (a string literal) names the wait there.
void copy_to_host(void* host, const void* src, const ComputeContext& from, size_t bytes,
                  const char* what = "a copy to the host");
void copy_from_host(void* dst, const ComputeContext& to, const void* host, size_t bytes,
                    const char* what = "a copy from the host");

// Copies `bytes` from src (living in `from`) to dst (living in `to`).
//   host <-> host:   memcpy, not counted: on the CPU backend it is also the copy between two
//                    buffers that CUDA makes on the device; reading a buffer on the host goes
//                    through copy_to_host, which counts.
//   host <-> CUDA:   copy_to_host or copy_from_host (a counted wait).
//   CUDA -> CUDA, same device and stream: enqueued and not waited for (as cudaMemcpy between device
//                    buffers never waited either): stream order alone guarantees that later work on
//                    that stream sees the copy, and callers only use the result on that stream.
//   CUDA -> CUDA otherwise (another stream or another device): waits for the source's stream (its
//                    pending writes), copies on the destination's stream (a peer copy between
//                    devices) and waits for it, so that neither side needs to know the other's
//                    stream (a counted wait).
void copy_bytes(void* dst, const ComputeContext& to, const void* src, const ComputeContext& from, size_t bytes);
// Zeroes `bytes` at p: on CUDA enqueued on the context's stream, not waited for.
void zero_bytes(const ComputeContext& where, void* p, size_t bytes);

template <class T>
class Buffer {
 public:
  Buffer() = default;
  // `where` may be a plain Device (ordinal 0, default stream).
  explicit Buffer(const ComputeContext& where, size_t n = 0) : where_(where) { resize(n); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  Buffer(Buffer&& o) noexcept { swap(o); }
  Buffer& operator=(Buffer&& o) noexcept {
    Buffer tmp(std::move(o));
    swap(tmp);
    return *this;
  }
  ~Buffer() { release(); }

  Device device() const { return where_.device; }
  const ComputeContext& context() const { return where_; }
  size_t size() const { return n_; }
  size_t bytes() const { return n_ * sizeof(T); }
  T* data() { return ptr_; }
  const T* data() const { return ptr_; }

  // Sets the size; contents are not kept. The allocation is kept while it is large enough and
  // grows by at least an eighth when it is not, so that buffers resized every few steps (the
  // model's columns under densification) stop paying for an allocation each time, while the
  // spare capacity, which is memory per Gaussian, stays below 12.5 % (a model that grows 10x
  // reallocates a column about 20 times). Growing goes through device_regrow: a refinement that
  // grows the model's columns makes no wait for the whole device (bench/TRAINING.md, "The model's
  // columns grow in stream order").
  size_t capacity() const { return capacity_; }
  void resize(size_t n) {
    if (n > capacity_) {
      const size_t grown = std::max(n, capacity_ + capacity_ / 8);
      T* old = ptr_;
      ptr_ = nullptr;
      n_ = capacity_ = 0;
      ptr_ = static_cast<T*>(device_regrow(where_, old, grown * sizeof(T)));
      capacity_ = grown;
    }
    n_ = n;
  }
  void zero() {
    if (n_) zero_bytes(where_, ptr_, bytes());
  }
  void upload(std::span<const T> host) {
    resize(host.size());
    copy_from_host(ptr_, where_, host.data(), bytes());
  }
  std::vector<T> download() const {
    std::vector<T> h(n_);
    copy_to_host(h.data(), ptr_, where_, bytes());
    return h;
  }

 private:
  void release() {
    if (ptr_) device_free(where_, ptr_);
    ptr_ = nullptr;
    n_ = capacity_ = 0;
  }
  void swap(Buffer& o) noexcept {
    std::swap(where_, o.where_);
    std::swap(ptr_, o.ptr_);
    std::swap(n_, o.n_);
    std::swap(capacity_, o.capacity_);
  }
  ComputeContext where_;
  T* ptr_ = nullptr;
  size_t n_ = 0;
  size_t capacity_ = 0;
};

}  // namespace splat::kernels
