// The two step paths (core/train/train_step.h): the sharded step (core/train/sharded/sharded_step.h)
// against the local one (core/train/local_step.h) at the same batch, at R = 1 (the same numbers from
// either path) and more: with R in-process ranks, each owning a contiguous shard and rendering a block of the
// batch's cameras, the batch loss, every parameter gradient and the densification statistics,
// gathered over the shards in rank order, equal those of one rasterizer forward + loss + backward
// over the whole model and batch (what the one-GPU trainer computes).
//
// Tolerances. The pairs each camera rasterizes are the same pairs in the same order whatever R
// (depth ties break by global id), so renders and the densification statistics that come from the
// projection alone (visible counts, max radius) are exact. What changes with R is the loss's
// normalisation: a run of C images in a batch of B gets 1/(3 N_C) x C/B instead of 1/(3 N_B), equal in
// exact arithmetic but rounded differently, so each pixel's gradient differs by a few float ulps and
// the sums over pixels and cameras (in fixed order on the CPU) by about that, relatively (measured:
// at most 3e-7 here). 1e-5 on the relative L2 error leaves a margin of 30 over that, while a pair routed
// to the wrong rank or camera, or a weight off by one image in the batch, is off by 1e-2 or more. The loss is a sum of R weighted partial means
// instead of one mean: relative 1e-5 as well. On CUDA the gradient sums use atomics (order varies from
// run to run): the same 1e-5 the rasterizer's own GPU tests use.
#include <catch2/catch.hpp>
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <random>
#include <numeric>
#include <vector>

#include "core/transport/run_ranks.h"
#include "core/train/sharded/sharded_step.h"
#include "core/train/local_step.h"
#include "kernels/buffer.h"
#include "kernels/camera_blocks.h"
#include "kernels/device.h"
#include "tests/kernels/raster_test_scenes.h"
#include "tests/support/test_support.h"


using namespace splat;
using namespace splat::transport;
using namespace splat::sharded;
using kernels::Buffer;
using kernels::Camera;
using kernels::ComputeContext;
using kernels::Device;
using Floats = std::vector<float>;

namespace {

constexpr float kSsimWeight = 0.2f;
constexpr int kColumns = 6;                                 // means, quats, log_scales, logits, sh_dc, sh_rest
constexpr int kWidths[kColumns] = {3, 4, 3, 1, 3, 9};       // SH degree 1: 3 rest coefficients x 3

// Random Gaussians (SH degree 1) seen by B cameras of two image sizes, so that runs of one size
// cross the rank boundaries; random targets.
struct HostScene {
  int64_t n = 0;
  std::array<Floats, kColumns> columns;
  std::vector<Camera> cameras;
  std::vector<std::vector<uint8_t>> targets;  // photos' bytes
  kernels::RasterSettings settings;
};

HostScene random_scene(unsigned seed, int n, int batch, bool packed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> U(-1, 1);
  HostScene s;
  s.n = n;
  s.settings.sh_degree = 1;
  s.settings.packed = packed;
  s.settings.background[0] = 0.2f, s.settings.background[1] = 0.4f, s.settings.background[2] = 0.6f;
  for (int i = 0; i < n; ++i) {
    for (const float v : {1.4f * U(rng), 1.0f * U(rng), 1.0f * U(rng)}) s.columns[0].push_back(v);
    for (const float v : {1 + 0.5f * U(rng), 0.6f * U(rng), 0.6f * U(rng), 0.6f * U(rng)}) s.columns[1].push_back(v);
    for (int k = 0; k < 3; ++k) s.columns[2].push_back(std::log(0.08f + 0.05f * (1 + U(rng))));
    const float opacity = 0.5f + 0.4f * U(rng);
    s.columns[3].push_back(std::log(opacity / (1 - opacity)));
    for (int k = 0; k < 3; ++k) s.columns[4].push_back(0.45f + 0.75f * U(rng));
    for (int k = 0; k < 9; ++k) s.columns[5].push_back(0.25f * U(rng));
  }
  // Image sizes A A B B B A: runs of one size straddle rank boundaries (B = 4 over 3 ranks, B = 6
  // over 2), so the loss is split the way the one-rank step does not split it.
  for (int c = 0; c < batch; ++c) {
    const bool big = c < 2 || c == 5;
    const int w = big ? 40 : 34, h = big ? 32 : 26;
    const double a = 0.9 * c;
    s.cameras.push_back(test::look_at_camera({3.6 * std::sin(a), 0.6 * U(rng), -3.6 * std::cos(a)}, {0, 0, 0}, w, h, 38));
    std::vector<uint8_t> t(size_t(w) * h * 3);
    for (uint8_t& v : t) v = uint8_t(rng() % 256);
    s.targets.push_back(std::move(t));
  }
  return s;
}

// What a step produces, gathered in global-id order.
struct StepOutput {
  double loss = 0;
  std::array<Floats, kColumns> grads;
  Floats grad2d, grad2d_abs, max_radius;
  std::vector<int32_t> visible;
  int64_t bytes_sent = 0, bytes_received = 0;  // summed over ranks
  std::vector<StepTimes> times;                // per rank
};

template <class T>
Buffer<T> on(const ComputeContext& where, const std::vector<T>& host) {
  Buffer<T> b(where);
  b.upload(host);
  return b;
}
template <class T>
Buffer<T> zeros(const ComputeContext& where, size_t n) {
  Buffer<T> b(where, n);
  b.zero();
  return b;
}

// Rows [first, first + count) of the scene on a context, with zeroed gradients and statistics.
struct RankShard {
  int64_t first, n;
  std::array<Buffer<float>, kColumns> params, grads;
  Buffer<float> grad2d, grad2d_abs, max_radius;
  Buffer<int32_t> visible;
  std::vector<Buffer<uint8_t>> targets;

