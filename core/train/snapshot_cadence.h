#pragma once
// When the training session publishes its next snapshot for the viewer (core/train/training_session.h).
//
// A publication costs training: rank 0's stream copies (with ranks: gathers) the whole model's
// parameters instead of training, hundreds of MB for a million Gaussians, and the cost grows with the
// model. A fixed interval would let it grow without bound; this cadence takes what the last publications
// cost (measured by the caller on rank 0's timeline) and spaces the next so that publishing takes at
// most `share` of the training time, never more often than `min_interval` (the view gains nothing from
// more) and never less often than `max_interval` (the view stays live however large the model gets).
// Pure arithmetic on the times it is given: no clock, no device.
#include <chrono>
#include <optional>

namespace splat {

class SnapshotCadence {
 public:
  using Clock = std::chrono::steady_clock;
  // The viewer's whole price is at most 10 % of training while a user orbits (docs/ARCHITECTURE.md
  // "Targets") and an idle viewer, whose only cost is the snapshots, should keep 97 %: 2 % for the
  // snapshots leaves the renders and the rest of the host's work their share.
  static constexpr double kTrainingShare = 0.02;
  static constexpr std::chrono::milliseconds kMinInterval{200};
  static constexpr std::chrono::milliseconds kMaxInterval{2000};

  // A max_interval below min_interval is raised to it (a session that wants no snapshots sets a huge
  // minimum). share must be in (0, 1].
  explicit SnapshotCadence(Clock::duration min_interval = kMinInterval, Clock::duration max_interval = kMaxInterval,
                           double share = kTrainingShare);

  // A publication was made at `at` (the next is due an interval after it).
  void published(Clock::time_point at);
  // What a publication cost training, in ms of rank 0's timeline. A dearer one counts at once; a
  // cheaper one lowers the estimate by at most half at a time, so one lucky measurement (a gather
  // whose peers happened to be waiting already) does not bring the cadence back on its own.
  void measured(double cost_ms);

  // The cost estimate (nullopt until measured) and the interval it gives: cost / share, clamped.
  std::optional<double> cost_ms() const { return cost_ms_; }
  Clock::duration interval() const;
  // Whether a publication is due at `now`: always before the first one.
  bool due(Clock::time_point now) const;

 private:
  Clock::duration min_, max_;
  double share_;
  std::optional<double> cost_ms_;
  std::optional<Clock::time_point> last_;
};

}  // namespace splat
