#pragma once
// Shard balance of a distributed run (issue 12 item 4, DESIGN.md "Multi-GPU"): the shards are
// contiguous ranges of global ids in rank order, so balancing moves rows between neighbouring
// ranks and keeps that order: the model, gathered in rank order, is the same before and after.
// Every row moves with its Adam moments.
//
// When: densification grows shards unevenly (a rank whose Gaussians sit where the scene has detail
// clones more). The trainer measures each rank's Gaussians and render time every step and calls
// rebalance() when a rank drifts more than the threshold from its target.
#include <cstdint>
#include <span>
#include <vector>

#include "core/dist/communicator.h"
#include "core/model/device_gaussians.h"

namespace splat::dist {

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

}  // namespace splat::dist