  RankShard(const ComputeContext& where, const HostScene& s, int64_t first_row, int64_t count)
      : first(first_row), n(count) {
    for (int c = 0; c < kColumns; ++c) {
      const Floats& col = s.columns[c];
      params[c] = on(where, Floats(col.begin() + first * kWidths[c], col.begin() + (first + n) * kWidths[c]));
      grads[c] = zeros<float>(where, size_t(n * kWidths[c]));
    }
    grad2d = zeros<float>(where, size_t(n)), grad2d_abs = zeros<float>(where, size_t(n));
    max_radius = zeros<float>(where, size_t(n)), visible = zeros<int32_t>(where, size_t(n));
    for (const std::vector<uint8_t>& t : s.targets) targets.push_back(on(where, t));
  }
  kernels::GaussiansView view() const {
    return {n,         params[0].data(), params[1].data(), params[2].data(), params[3].data(),
            params[4].data(), params[5].data(), 3, first};
  }
  kernels::GaussiansGrad grad() {
    return {grads[0].data(), grads[1].data(), grads[2].data(), grads[3].data(), grads[4].data(), grads[5].data()};
  }
  kernels::DensifyStats stats() { return {grad2d.data(), grad2d_abs.data(), visible.data(), max_radius.data()}; }
  std::vector<const uint8_t*> target_pointers() const {
    std::vector<const uint8_t*> p;
    for (const Buffer<uint8_t>& t : targets) p.push_back(t.data());
    return p;
  }
};

// Shards' results concatenated in rank order, column by column.
StepOutput gather(const std::vector<const RankShard*>& shards) {
  StepOutput out;
  auto append = [](auto& into, const auto& buffer) {
    const auto h = buffer.download();
    into.insert(into.end(), h.begin(), h.end());
  };
  for (const RankShard* r : shards) {
    for (int c = 0; c < kColumns; ++c) append(out.grads[c], r->grads[c]);
    append(out.grad2d, r->grad2d), append(out.grad2d_abs, r->grad2d_abs);
    append(out.max_radius, r->max_radius), append(out.visible, r->visible);
  }
  return out;
}

// A shard's arrays as a step reads and writes them (zeroed gradients: every write mode adds to zeros).
StepRows rows_of(RankShard& shard) {
  return {shard.view(), [&shard](GradWrite) { return shard.grad(); }, shard.stats()};
}

// The one-rank step (LocalStep): forward, loss in runs of one image size weighted by their share of
// the batch, and backward, over the whole model and batch.
StepOutput one_rank(const HostScene& s, const ComputeContext& where) {
  RankShard all(where, s, 0, s.n);
  const std::vector<const uint8_t*> targets = all.target_pointers();
  LocalStep step(where, kSsimWeight, 1);
  step.run({s.cameras, s.settings, targets, {}}, rows_of(all));
  StepOutput out = gather({&all});
  out.loss = step.read_loss();
  return out;
}

// The same step over `ranks` ranks (rank r on context_for(r)): threads of the in-process backend,
// or NCCL ranks, one per GPU.
// With `give_sizes`, every rank is given the shard sizes (StepBatch::shard_sizes), which a dense
// step counts its pairs from.
StepOutput run_sharded(const HostScene& s, int ranks, const ContextFor& context_for,
                   RankBackend backend = RankBackend::InProcess, bool give_sizes = false) {
  std::vector<int64_t> sizes;
  for (int r = 0; r < ranks; ++r) sizes.push_back(s.n * (r + 1) / ranks - s.n * r / ranks);
  std::vector<std::unique_ptr<RankShard>> shards(ranks);
  std::vector<float> losses(ranks);
  std::vector<int64_t> sent(ranks), received(ranks);
  std::vector<StepTimes> times(ranks);
  run_ranks(
      ranks, context_for,
      [&](Communicator& comm) {
        const int r = comm.rank();
        const int64_t first = s.n * r / ranks, last = s.n * (r + 1) / ranks;
        shards[r] = std::make_unique<RankShard>(comm.context(), s, first, last - first);
        RankShard& mine = *shards[r];
        const std::vector<const uint8_t*> targets = mine.target_pointers();
        ShardedStep step(comm, kSsimWeight, 1);
        const std::span<const int64_t> given = give_sizes ? std::span<const int64_t>(sizes) : std::span<const int64_t>();
        step.run({s.cameras, s.settings, targets, {}, given}, rows_of(mine));
        losses[r] = step.read_loss();
        sent[r] = step.exchange_sizes().bytes_sent;
        received[r] = step.exchange_sizes().bytes_received;
        times[r] = step.step_times();
      },
      backend);
  std::vector<const RankShard*> in_order;
  for (const auto& p : shards) in_order.push_back(p.get());
  StepOutput out = gather(in_order);
  for (int r = 1; r < ranks; ++r) CHECK(losses[r] == losses[0]);  // every rank reports the same batch loss
  out.loss = losses[0];
  for (int r = 0; r < ranks; ++r) out.bytes_sent += sent[r], out.bytes_received += received[r];
  out.times = times;
  return out;
}

double rel_err(const Floats& a, const Floats& b) {
  REQUIRE(a.size() == b.size());
  double d = 0, n = 0;
  for (size_t i = 0; i < a.size(); ++i) d += (double(a[i]) - b[i]) * (double(a[i]) - b[i]), n += double(b[i]) * b[i];
  REQUIRE(n > 0);  // a gradient that is all zeros would compare equal to anything wrong
  return std::sqrt(d / n);
}

void check_equal(const StepOutput& got, const StepOutput& want, int ranks) {
  constexpr double kTol = 1e-5;
  CHECK(std::abs(got.loss - want.loss) <= kTol * want.loss);
  const char* names[kColumns] = {"means", "quats", "log_scales", "opacity_logits", "sh_dc", "sh_rest"};
  for (int c = 0; c < kColumns; ++c) {
    INFO("gradient of " << names[c]);
    CHECK(rel_err(got.grads[c], want.grads[c]) < kTol);
  }
  CHECK(rel_err(got.grad2d, want.grad2d) < kTol);
  CHECK(rel_err(got.grad2d_abs, want.grad2d_abs) < kTol);
  CHECK(got.visible == want.visible);
  CHECK(got.max_radius == want.max_radius);
  if (ranks > 1) CHECK(got.bytes_sent > 0);  // the ranks did exchange pairs
  CHECK(got.bytes_sent == got.bytes_received);  // what one rank sends, another receives
  // On CUDA the times may be of no step yet (read without waiting), zeros then, never negative.
  for (const StepTimes& t : got.times) CHECK((t.exchange_wait_ms >= 0 && t.render_ms >= 0));
}

void check_against_one_rank(const std::vector<int>& rank_counts, const ContextFor& context_for,
                            const ComputeContext& reference, RankBackend backend = RankBackend::InProcess) {
  for (const int batch : {4, 6})
    for (const bool packed : {false, true}) {
      const HostScene s = random_scene(7 + batch, 150, batch, packed);
      const StepOutput want = one_rank(s, reference);
      for (const int ranks : rank_counts)
        for (const bool give_sizes : {false, true}) {
          INFO(ranks << " ranks, batch " << batch << ", packed " << packed << ", shard sizes given " << give_sizes);
          check_equal(run_sharded(s, ranks, context_for, backend, give_sizes), want, ranks);
        }
    }
}

}  // namespace

