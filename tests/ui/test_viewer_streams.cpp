// Streams of a shared GPU (kernels/stream.h): every CUDA training rank computes on a stream of its own
// one level below the device's greatest priority and the viewer on one at the greatest (it renders only
// when something it shows changed, and then its frame goes first); a snapshot published on a
// training stream that is still busy reaches the viewer's stream whole, through the snapshot's event and
// not through a host wait or the legacy default stream. The CPU cases check that CPU ranks and viewers
// get no stream and that snapshots behave as before there.
#include <catch2/catch.hpp>
#include <cuda_runtime.h>

#include <chrono>
#include <optional>
#include <thread>

#include "core/model/device_gaussians.h"
#include "core/model/model_snapshot.h"
#include "core/train/rank_driver.h"
#include "core/transport/rank_plan.h"
#include "kernels/host_waits.h"
#include "kernels/stream.h"
#include "tests/core/demo_fixture.h"
#include "tests/support/test_support.h"
#include "ui/view_rasterizer.h"

using namespace splat;
using kernels::ComputeContext;
using kernels::Device;

namespace {

int priority_of(const ComputeContext& c) {
  int p = 0;
  REQUIRE(cudaStreamGetPriority(static_cast<cudaStream_t>(c.stream), &p) == cudaSuccess);
  return p;
}

// Stops at the first decision, having read where the rank's trainer computes.
class WhereController final : public RankController {
 public:
  explicit WhereController(int ranks) : where_(static_cast<size_t>(ranks)), priority_(static_cast<size_t>(ranks)) {}
  void on_start(TrainingRun& run, const DrivenRank& at) override {
    const ComputeContext& c = run.trainer().gaussians().context();
    where_[static_cast<size_t>(at.rank)] = c;
    priority_[static_cast<size_t>(at.rank)] = kernels::stream_priority(c);  // while the stream exists
  }
  RankDecision decide(const TrainingRun&, Clock::time_point) override { return {.stop = true}; }
  void serve(TrainingRun&, const DrivenRank&, const RankDecision&) override {}
  void on_step(TrainingRun&, const DrivenRank&, const RunStep&) override {}
  const ComputeContext& where(int rank) const { return where_[static_cast<size_t>(rank)]; }
  int priority(int rank) const { return priority_[static_cast<size_t>(rank)]; }

 private:
  std::vector<ComputeContext> where_;  // entry r written by rank r only
  std::vector<int> priority_;
};

// A model seen head-on by `camera`: random points in a cube in front of it.
GaussianModel front_model(int64_t count) {
  RandomInitOptions o;
  o.count = count;
  o.center = {0, 0, 4};
  o.half_extent = 1.0;
  o.seed = 3;
  o.init.sh_degree = 1;
  return init_random(o);
}

kernels::Camera front_camera() {
  kernels::Camera c;
  c.width = 160;
  c.height = 120;
  c.fx = c.fy = 150;
  c.cx = 80;
  c.cy = 60;
  return c;
}

// What the snapshot tests share: a model on a training stream of its own (as a rank holds it), and the
// camera and settings they render it with.
struct TrainingStreamModel {
  GaussianModel model = front_model(20000);
  kernels::Camera cam = front_camera();
  kernels::RasterSettings settings = [] {
    kernels::RasterSettings r;
    r.sh_degree = 1;
    return r;
  }();
  std::optional<kernels::PriorityStream> stream;
  ComputeContext where = kernels::on_own_stream(Device::CUDA, kernels::StreamPriority::Training, stream);
  DeviceGaussians g{where, GaussianState::from_model(model)};
};

void CUDART_CB sleep_on_stream(void* ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(*static_cast<int*>(ms)));
}

}  // namespace

