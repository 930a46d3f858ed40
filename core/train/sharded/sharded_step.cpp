#include "core/train/sharded/sharded_step.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/camera_blocks.h"
#include "kernels/camera_blocks_math.h"
#include "kernels/gated_rows.h"

namespace splat::sharded {

namespace {


// Step marks (ShardedStep::marks_). Opening mapped writes waits for the peers to free their receive
// columns (adjacent marks, no wait, where the pairs are exchanged after the projection).
enum Mark { kOpenStart, kOpenEnd, kExchangeStart, kExchangeEnd, kRenderStart, kRenderEnd, kReturnStart, kReturnEnd,
            kMarks };

// The exchange of columns whose rows are grouped by peer: of each column, `out[q]` rows from row
// `out_at[q]` go to peer q and `in[q]` rows from peer q land at row `in_at[q]` (this rank's own run
// included: the communicator copies it), gated by the sender's flag per row; the column marked
// zero_gated (at most one) receives zeros for the rows left out. Holds the byte slices while the
// collective runs.
class ColumnExchange {
 public:
  ColumnExchange(const std::vector<ExchangeColumn>& columns, const std::vector<int64_t>& out,
                 const std::vector<int64_t>& out_at, const std::vector<int64_t>& in,
                 const std::vector<int64_t>& in_at) {
    slices_.reserve(4 * columns.size());  // the buffers' spans point into these vectors: no reallocation
    auto bytes = [&](const std::vector<int64_t>& rows, int64_t row_bytes) -> std::span<const int64_t> {
      std::vector<int64_t>& v = slices_.emplace_back();
      for (const int64_t r : rows) v.push_back(r * row_bytes);
      return v;
    };
    for (const ExchangeColumn& c : columns) {
      if (c.zero_gated) zeroed_ = int(buffers_.size());
      buffers_.push_back({c.from, {bytes(out, c.row_bytes), bytes(out_at, c.row_bytes)}, c.to,
                          {bytes(in, c.row_bytes), bytes(in_at, c.row_bytes)}});
      row_bytes_.push_back(c.row_bytes);
    }
  }
  // Whether the rows whose gate is 0 were left out (transport::Communicator::all_to_all_gated).
  bool run(Communicator& comm, const int32_t* gate) const {
    return comm.all_to_all_gated(buffers_, row_bytes_, gate, zeroed_);
  }
  // Where this rank's slices begin in its peers' receive columns, [column][peer], or empty where the
  // communicator does not map them (transport::Communicator::open_mapped_writes).
  std::vector<std::vector<void*>> open_mapped(Communicator& comm) const { return comm.open_mapped_writes(buffers_); }
  // Where the peers' slices for this rank begin in their send columns, likewise (open_mapped_reads).
  std::vector<std::vector<const void*>> open_mapped_reads(Communicator& comm) const {
    return comm.open_mapped_reads(buffers_);
  }

