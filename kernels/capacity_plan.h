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
//
// The sorts that follow sort the whole room, so room that goes unused costs time at every call. The
// margin therefore narrows where the needs per pair agree: to twice their spread ((most - least) /
// most over the last kSpreadWindow calls, enough to hold every view of a capture several times at
// one image a call) where that is below the first margin, once kSettled calls have come back. Calls
// of the same view (a viewer, a benchmark) or of batches that average many views then get little more
// than they need. A plan that has overflowed keeps its widened margin instead.
#include <cstdint>
#include <optional>
#include <vector>

namespace splat::kernels {

class CapacityPlan {
 public:
  static constexpr int kWindow = 64;            // recent calls whose counts bound the next capacity
  static constexpr double kFirstMargin = 1.25;  // over the largest recent need per pair, at most
  static constexpr double kLeastMargin = 1.03;  // where the needs per pair agree
  static constexpr int kSpreadWindow = 1024;    // calls whose needs per pair give their spread
  static constexpr int kSettled = 16;           // calls before their spread narrows the margin
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
  // The margin the next call's capacity takes over the largest recent need per pair.
  double margin() const;

 private:
  // The needs per pair of the last `size` calls (fewer until that many came back).
  struct Ring {
    size_t size;
    std::vector<double> values;
    size_t next = 0;
    void push(double v);
  };
  Ring recent_{kWindow, {}}, history_{kSpreadWindow, {}};
  double margin_ = kFirstMargin;  // the most it may be: widened by each overflow
  uint64_t overflows_ = 0, recorded_ = 0;
};

}  // namespace splat::kernels
