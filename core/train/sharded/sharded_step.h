#pragma once
// The render + loss + gradient part of one distributed training step, on one rank (issue 12,
// DESIGN.md "Multi-GPU"): rank r owns a shard of the Gaussians (a contiguous range of global ids,
// shards in rank order) and renders a block of the batch's cameras.
//
//   project the shard into all B cameras          pairs ordered by camera, so the pairs bound for
//                                                 each rank are one contiguous range
//   count pairs per destination (on the device),  one small all_to_all, one host copy of 2R counts
//                                                 (dense with the shard sizes given: on the host)
//   pack the pairs into records, exchange them    one all_to_all_v (core/train/sharded/pair_records.h: 64
//   and unpack them into columns                  bytes a pair), arriving in rank order: within each
//                                                 camera, ascending global id, as rasterize wants;
//                                                 the rank's own pairs skip records and exchange
//                                                 (a column copy straight to their place)
//   rasterize this rank's cameras, loss and its image gradient (BatchLoss, as the one-GPU trainer),
//   rasterize_backward to the received pairs,
//   return the pair gradients to their owners (packed likewise, one reverse all_to_all_v),
//   project_backward into the shard's gradients and densification statistics.
//
// Camera split: rank q renders batch cameras [floor(B q / R), floor(B (q + 1) / R)) (kernels/
// camera_blocks_math.h); blocks differ by at most one camera. A batch smaller than the rank count is
// refused (std::invalid_argument): splitting one image's pixels across ranks is not done yet.
//
// Normalisation: a rank's run of C images of one size weighs C / B (core/train/batch_loss.h), so the
// ranks' losses and gradients add up to the one-rank batch mean. Masks pool their valid pixels per
// run, and a rank boundary splits a run: with masks, the weighting then differs slightly from the
// one-rank step's.
//
// No per-pair host reads: the host sees the 2R pair counts of the exchange (if it must count them)
// and nothing else.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "core/transport/communicator.h"
#include "core/train/sharded/pair_records.h"
#include "core/train/batch_loss.h"
#include "kernels/buffer.h"
#include "kernels/phase_timer.h"
#include "kernels/rasterizer.h"

namespace splat::sharded {

using transport::Communicator;

// The batch cameras one rank renders: [first, first + count).
struct CameraBlock {
  int first = 0, count = 0;
};

// Rank `rank`'s block of a batch of `batch` cameras split over `ranks` ranks. Throws
// std::invalid_argument when the batch has fewer cameras than there are ranks.
CameraBlock camera_block(int rank, int ranks, int batch);

// What one rank needs for a step: its shard, the batch (the same on every rank) and the targets.
struct ShardedBatch {
  kernels::GaussiansView shard;              // first_id: the shard's first global id
  std::span<const kernels::Camera> cameras;  // the batch's B cameras, in batch order
  kernels::RasterSettings settings;
  // The photo (8-bit RGB [H,W,3]) of each batch camera, on the rank's context; only this rank's block is read
  // (other entries may be null). masks: empty, or one per batch camera like targets.
  std::span<const uint8_t* const> targets;
  std::span<const uint8_t* const> masks;
  // Every rank's shard size, in rank order, when the caller knows them (the trainer does): with a
  // dense projection (settings.packed false) the pair counts follow from them, and the step makes no
  // counts exchange and no host wait. Empty: the pairs are counted on the device and exchanged.
  // Given on every rank or on none (the ranks' collectives must match).
  std::span<const int64_t> shard_sizes = {};
};

// Sizes of the last step's exchange, for balance and traffic reports.
struct ExchangeSizes {
  int64_t pairs_projected = 0;  // pairs of this rank's shard, all B cameras
  int64_t pairs_received = 0;   // pairs this rank rasterized (from every shard)
  int64_t bytes_sent = 0;       // forward pairs to other ranks plus gradients returned to them
  int64_t bytes_received = 0;
};

// Where a step's time went on the rank's own timeline (device time on CUDA, host time on the CPU).
struct StepTimes {
  double render_ms = 0;         // rasterize, loss and rasterize backward of this rank's cameras
  double exchange_wait_ms = 0;  // inside the exchanges: counts, pairs and gradients, waiting for peers included
};

class ShardedStep {
 public:
  // Works on comm.context() (its rasterizer, loss and buffers); cpu_threads for a CPU rank's
  // rasterizer (0: all). `comm` must outlive this object.
  ShardedStep(Communicator& comm, float ssim_weight = kernels::kDefaultSsimWeight, int cpu_threads = 0);

