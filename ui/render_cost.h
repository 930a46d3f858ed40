#pragma once
// The viewer's price: how many milliseconds of device time the viewport's renders took per second
// of wall time, over a sliding window. The GPUs panel shows it beside the training speed, so the
// cost of watching a run is visible.
#include <chrono>
#include <deque>
#include <utility>

namespace splat::ui {

class RenderCost {
 public:
  using Clock = std::chrono::steady_clock;
  explicit RenderCost(Clock::duration window = std::chrono::seconds(1)) : window_(window) {}
  // A render of `ms` milliseconds that ended at `end`.
  void add(Clock::time_point end, double ms);
  // Milliseconds of rendering per second of wall time, over the window before `now`.
  double ms_per_s(Clock::time_point now) const;

 private:
  Clock::duration window_;
  std::deque<std::pair<Clock::time_point, double>> renders_;  // (end, ms), oldest first
};

}  // namespace splat::ui
