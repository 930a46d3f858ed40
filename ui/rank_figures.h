#pragma once
// Whether the GPUs panel has per-rank figures to show. A session made for an opened run exists before
// its first step and reports zeros (no step time, no Gaussians); those are not figures, and the panel
// shows "-" (with the run's recorded Gaussian count) until a step has reported.
#include <algorithm>
#include <vector>

#include "core/train/rank_stats.h"

namespace splat::ui {

inline bool ranks_reported(const std::vector<sharded::RankStats>& ranks) {
  return std::any_of(ranks.begin(), ranks.end(), [](const sharded::RankStats& r) { return r.step_ms > 0; });
}

}  // namespace splat::ui
