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

// 32-bit words of one pair's record in the forward exchange and of its gradients' in the reverse one;
// a culled exchange's records lead with the pair's row (kernels/records.h, indexed records).
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

// Byte slices of `records[q]` records per peer of `bytes` bytes each, packed back to back in peer
// order (the rank's own entry is 0).
transport::PeerSlices packed_slices(const std::vector<int64_t>& records, int64_t bytes, std::vector<int64_t>& counts,
                                    std::vector<int64_t>& offsets) {
  counts.clear();
  offsets.clear();
  int64_t at = 0;
  for (const int64_t r : records) {
    counts.push_back(r * bytes);
    offsets.push_back(at);
    at += r * bytes;
  }
  return {counts, offsets};
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
      plan_(where_, comm.size()),
      send_rows_(where_), recv_rows_(where_),
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
  const int64_t pixels = kernels::image_offsets(mine_cameras).back();
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
  culled_ = false;
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
    if (R > 1) select_visible(mine);
  } else {
    kernels::count_pairs_per_block(where_, mine.camera, mine.count, B, R, counts_.data());
    comm_.all_to_all_counts(counts_.data(), counts_.data() + R);
    const std::vector<int64_t> both = counts_.download();
    std::copy(both.begin(), both.begin() + R, send_pairs_.begin());
    std::copy(both.begin() + R, both.end(), recv_pairs_.begin());
  }
  mark("sharded: pair counts");
}

// A dense step sends each peer only the pairs its cameras see (tile count > 0, about a third on an
// indoor scene): their rows per peer are selected on the device and counted, the counts exchanged and
// queued back to the host for later steps' sizes (ExchangePlan); this step's sizes come from earlier
// ones, so nothing here waits.
void ShardedStep::select_visible(const kernels::ProjectedGaussians& mine) {
  const int R = comm_.size(), me = comm_.rank();
  culled_ = true;
  const ExchangePlan::Sizes sizes = plan_.plan(send_pairs_, recv_pairs_);
  send_records_count_ = sizes.send;
  recv_records_count_ = sizes.receive;
  send_records_count_[size_t(me)] = recv_records_count_[size_t(me)] = 0;
  const std::vector<int64_t> at = starts(send_pairs_);
  send_rows_.resize(size_t(mine.count));
  counts_.zero();
  for (int q = 0; q < R; ++q)
    if (q != me)
      kernels::select_rows(where_, mine.tiles + at[size_t(q)], send_pairs_[size_t(q)], send_rows_.data() + at[size_t(q)],
                           counts_.data() + q);
  comm_.all_to_all_counts(counts_.data(), counts_.data() + R);
  plan_.counted(counts_.data());
}

// Every pair bound for a peer as one record in one all_to_all_v: the pairs for rank q are the
// contiguous range of q's cameras, so they are packed in the order they are. The rank's own range
// is copied column by column to its place among the received pairs (with one rank, that copy is
// the whole exchange).
void ShardedStep::exchange_pairs(const kernels::ProjectedGaussians& mine) {
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
  if (culled_) {
    exchange_visible(from, to, own);
  } else {
    exchange_all(mine, from, to, own);
  }
  mark("sharded: pair exchange");
}

// Every pair of the peers' ranges, in order: the receiver's columns are filled entirely.
void ShardedStep::exchange_all(const kernels::ProjectedGaussians& mine, const kernels::RecordSources& from,
                               const kernels::RecordTargets& to, int64_t own) {
  const size_t R = size_t(comm_.size());
  const int me = comm_.rank();
  const int64_t m = sizes_.pairs_received;
  kernels::copy_record_columns(where_, kernels::rows_from(from, send_at_[size_t(me)]), own,
                               kernels::rows_from(to, recv_at_[size_t(me)]));
  send_records_.resize(size_t((mine.count - own) * kPairWords));
  pack_peers(where_, from, mine.count, send_at_[size_t(me)], own, send_records_.data());
  recv_records_.resize(size_t((m - own) * kPairWords));
  const ByteSlices out(send_pairs_, send_at_, me, 4 * kPairWords), in(recv_pairs_, recv_at_, me, 4 * kPairWords);
  comm_.all_to_all_v(send_records_.data(), out.view(), recv_records_.data(), in.view());
  marks_.mark(kExchangeEnd);
  unpack_peers(where_, recv_records_.data(), m, recv_at_[size_t(me)], own, to);
  for (size_t q = 0; q < R; ++q)
    if (int(q) != me) {
      sizes_.bytes_sent += 4 * (send_pairs_[q] * kPairWords + recv_pairs_[q] * kGradWords);
      sizes_.bytes_received += 4 * (recv_pairs_[q] * kPairWords + send_pairs_[q] * kGradWords);
    }
}