TEST_CASE("a batch's cameras split into contiguous blocks of nearly equal size", "[dist][sharded_step]") {
  for (int ranks = 1; ranks <= 5; ++ranks)
    for (int batch = ranks; batch <= 13; ++batch) {
      INFO(ranks << " ranks, batch " << batch);
      int next = 0, smallest = batch, largest = 0;
      for (int r = 0; r < ranks; ++r) {
        const CameraBlock b = camera_block(r, ranks, batch);
        CHECK(b.first == next);
        next = b.first + b.count;
        smallest = std::min(smallest, b.count), largest = std::max(largest, b.count);
      }
      CHECK(next == batch);
      CHECK(smallest >= 1);
      CHECK(largest - smallest <= 1);
    }
  CHECK_THROWS_WITH(camera_block(0, 4, 3), Catch::Contains("batch size 3 is smaller than the 4 ranks"));
}

TEST_CASE("pairs are counted per camera block like a scan of the camera column", "[dist][sharded_step]") {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 40; ++trial) {
    const int cameras = 1 + int(rng() % 9), blocks = 1 + int(rng() % cameras), count = int(rng() % 60);
    std::vector<int32_t> camera(static_cast<size_t>(count));
    for (int32_t& c : camera) c = int32_t(rng() % cameras);
    std::sort(camera.begin(), camera.end());
    std::vector<int64_t> got(size_t(blocks), -1), want(size_t(blocks), 0);
    kernels::count_pairs_per_block(Device::CPU, camera.data(), count, cameras, blocks, got.data());
    for (const int32_t c : camera)
      for (int q = 0; q < blocks; ++q)
        if (c >= camera_block(q, blocks, cameras).first &&
            c < camera_block(q, blocks, cameras).first + camera_block(q, blocks, cameras).count)
          ++want[size_t(q)];
    INFO(cameras << " cameras, " << blocks << " blocks, " << count << " pairs");
    CHECK(got == want);
  }
}

