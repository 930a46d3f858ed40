// The viewer shows the training session's snapshots themselves (CPU backend here): poll() hands the
// latest one over without a host copy, the rasterizer draws it as it would draw the same model
// from the host, the PLY snapshot is downloaded from it, a snapshot held by the viewer stays
// unchanged while training goes on, and reset shows the initial model again. No window.
#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

#include "core/model/ply_io.h"
#include "tests/support/test_support.h"
#include "tests/ui/tiny_demo_viewer.h"
#include "ui/training_controller.h"

using namespace splat;
using namespace splat::ui;
namespace fs = std::filesystem;

namespace {
// Polls the controller until the viewer shows a snapshot newer than `after` (or a generous timeout).
std::shared_ptr<const ModelSnapshot> wait_for_snapshot(TrainingController& training, ViewerState& state,
                                                       uint64_t after) {
  for (int i = 0; i < 3000; ++i) {
    training.poll(state);
    const auto& s = state.shown_snapshot();
    if (s && s->version() > after && s->step() > 0) return s;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return nullptr;
}

ImageRGBA8 render(ViewerState& state) {
  state.raster.render(state.camera.camera(48, 36), state.raster_settings());
  return state.raster.colorize(state.colorize_params());
}
}  // namespace

TEST_CASE("viewer renders and exports the training session's snapshots", "[ui][snapshot]") {
  const fs::path dir = splat::test::scratch_dir("ui_training_snapshots");
  ViewerState state(kernels::Device::CPU, dir / "recent.json");
  splat::test::open_tiny_demo(state, dir);
  const std::shared_ptr<const GaussianModel> initial = state.content.model;
  CHECK(state.shown_snapshot() == nullptr);

  TrainingController training(kernels::Device::CPU);
  training.settings.steps = 100000;
  training.settings.eval_every = 0;
  training.settings.run_dir = (dir / "run").string();
  training.start(state);
  REQUIRE(training.active());

  const std::shared_ptr<const ModelSnapshot> first = wait_for_snapshot(training, state, 0);
  REQUIRE(first);
  CHECK(state.content.model == initial);  // the snapshot is shown beside the content, not copied into it
  CHECK(state.gaussian_count() == first->size());

  // Drawn in place: the same pixels as the same parameters drawn from a host model.
  state.update_raster();
  CHECK(state.raster.gaussian_count() == first->size());
  const ImageRGBA8 from_snapshot = render(state);
  const GaussianModel first_host = first->download();
  ViewRasterizer host_raster(kernels::Device::CPU);
  host_raster.set_gaussians(std::make_shared<const GaussianModel>(first_host), 1);
  host_raster.render(state.camera.camera(48, 36), state.raster_settings());
  CHECK(host_raster.colorize(state.colorize_params()).pixels == from_snapshot.pixels);
  // The PLY snapshot holds what is shown (not the initial model).
  state.snapshot.ply_path = (dir / "shown.ply").string();
  state.save_ply();
  REQUIRE(state.notes.error_count() == 0);
  CHECK(read_ply(state.snapshot.ply_path).means == first_host.means);
  CHECK(first_host.means != initial->means);

  // Training goes on: the viewer moves to a newer snapshot, the one it held is as it was.
  const std::shared_ptr<const ModelSnapshot> second = wait_for_snapshot(training, state, first->version());
  REQUIRE(second);
  CHECK(second->step() > first->step());
  CHECK(first->download().means == first_host.means);
  state.update_raster();
  CHECK(render(state).pixels != from_snapshot.pixels);

  // Reset shows the initial model again; the last snapshot is no longer shown.
  training.reset(state);
  CHECK(state.shown_snapshot() == nullptr);
  CHECK(state.content.model == initial);
  CHECK(state.gaussian_count() == initial->size());
}
