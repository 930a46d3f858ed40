#pragma once
// Small device values brought to the host without waiting for them: each queued copy lands in a slot
// of a pinned ring with an event behind it, and is read once the device has passed that event. The
// CUDA rasterizer plans its tile entries from the intersection counts of earlier calls this way
// (kernels/capacity_plan.h), and the multi-GPU exchange its transfer sizes from earlier steps' counts.
// On the CPU backend a queued copy is there at once.
#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/device_context.h"

namespace splat::kernels {

class HostCopies {
 public:
  static constexpr int kSlots = 16;     // copies in flight at most
  static constexpr int kMostValues = 64;  // int64 values per copy

  explicit HostCopies(const ComputeContext& where);
  ~HostCopies();
  HostCopies(const HostCopies&) = delete;
  HostCopies& operator=(const HostCopies&) = delete;

  // Queues the copy of `n` (<= kMostValues) int64 values at `device_values` (in `where`, on its
  // stream) and returns its number (0, 1, 2, ... in queue order). Where kSlots copies are still in
  // flight, first waits for the oldest: the host is then that many copies ahead of the device, which
  // still has them all to run, so the wait only stops the host from running further ahead.
  uint64_t queue(const int64_t* device_values, int n);

  // Whether copy `number` has landed (never waits).
  bool landed(uint64_t number);

  // Copy `number`'s values, waiting for them where they have not landed. `number` must be one of the
  // last kSlots queued. Waiting for the newest copy counts as a host wait (kernels/host_waits.h); for
  // an older one the device still has the later copies' work queued, so the wait leaves it busy.
  std::vector<int64_t> values(uint64_t number);

  uint64_t queued() const { return next_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  uint64_t next_ = 0;
};

}  // namespace splat::kernels