TEST_CASE("the sharded step on 1, 2, 3 and 4 CPU ranks equals the local step", "[dist][sharded_step]") {
  check_against_one_rank({1, 2, 3, 4}, [](int) { return ComputeContext(Device::CPU); }, Device::CPU);
}

TEST_CASE("a CPU rank's step times its render and its exchanges, and its traffic adds up", "[dist][sharded_step]") {
  const HostScene s = random_scene(11, 150, 4, true);
  for (const int ranks : {1, 2, 4}) {
    INFO(ranks << " ranks");
    const StepOutput got = run_sharded(s, ranks, [](int) { return ComputeContext(Device::CPU); });
    REQUIRE(int(got.times.size()) == ranks);
    for (const StepTimes& t : got.times) {
      CHECK(t.render_ms > 0);  // rasterizing 40x32 images takes some time
      CHECK(t.exchange_wait_ms > 0);
      CHECK(t.exchange_wait_ms < 10000);
    }
    // Each pair that crosses ranks is a 48-byte record one way and a 48-byte one back: a multiple of 96.
    CHECK(got.bytes_sent % 96 == 0);
    CHECK((got.bytes_sent > 0) == (ranks > 1));
  }
}

TEST_CASE("a CPU rank's measured renders name the views of its block", "[dist][sharded_step][render_costs]") {
  const HostScene s = random_scene(13, 150, 5, false);
  const int B = int(s.cameras.size()), ranks = 2;
  std::vector<std::vector<std::vector<int>>> seen(ranks);
  run_ranks(ranks, [](int) { return ComputeContext(Device::CPU); }, [&](Communicator& comm) {
    const int r = comm.rank();
    RankShard mine(comm.context(), s, s.n * r / ranks, s.n * (r + 1) / ranks - s.n * r / ranks);
    const std::vector<const uint8_t*> targets = mine.target_pointers();
    ShardedStep step(comm, kSsimWeight, 1);
    for (int round = 0; round < 2; ++round) {
      std::vector<int> views(static_cast<size_t>(B));
      std::iota(views.begin(), views.end(), 100 * round);
      StepBatch batch{s.cameras, s.settings, targets, {}};
      batch.views = views;
      step.run(batch, rows_of(mine));
    }
    for (const StepTimes& t : step.measured_steps()) seen[size_t(r)].push_back(t.views);
  });
  for (int r = 0; r < ranks; ++r) {
    const CameraBlock b = camera_block(r, ranks, B);
    REQUIRE(seen[size_t(r)].size() == 2);  // CPU marks complete at once: both steps, oldest first
    for (int round = 0; round < 2; ++round) {
      std::vector<int> want(size_t(b.count));
      std::iota(want.begin(), want.end(), 100 * round + b.first);
      CHECK(seen[size_t(r)][size_t(round)] == want);
    }
  }
}

