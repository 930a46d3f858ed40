// The GUI's open of a run `splatlab train` started: the settings the Training panel does not show
// (seed, cap_max, absgrad, antialiased, the metrics cadence) are the ones the run continues with,
// not the GUI's defaults, so that an MCMC run trained with --cap-max does not resume at the default
// cap; and its scene loads as the run trained on it (data factor, undistortion, mask mode), shown with its
// up axis.
#include <catch2/catch.hpp>

#include <fstream>

#include "core/run/run_config.h"
#include "tests/support/test_support.h"
#include "tests/ui/tiny_demo_viewer.h"
#include "ui/training_controller.h"

using namespace splat;
using namespace splat::ui;
namespace fs = std::filesystem;

TEST_CASE("opening a CLI MCMC run in the GUI keeps every setting it recorded", "[ui][run][run_config]") {
  const fs::path dir = splat::test::scratch_dir("ui_open_cli_run");
  ViewerState state(kernels::Device::CPU, dir / "recent.json");
  splat::test::open_tiny_demo(state, dir);
  const fs::path run = dir / "run";
  fs::create_directories(run);
  const RunConfig cli{.scene = state.content.scene->root,
                      .scene_folder = fs::absolute(state.content.scene->root).string(),
                      .data_factor = 2,
                      .undistort = UndistortMode::Crop,
                      .fisheye_fov = 120,
                      .mask_mode = MaskMode::Alpha,
                      .images = 4000,
                      .strategy = "mcmc",
                      .batch_size = 2,
                      .antialiased = false,  // not the default
                      .seed = 7,
                      .sh_degree = 2,
                      .background = {0.5f, 0.25f, 1.0f},
                      .cap_max = 5000,
                      .absgrad = true,
                      .photos = PhotoPlacement::Own,
                      .exposure = true,
                      .eval_every = 300,
                      .log_every = 40,
                      .checkpoint_every = 900,
                      .up = UpAxis::PlusZ};
  write_run_config(run, to_json(cli));
  std::ofstream(run / run_files::kCheckpoint) << "";  // open_run needs one to continue from; not read here

  TrainingController training(kernels::Device::CPU);
  training.open_run(state, run);
  REQUIRE(state.notes.error_count() == 0);
  CHECK(training.settings.strategy == 1);  // the panel shows what it can
  CHECK(training.settings.steps == 4000);
  CHECK(training.settings.cap_max == 5000);  // MCMC's budget, the panel's "Max" beside the strategy
  CHECK(training.settings.exposure);          // the panel's Exposure box
  // The scene loads as the run trained on it, shown with the up axis it recorded.
  state.loader.wait();
  state.poll_loader();
  REQUIRE(state.notes.error_count() == 0);
  CHECK(state.content.data_factor == 2);
  CHECK(state.content.undistort.mode == UndistortMode::Crop);
  CHECK(state.content.undistort.fisheye_fov_deg == 120);
  CHECK(state.content.mask_mode == MaskMode::Alpha);
  CHECK(state.up_axis() == UpAxis::PlusZ);
  // What a session resumed now trains with: the whole recorded config, panel settings included.
  const RunConfig resumed = training.run_config(state);
  CHECK(resumed == cli);
  const TrainerOptions o = resumed.trainer_options(kernels::Device::CPU);
  CHECK(o.mcmc.cap == 5000);
  CHECK(o.default_strategy.absgrad);
  CHECK(o.seed == 7);
  CHECK_FALSE(o.antialiased);
  // The view draws the run as it trained.
  CHECK_FALSE(state.view.antialiased);
  CHECK_FALSE(state.raster_settings().antialiased);
  CHECK(o.exposure);
  CHECK(o.photos == PhotoPlacement::Own);  // not on the panel, kept from the record
}

TEST_CASE("a PLY opened alone is drawn as its run trained, or without the anti-aliased filter", "[ui][run]") {
  const fs::path dir = test::scratch_dir("ui_ply_antialiased");
  ViewerState state(kernels::Device::CPU, dir / "recent.json");
  // A PLY of another tool (no run beside it): the original renderer's way, whatever the view held.
  state.view.antialiased = true;
  test::open_random_cube(state, dir, 50);
  REQUIRE(state.notes.error_count() == 0);
  CHECK_FALSE(state.view.antialiased);
  CHECK_FALSE(state.raster_settings().antialiased);
  // The same PLY in a run folder that trained anti-aliased.
  RunConfig trained;
  trained.scene_folder = "/data/garden";
  trained.antialiased = true;
  write_run_config(dir, to_json(trained));
  state.open(dir / "in.ply");
  state.loader.wait();
  state.poll_loader();
  REQUIRE(state.notes.error_count() == 0);
  CHECK(state.view.antialiased);
  // A damaged config beside it is no reason to refuse the PLY: drawn the common way.
  std::ofstream(dir / run_files::kConfig) << "{";
  state.open(dir / "in.ply");
  state.loader.wait();
  state.poll_loader();
  REQUIRE(state.notes.error_count() == 0);
  CHECK_FALSE(state.view.antialiased);
}
