#pragma once
// Which device each rank of a run computes on, for the GUI's GPU selector and the session:
// R ranks spread over the chosen CUDA devices in blocks (rank r on devices[r * D / R]: one rank per GPU
// when R = D, several ranks on a GPU when R > D), or R CPU ranks. The same blocks `splatlab train --gpus
// --ranks` uses over devices 0..N-1.
#include <optional>
#include <string>
#include <vector>

#include "kernels/device_context.h"
#include "kernels/stream.h"

namespace splat::transport {

struct RankPlan {
  kernels::Device device = kernels::Device::CPU;
  std::vector<int> cuda_devices;  // CUDA ordinals, in the order ranks take them (ignored for CPU ranks)
  int ranks = 1;

  // Throws std::invalid_argument naming the problem: no ranks, CUDA without devices, a device listed
  // twice or missing from this machine, fewer ranks than devices.
  void check() const;
  // Where rank `rank` computes.
  kernels::ComputeContext context(int rank) const;
  // "2 ranks on GPUs 0, 1", "1 rank on GPU 0", "2 CPU ranks": for messages.
  std::string describe() const;
};

// Where a plan's ranks compute once they run: each CUDA rank on a non-blocking stream of its own at its
// device's highest priority (kernels/stream.h), so that a viewer rendering on the same GPU (lowest
// priority) never holds a training kernel back; CPU ranks as the plan says. Owns the streams: it
// outlives everything made on these contexts (the ranks' trainers and communicators).
class RankStreams {
 public:
  explicit RankStreams(const RankPlan& plan);
  // plan.context(rank) on its rank's own stream.
  kernels::ComputeContext context(int rank) const { return contexts_.at(static_cast<size_t>(rank)); }

 private:
  std::vector<std::optional<kernels::PriorityStream>> streams_;
  std::vector<kernels::ComputeContext> contexts_;
};

}  // namespace splat::transport