TEST_CASE("streams: a training rank computes on a stream of its own, below the viewer's", "[gpu][streams]") {
  if (!test::gpu_or_skip("training and viewer stream priorities")) return;
  const kernels::StreamPriorityRange range = kernels::stream_priority_range(0);
  // Rank threads (two ranks sharing GPU 0): each on its own stream, at training's priority.
  const transport::RankStreams ranks(transport::RankPlan{Device::CUDA, {0}, 2});
  const ui::ViewRasterizer viewer(Device::CUDA);
  CHECK(viewer.context().stream != nullptr);
  CHECK(priority_of(viewer.context()) == kernels::priority_number(range, ui::ViewRasterizer::kPriority));
  for (int r = 0; r < 2; ++r) {
    INFO("rank " << r);
    CHECK(ranks.context(r).stream != nullptr);
    const int training = kernels::priority_number(range, kernels::StreamPriority::Training);
    CHECK(priority_of(ranks.context(r)) == training);
    CHECK(kernels::stream_priority(ranks.context(r)) == training);
    // Numerically lower is a higher priority (CUDA's convention); equal only on a device without priorities.
    if (range.highest != range.lowest) CHECK(priority_of(viewer.context()) < priority_of(ranks.context(r)));
  }
  CHECK(ranks.context(0).stream != ranks.context(1).stream);

  // The trainers the rank driver builds compute there: the one-rank trainer and rank threads alike.
  const Scene scene = test::small_demo_scene(40, 30, 200);
  const GaussianModel init = init_from_points(scene.points);
  TrainerOptions o;
  o.device = Device::CUDA;
  o.images = 8;
  o.batch_size = 2;
  for (const int count : {1, 2}) {
    INFO(count << " rank(s)");
    WhereController controller(count);
    drive_ranks({.scene = scene, .init = init, .trainer = o, .run = {}},
                transport::RankPlan{Device::CUDA, {0}, count}, controller);
    for (int r = 0; r < count; ++r) {
      CHECK(controller.where(r).device == Device::CUDA);
      CHECK(controller.where(r).stream != nullptr);
      CHECK(controller.priority(r) == kernels::priority_number(range, kernels::StreamPriority::Training));
    }
  }
}

TEST_CASE("streams: a snapshot published on a busy training stream is read whole by the viewer's stream",
          "[gpu][streams][snapshot]") {
  if (!test::gpu_or_skip("snapshot handed from the training stream to the viewer's")) return;
  TrainingStreamModel t;
  auto& [m, cam, settings, training, where, g] = t;
  // The viewers exist before training publishes, as in the GUI (making one allocates pinned memory).
  ui::ViewRasterizer viewer(Device::CUDA), cropped(Device::CUDA);
  // Uploads waited for the training stream; from here on it is kept busy for a while: the snapshot's copies
  // queue behind 400 ms of work, as they would behind a long training step. The host function stands for a
  // long kernel (it holds the stream as one does).
  static int busy_ms = 400;
  REQUIRE(cudaLaunchHostFunc(static_cast<cudaStream_t>(where.stream), sleep_on_stream, &busy_ms) == cudaSuccess);
  // Then a change the snapshot must show: a viewer that read the columns early (before the copies, or
  // from memory that held the model as uploaded) renders something else.
  g.cap_values(Group::Means, 4.f);  // the far half of the cube pulled onto the plane z = 4
  const auto t0 = std::chrono::steady_clock::now();
  const std::shared_ptr<const ModelSnapshot> snap = ModelSnapshot::capture(g, 1, 1);
  viewer.set_snapshot(snap);
  const double handed_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  // Publishing and handing over made no host wait for the busy stream.
  CHECK(handed_ms < busy_ms / 2);
  viewer.render(cam, settings);
  const std::vector<float> shown = viewer.rgb_host();

  // The same model rendered from the host model, once the training stream is idle.
  REQUIRE(cudaStreamSynchronize(static_cast<cudaStream_t>(where.stream)) == cudaSuccess);
  ui::ViewRasterizer reference(Device::CUDA);
  reference.set_gaussians(std::make_shared<const GaussianModel>(g.to_model()), 1);
  reference.render(cam, settings);
  const std::vector<float> expected = reference.rgb_host();
  REQUIRE(shown.size() == expected.size());
  double lit = 0;
  for (float v : expected) lit += v;
  CHECK(lit > 0.01 * double(expected.size()));  // the model covers the image: a test that can fail
  CHECK(shown == expected);

  // The crop box's rows, gathered on the viewer's stream from a snapshot still queued behind busy work.
  REQUIRE(cudaLaunchHostFunc(static_cast<cudaStream_t>(where.stream), sleep_on_stream, &busy_ms) == cudaSuccess);
  const std::shared_ptr<const ModelSnapshot> again = ModelSnapshot::capture(g, 2, 2);
  std::vector<int32_t> all(static_cast<size_t>(m.size()));
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int32_t>(i);
  cropped.set_snapshot(again->rows(all, cropped.context()));
  cropped.render(cam, settings);
  CHECK(cropped.rgb_host() == expected);
}

