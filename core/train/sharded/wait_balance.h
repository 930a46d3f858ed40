#pragma once
// Shard sizes from what the ranks wait on (docs/ARCHITECTURE.md "Rebalance").
//
// Every rank of a sharded step meets its peers at two exchanges: the pairs out, after its shard's
// projection, and their gradients back, after the render of its cameras. So a step lasts the longest
// render plus the longest shard part (the gradients' projection backward, Adam, refinement and the next
// projection), and rows, which are what a rebalance can move, change only the shard part: the targets
// even out the shard parts. A rank measures the rest of its step, its waits at the exchanges plus its
// render ("outside" its shard's work): the step less its shard part, so the rank with the longer shard
// part has less of it. A rank whose outside time is above the mean takes rows and one below sheds them,
// in proportion to the difference. Whatever slows a rank's shard part shows, a heavier shard, a slower
// GPU, the viewer drawing on it; the cameras each step draws do not: a rank that renders longer waits
// that much less at the gradients' exchange, so render differences cancel in the sum (on two H100s at
// batch 4 the ranks' outside times differed by 0.05 ms (sd) a step, their waits alone by 0.13-0.19 ms;
// bench/TWO_GPUS.md "The ranks' timelines").
//
// The control is proportional, from the current shards: target_r ∝ rows_r (1 + kWaitGain x_r), with x_r
// the rank's outside time less the ranks' mean, as a share of the step. A rebalance then moves rows only where
// some target is more than its threshold off (rebalance_if_uneven), so two ranks whose steps differ by
// less than 2 threshold / kWaitGain of the step are left alone. The gain: if the shard's part of the step
// is a share s of it, a move closes kWaitGain * s of the difference; s was 0.15-0.25 on two GPUs at
// batch 4 (projection, its backward and Adam over the step, bench/TWO_GPUS.md), so one move closes
// about half; past s = 0.4 a move overshoots, and the next comes back by less.
#include <cstdint>
#include <span>
#include <vector>

namespace splat::sharded {

// One rank's means over the steps since its window began: its time outside its shard's work (its waits
// inside the step's exchanges, peers included, plus its render), over every step the device has
// measured, and the step's wall time. An empty window (no steps) says nothing was measured: the CPU
// backend, whose ranks share the machine's cores, so their times say little about their shards.
struct RankWindow {
  double outside_ms = 0;
  double step_ms = 0;
  int steps = 0;  // the steps whose waits were measured
};

// A window of fewer steps gives no opinion (the shards stay as they are, within the bounds): one step's
// outside times differ between two ranks by about 2.5 % of the step (sd; 0.05 ms of 1.95 ms, bonsai on
// two H100s at batch 4), so over 50 steps a move of the trainer's 2.5 % threshold is more than five
// standard deviations away from noise (almost three at twice that noise). The trainer keeps a window
// open until it holds this many.
inline constexpr int kMinWindowSteps = 50;

inline constexpr double kWaitGain = 2.5;
// Outside times closer than this share of the step to the mean count as even.
inline constexpr double kWaitDeadband = 0.01;
// No shard is sized beyond these shares of an equal split (memory stays within reach of it).
inline constexpr double kLeastShare = 0.5, kMostShare = 1.5;

// Every rank's target rows (adding up to the counts' total) from every rank's window: the counts as
// they are where some window is empty; where some window is shorter than kMinWindowSteps or the waits are
// even, the counts but for shards beyond the bounds.
std::vector<int64_t> wait_balanced_counts(std::span<const int64_t> counts, std::span<const RankWindow> windows);

}  // namespace splat::sharded
