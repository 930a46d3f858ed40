#pragma once
// Device counts brought to the host without waiting for them: each count is copied into a slot of a
// pinned ring with an event behind it, and arrives once the device has passed that event. The
// rasterizer plans its capacities from counts that arrived (kernels/capacity_plan.h).
#include <cuda_runtime.h>

#include <array>
#include <cstdint>
#include <vector>

namespace splat::kernels::cuda {

class CountReadback {
 public:
  // What the caller knew when it queued a count (returned with the count).
  struct Tag {
    int64_t pairs = 0, capacity = 0;
  };
  struct Arrived {
    Tag tag;
    int64_t count = 0;
  };
  static constexpr int kSlots = 16;

  explicit CountReadback(int ordinal);  // with `ordinal` current
  ~CountReadback();
  CountReadback(const CountReadback&) = delete;
  CountReadback& operator=(const CountReadback&) = delete;

  // Queues the copy of *device_count on `stream`. Where all slots are still in flight, first waits for
  // the oldest: the host is then kSlots calls ahead of the device, which still has them all to run, so
  // the wait only stops the host from running further ahead (it leaves the device busy).
  void queue(const int64_t* device_count, Tag tag, cudaStream_t stream);

  // The counts that have arrived since the last call, oldest first; with `wait`, all queued ones
  // (waiting for the stream: a host wait).
  std::vector<Arrived> take(bool wait);

 private:
  bool arrived(int slot, bool wait);

  int64_t* host_ = nullptr;  // pinned, kSlots counts
  std::array<cudaEvent_t, kSlots> events_{};
  std::array<Tag, kSlots> tags_{};
  int oldest_ = 0, queued_ = 0;
  std::vector<Arrived> ready_;  // waited for by the throttle, not yet taken
};

}  // namespace splat::kernels::cuda
