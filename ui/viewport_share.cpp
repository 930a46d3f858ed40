#include "ui/viewport_share.h"

#include <algorithm>

namespace splat::ui {

ViewportShare viewport_share(bool training, kernels::Device device, int fps_cap, bool pause, unsigned hardware_threads) {
  ViewportShare share;
  share.policy = {training, static_cast<double>(std::max(1, fps_cap)), pause};
  share.idle_hz = training ? std::min(share.policy.fps_cap, kTrainingIdleHz) : share.policy.fps_cap;
  if (!training || device != kernels::Device::CPU) return share;
  share.policy.fps_cap = std::min(share.policy.fps_cap, kCpuTrainingFps);
  // A quarter, at least one: the trainer keeps the rest (and the GUI thread one of them).
  share.cpu_threads = std::max(1, static_cast<int>(hardware_threads) / 4);
  return share;
}

}  // namespace splat::ui
