#pragma once
// The step of one rank of several (core/train/train_step.h; docs/ARCHITECTURE.md "Training on R
// ranks"): rank r owns a shard of the Gaussians (a contiguous range of global ids,
// shards in rank order) and renders a block of the batch's cameras.
//
//   project the shard into all B cameras          pairs ordered by camera, so the pairs bound for
//                                                 each rank are one contiguous range
//   count pairs per destination (on the device),  one small all_to_all, one host copy of 2R counts
//                                                 (dense with the shard sizes given: on the host)
//   exchange the pairs, column by column          one all_to_all_gated (core/train/sharded/
//                                                 exchange_columns.h: 48 bytes a pair) from the
//                                                 projection's columns straight into the received
//                                                 ones, arriving in rank order: within each camera,
//                                                 ascending global id, as rasterize wants; the rank's
//                                                 own pairs are a device copy to their place; pairs
//                                                 that cover no tile of their camera stay home where
//                                                 the backend can leave rows out (in-process ranks)
//     or, where the communicator maps its peers' columns (in-process ranks that reach each other's
//     memory) and the counts are planned on the host (dense, shard sizes given), the projection writes
//     each pair straight to where that exchange would put it (Rasterizer::project's destinations):
//     no copy follows the projection, whose writes over the link overlap its own arithmetic
//   rasterize this rank's cameras, loss and its image gradient (BatchLoss, as the one-GPU trainer),
//   rasterize_backward to the received pairs,
//   return the pair gradients to their owners (likewise, one reverse all_to_all_gated; where the
//   pairs went straight into the renderers' columns, the owners read them where they were computed),
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
#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "core/transport/communicator.h"
#include "core/train/sharded/exchange_columns.h"
#include "core/train/batch_loss.h"
#include "core/train/train_step.h"
#include "kernels/buffer.h"
#include "kernels/host_copies.h"
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

class ShardedStep final : public TrainStep {
 public:
  // Works on comm.context() (its rasterizer, loss and buffers); cpu_threads for a CPU rank's
  // rasterizer (0: all). `comm` must outlive this object.
  ShardedStep(Communicator& comm, float ssim_weight = kernels::kDefaultSsimWeight, int cpu_threads = 0);

  // One step's forward and backward, a collective (every rank calls it with the same batch): writes
  // the shard's gradients with its one project_backward call (GradWrite::OnlyCall when dense, else
  // Overwrite) and adds to the statistics. rows.view.first_id is the shard's first global id.
  void run(const StepBatch& batch, const StepRows& rows) override;

  // The last step's batch loss, the sum of every rank's share: a collective (every rank calls it).
  float read_loss() override;
  // This rank's share of it (its cameras' losses weighted by their share of the batch); waits on CUDA.
  float rank_loss() const { return loss_.read_loss(); }

  // Bytes: with gating, of the latest step whose counts have reached the host (read without waiting;
  // on CUDA usually an earlier step, the last one once the device has passed it).
  ExchangeSizes exchange_sizes() const override;
  // On CUDA usually the previous step's times (its events are read once the device passed them), on the
  // CPU the last one's; zeros before any.
  StepTimes step_times() override;
  std::vector<StepTimes> measured_steps() override;
  size_t render_bytes() const override;
  kernels::Rasterizer& rasterizer() override { return *raster_; }

 // Profiling (set_phase_timer) marks the phases named "sharded: ...": project; pair counts (count
 // kernel, counts exchange and the host wait for them, unless dense with the shard sizes given); pair
 // exchange (all_to_all_buffers, the own pairs' copy included); rasterize; loss; rasterize backward;
 // gradient return (likewise); project backward. Where the projection writes into the peers' columns,
 // "open mapped writes" (the wait for the peers to free them) comes before the projection in place of
 // the pair counts, and the pair exchange is the wait for the peers' projections.
 private:
  bool project_into_peers(const StepBatch& batch, const StepRows& rows, kernels::ProjectedGaussians& mine);
  void plan_dense_pairs(const StepBatch& batch, int64_t rows);
  void size_received(int64_t projected);
  void count_pairs(const kernels::ProjectedGaussians& mine, const StepBatch& batch, int64_t rows);
  void exchange_pairs(const kernels::ProjectedGaussians& mine);
  void measure_traffic(const kernels::ProjectedGaussians& mine, int64_t pair_bytes);
  // Sets the traffic of sizes_ from pair counts per peer: sent (this rank's) and received.
  void add_traffic(const std::vector<int64_t>& sent, const std::vector<int64_t>& received) const;
  void compute_loss(const StepBatch& batch);
  void return_gradients(int64_t projected);
  void read_gradients_in_place(const StepBatch& batch, int64_t rows);
  void remember_views(const StepBatch& batch);

  Communicator& comm_;
  kernels::ComputeContext where_;
  std::unique_ptr<kernels::Rasterizer> raster_;
  BatchLoss loss_;
  CameraBlock block_;
  mutable ExchangeSizes sizes_;  // its traffic is brought up to date by exchange_sizes()
  // Pair counts per peer: sent (this rank's pairs for q's cameras), received (q's pairs for ours).
  kernels::Buffer<int64_t> counts_;  // [2R] on the device: send counts, then received counts
  std::vector<int64_t> send_pairs_, recv_pairs_, send_at_, recv_at_;
  // Whether the last exchange left out the pairs that cover no tile (transport::Communicator::
  // all_to_all_gated); then the pairs it moved, counted on the device [2R: sent, then received per
  // peer], and their copies to the host (read once landed: needed_read_ is the first copy unread).
  bool gated_ = false;
  int64_t pair_bytes_ = 0;
  kernels::Buffer<int64_t> needed_;
  mutable kernels::HostCopies needed_copies_;
  mutable uint64_t needed_read_ = 0;
  // Gated steps are counted one in kTrafficEvery (the first included): the counts take two kernels, their
  // clears and a copy to the host, 17 us of a 2 ms step on two H100s (bench/TWO_GPUS.md, "The ranks'
  // timelines"), for a figure the metrics read at their own cadence.
  static constexpr int kTrafficEvery = 8;
  int traffic_phase_ = 0;  // steps since the last counted one, mod kTrafficEvery
  // Whether the communicator may map the peers' columns (project_into_peers); false once it said no.
  bool maps_peers_ = true;
  bool mapped_ = false;  // this step's pairs went straight into the renderers' columns
  std::vector<kernels::PairDestination> destinations_;  // per batch camera, where the projection writes it
  std::vector<kernels::ConstProjectedGrads> sources_;   // per batch camera, where its gradients are read
  // The received pairs, their gradients, and the gradients of this rank's own pairs.
  ReceivedPairs received_;
  kernels::Buffer<float> d_received_, d_mine_;  // 3 arrays [count,4] each, back to back
  // Marks: mapped writes opened (start / end), exchange start / end, render start / end, reverse exchange
  // start / end.
  kernels::StepMarks marks_;
  StepTimes times_;
  // The views this rank rendered in each of the latest sequences of marks, by sequence number: a
  // sequence is handed out by take_completed() at most one step after the ring of marks let it go, so
  // twice the ring's length always still holds it.
  struct RenderedViews {
    uint64_t sequence = 0;
    std::vector<int> views;
  };
  std::array<RenderedViews, 2 * kernels::StepMarks::kSlots> rendered_;
  kernels::Buffer<float> rgb_, alpha_, grad_rgb_;
};

}  // namespace splat::sharded