// The visible pairs only, as records led by their row in the peer's range. The receiver's pairs that
// no record fills keep a tile count of 0: the rasterizer passes over them, and their gradients are 0.
void ShardedStep::exchange_visible(const kernels::RecordSources& from, const kernels::RecordTargets& to, int64_t own) {
  const size_t R = size_t(comm_.size());
  const int me = comm_.rank();
  const int64_t bytes = 4 * (1 + kPairWords);
  int64_t sent = 0, got = 0;
  for (size_t q = 0; q < R; ++q) sent += send_records_count_[q], got += recv_records_count_[q];
  send_records_.resize(size_t(sent * (1 + kPairWords)));
  for (size_t q = 0, at = 0; q < R; at += size_t(send_records_count_[q] * (1 + kPairWords)), ++q)
    if (send_records_count_[q] > 0)
      kernels::pack_indexed_records(where_, kernels::rows_from(from, send_at_[q]), send_rows_.data() + send_at_[q],
                                    send_records_count_[q], send_records_.data() + at);
  recv_records_.resize(size_t(got * (1 + kPairWords)));
  std::vector<int64_t> out_counts, out_offsets, in_counts, in_offsets;
  comm_.all_to_all_v(send_records_.data(), packed_slices(send_records_count_, bytes, out_counts, out_offsets),
                     recv_records_.data(), packed_slices(recv_records_count_, bytes, in_counts, in_offsets));
  marks_.mark(kExchangeEnd);
  received_.clear_tiles();
  kernels::copy_record_columns(where_, kernels::rows_from(from, send_at_[size_t(me)]), own,
                               kernels::rows_from(to, recv_at_[size_t(me)]));
  recv_rows_.resize(size_t(got));
  for (size_t q = 0, at = 0, row = 0; q < R; at += size_t(recv_records_count_[q] * (1 + kPairWords)),
              row += size_t(recv_records_count_[q]), ++q)
    if (recv_records_count_[q] > 0)
      kernels::unpack_indexed_records(where_, recv_records_.data() + at, recv_records_count_[q],
                                      kernels::rows_from(to, recv_at_[q]), recv_rows_.data() + row);
  sizes_.overflows = plan_.overflows();
  for (size_t q = 0; q < R; ++q) {
    sizes_.bytes_sent += 4 * (send_records_count_[q] * (1 + kPairWords) + recv_records_count_[q] * (1 + kGradWords));
    sizes_.bytes_received += 4 * (recv_records_count_[q] * (1 + kPairWords) + send_records_count_[q] * (1 + kGradWords));
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
  if (culled_) d_mine_.zero();  // the pairs no peer saw get no gradient
  kernels::copy_record_columns(where_, kernels::rows_from(from, recv_at_[size_t(me)]), own,
                               kernels::rows_from(to, send_at_[size_t(me)]));
  if (culled_) {
    return_visible(from, to);
  } else {
    pack_peers(where_, from, m, recv_at_[size_t(me)], own, recv_records_.data());
    const ByteSlices out(recv_pairs_, recv_at_, me, 4 * kGradWords), in(send_pairs_, send_at_, me, 4 * kGradWords);
    marks_.mark(kReturnStart);
    comm_.all_to_all_v(recv_records_.data(), out.view(), send_records_.data(), in.view());
    marks_.mark(kReturnEnd);
    unpack_peers(where_, send_records_.data(), projected, send_at_[size_t(me)], own, to);
  }
  mark("sharded: gradient return");
}

// The gradients of the visible pairs, as records led by the rows they came with (kept by the
// forward's unpack), into the same rows at their owner.
void ShardedStep::return_visible(const kernels::RecordSources& from, const kernels::RecordTargets& to) {
  const size_t R = size_t(comm_.size());
  const int64_t bytes = 4 * (1 + kGradWords);
  for (size_t q = 0, at = 0, row = 0; q < R; at += size_t(recv_records_count_[q] * (1 + kGradWords)),
              row += size_t(recv_records_count_[q]), ++q)
    if (recv_records_count_[q] > 0)
      kernels::pack_indexed_records(where_, kernels::rows_from(from, recv_at_[q]), recv_rows_.data() + row,
                                    recv_records_count_[q], recv_records_.data() + at);
  std::vector<int64_t> out_counts, out_offsets, in_counts, in_offsets;
  marks_.mark(kReturnStart);
  comm_.all_to_all_v(recv_records_.data(), packed_slices(recv_records_count_, bytes, out_counts, out_offsets),
                     send_records_.data(), packed_slices(send_records_count_, bytes, in_counts, in_offsets));
  marks_.mark(kReturnEnd);
  for (size_t q = 0, at = 0; q < R; at += size_t(send_records_count_[q] * (1 + kGradWords)), ++q)
    if (send_records_count_[q] > 0)
      kernels::unpack_indexed_records(where_, send_records_.data() + at, send_records_count_[q],
                                      kernels::rows_from(to, send_at_[q]), nullptr);
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
