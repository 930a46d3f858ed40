#pragma once
// Shard sizes from what the ranks wait on (docs/ARCHITECTURE.md "Rebalance").
//
// Every rank of a sharded step meets its peers at two exchanges (the pairs out, their gradients back),
// so a rank that is slower than the others (the viewer drawing on its GPU, a slower GPU, a heavier
// shard) makes them wait there, and itself waits least. Rows are what a rebalance can move, and a
// shard's rows are what its projection, its backward, Adam and refinement work on: so a rank that waits
// less than the mean sheds rows and one that waits more takes them, in proportion to the difference.
// The render of a rank's cameras does not follow the rows, so a difference is closed only as far as the
// shard's part of the step allows, and a rank may end up with more rows than another.
//
// The control is proportional, from the current shards: target_r ∝ rows_r (1 + kWaitGain x_r), with x_r
// the rank's wait less the ranks' mean, as a share of the step. A rebalance then moves rows only where
// some target is more than its threshold off (rebalance_if_uneven), so two ranks whose steps differ by
// less than 2 threshold / kWaitGain of the step are left alone. The gain: if the shard's part of the step
// is a share s of it, a move closes kWaitGain * s of the difference; s was 0.15-0.25 on two GPUs at
// batch 4 (projection, its backward and Adam over the step, bench/TWO_GPUS.md), so one move closes
// about half; past s = 0.4 a move overshoots, and the next comes back by less.
#include <cstdint>
#include <span>
#include <vector>

namespace splat::sharded {

// One rank's means over the steps since its window began: its wait inside the step's exchanges (peers
// included), over every step the device has measured, and the step's wall time. An empty window (no
// steps) says nothing was measured: the CPU backend, whose ranks share the machine's cores, so their
// waits say little about their shards.
struct RankWindow {
  double wait_ms = 0;
  double step_ms = 0;
  int steps = 0;  // the steps whose waits were measured
};

// A window of fewer steps gives no opinion (the shards stay as they are, within the bounds): one step's
// waits differ between two ranks by about 0.35 ms on two H100s at batch 4 (cup, a 4 ms step; the
// cameras of a step differ), so over 50 steps a move of the 5 % threshold is three standard deviations
// away from noise. The trainer keeps a window open until it holds this many.
inline constexpr int kMinWindowSteps = 50;

inline constexpr double kWaitGain = 2.5;
// Waits closer than this share of the step to the mean count as even.
inline constexpr double kWaitDeadband = 0.01;
// No shard is sized beyond these shares of an equal split (memory stays within reach of it).
inline constexpr double kLeastShare = 0.5, kMostShare = 1.5;

// Every rank's target rows (adding up to the counts' total) from every rank's window: the counts as
// they are where some window is empty; where some window is shorter than kMinWindowSteps or the waits are
// even, the counts but for shards beyond the bounds.
std::vector<int64_t> wait_balanced_counts(std::span<const int64_t> counts, std::span<const RankWindow> windows);

}  // namespace splat::sharded