 private:
  std::vector<std::vector<int64_t>> slices_;
  std::vector<transport::ExchangeBuffer> buffers_;
  std::vector<int64_t> row_bytes_;
  int zeroed_ = -1;  // the zero_gated column's buffer
};

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
  return {kernels::block_first_camera(rank, batch, ranks), kernels::block_cameras(rank, batch, ranks)};
}

ShardedStep::ShardedStep(Communicator& comm, float ssim_weight, int cpu_threads)
    : comm_(comm),
      where_(comm.context()),
      raster_(rasterizer_on(where_, cpu_threads)),
      loss_(where_, ssim_weight),
      counts_(where_, 2 * size_t(comm.size())),
      needed_(where_, 2 * size_t(comm.size())),
      needed_copies_(where_),
      received_(where_),
      d_received_(where_), d_mine_(where_),
      marks_(where_, kMarks),
      rgb_(where_), alpha_(where_), grad_rgb_(where_) {}

void ShardedStep::run(const StepBatch& batch, const StepRows& rows) {
  const int B = int(batch.cameras.size());
  block_ = camera_block(comm_.rank(), comm_.size(), B);
  check_batch_lists(batch, "sharded step");
  marks_.mark(kOpenStart);
  remember_views(batch);
  kernels::ProjectedGaussians mine;
  mapped_ = project_into_peers(batch, rows, mine);
  if (!mapped_) {
    marks_.mark(kOpenEnd);
    mine = raster_->project(rows.view, batch.cameras, batch.settings);
    mark("sharded: project");
    marks_.mark(kExchangeStart);
    count_pairs(mine, batch, rows.view.n);
    exchange_pairs(mine);
  }
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
  raster_->rasterize_backward({grad_rgb_.data(), nullptr, nullptr}, {d, d + 4 * m, d + 8 * m},
                              rows.stats.grad2d_abs_norm != nullptr);
  marks_.mark(kRenderEnd);
  mark("sharded: rasterize backward");
  const int64_t n = mine.count;
  // One project_backward call: it writes the step's gradients (narrow ones where it may).
  const kernels::GaussiansGrad grad = rows.grad(batch.settings.packed ? GradWrite::Overwrite : GradWrite::OnlyCall);
  if (mapped_) {
    read_gradients_in_place(batch, rows.view.n);
    raster_->project_backward_by_camera(sources_, grad, rows.stats);
    // Nothing reads the mapped columns again this step: a peer opening the next step's writes need not
    // wait for this rank's optimizer (on two GPUs the ranks' Adam ends lie some 30 us apart).
    comm_.finish_mapped_reads();
  } else {
    return_gradients(n);
    const float* dm = d_mine_.data();
    raster_->project_backward({dm, dm + 4 * n, dm + 8 * n}, grad, rows.stats);
  }
  mark(rows.stats.visible_count ? "sharded: project backward (+stats)" : "sharded: project backward");
}

// With the pair counts known on the host (a dense projection, the shard sizes given), the projection
// writes every pair straight into the receiving rank's columns where the communicator maps them
// (Communicator::open_mapped_writes): the pairs for rank q's cameras land where a gated exchange would
// have put them, with no copy after the projection, and a pair that covers no tile writes only its
// tile count (0). Returns false where it cannot; then nothing was projected or exchanged.
bool ShardedStep::project_into_peers(const StepBatch& batch, const StepRows& rows, kernels::ProjectedGaussians& mine) {
  if (!maps_peers_ || batch.settings.packed || batch.shard_sizes.empty()) return false;
  const int R = comm_.size(), B = int(batch.cameras.size());
  const int64_t n = rows.view.n;
  plan_dense_pairs(batch, n);
  size_received(int64_t(B) * n);
  const std::vector<ExchangeColumn> columns = pair_columns({}, received_.columns());
  const std::vector<std::vector<void*>> at =
      ColumnExchange(columns, send_pairs_, send_at_, recv_pairs_, recv_at_).open_mapped(comm_);
  if (at.empty()) {
    maps_peers_ = false;  // the communicator's answer holds for the run
    return false;
  }
  marks_.mark(kOpenEnd);
  mark("sharded: open mapped writes");
  destinations_.clear();
  std::vector<void*> slice(columns.size());  // where this rank's slice for q begins, per column
  for (int q = 0; q < R; ++q) {
    for (size_t k = 0; k < columns.size(); ++k) slice[k] = at[k][size_t(q)];
    const CameraBlock theirs = camera_block(q, R, B);
    for (int c = 0; c < theirs.count; ++c) destinations_.push_back(pair_destination(slice, int64_t(c) * n));
  }
  mine = raster_->project(rows.view, batch.cameras, batch.settings, destinations_);
  mark("sharded: project");
  marks_.mark(kExchangeStart);
  comm_.close_mapped_writes();
  gated_ = true;
  marks_.mark(kExchangeEnd);
  mark("sharded: pair exchange");
  measure_traffic(mine, row_bytes(columns));
  return true;
}

// A dense projection holds every (camera, Gaussian) pair, camera by camera: with the shard sizes known,
// the pairs sent to and received from each peer are block cameras x shard sizes, with no device work,
// exchange or host wait.
void ShardedStep::plan_dense_pairs(const StepBatch& batch, int64_t rows) {
  const int R = comm_.size(), me = comm_.rank(), B = int(batch.cameras.size());
  if (int(batch.shard_sizes.size()) != R || batch.shard_sizes[size_t(me)] != rows)
    throw std::invalid_argument("sharded step: rank " + std::to_string(me) + " was given " +
                                std::to_string(batch.shard_sizes.size()) + " shard sizes for " + std::to_string(R) +
                                " ranks that do not match its shard of " + std::to_string(rows) + " rows");
  send_pairs_.assign(size_t(R), 0);
  recv_pairs_.assign(size_t(R), 0);
  for (int q = 0; q < R; ++q) {
    send_pairs_[size_t(q)] = int64_t(camera_block(q, R, B).count) * rows;
    recv_pairs_[size_t(q)] = int64_t(block_.count) * batch.shard_sizes[size_t(q)];
  }
}

// Where each peer's pairs start on both sides, and room for the received ones.
void ShardedStep::size_received(int64_t projected) {
  send_at_ = starts(send_pairs_);
  recv_at_ = starts(recv_pairs_);
  sizes_.pairs_projected = projected;
  sizes_.pairs_received = recv_at_.back() + recv_pairs_.back();
  received_.resize(sizes_.pairs_received);
}

// The pairs this rank sends to each peer and receives from each: planned on the host for a dense
// projection with the shard sizes known (plan_dense_pairs). Otherwise (packed, or sizes not given) they
// are counted on the device, exchanged, and copied to the host (its one wait here).
void ShardedStep::count_pairs(const kernels::ProjectedGaussians& mine, const StepBatch& batch, int64_t rows) {
  const int R = comm_.size(), B = int(batch.cameras.size());
  if (!batch.settings.packed && !batch.shard_sizes.empty()) {
    plan_dense_pairs(batch, rows);
  } else {
    send_pairs_.assign(size_t(R), 0);
    recv_pairs_.assign(size_t(R), 0);
    kernels::count_pairs_per_block(where_, mine.camera, mine.count, B, R, counts_.data());
    comm_.all_to_all_counts(counts_.data(), counts_.data() + R);
    const std::vector<int64_t> both = counts_.download();
    std::copy(both.begin(), both.begin() + R, send_pairs_.begin());
    std::copy(both.begin() + R, both.end(), recv_pairs_.begin());
  }
  mark("sharded: pair counts");
}

// Every pair bound for a peer straight from the projection's columns into the received columns, in
// one gated exchange: the pairs for rank q are the contiguous range of q's cameras in every column,
// they land after the pairs of the ranks before q, and a pair that covers no tile of its camera (its
// `tiles` is 0) is not needed there (the rasterizer reads nothing else of it).
void ShardedStep::exchange_pairs(const kernels::ProjectedGaussians& mine) {
  size_received(mine.count);
  const std::vector<ExchangeColumn> columns = pair_columns(mine, received_.columns());
  gated_ = ColumnExchange(columns, send_pairs_, send_at_, recv_pairs_, recv_at_).run(comm_, mine.tiles);
  marks_.mark(kExchangeEnd);
  mark("sharded: pair exchange");
  measure_traffic(mine, row_bytes(columns));
}

// The step's traffic to and from the other ranks: pairs out and their gradients back. Without
// gating every pair travels and the host counts are exact; with it, the pairs that cover a tile are
// counted on the device (sent: this rank's, received: its peers'), and their counts reach the host
// without a wait once the device has passed them (kernels/host_copies.h), one step in kTrafficEvery:
// exchange_sizes() gives the latest counted step whose counts have landed. Past 32 ranks (more counts
// than one host copy holds) the figures are the dense ones, an upper bound.
void ShardedStep::measure_traffic(const kernels::ProjectedGaussians& mine, int64_t pair_bytes) {
  const size_t R = size_t(comm_.size());
  pair_bytes_ = pair_bytes;
  if (!gated_ || 2 * R > size_t(kernels::HostCopies::kMostValues)) return add_traffic(send_pairs_, recv_pairs_);
  const bool counted = traffic_phase_ == 0;
  traffic_phase_ = (traffic_phase_ + 1) % kTrafficEvery;
  if (!counted) return;
  kernels::count_gated_runs(where_, mine.tiles, send_at_, send_pairs_, needed_.data());
  kernels::count_gated_runs(where_, received_.view().tiles, recv_at_, recv_pairs_, needed_.data() + R);
  needed_copies_.queue(needed_.data(), int(2 * R));
}

void ShardedStep::add_traffic(const std::vector<int64_t>& sent, const std::vector<int64_t>& received) const {
  const int64_t grad_bytes = 4 * kernels::kProjectedGradFloats;
  sizes_.bytes_sent = sizes_.bytes_received = 0;
  for (size_t q = 0; q < sent.size(); ++q)
    if (int(q) != comm_.rank()) {
      sizes_.bytes_sent += sent[q] * pair_bytes_ + received[q] * grad_bytes;
      sizes_.bytes_received += received[q] * pair_bytes_ + sent[q] * grad_bytes;
    }
}

ExchangeSizes ShardedStep::exchange_sizes() const {
  const size_t R = size_t(comm_.size());
  const uint64_t newest = needed_copies_.queued(), kept = kernels::HostCopies::kSlots;
  for (uint64_t n = newest; n > std::max(needed_read_, newest > kept ? newest - kept : 0);) {
    if (!needed_copies_.landed(--n)) continue;
    const std::vector<int64_t> v = needed_copies_.values(n);
    add_traffic({v.begin(), v.begin() + R}, {v.begin() + R, v.end()});
    needed_read_ = n + 1;
    break;
  }
  return sizes_;
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
    const kernels::ImageBatchShape shape{int(C), first.height, first.width};
    const auto targets = batch.targets.subspan(at, C);
    const auto masks = batch.masks.empty() ? batch.masks : batch.masks.subspan(at, C);
    float* const rgb = rgb_.data() + 3 * offsets[begin];
    float* const grad = grad_rgb_.data() + 3 * offsets[begin];
    if (batch.color.params)
      loss_.add_mapped_run(rgb, grad, shape, targets, masks, int(batch.cameras.size()), batch.color.params,
                           batch.color.grads, batch.views.subspan(at, C));
    else
      loss_.add_run(rgb, grad, shape, targets, masks, int(batch.cameras.size()));
    begin = end;
  }
}

