#include "core/transport/rank_plan.h"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "kernels/device.h"

namespace splat::transport {

void RankPlan::check() const {
  if (ranks < 1) throw std::invalid_argument("at least 1 rank is needed, got " + std::to_string(ranks));
  if (device == kernels::Device::CPU) return;
  if (cuda_devices.empty()) throw std::invalid_argument("no GPU selected: choose at least one to train on");
  const int found = kernels::cuda_device_count();
  std::set<int> seen;
  for (int d : cuda_devices) {
    if (d < 0 || d >= found)
      throw std::invalid_argument("GPU " + std::to_string(d) + " does not exist (this machine has " +
                                  std::to_string(found) + " CUDA device(s))");
    if (!seen.insert(d).second) throw std::invalid_argument("GPU " + std::to_string(d) + " is selected twice");
  }
  if (ranks < static_cast<int>(cuda_devices.size()))
    throw std::invalid_argument(std::to_string(ranks) + " rank(s) for " + std::to_string(cuda_devices.size()) +
                                " GPUs: every GPU runs at least one rank");
}

kernels::ComputeContext RankPlan::context(int rank) const {
  if (device == kernels::Device::CPU) return kernels::ComputeContext(kernels::Device::CPU);
  const size_t d = static_cast<size_t>(rank) * cuda_devices.size() / static_cast<size_t>(ranks);
  return kernels::ComputeContext(kernels::Device::CUDA, cuda_devices.at(d));
}

RankStreams::RankStreams(const RankPlan& plan) : streams_(static_cast<size_t>(std::max(plan.ranks, 0))) {
  for (int r = 0; r < plan.ranks; ++r)
    contexts_.push_back(kernels::on_own_stream(plan.context(r), kernels::StreamPriority::Training, streams_[r]));
}

std::string RankPlan::describe() const {
  const std::string count = std::to_string(ranks) + (ranks == 1 ? " rank" : " ranks");
  if (device == kernels::Device::CPU) return count + " on the CPU";
  std::string gpus = cuda_devices.size() == 1 ? " on GPU " : " on GPUs ";
  for (size_t i = 0; i < cuda_devices.size(); ++i) gpus += (i ? ", " : "") + std::to_string(cuda_devices[i]);
  return count + gpus;
}

}  // namespace splat::transport