TEST_CASE("streams: dropping snapshots the viewer still renders waits for nothing, on either thread",
          "[gpu][streams][snapshot]") {
  if (!test::gpu_or_skip("snapshots dropped without a wait for the device")) return;
  TrainingStreamModel t;
  auto& [m, cam, settings, training, where, g] = t;
  ui::ViewRasterizer viewer(Device::CUDA), cropped(Device::CUDA);
  ui::ViewRasterizer reference(Device::CUDA);
  reference.set_gaussians(std::make_shared<const GaussianModel>(g.to_model()), 1);
  reference.render(cam, settings);
  const std::vector<float> expected = reference.rgb_host();

  // The training stream busy: the snapshot's copies, the viewer's render and the crop's gather all queue
  // behind it. Then every holder lets go, as when the next snapshot replaces this one.
  static int busy_ms = 400;
  REQUIRE(cudaLaunchHostFunc(static_cast<cudaStream_t>(where.stream), sleep_on_stream, &busy_ms) == cudaSuccess);
  std::shared_ptr<const ModelSnapshot> snap = ModelSnapshot::capture(g, 1, 1);
  viewer.set_snapshot(snap);
  viewer.render(cam, settings);
  std::vector<int32_t> all(static_cast<size_t>(m.size()));
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int32_t>(i);
  cropped.set_snapshot(snap->rows(all, cropped.context()));
  const uint64_t waits = kernels::host_waits();
  const auto t0 = std::chrono::steady_clock::now();
  snap.reset();                // the trainer's reference (publishing the next one)
  viewer.set_snapshot(nullptr);  // the viewer's, its render still queued
  cropped.set_snapshot(nullptr);
  const double dropped_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  CHECK(kernels::host_waits() == waits);
  CHECK(dropped_ms < busy_ms / 2);
  // The next snapshots, queued on the training stream meanwhile, must not land on memory the viewer's
  // render still reads: what it rendered is the model.
  std::vector<std::shared_ptr<const ModelSnapshot>> next;
  g.cap_values(Group::Means, 4.f);
  for (int i = 0; i < 3; ++i) next.push_back(ModelSnapshot::capture(g, uint64_t(2 + i), 2 + i));
  CHECK(viewer.rgb_host() == expected);
}

TEST_CASE("streams: CPU ranks and a CPU viewer get no stream, and events are no-ops there", "[streams]") {
  const transport::RankStreams ranks(transport::RankPlan{Device::CPU, {}, 3});
  for (int r = 0; r < 3; ++r) CHECK(ranks.context(r) == ComputeContext(Device::CPU));
  std::optional<kernels::PriorityStream> none;
  CHECK(kernels::on_own_stream(Device::CPU, kernels::StreamPriority::Background, none) == ComputeContext(Device::CPU));
  CHECK(!none);
  CHECK(kernels::stream_priority(Device::CPU) == 0);
  const ui::ViewRasterizer viewer(Device::CPU);
  CHECK(viewer.context() == ComputeContext(Device::CPU));
  kernels::StreamEvent e;
  e.record(Device::CPU);
  e.wait_on(Device::CPU);
  e.synchronize("nothing to wait for");
}

TEST_CASE("streams: the three priority levels on devices with six, three, two and one level", "[streams]") {
  using kernels::priority_number;
  using P = kernels::StreamPriority;
  // CUDA numbers: the greatest priority is the smallest number (an H100 reports least 0, greatest -5).
  const kernels::StreamPriorityRange six{0, -5}, three{0, -2}, two{0, -1}, one{0, 0};
  CHECK(priority_number(six, P::Interactive) == -5);
  CHECK(priority_number(six, P::Training) == -4);
  CHECK(priority_number(six, P::Background) == 0);
  CHECK(priority_number(three, P::Training) == -1);
  // Two levels: training keeps its place above the background and shares the greatest.
  CHECK(priority_number(two, P::Training) == -1);
  CHECK(priority_number(two, P::Interactive) == -1);
  CHECK(priority_number(two, P::Background) == 0);
  for (const P p : {P::Interactive, P::Training, P::Background}) CHECK(priority_number(one, p) == 0);
  // Wherever the device has levels, training goes before the viewer's background stream.
  for (const auto& r : {six, three, two}) CHECK(priority_number(r, P::Training) < priority_number(r, P::Background));
}