TEST_CASE("a batch whose views do not match its cameras is refused", "[dist][sharded_step][render_costs]") {
  const HostScene s = random_scene(13, 150, 4, false);
  RankShard all(Device::CPU, s, 0, s.n);
  const std::vector<const uint8_t*> targets = all.target_pointers();
  const std::vector<int> three{0, 1, 2};
  StepBatch batch{s.cameras, s.settings, targets, {}};
  batch.views = three;
  LocalStep step(Device::CPU, kSsimWeight, 1);
  CHECK_THROWS_WITH(step.run(batch, rows_of(all)), Catch::Contains("4 cameras but 4 targets, 0 masks and 3 views"));
}

namespace {
// Two in-process ranks (rank r on context_for(r)) on a dense scene with culled pairs: they move exactly
// the pairs that cross ranks and cover a tile, counted from a projection of the whole model (each is 48
// bytes out and 48 back), and the zeros left in place of the others change nothing.
void check_only_needed_pairs_move(const ContextFor& context_for, const ComputeContext& reference) {
  HostScene s = random_scene(5, 150, 4, false);
  for (size_t i = 0; i < s.columns[0].size(); i += 3) s.columns[0][i] *= 3;  // wider: cameras miss some
  const int ranks = 2;
  RankShard all(Device::CPU, s, 0, s.n);
  const auto raster = kernels::make_cpu_rasterizer(1);
  const kernels::ProjectedGaussians p = raster->project(all.view(), s.cameras, s.settings);
  int64_t crossing = 0, needed = 0;
  for (int64_t k = 0; k < p.count; ++k) {
    const int camera = p.camera[k], owner = p.id[k] < s.n / ranks ? 0 : 1;
    const int renderer = camera < camera_block(1, ranks, int(s.cameras.size())).first ? 0 : 1;
    if (owner == renderer) continue;
    ++crossing;
    needed += p.tiles[k] > 0;
  }
  INFO(needed << " of " << crossing << " pairs that cross ranks cover a tile");
  REQUIRE(needed > 0);
  REQUIRE(needed < crossing * 9 / 10);  // the scene has culled pairs to leave out
  const StepOutput got = run_sharded(s, ranks, context_for);
  CHECK(got.bytes_sent == 96 * needed);
  CHECK(got.bytes_received == 96 * needed);
  check_equal(got, one_rank(s, reference), ranks);
}
}  // namespace

TEST_CASE("in-process ranks exchange only the pairs that cover a tile of their camera, and count them",
          "[dist][sharded_step]") {
  check_only_needed_pairs_move([](int) { return ComputeContext(Device::CPU); }, Device::CPU);
}

TEST_CASE("in-process CUDA ranks exchange only the pairs that cover a tile, on one GPU and on two",
          "[gpu][dist][sharded_step]") {
  if (!test::gpu_or_skip("gated exchange of CUDA ranks")) return;
  std::vector<cudaStream_t> on_first(2);
  for (auto& x : on_first) REQUIRE(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking) == cudaSuccess);
  {
    INFO("2 ranks sharing GPU 0");
    check_only_needed_pairs_move([&](int r) { return ComputeContext(Device::CUDA, 0, on_first[size_t(r)]); },
                                 Device::CUDA);
  }
  // Two GPUs that reach each other's memory: rank 0's kernel writes its kept rows into rank 1's over the link.
  if (kernels::cuda_device_count() >= 2 && kernels::can_access_peer(1, 0) && kernels::can_access_peer(0, 1)) {
    INFO("2 ranks on GPUs 0 and 1");
    cudaStream_t on_second = nullptr;
    REQUIRE(cudaSetDevice(1) == cudaSuccess);
    REQUIRE(cudaStreamCreateWithFlags(&on_second, cudaStreamNonBlocking) == cudaSuccess);
    REQUIRE(cudaSetDevice(0) == cudaSuccess);
    check_only_needed_pairs_move(
        [&](int r) { return r == 0 ? ComputeContext(Device::CUDA, 0, on_first[0]) : ComputeContext(Device::CUDA, 1, on_second); },
        Device::CUDA);
    cudaSetDevice(1);
    cudaStreamDestroy(on_second);
    cudaSetDevice(0);
  } else {
    std::printf("(one GPU, or two without peer access: the gated copies between GPUs were not exercised)\n");
  }
  for (auto x : on_first) cudaStreamDestroy(x);
}

