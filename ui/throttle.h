#pragma once
// Lets an action through at most once per interval, whatever the frame rate: for device queries
// and readings that the GUI polls from its frame loop but that must stay cheap.
#include <chrono>

namespace splat::ui {

class Throttle {
 public:
  using Clock = std::chrono::steady_clock;
  explicit Throttle(Clock::duration interval) : interval_(interval) {}
  // True the first time, then once `interval` has passed since the last true.
  bool due(Clock::time_point now) {
    if (fired_ && now - last_ < interval_) return false;
    fired_ = true;
    last_ = now;
    return true;
  }

 private:
  Clock::duration interval_;
  Clock::time_point last_{};
  bool fired_ = false;
};

}  // namespace splat::ui
