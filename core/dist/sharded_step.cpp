#include "core/dist/sharded_step.h"

#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/camera_blocks.h"
#include "kernels/camera_blocks_math.h"

namespace splat::dist {

namespace {

// Bytes of one pair in the forward exchange (camera, id, mean2d, conic_opacity, color_depth, half,
// tiles) and of its gradients in the reverse one.
constexpr int64_t kPairBytes = 4 + 8 + 2 * 4 + 4 * 4 + 4 * 4 + 2 * 4 + 4;
constexpr int64_t kPairGradBytes = kernels::kProjectedGradFloats * 4;

// Per-peer byte slices of arrays holding `bytes` bytes per pair.
struct ByteSlices {
  std::vector<int64_t> counts, offsets;
  ByteSlices(const std::vector<int64_t>& pairs, const std::vector<int64_t>& at, int64_t bytes) {
    for (size_t q = 0; q < pairs.size(); ++q) counts.push_back(pairs[q] * bytes), offsets.push_back(at[q] * bytes);
  }
  PeerSlices view() const { return {counts, offsets}; }
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
  if (batch < ranks)
    throw std::invalid_argument("a batch of " + std::to_string(batch) + " camera(s) cannot be split over " +
                                std::to_string(ranks) + " ranks: every rank renders at least one camera, so use a "
                                "batch size of at least the rank count");
  const int first = kernels::block_first_camera(rank, batch, ranks);
  return {first, kernels::block_first_camera(rank + 1, batch, ranks) - first};
}

ShardedStep::ShardedStep(Communicator& comm, float ssim_weight, int cpu_threads)
    : comm_(comm),
      where_(comm.context()),
      raster_(rasterizer_on(where_, cpu_threads)),
      loss_(where_, ssim_weight),
      counts_(where_, 2 * size_t(comm.size())),
      camera_(where_), half_(where_), tiles_(where_), id_(where_),
      mean2d_(where_), conic_opacity_(where_), color_depth_(where_),
      d_received_(where_), d_mine_(where_),
      rgb_(where_), alpha_(where_), grad_rgb_(where_) {}

void ShardedStep::run(const ShardedBatch& batch, const kernels::GaussiansGrad& grad,
                      const kernels::DensifyStats& stats) {
  const int B = int(batch.cameras.size());
  block_ = camera_block(comm_.rank(), comm_.size(), B);
  if (int(batch.targets.size()) != B || (!batch.masks.empty() && int(batch.masks.size()) != B))
    throw std::invalid_argument("sharded step: " + std::to_string(B) + " cameras but " +
                                std::to_string(batch.targets.size()) + " targets and " +
                                std::to_string(batch.masks.size()) + " masks");
  const kernels::ProjectedGaussians mine = raster_->project(batch.shard, batch.cameras, batch.settings);
  exchange_pairs(mine, B);
  const kernels::ProjectedGaussians received{sizes_.pairs_received, Precision::F32, camera_.data(), id_.data(),
                                             mean2d_.data(), conic_opacity_.data(), color_depth_.data(), half_.data(),
                                             tiles_.data()};
  const auto mine_cameras = batch.cameras.subspan(size_t(block_.first), size_t(block_.count));
  const int64_t pixels = kernels::image_offsets(mine_cameras).back();
  rgb_.resize(size_t(3 * pixels));
  alpha_.resize(size_t(pixels));
  grad_rgb_.resize(size_t(3 * pixels));
  raster_->rasterize(received, mine_cameras, block_.first, batch.settings, {rgb_.data(), alpha_.data(), nullptr});
  compute_loss(batch);
  const int64_t m = sizes_.pairs_received;
  d_received_.resize(size_t(kernels::kProjectedGradFloats * m));
  float* d = d_received_.data();
  raster_->rasterize_backward({grad_rgb_.data(), nullptr, nullptr}, {d, d + 4 * m, d + 8 * m});
  const int64_t n = mine.count;
  return_gradients(n);
  const float* dm = d_mine_.data();
  raster_->project_backward({dm, dm + 4 * n, dm + 8 * n}, grad, stats);
}

// Counts first (one small exchange and one host copy), then each pair array in one all_to_all_v:
// the pairs for rank q are the contiguous range of q's cameras, so nothing is packed.
void ShardedStep::exchange_pairs(const kernels::ProjectedGaussians& mine, int cameras) {
  if (mine.precision != Precision::F32)
    throw std::invalid_argument("sharded step: only fp32 projected pairs can be exchanged yet");
  const size_t R = size_t(comm_.size());
  kernels::count_pairs_per_block(where_, mine.camera, mine.count, cameras, int(R), counts_.data());
  comm_.all_to_all_counts(counts_.data(), counts_.data() + R);
  const std::vector<int64_t> both = counts_.download();
  send_pairs_.assign(both.begin(), both.begin() + R);
  recv_pairs_.assign(both.begin() + R, both.end());
  send_at_ = starts(send_pairs_);
  recv_at_ = starts(recv_pairs_);
  const int64_t m = recv_at_.back() + recv_pairs_.back();
  sizes_ = {};
  sizes_.pairs_projected = mine.count;
  sizes_.pairs_received = m;
  camera_.resize(size_t(m)), tiles_.resize(size_t(m)), id_.resize(size_t(m)), half_.resize(size_t(2 * m));
  mean2d_.resize(size_t(2 * m)), conic_opacity_.resize(size_t(4 * m)), color_depth_.resize(size_t(4 * m));
  auto send = [&](const void* from, void* to, int64_t bytes) {
    const ByteSlices out(send_pairs_, send_at_, bytes), in(recv_pairs_, recv_at_, bytes);
    comm_.all_to_all_v(from, out.view(), to, in.view());
  };
  send(mine.camera, camera_.data(), 4);
  send(mine.id, id_.data(), 8);
  send(mine.mean2d, mean2d_.data(), 2 * 4);
  send(mine.conic_opacity, conic_opacity_.data(), 4 * 4);
  send(mine.color_depth, color_depth_.data(), 4 * 4);
  send(mine.half, half_.data(), 2 * 4);
  send(mine.tiles, tiles_.data(), 4);
  const int me = comm_.rank();
  for (size_t q = 0; q < R; ++q)
    if (int(q) != me) {
      sizes_.bytes_sent += send_pairs_[q] * kPairBytes + recv_pairs_[q] * kPairGradBytes;
      sizes_.bytes_received += recv_pairs_[q] * kPairBytes + send_pairs_[q] * kPairGradBytes;
    }
}

// The rank's cameras in runs of one image size, one loss call each (as the one-GPU trainer does).
void ShardedStep::compute_loss(const ShardedBatch& batch) {
  loss_.clear();
  const auto offsets = kernels::image_offsets(batch.cameras.subspan(size_t(block_.first), size_t(block_.count)));
  int begin = 0;
  while (begin < block_.count) {
    const kernels::Camera& first = batch.cameras[size_t(block_.first + begin)];
    int end = begin + 1;
    while (end < block_.count && batch.cameras[size_t(block_.first + end)].width == first.width &&
           batch.cameras[size_t(block_.first + end)].height == first.height)
      ++end;
    const size_t at = size_t(block_.first + begin), C = size_t(end - begin);
    for (size_t k = at; k < at + C; ++k)
      if (!batch.targets[k] || (!batch.masks.empty() && !batch.masks[k]))
        throw std::invalid_argument("sharded step: no target (or mask) for batch camera " + std::to_string(k) +
                                    ", which rank " + std::to_string(comm_.rank()) + " renders");
    loss_.add_run(rgb_.data() + 3 * offsets[size_t(begin)], grad_rgb_.data() + 3 * offsets[size_t(begin)],
                  {int(C), first.height, first.width}, batch.targets.subspan(at, C),
                  batch.masks.empty() ? batch.masks : batch.masks.subspan(at, C), int(batch.cameras.size()));
    begin = end;
  }
}

// The reverse exchange: the gradients of the received pairs go back to the ranks that projected
// them, where they land aligned with those ranks' own pairs.
void ShardedStep::return_gradients(int64_t projected) {
  const int64_t m = sizes_.pairs_received;
  d_mine_.resize(size_t(kernels::kProjectedGradFloats * projected));
  const ByteSlices out(recv_pairs_, recv_at_, 4 * 4), in(send_pairs_, send_at_, 4 * 4);
  for (int part = 0; part < 3; ++part)
    comm_.all_to_all_v(d_received_.data() + part * 4 * m, out.view(), d_mine_.data() + part * 4 * projected, in.view());
}

float ShardedStep::batch_loss() {
  float loss = rank_loss();
  comm_.all_reduce_sum(std::span<float>(&loss, 1));
  return loss;
}

}  // namespace splat::dist
