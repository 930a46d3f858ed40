#include "core/train/sharded/wait_balance.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "core/train/sharded/rebalance.h"

namespace splat::sharded {

std::vector<int64_t> wait_balanced_counts(std::span<const int64_t> counts, std::span<const RankWindow> windows) {
  if (counts.size() != windows.size() || counts.empty())
    throw std::invalid_argument("wait_balanced_counts: " + std::to_string(counts.size()) + " counts and " +
                                std::to_string(windows.size()) + " windows");
  const std::vector<int64_t> as_they_are(counts.begin(), counts.end());
  const double R = double(counts.size());
  double step = 0, mean_outside = 0;
  bool short_window = false;
  for (const RankWindow& w : windows) {
    const bool measured = w.steps > 0 && w.step_ms > 0 && std::isfinite(w.step_ms) && w.outside_ms >= 0 &&
                          std::isfinite(w.outside_ms);
    if (!measured) return as_they_are;
    short_window |= w.steps < kMinWindowSteps;
    step += w.step_ms / R;
    mean_outside += w.outside_ms / R;
  }
  const int64_t total = std::accumulate(counts.begin(), counts.end(), int64_t(0));
  if (total == 0) return as_they_are;
  double worst = 0;
  for (const RankWindow& w : windows) worst = std::max(worst, std::abs(w.outside_ms - mean_outside) / step);
  const bool even = short_window || worst < kWaitDeadband;
  // Weights as shares of an equal split, bounded (also where the waits are even: a shard that densified
  // past the bounds is brought back within them), then the targets in proportion to them.
  std::vector<double> share(counts.size());
  for (size_t r = 0; r < counts.size(); ++r) {
    const double now = double(counts[r]) * R / double(total);
    const double x = even ? 0.0 : (windows[r].outside_ms - mean_outside) / step;
    share[r] = std::clamp(now * (1 + kWaitGain * x), kLeastShare, kMostShare);
  }
  return balanced_counts(counts, share);
}

}  // namespace splat::sharded
