#pragma once
// Which rank renders which camera of a batch, chosen by what the cameras cost to render
// (docs/ARCHITECTURE.md "Training on R ranks"). A batch's cameras are split into contiguous blocks, one
// per rank (camera_block); every rank waits at the gradient return for the slowest rank's render, so a
// block of costly views holds all of them back. Which cameras of the batch form which block is free
// (the batch's loss is a sum over its cameras), so the batch is ordered to even the blocks out.
//
// A view's cost is the tile intersections of its render (what the blending's time follows: its lists,
// walked per pixel), as the rank that last rendered it counted them on the device
// (TrainStep::view_costs, read without a wait). Each rank learns the costs of the views it renders;
// the ranks pool what they learnt at points where they meet anyway (refinement steps), so that every
// rank holds the same table and orders every batch alike, with no exchange per step.
#include <cstdint>
#include <span>
#include <vector>

#include <nlohmann/json.hpp>

namespace splat::sharded {

// One render's cost: the tile intersections of `view` in a step.
struct ViewCost {
  int view = 0;
  int64_t cost = 0;
};

class ViewCosts {
 public:
  explicit ViewCosts(int views);

  // This rank rendered `view` at `cost` (the newest observation of a view replaces older ones).
  void observe(const ViewCost& c);

  // Pooling, a collective of the caller's: every rank passes share() to an element-wise sum over the
  // ranks, then the sum to take_shared(). A view observed since the last pooling takes the mean of the
  // ranks' newest observations; the others keep their cost.
  std::vector<int64_t> share() const;
  void take_shared(std::span<const int64_t> sums);

  // The pooled cost of `view` (0: not known yet), the same on every rank.
  int64_t cost(int view) const { return pooled_[size_t(view)]; }
  bool any() const { return known_ > 0; }

  // The pooled table, for a checkpoint (what this rank observed since the last pooling is not kept).
  nlohmann::json state() const { return pooled_; }
  void load_state(const nlohmann::json& s);

 private:
  std::vector<int64_t> pooled_, newest_;  // per view; 0 where none
  int known_ = 0;                         // views with a pooled cost
};

// `views` (a batch, in draw order) reordered so that the blocks of camera_block(q, ranks, B) hold
// cameras of summed pooled cost as even as the longest-first rule makes them: the costliest camera
// first, each to the block with the least cost that has room. A view of unknown cost counts as the mean
// of the known ones; within a block the draw order is kept. Unchanged where no cost is known or there
// is one rank.
std::vector<int> balanced_order(std::span<const int> views, const ViewCosts& costs, int ranks);

}  // namespace splat::sharded
