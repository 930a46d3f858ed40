#pragma once
// Sizing a device buffer whose need is counted on the device, without the host waiting for the count.
//
// The tile binning of the CUDA rasterizer needs room for every (camera, tile, Gaussian) intersection,
// a number only the device knows after projecting. Reading it back before sorting would make the host
// wait for the stream at every rasterization. Instead the host plans a capacity from the counts of
// earlier calls (they reach it a few calls later, copied asynchronously): the most intersections per
// projected pair seen over the recent calls, times a margin, times this call's pairs. The device
// fills what fits; a call that needed more than its capacity drops its deepest entries (the ones
// most hidden behind the others) and is counted as an overflow when its count comes back; each
// overflow widens the margin, so overflows stay rare. docs/ARCHITECTURE.md, "No host wait in a step".
#include <cstdint>
#include <optional>
#include <vector>

namespace splat::kernels {

class CapacityPlan {
 public:
  static constexpr int kWindow = 64;            // recent calls whose counts bound the next capacity
  static constexpr double kFirstMargin = 1.25;  // over the largest recent need per pair
  static constexpr double kMarginGrowth = 1.5;  // after each overflow
  static constexpr double kMostMargin = 4.0;
  static constexpr int64_t kSlack = 4096;       // entries: keeps tiny calls from overflowing on noise

  // The capacity for a call over `pairs` projected pairs, at most `limit`; nullopt while no count has
  // come back yet (the caller then reads this call's count and records it).
  std::optional<int64_t> capacity(int64_t pairs, int64_t limit) const;

  // A call's count came back: it had `pairs` pairs and needed `needed` entries where it had room for
  // `capacity`. Returns whether it overflowed.
  bool record(int64_t pairs, int64_t needed, int64_t capacity);

  uint64_t overflows() const { return overflows_; }
  uint64_t recorded() const { return recorded_; }
  double margin() const { return margin_; }

 private:
  std::vector<double> per_pair_;  // ring of the last kWindow calls' needs per pair
  size_t next_ = 0;
  double margin_ = kFirstMargin;
  uint64_t overflows_ = 0, recorded_ = 0;
};

}  // namespace splat::kernels
