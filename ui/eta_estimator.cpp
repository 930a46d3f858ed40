#include "ui/eta_estimator.h"

#include <algorithm>
#include <cmath>

namespace splat::ui {

void EtaEstimator::add(double images, double seconds) {
  if (images_ && seconds_) {
    const double dt = seconds - *seconds_, di = images - *images_;
    if (dt > 0 && di >= 0) {
      const double sample = di / dt;
      const double w = 1.0 - std::exp2(-dt / kHalfLifeS);
      rate_ = rate_ ? *rate_ + w * (sample - *rate_) : sample;
    } else if (dt <= 0 && di == 0 && seconds == *seconds_) {
      return;  // the same point again
    }
  }
  images_ = images;
  seconds_ = seconds;
}

std::optional<double> EtaEstimator::eta_s(double images_left) const {
  if (!rate_ || *rate_ <= 0) return std::nullopt;
  return std::max(0.0, images_left) / *rate_;
}

}  // namespace splat::ui
