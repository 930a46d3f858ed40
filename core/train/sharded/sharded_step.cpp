#include "core/train/sharded/sharded_step.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/camera_blocks.h"
#include "kernels/camera_blocks_math.h"
#include "kernels/records.h"

namespace splat::sharded {

namespace {

using transport::PeerSlices;

// 32-bit words of one pair's record in the forward exchange and of its gradients' in the reverse one.
const int kPairWords = pair_record<const uint32_t>(kernels::ProjectedGaussians{}).record_words;
const int kGradWords = gradient_record<const uint32_t>(kernels::ConstProjectedGrads{}).record_words;

// Step marks (ShardedStep::marks_).
enum Mark { kExchangeStart, kExchangeEnd, kRenderStart, kRenderEnd, kReturnStart, kReturnEnd, kMarks };

// Per-peer byte slices of the records of `pairs[q]` pairs per peer q starting at pair `at[q]`,
// `bytes` bytes a pair, with rank `me`'s own pairs left out (they are not exchanged): its slice is
// empty and the peers after it start that many records earlier.
struct ByteSlices {
  std::vector<int64_t> counts, offsets;
  ByteSlices(const std::vector<int64_t>& pairs, const std::vector<int64_t>& at, int me, int64_t bytes) {
    for (size_t q = 0; q < pairs.size(); ++q) {
      counts.push_back(int(q) == me ? 0 : pairs[q] * bytes);
      offsets.push_back((at[q] - (int(q) > me ? pairs[size_t(me)] : 0)) * bytes);
    }
  }
  transport::PeerSlices view() const { return {counts, offsets}; }
};

// Rows [0, rows) of `from` but the own run [own_at, own_at + own), packed into consecutive records.
void pack_peers(const kernels::ComputeContext& where, const kernels::RecordSources& from, int64_t rows, int64_t own_at,
                int64_t own, uint32_t* records) {
  kernels::pack_records(where, from, own_at, records);
  kernels::pack_records(where, kernels::rows_from(from, own_at + own), rows - own_at - own,
                        records + own_at * from.record_words);
}

// The inverse: consecutive records into rows [0, rows) of `to` but the own run.
void unpack_peers(const kernels::ComputeContext& where, const uint32_t* records, int64_t rows, int64_t own_at,
                  int64_t own, const kernels::RecordTargets& to) {
  kernels::unpack_records(where, records, own_at, to);
  kernels::unpack_records(where, records + own_at * to.record_words, rows - own_at - own,
                          kernels::rows_from(to, own_at + own));
}

// Exclusive prefix sum: where each peer's pairs start.
std::vector<int64_t> starts(const std::vector<int64_t>& counts) {
  std::vector<int64_t> at(counts.size(), 0);
  for (size_t q = 1; q < counts.size(); ++q) at[q] = at[q - 1] + counts[q - 1];
  return at;
}

std::unique_ptr<kernels::Rasterizer> rasterizer_on(const kernels::ComputeContext& where, int cpu_threads) {
  return where.device == kernels::Device::CPU ? kernels::make_cpu_rasterizer(cpu_threads)
                                              : kernels::make_cuda_rasterizer(where);
}

}  // namespace

CameraBlock camera_block(int rank, int ranks, int batch) {
  if (ranks < 1 || rank < 0 || rank >= ranks)
    throw std::invalid_argument("camera_block: rank " + std::to_string(rank) + " of " + std::to_string(ranks));
  check_batch_covers_ranks(batch, ranks);
  const int first = kernels::block_first_camera(rank, batch, ranks);
  return {first, kernels::block_first_camera(rank + 1, batch, ranks) - first};
}

ShardedStep::ShardedStep(Communicator& comm, float ssim_weight, int cpu_threads)
    : comm_(comm),
      where_(comm.context()),
      raster_(rasterizer_on(where_, cpu_threads)),
      loss_(where_, ssim_weight),
      counts_(where_, 2 * size_t(comm.size())),
      send_records_(where_), recv_records_(where_), received_(where_),
      d_received_(where_), d_mine_(where_),
      marks_(where_, kMarks),
      rgb_(where_), alpha_(where_), grad_rgb_(where_) {}

void ShardedStep::run(const StepBatch& batch, const StepRows& rows) {
  const int B = int(batch.cameras.size());
  block_ = camera_block(comm_.rank(), comm_.size(), B);
  if (int(batch.targets.size()) != B || (!batch.masks.empty() && int(batch.masks.size()) != B))
    throw std::invalid_argument("sharded step: " + std::to_string(B) + " cameras but " +
                                std::to_string(batch.targets.size()) + " targets and " +
                                std::to_string(batch.masks.size()) + " masks");
  const kernels::ProjectedGaussians mine = raster_->project(rows.view, batch.cameras, batch.settings);
  mark("sharded: project");
  count_pairs(mine, batch, rows.view.n);
  exchange_pairs(mine);
  const kernels::ProjectedGaussians received = received_.view();
  const auto mine_cameras = batch.cameras.subspan(size_t(block_.first), size_t(block_.count));
  const kernels::ImageBatchShape largest = largest_run(batch, block_.count);
  if (largest.cameras > 0) loss_.reserve(largest);
  const int64_t most = largest.cameras * largest.pixels_per_image();
  const int64_t pixels = std::max(kernels::image_offsets(mine_cameras).back(), most);
  rgb_.resize(size_t(3 * pixels));
  alpha_.resize(size_t(pixels));
  grad_rgb_.resize(size_t(3 * pixels));
  marks_.mark(kRenderStart);
  raster_->rasterize(received, mine_cameras, block_.first, batch.settings, {rgb_.data(), alpha_.data(), nullptr});
  mark("sharded: rasterize");
  compute_loss(batch);
  mark("sharded: loss");
  const int64_t m = sizes_.pairs_received;
  d_received_.resize(size_t(kernels::kProjectedGradFloats * m));
  float* d = d_received_.data();
  raster_->rasterize_backward({grad_rgb_.data(), nullptr, nullptr}, {d, d + 4 * m, d + 8 * m});
  marks_.mark(kRenderEnd);
  mark("sharded: rasterize backward");
  const int64_t n = mine.count;
  return_gradients(n);
  const float* dm = d_mine_.data();
  // One project_backward call: it writes the step's gradients (narrow ones where it may).
  raster_->project_backward({dm, dm + 4 * n, dm + 8 * n},
                            rows.grad(batch.settings.packed ? GradWrite::Overwrite : GradWrite::OnlyCall),
                            rows.stats);
  mark(rows.stats.visible_count ? "sharded: project backward (+stats)" : "sharded: project backward");
}

// The pairs this rank sends to each peer and receives from each. A dense projection holds every
// (camera, Gaussian) pair, camera by camera: with the shard sizes known, the counts are block
// cameras x shard sizes, with no device work, exchange or host wait. Otherwise (packed, or sizes not
// given) they are counted on the device, exchanged, and copied to the host (its one wait here).
void ShardedStep::count_pairs(const kernels::ProjectedGaussians& mine, const StepBatch& batch, int64_t rows) {
  const int R = comm_.size(), me = comm_.rank(), B = int(batch.cameras.size());
  marks_.mark(kExchangeStart);
  send_pairs_.assign(size_t(R), 0);
  recv_pairs_.assign(size_t(R), 0);
  if (!batch.settings.packed && !batch.shard_sizes.empty()) {
    if (int(batch.shard_sizes.size()) != R || batch.shard_sizes[size_t(me)] != rows ||
        mine.count != int64_t(B) * rows)
      throw std::invalid_argument("sharded step: rank " + std::to_string(me) + " was given " +
                                  std::to_string(batch.shard_sizes.size()) + " shard sizes for " + std::to_string(R) +
                                  " ranks that do not match its shard of " + std::to_string(rows) + " rows");
    for (int q = 0; q < R; ++q) {
      send_pairs_[size_t(q)] = int64_t(camera_block(q, R, B).count) * rows;
      recv_pairs_[size_t(q)] = int64_t(block_.count) * batch.shard_sizes[size_t(q)];
    }
  } else {
    kernels::count_pairs_per_block(where_, mine.camera, mine.count, B, R, counts_.data());
    comm_.all_to_all_counts(counts_.data(), counts_.data() + R);
    const std::vector<int64_t> both = counts_.download();
    std::copy(both.begin(), both.begin() + R, send_pairs_.begin());
    std::copy(both.begin() + R, both.end(), recv_pairs_.begin());
  }
  mark("sharded: pair counts");
}

// Every pair bound for a peer as one record in one all_to_all_v: the pairs for rank q are the
// contiguous range of q's cameras, so they are packed in the order they are. The rank's own range
// is copied column by column to its place among the received pairs (with one rank, that copy is
// the whole exchange).
void ShardedStep::exchange_pairs(const kernels::ProjectedGaussians& mine) {
  const size_t R = size_t(comm_.size());
  const int me = comm_.rank();
  send_at_ = starts(send_pairs_);
  recv_at_ = starts(recv_pairs_);
  const int64_t m = recv_at_.back() + recv_pairs_.back(), own = send_pairs_[size_t(me)];
  sizes_ = {};
  sizes_.pairs_projected = mine.count;
  sizes_.pairs_received = m;
  received_.resize(m);
  const kernels::RecordSources from = pair_record<const uint32_t>(mine);
  const kernels::RecordTargets to = pair_record<uint32_t>(received_.columns());
  kernels::copy_record_columns(where_, kernels::rows_from(from, send_at_[size_t(me)]), own,
                               kernels::rows_from(to, recv_at_[size_t(me)]));
  send_records_.resize(size_t((mine.count - own) * kPairWords));
  pack_peers(where_, from, mine.count, send_at_[size_t(me)], own, send_records_.data());
  recv_records_.resize(size_t((m - own) * kPairWords));
  const ByteSlices out(send_pairs_, send_at_, me, 4 * kPairWords), in(recv_pairs_, recv_at_, me, 4 * kPairWords);
  comm_.all_to_all_v(send_records_.data(), out.view(), recv_records_.data(), in.view());
  marks_.mark(kExchangeEnd);
  unpack_peers(where_, recv_records_.data(), m, recv_at_[size_t(me)], own, to);
  mark("sharded: pair exchange");
  for (size_t q = 0; q < R; ++q)
    if (int(q) != me) {
      sizes_.bytes_sent += 4 * (send_pairs_[q] * kPairWords + recv_pairs_[q] * kGradWords);
      sizes_.bytes_received += 4 * (recv_pairs_[q] * kPairWords + send_pairs_[q] * kGradWords);
    }
}

// The rank's cameras in runs of one image size, one loss call each (as the one-GPU trainer does).
void ShardedStep::compute_loss(const StepBatch& batch) {
  loss_.clear();
  const auto mine = batch.cameras.subspan(size_t(block_.first), size_t(block_.count));
  const auto offsets = kernels::image_offsets(mine);
  size_t begin = 0;
  for (const size_t end : size_run_ends(mine)) {
    const kernels::Camera& first = mine[begin];
    const size_t at = size_t(block_.first) + begin, C = end - begin;
    for (size_t k = at; k < at + C; ++k)
      if (!batch.targets[k] || (!batch.masks.empty() && !batch.masks[k]))
        throw std::invalid_argument("sharded step: no target (or mask) for batch camera " + std::to_string(k) +
                                    ", which rank " + std::to_string(comm_.rank()) + " renders");
    loss_.add_run(rgb_.data() + 3 * offsets[begin], grad_rgb_.data() + 3 * offsets[begin],
                  {int(C), first.height, first.width}, batch.targets.subspan(at, C),
                  batch.masks.empty() ? batch.masks : batch.masks.subspan(at, C), int(batch.cameras.size()));
    begin = end;
  }
}

// The reverse exchange: the gradients of the received pairs go back to the ranks that projected
// them, where they land aligned with those ranks' own pairs (the own run by a column copy). The
// forward exchange's record buffers are large enough (a gradient record is smaller than a pair
// record) and free again by stream order.
void ShardedStep::return_gradients(int64_t projected) {
  const int me = comm_.rank();
  const int64_t m = sizes_.pairs_received, own = send_pairs_[size_t(me)];
  float* d = d_received_.data();
  d_mine_.resize(size_t(kernels::kProjectedGradFloats * projected));
  float* dm = d_mine_.data();
  const kernels::RecordSources from = gradient_record<const uint32_t>(kernels::ConstProjectedGrads{d, d + 4 * m, d + 8 * m});
  const kernels::RecordTargets to =
      gradient_record<uint32_t>(kernels::ProjectedGrads{dm, dm + 4 * projected, dm + 8 * projected});
  kernels::copy_record_columns(where_, kernels::rows_from(from, recv_at_[size_t(me)]), own,
                               kernels::rows_from(to, send_at_[size_t(me)]));
  pack_peers(where_, from, m, recv_at_[size_t(me)], own, recv_records_.data());
  const ByteSlices out(recv_pairs_, recv_at_, me, 4 * kGradWords), in(send_pairs_, send_at_, me, 4 * kGradWords);
  marks_.mark(kReturnStart);
  comm_.all_to_all_v(recv_records_.data(), out.view(), send_records_.data(), in.view());
  marks_.mark(kReturnEnd);
  unpack_peers(where_, send_records_.data(), projected, send_at_[size_t(me)], own, to);
  mark("sharded: gradient return");
}

StepTimes ShardedStep::step_times() {
  if (const auto ms = marks_.latest())
    times_ = {(*ms)[kRenderStart], (*ms)[kExchangeStart] + (*ms)[kReturnStart]};
  return times_;
}

size_t ShardedStep::render_bytes() const {
  return (rgb_.capacity() + alpha_.capacity() + grad_rgb_.capacity()) * sizeof(float);
}

float ShardedStep::read_loss() {
  float loss = rank_loss();
  comm_.all_reduce_sum(std::span<float>(&loss, 1));
  return loss;
}

}  // namespace splat::sharded