// Where the pairs went straight into the renderers' columns, their gradients are read where the
// renderers computed them (Communicator::open_mapped_reads): the projecting rank's project_backward reads
// camera c's from the rank rendering c, after that rank's rasterize_backward, with no copy. The renderer
// writes them again only in its next step's rasterize_backward, after that step's open_mapped_writes
// has ordered it after this rank's project_backward.
void ShardedStep::read_gradients_in_place(const StepBatch& batch, int64_t rows) {
  const int R = comm_.size(), B = int(batch.cameras.size());
  const int64_t m = sizes_.pairs_received;
  const float* d = d_received_.data();
  const std::vector<ExchangeColumn> columns = gradient_columns({d, d + 4 * m, d + 8 * m}, {});
  marks_.mark(kReturnStart);
  const std::vector<std::vector<const void*>> at =
      ColumnExchange(columns, recv_pairs_, recv_at_, send_pairs_, send_at_).open_mapped_reads(comm_);
  if (at.empty())
    throw transport::CommError("sharded step: " + transport::describe_rank(comm_.rank(), where_) +
                                   ": the ranks mapped each other's pair columns but not their gradients",
                               -1);
  marks_.mark(kReturnEnd);
  mark("sharded: gradient return");
  sources_.clear();
  std::vector<const void*> slice(columns.size());  // where q's slice for this rank begins, per column
  for (int q = 0; q < R; ++q) {
    for (size_t k = 0; k < columns.size(); ++k) slice[k] = at[k][size_t(q)];
    const CameraBlock theirs = camera_block(q, R, B);
    for (int c = 0; c < theirs.count; ++c) sources_.push_back(gradient_source(slice, int64_t(c) * rows));
  }
}

