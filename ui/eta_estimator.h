#pragma once
// The time left of a run from its recent rate. Training slows as the Gaussian count grows, so the
// mean rate since the start overstates the rate to come and gives an optimistic ETA; the rate of the
// last tens of seconds (an exponential average over time, a sample weighing by the seconds it spans)
// follows the slowdown. Fed with points of the run's progress (images done after so many seconds of
// training, pauses not counted); pure, unit-tested.
#include <optional>

namespace splat::ui {

class EtaEstimator {
 public:
  static constexpr double kHalfLifeS = 20.0;  // a rate measured this long ago weighs half as much

  // Images done after `seconds` of training. A point before the previous one (a new session of a
  // reopened run counts its seconds from 0) starts measuring again from it, keeping the rate known.
  void add(double images, double seconds);
  std::optional<double> rate() const { return rate_; }  // images/s; none before two points
  std::optional<double> eta_s(double images_left) const;

 private:
  std::optional<double> images_, seconds_;
  std::optional<double> rate_;
};

}  // namespace splat::ui
