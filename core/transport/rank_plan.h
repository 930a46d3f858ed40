#pragma once
// Which device each rank of a run computes on, for the GUI's GPU selector and the session:
// R ranks spread over the chosen CUDA devices in blocks (rank r on devices[r * D / R]: one rank per GPU
// when R = D, several ranks on a GPU when R > D), or R CPU ranks. The same blocks `splatlab train --gpus
// --ranks` uses over devices 0..N-1.
#include <string>
#include <vector>

#include "kernels/device_context.h"

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

}  // namespace splat::transport
