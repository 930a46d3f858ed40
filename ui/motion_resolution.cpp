#include "ui/motion_resolution.h"

#include <algorithm>

namespace splat::ui {

bool MotionResolution::moving(const MotionPolicy& policy, Clock::time_point now) const {
  return moved_at_ && now - *moved_at_ < policy.rest_after;
}

float MotionResolution::scale(const ViewKey& pose, const MotionPolicy& policy, Clock::time_point now) {
  if (pose_ && *pose_ != pose) moved_at_ = now;
  pose_ = pose;
  const float rest = std::clamp(policy.rest_scale, kMinScale, 1.f);
  if (!policy.training || !moving(policy, now)) return rest;
  return std::min(rest, std::clamp(policy.moving_scale, kMinScale, 1.f));
}

}  // namespace splat::ui