TEST_CASE("shard sizes that do not match the rank's shard are refused, naming the rank", "[dist][sharded_step]") {
  const HostScene s = random_scene(3, 40, 2, false);
  CHECK_THROWS_WITH(run_ranks(1, [](int) { return ComputeContext(Device::CPU); },
                              [&](Communicator& comm) {
                                RankShard mine(comm.context(), s, 0, s.n);
                                const std::vector<const uint8_t*> targets = mine.target_pointers();
                                const std::vector<int64_t> wrong{s.n + 1};
                                ShardedStep(comm, kSsimWeight, 1)
                                    .run({s.cameras, s.settings, targets, {}, wrong}, rows_of(mine));
                              }),
                    Catch::Contains("rank 0") && Catch::Contains("shard sizes"));
}

TEST_CASE("a batch smaller than the rank count is refused with a clear message", "[dist][sharded_step]") {
  const HostScene s = random_scene(1, 20, 3, true);
  CHECK_THROWS_WITH(run_sharded(s, 4, [](int) { return ComputeContext(Device::CPU); }),
                    Catch::Contains("batch size 3 is smaller than the 4 ranks"));
}

TEST_CASE("a sharded step on 2 and 4 ranks sharing one GPU equals the one-rank step", "[gpu][dist][sharded_step]") {
  if (!test::gpu_or_skip("sharded step on one GPU")) return;
  std::vector<cudaStream_t> streams(4);
  for (auto& x : streams) REQUIRE(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking) == cudaSuccess);
  check_against_one_rank({2, 4}, [&](int r) { return ComputeContext(Device::CUDA, 0, streams[r]); }, Device::CUDA);
  for (auto x : streams) cudaStreamDestroy(x);
}

TEST_CASE("CUDA pair counts per camera block equal the CPU reference", "[gpu][dist][sharded_step]") {
  if (!test::gpu_or_skip("CUDA pair counts per block")) return;
  std::mt19937 rng(5);
  for (int trial = 0; trial < 20; ++trial) {
    const int cameras = 1 + int(rng() % 9), blocks = 1 + int(rng() % cameras), count = int(rng() % 5000);
    std::vector<int32_t> camera(static_cast<size_t>(count));
    for (int32_t& c : camera) c = int32_t(rng() % cameras);
    std::sort(camera.begin(), camera.end());
    std::vector<int64_t> want(static_cast<size_t>(blocks));
    kernels::count_pairs_per_block_reference(camera.data(), count, cameras, blocks, want.data());
    const Buffer<int32_t> d_camera = on(ComputeContext(Device::CUDA), camera);
    Buffer<int64_t> d_counts(Device::CUDA, size_t(blocks));
    kernels::count_pairs_per_block(Device::CUDA, d_camera.data(), count, cameras, blocks, d_counts.data());
    CHECK(d_counts.download() == want);
  }
}

TEST_CASE("a sharded step on 2 and 4 GPUs, through NCCL and through direct copies, equals the one-rank step",
          "[gpu][dist][sharded_step][nccl]") {
  if (!test::gpu_or_skip("sharded step on several GPUs")) return;
  const int gpus = kernels::cuda_device_count();
  if (gpus < 2) {
    WARN("SKIPPED (needs 2 or more GPUs; found " << gpus << "): sharded step on several GPUs");
    return;
  }
  std::vector<int> counts{2};
  if (gpus >= 4) counts.push_back(4);
  std::vector<cudaStream_t> streams(size_t(std::min(gpus, 4)));
  for (size_t d = 0; d < streams.size(); ++d) {
    REQUIRE(cudaSetDevice(int(d)) == cudaSuccess);
    REQUIRE(cudaStreamCreateWithFlags(&streams[d], cudaStreamNonBlocking) == cudaSuccess);
  }
  REQUIRE(cudaSetDevice(0) == cudaSuccess);
  const auto on_gpu = [&](int r) { return ComputeContext(Device::CUDA, r, streams[size_t(r)]); };
  for (const RankBackend backend : {RankBackend::InProcess, RankBackend::Nccl}) {
    if (backend == RankBackend::Nccl && !nccl_built_in()) continue;
    INFO((backend == RankBackend::Nccl ? "NCCL" : "in-process, direct copies"));
    check_against_one_rank(counts, on_gpu, Device::CUDA, backend);
  }
  for (size_t d = 0; d < streams.size(); ++d) {
    cudaSetDevice(int(d));
    cudaStreamDestroy(streams[d]);
  }
  cudaSetDevice(0);
}
