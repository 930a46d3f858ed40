#pragma once
// Every training schedule counts images, not optimizer steps (docs/ARCHITECTURE.md "Schedules count
// images"): a step at batch B trains the images [first, first + B) of the run, and an event
// scheduled at image k fires in the step whose images hold k. At batch 1 that is step k, the
// classic per-step schedule of 3DGS; at batch B it is step k / B, so runs at any batch with the
// same image budget densify, reset, grow the SH degree, decay the learning rate, log, evaluate and
// checkpoint at the same image counts (up to the B - 1 images a step spans).
#include <algorithm>
#include <optional>

namespace splat {

// The smallest multiple of `period` in [lo, hi); nullopt when there is none or period < 1 (never).
inline std::optional<int> first_multiple_in(int lo, int hi, int period) {
  if (period < 1) return std::nullopt;
  lo = std::max(lo, 0);
  const int m = (lo + period - 1) / period * period;
  if (m >= hi) return std::nullopt;
  return m;
}

// A cadence over images done: whether a step that took the count from `before` to `after` passed
// a multiple of `every` (at batch 1: after % every == 0). every < 1: never.
inline bool passes_multiple(int before, int after, int every) {
  return first_multiple_in(before + 1, after + 1, every).has_value();
}

}  // namespace splat
