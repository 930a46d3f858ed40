#pragma once
// Shard balance of a distributed run (docs/ARCHITECTURE.md "Rebalance"): the shards are
// contiguous ranges of global ids in rank order, so balancing moves rows between neighbouring
// ranks and keeps that order: the model, gathered in rank order, is the same before and after.
// Every row moves with its Adam moments.
//
// When: densification grows shards unevenly (a rank whose Gaussians sit where the scene has detail
// clones more), and ranks run at different speeds (the viewer drawing on one rank's GPU). The trainer
// calls rebalance_if_uneven() right after each refinement, the steps that change the counts, and every
// TrainerOptions::rebalance_every images where no refinement statistics would be lost. On GPUs the
// targets follow what the ranks wait on (wait_balance.h); a rank's render time is spent on the pairs of
// its cameras, which come from every shard, so moving shard rows does not change it; what a shard's size
// decides is the rank's projection, its backward into the shard, Adam and its memory.
#include <cstdint>
#include <span>
#include <vector>

#include "core/transport/communicator.h"
#include "core/model/device_gaussians.h"
#include "core/train/sharded/wait_balance.h"

namespace splat::sharded {

using transport::Communicator;

// Rows each rank should hold: the total split in proportion to `weights` (one per rank, positive;
// equal weights give an equal split, inverse render times give each rank a share it renders as fast
// as the others), rounded so that the targets add up to the total.
std::vector<int64_t> balanced_counts(std::span<const int64_t> counts, std::span<const double> weights);

// The largest |count - target| / target over the ranks (a rank with target 0 counts as its count).
double imbalance(std::span<const int64_t> counts, std::span<const int64_t> targets);

// Moves rows so that rank r holds targets[r] rows: a collective, one all_to_all_v per column
// (parameters and both moments of every group), on comm.context()'s memory (g must live there).
// Gradients and densification statistics are zeroed (call it between steps, after a refinement
// consumed them). targets must add up to the global row count.
void rebalance(Communicator& comm, DeviceGaussians& g, std::span<const int64_t> targets);

// Moves rows when some rank's row count is more than `threshold` (relative, imbalance() above) off its
// target: where every rank measured a window (`mine`, core/train/sharded/wait_balance.h), the targets
// follow what the ranks waited on; where some rank did not, they are an equal split. First every shard
// is sorted along one Morton curve over the bounding box of the whole model (codes, sort and rows with
// their moments on the device, kernels/morton.h), so that the rows passed to a neighbour are the ones
// nearest it in curve order and shards stay compact regions of space; then rebalance(). A collective;
// returns whether rows moved (the same on every rank). threshold <= 0 never moves. Gradients and
// statistics are zeroed when rows move.
bool rebalance_if_uneven(Communicator& comm, DeviceGaussians& g, double threshold, const RankWindow& mine = {});

}  // namespace splat::sharded
