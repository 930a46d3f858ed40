#pragma once
// Which images of a batch each rank renders, from what the images have cost to render
// (docs/ARCHITECTURE.md "Render balance").
//
// Every rank of a sharded step renders a contiguous block of the batch (camera_block), and the owners
// read their pairs' gradients once every rank has rendered: a step lasts the longest block's render.
// The views of a capture cost differently (how much of the scene each sees, and how deep), so blocks
// drawn at random arrive apart: on two GPUs at batch 4 the ranks reached the gradients about 0.1 ms
// apart a step, most of what a rank idled beyond half of one GPU (bench/TWO_GPUS.md). Where every rank
// holds every photo, any image may go to any rank: the trainer orders each batch so that the blocks'
// estimated costs are as even as the block sizes allow.
//
// The estimates are learned from measured times, as Grendel-GS learns its image splits: each rank
// measures its own render (StepTimes: rasterize, loss and backward of its block) and credits the views
// of its block with that time in proportion to their current estimates (evenly while none is known).
// A view's error shrinks with every block it is measured in (by the partners' share of the block), and
// a table that is right but for a common factor is credited right at once. (Crediting a view with the
// time less its partners' estimates swings: a model that grows puts the whole growth on the view.) The
// credits are summed over
// the ranks at collective points the trainer already has (refinements, rebalance checks) and folded
// into the estimates there, so every rank holds the same table and orders every batch alike without a
// word per step. Costs grow as the model does: a fold first scales the whole table by how much this
// fold's credits exceed the estimates of the views they credit.
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

namespace splat::sharded {

class RenderCosts {
 public:
  // A table for the views (camera indices) 0 .. views - 1, every one unknown.
  explicit RenderCosts(int views);

  // This rank's measured render of `block` (its views) in `ms`. Views outside the table are ignored.
  void observe(std::span<const int> block, double ms);
  // Folds every rank's credits since the last fold into the estimates. `sum` adds host values over the
  // ranks in place (Sharding::sum_each), so every rank ends with the same table. Collective.
  void fold(const std::function<void(std::span<int64_t>)>& sum);

  // A view's estimated render cost in ms; nullopt until a fold has credited it.
  std::optional<double> cost(int view) const;
  // `batch` reordered so that its contiguous blocks over `ranks` ranks (kernels/camera_blocks_math.h)
  // have the most even estimated costs: the longest block as short as a search of single swaps finds,
  // then the blocks' spread. Unknown views count as the known ones' mean; each block keeps its views
  // in batch order. The batch as it is where nothing is known or no order is better.
  std::vector<int> balanced(std::span<const int> batch, int ranks) const;

  // The learned estimates, as a checkpoint keeps them: per view its cost in ms and its weight (0:
  // unknown). Credits not yet folded are left out: a resumed run measures those renders again.
  struct Table {
    std::vector<double> cost_ms, weight;
  };
  Table table() const;
  // Takes a table saved by table(): one entry per view of this table, every value finite and >= 0
  // (std::invalid_argument otherwise, with the table unchanged). Pending credits are dropped.
  void load(const Table& t);

  // How much an earlier fold's estimate of a view weighs against each new credit: the estimate follows
  // the last few renders of the view (the model changes what a view costs as it trains).
  static constexpr double kKeep = 0.7;

 private:
  // A view's estimate, else the known views' mean, else an even share of its block.
  double estimate_or_mean(int view, double even_share) const;
  void update_known_mean();  // known_mean_ms_ from the table

  std::vector<double> cost_ms_, weight_;   // per view; weight 0: unknown
  std::vector<double> credit_ms_;          // since the last fold, this rank's
  std::vector<int64_t> credits_;
  double known_mean_ms_ = 0;               // over the known views
};

}  // namespace splat::sharded
