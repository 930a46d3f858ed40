#include "kernels/capacity_plan.h"

#include <algorithm>
#include <cmath>

namespace splat::kernels {

void CapacityPlan::Ring::push(double v) {
  if (values.size() < size) {
    values.push_back(v);
    return;
  }
  values[next] = v;
  next = (next + 1) % size;
}

double CapacityPlan::margin() const {
  const std::vector<double>& seen = history_.values;
  if (overflows_ > 0 || seen.size() < size_t(kSettled)) return margin_;
  const auto [least, most] = std::minmax_element(seen.begin(), seen.end());
  const double spread = *most > 0.0 ? (*most - *least) / *most : 0.0;
  return std::clamp(1.0 + 2.0 * spread, kLeastMargin, margin_);
}

std::optional<int64_t> CapacityPlan::capacity(int64_t pairs, int64_t limit) const {
  if (recent_.values.empty()) return std::nullopt;
  const double most = *std::max_element(recent_.values.begin(), recent_.values.end());
  const double want = std::ceil(most * margin() * double(std::max<int64_t>(pairs, 0))) + double(kSlack);
  return want >= double(limit) ? limit : int64_t(want);
}

bool CapacityPlan::record(int64_t pairs, int64_t needed, int64_t capacity) {
  ++recorded_;
  const double ratio = pairs > 0 ? double(needed) / double(pairs) : 0.0;
  recent_.push(ratio);
  history_.push(ratio);
  if (needed <= capacity) return false;
  ++overflows_;
  margin_ = std::min(margin_ * kMarginGrowth, kMostMargin);
  return true;
}

}  // namespace splat::kernels
