#include "core/train/snapshot_cadence.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace splat {

SnapshotCadence::SnapshotCadence(Clock::duration min_interval, Clock::duration max_interval, double share)
    : min_(std::max(min_interval, Clock::duration::zero())), max_(std::max(max_interval, min_)), share_(share) {
  if (!(share > 0 && share <= 1)) throw std::invalid_argument("snapshot cadence: share must be in (0, 1], got " + std::to_string(share));
}

void SnapshotCadence::published(Clock::time_point at) { last_ = at; }

void SnapshotCadence::measured(double cost_ms) {
  if (!std::isfinite(cost_ms) || cost_ms < 0) return;  // a clock that went wrong says nothing
  cost_ms_ = cost_ms_ ? std::max(cost_ms, 0.5 * *cost_ms_) : cost_ms;
}

SnapshotCadence::Clock::duration SnapshotCadence::interval() const {
  if (!cost_ms_) return min_;
  // In double first: a huge cost would overflow the clock's integer ticks.
  const double wanted_s = *cost_ms_ / 1e3 / share_;
  const double max_s = std::chrono::duration<double>(max_).count();
  if (wanted_s >= max_s) return max_;
  const auto wanted = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(wanted_s));
  return std::clamp(wanted, min_, max_);
}

bool SnapshotCadence::due(Clock::time_point now) const { return !last_ || now - *last_ >= interval(); }

}  // namespace splat
