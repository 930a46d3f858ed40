#include "kernels/capacity_plan.h"

#include <algorithm>
#include <cmath>

namespace splat::kernels {

std::optional<int64_t> CapacityPlan::capacity(int64_t pairs, int64_t limit) const {
  if (per_pair_.empty()) return std::nullopt;
  const double most = *std::max_element(per_pair_.begin(), per_pair_.end());
  const double want = std::ceil(most * margin_ * double(std::max<int64_t>(pairs, 0))) + double(kSlack);
  return want >= double(limit) ? limit : int64_t(want);
}

bool CapacityPlan::record(int64_t pairs, int64_t needed, int64_t capacity) {
  ++recorded_;
  const double ratio = pairs > 0 ? double(needed) / double(pairs) : 0.0;
  if (per_pair_.size() < size_t(kWindow)) {
    per_pair_.push_back(ratio);
  } else {
    per_pair_[next_] = ratio;
    next_ = (next_ + 1) % per_pair_.size();
  }
  if (needed <= capacity) return false;
  ++overflows_;
  margin_ = std::min(margin_ * kMarginGrowth, kMostMargin);
  return true;
}

}  // namespace splat::kernels