  // One step's forward and backward, a collective: every rank calls it with the same cameras and
  // settings. ACCUMULATES into `grad` and `stats` (rows of the shard; null pointers skip), which the
  // caller zeroes once per optimisation step. The shard's arrays must not change during the call.
  void run(const ShardedBatch& batch, const kernels::GaussiansGrad& grad, const kernels::DensifyStats& stats);

  // This rank's share of the last step's batch loss (its cameras' losses weighted by their share
  // of the batch); on CUDA this waits for the step.
  float rank_loss() const { return loss_.read_loss(); }
  // The last step's batch loss, the sum of every rank's share: a collective (every rank calls it).
  float batch_loss();

  CameraBlock block() const { return block_; }
  // The last step's renders of this rank's block, in kernels::image_offsets layout of its cameras.
  const kernels::Buffer<float>& rendered_rgb() const { return rgb_; }
  const ExchangeSizes& exchange_sizes() const { return sizes_; }
  // The newest step whose times are known without waiting: on CUDA usually the previous step (its
  // events are read once the device has passed them), on the CPU the last one; zeros before any.
  StepTimes step_times();

  // Profiling: while `timer` is set (the trainer's, already started for the step), run() marks its
  // phases on it, named "sharded: ...": project; pair counts (count kernel, counts exchange and the
  // host wait for them, unless dense with the shard sizes given); pair exchange (own pairs' column copy, pack, all_to_all_v, unpack);
  // rasterize; loss; rasterize backward; gradient return (likewise); project backward. Null: no marks.
  void set_phase_timer(kernels::PhaseTimer* timer) { timer_ = timer; }
  // The rasterizer of the step (for its stage timing while profiling).
  kernels::Rasterizer& rasterizer() { return *raster_; }

 private:
  void count_pairs(const kernels::ProjectedGaussians& mine, const ShardedBatch& batch);
  void exchange_pairs(const kernels::ProjectedGaussians& mine);
  void compute_loss(const ShardedBatch& batch);
  void return_gradients(int64_t projected);
  void mark(const char* phase) {
    if (timer_) timer_->mark(phase);
  }

  Communicator& comm_;
  kernels::ComputeContext where_;
  std::unique_ptr<kernels::Rasterizer> raster_;
  BatchLoss loss_;
  CameraBlock block_;
  ExchangeSizes sizes_;
  // Pair counts per peer: sent (this rank's pairs for q's cameras), received (q's pairs for ours).
  kernels::Buffer<int64_t> counts_;  // [2R] on the device: send counts, then received counts
  std::vector<int64_t> send_pairs_, recv_pairs_, send_at_, recv_at_;
  // Records sent and received (peers' pairs only); the forward exchange's buffers serve the reverse one too.
  kernels::Buffer<uint32_t> send_records_, recv_records_;
  // The received pairs, their gradients, and the gradients of this rank's own pairs.
  ReceivedPairs received_;
  kernels::Buffer<float> d_received_, d_mine_;  // 3 arrays [count,4] each, back to back
  // Marks: exchange start / end, render start / end, reverse exchange start / end.
  kernels::StepMarks marks_;
  StepTimes times_;
  kernels::PhaseTimer* timer_ = nullptr;
  kernels::Buffer<float> rgb_, alpha_, grad_rgb_;
};

}  // namespace splat::sharded