// The reverse exchange: the gradients of the received pairs go back to the ranks that projected
// them, where they land aligned with those ranks' own pairs.
void ShardedStep::return_gradients(int64_t projected) {
  const int64_t m = sizes_.pairs_received;
  const float* d = d_received_.data();
  d_mine_.resize(size_t(kernels::kProjectedGradFloats * projected));
  float* dm = d_mine_.data();
  const ColumnExchange back(gradient_columns({d, d + 4 * m, d + 8 * m}, {dm, dm + 4 * projected, dm + 8 * projected}),
                            recv_pairs_, recv_at_, send_pairs_, send_at_);
  marks_.mark(kReturnStart);
  // No gradient reaches a pair that covers no tile, and project_backward reads none for it.
  back.run(comm_, received_.view().tiles);
  marks_.mark(kReturnEnd);
  mark("sharded: gradient return");
}

namespace {
// A step's times from its marks' durations (StepMarks: ms from mark k to mark k + 1).
StepTimes times_of(const std::vector<double>& ms) {
  return {ms[kRenderStart], ms[kOpenStart] + ms[kExchangeStart] + ms[kReturnStart], {}};
}
}  // namespace

void ShardedStep::remember_views(const StepBatch& batch) {
  RenderedViews& r = rendered_[marks_.sequence() % rendered_.size()];
  r.sequence = marks_.sequence();
  r.views.clear();
  if (!batch.views.empty()) {
    const auto mine = batch.views.subspan(size_t(block_.first), size_t(block_.count));
    r.views.assign(mine.begin(), mine.end());
  }
}

StepTimes ShardedStep::step_times() {
  if (const auto ms = marks_.latest()) times_ = times_of(*ms);
  return times_;
}

std::vector<StepTimes> ShardedStep::measured_steps() {
  std::vector<StepTimes> out;
  for (const kernels::StepMarks::Completed& c : marks_.take_completed()) {
    StepTimes& t = out.emplace_back(times_of(c.ms));
    const RenderedViews& r = rendered_[c.sequence % rendered_.size()];
    if (r.sequence == c.sequence) t.views = r.views;
  }
  return out;
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
