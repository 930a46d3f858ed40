#include "ui/render_cost.h"

namespace splat::ui {

void RenderCost::add(Clock::time_point end, double ms) {
  renders_.emplace_back(end, ms);
  // Entries that no window can count again; the window never looks before the newest render's.
  while (!renders_.empty() && renders_.front().first <= end - window_) renders_.pop_front();
}

double RenderCost::ms_per_s(Clock::time_point now) const {
  double ms = 0;
  for (const auto& [end, duration] : renders_)
    if (end > now - window_ && end <= now) ms += duration;
  return ms / std::chrono::duration<double>(window_).count();
}

}  // namespace splat::ui
