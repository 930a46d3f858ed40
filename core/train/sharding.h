#pragma once
// Where one trainer's rows sit in a model that may be split over ranks, and everything the trainer
// does with the other ranks: its step (core/train/train_step.h) and the few collectives around it.
// The trainer holds one and never asks how many ranks there are behind it:
//   one_rank(...)         the whole model on one device; every collective is the identity
//   sharded::over(comm)   one shard of a model split over comm's ranks (core/train/sharded/comm_sharding.h)
// Calls marked "collective" must be made by every rank at the same point of the run.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "core/model/device_gaussians.h"
#include "core/model/gaussian_model.h"
#include "core/model/model_snapshot.h"
#include "core/train/rank_stats.h"
#include "core/train/sharded/wait_balance.h"
#include "core/train/train_step.h"
#include "kernels/device_context.h"

namespace splat {

class Sharding {
 public:
  virtual ~Sharding() = default;

  virtual int rank() const = 0;
  virtual int ranks() const = 0;
  // Where this rank computes: its device, ordinal and stream.
  virtual kernels::ComputeContext context() const = 0;
  // The step path of this rank (cpu_threads: the CPU rasterizer's, 0 for all cores).
  virtual std::unique_ptr<TrainStep> make_step(float ssim_weight, int cpu_threads) const = 0;

  // This rank's rows of a starting model, stored as `columns` says.
  virtual GaussianState initial_rows(const GaussianModel& init, const ColumnTable& columns) const = 0;
  // This rank's rows of a whole state (a checkpoint's), as they are.
  virtual GaussianState rows_of(const GaussianState& whole) const = 0;
  // Every rank's row count, in rank order, on every rank. Collective.
  virtual std::vector<int64_t> row_counts(int64_t mine) = 0;
  // Moves rows between shards more than `threshold` off their targets: an equal split, or where every
  // rank measured its `window` what the ranks waited on (core/train/sharded/wait_balance.h); whether
  // rows moved (the same on every rank). Collective.
  virtual bool rebalance(DeviceGaussians& rows, double threshold, const sharded::RankWindow& window) = 0;

  // The whole model as stored (values and Adam moments) on rank 0, an empty state elsewhere. Collective.
  virtual GaussianState gather_state(const DeviceGaussians& rows) = 0;
  // The whole model's parameters on rank 0's device, device to device (null on the other ranks); for
  // the viewer, evaluation and the PLY. Collective.
  virtual std::shared_ptr<const ModelSnapshot> gather_snapshot(const DeviceGaussians& rows, uint64_t version,
                                                               int step) = 0;
  // The element-wise sum over ranks of host values, in place. Collective.
  virtual void sum_each(std::span<int64_t> values) = 0;
  // The sum over ranks of one host value. Collective.
  int64_t sum(int64_t mine) {
    sum_each(std::span<int64_t>(&mine, 1));
    return mine;
  }
  // The element-wise sum over ranks of n floats on this rank's device, in place, the same bits on every
  // rank (added in rank order); enqueued, no host wait. For small arrays (the colour maps' gradients):
  // every rank receives every rank's copy. Collective.
  virtual void sum_on_device(float* values, int64_t n) = 0;
  // Every rank's figures, in rank order, on every rank. Collective.
  virtual std::vector<sharded::RankStats> gather_stats(const sharded::RankStats& mine) = 0;
};

// The whole model on `where`: one rank, no communicator.
std::unique_ptr<Sharding> one_rank(const kernels::ComputeContext& where);

}  // namespace splat
