// GUI training and run folders, through the TrainingController without a window: a run writes
// config.json, metrics.jsonl, periodic checkpoints and, at its end, the checkpoint and the PLY;
// Stop saves and Continue goes on from where it stopped (plots kept); Pause is not Stop; a taken
// folder is refused; opening a run folder restores its plots and resumes it.
#include <catch2/catch.hpp>

#include <chrono>
#include <fstream>
#include <functional>
#include <thread>

#include "core/model/ply_io.h"
#include "core/run/run_config.h"
#include "core/train/checkpoint.h"
#include "tests/support/test_support.h"
#include "tests/ui/poll_training.h"
#include "tests/ui/tiny_demo_viewer.h"
#include "ui/gui_run.h"
#include "ui/dialogs.h"
#include "ui/training_controller.h"

using namespace splat;
using namespace splat::ui;
namespace fs = std::filesystem;
using splat::test::poll_until;

namespace {
int checkpoint_images(const fs::path& file) { return read_checkpoint(file).trainer.at("images").get<int>(); }
// The tiny demo open in a viewer and a CPU training of it with a budget it never reaches, no
// evaluation and no periodic checkpoints, writing the run folder dir/run_rel.
struct EndlessRun {
  EndlessRun(const std::string& name, const fs::path& run_rel)
      : dir(splat::test::scratch_dir(name)), run(dir / run_rel), state(kernels::Device::CPU, dir / "recent.json"),
        training(kernels::Device::CPU) {
    splat::test::open_tiny_demo(state, dir);
    training.settings.steps = 100000;
    training.settings.eval_every = 0;
    training.settings.checkpoint_every = 0;
    training.settings.run_dir = run.string();
  }
  fs::path dir, run;
  ViewerState state;
  TrainingController training;
};

}  // namespace

TEST_CASE("GUI training writes a run folder and its files at the end", "[ui][run]") {
  const fs::path dir = splat::test::scratch_dir("ui_run_folder");
  ViewerState state(kernels::Device::CPU, dir / "recent.json");
  splat::test::open_tiny_demo(state, dir);
  // The setting applies to scenes opened next: the run records the factor the shown scene has.
  state.data_factor = 4;
  TrainingController training(kernels::Device::CPU);
  training.settings.steps = 40;
  training.settings.eval_every = 20;
  training.settings.checkpoint_every = 16;
  training.settings.run_dir = (dir / "runs" / "first").string();
  training.start(state);
  REQUIRE(training.active());
  REQUIRE(poll_until(training, state, [&] { return training.state() == SessionState::Finished; }));
  REQUIRE(poll_until(training, state, [&] { return training.results_written(); }));
  training.poll(state);
  CHECK(state.notes.error_count() == 0);

  const fs::path run = dir / "runs" / "first";
  CHECK(training.run_dir() == run);
  const RunConfig config = read_run_config(run);
  CHECK(config.images == 40);
  CHECK(config.started_by == "gui");
  CHECK(state.content.data_factor == 1);
  CHECK(config.data_factor == 1);
  CHECK(fs::path(config.scene_folder) == fs::absolute(state.content.scene->root));
  CHECK(checkpoint_images(run / run_files::kCheckpoint) == 40);
  CHECK(read_ply(run / run_files::kPly).size() == state.gaussian_count());
  const MetricHistory h = read_metric_history(run / run_files::kMetrics);
  REQUIRE_FALSE(h.loss.empty());
  CHECK(h.last_images == 40);
  CHECK_FALSE(h.psnr.empty());  // eval every 20 images
  // The plots in the panel are the run's records.
  CHECK(training.history.loss == h.loss);
  CHECK(training.images_done() == 40);
  CHECK(training.elapsed_s() > 0);
  CHECK_FALSE(training.in_progress());  // finished and saved: closing loses nothing

  // The same folder again is refused with one message naming it; nothing starts.
  const int errors = state.notes.error_count();
  TrainingController second(kernels::Device::CPU);
  second.settings.run_dir = run.string();
  second.start(state);
  CHECK_FALSE(second.active());
  CHECK(state.notes.error_count() == errors + 1);
  CHECK(fs::exists(run / run_files::kPly));  // and the old run is untouched
  CHECK(read_run_config(run).images == 40);

  SECTION("opening the run folder restores its plots and resumes it with a larger budget") {
    ViewerState other(kernels::Device::CPU, dir / "recent2.json");
    TrainingController resumed(kernels::Device::CPU);
    resumed.open_run(other, run);
    // It had used its whole budget: it opens finished, showing its plots, until the budget grows.
    REQUIRE(poll_until(resumed, other, [&] { return resumed.state() == SessionState::Finished; }));
    CHECK(other.notes.error_count() == 0);
    CHECK(other.content.data_factor == 1);  // loaded as the run was
    CHECK(resumed.images_done() == 40);
    CHECK(resumed.settings.steps == 40);
    CHECK(resumed.history.loss == h.loss);
    // The training time it had, from its metrics, not 0 s (plus the moment its restore ran).
    CHECK(resumed.elapsed_s() >= h.loss_wall.back());
    CHECK(resumed.elapsed_s() < h.loss_wall.back() + 0.5);
    resumed.settings.steps = 60;
    resumed.start(other);
    REQUIRE(poll_until(resumed, other, [&] { return resumed.results_written(); }));
    CHECK(resumed.state() == SessionState::Finished);
    CHECK(resumed.images_done() == 60);
    CHECK(checkpoint_images(run / run_files::kCheckpoint) == 60);
    const MetricHistory after = read_metric_history(run / run_files::kMetrics);
    CHECK(after.last_images == 60);
    REQUIRE(after.loss.size() > h.loss.size());
    CHECK(std::equal(h.loss.begin(), h.loss.end(), after.loss.begin()));  // appended, not rewritten
  }
}

TEST_CASE("Stop saves and Continue goes on; Pause is not Stop; Reset discards", "[ui][run]") {
  EndlessRun r("ui_run_stop", "run");
  const fs::path& run = r.run;
  ViewerState& state = r.state;
  TrainingController& training = r.training;
  training.start(state);
  REQUIRE(poll_until(training, state, [&] { return training.history.last_images >= 30; }));
  CHECK(training.in_progress());
  CHECK(training.eta_s().has_value());

  training.pause();
  REQUIRE(poll_until(training, state, [&] { return training.state() == SessionState::Paused; }));
  CHECK_FALSE(fs::exists(run / run_files::kCheckpoint));  // pausing saves nothing
  // Stop while paused: stopped, and the run's files are written.
  training.stop();
  REQUIRE(poll_until(training, state, [&] { return training.state() == SessionState::Stopped; }));
  REQUIRE(poll_until(training, state, [&] { return training.results_written(); }));
  CHECK(fs::exists(run / run_files::kPly));
  const int stopped_at = training.images_done();
  CHECK(checkpoint_images(run / run_files::kCheckpoint) == stopped_at);
  const float first_loss = training.history.loss.front();
  const size_t records = training.history.loss.size();

  // Continue: from where it stopped, with the plots kept.
  training.start(state);
  REQUIRE(poll_until(training, state, [&] { return training.history.last_images > stopped_at + 20; }));
  CHECK(training.history.loss.front() == first_loss);
  CHECK(training.history.loss.size() > records);
  CHECK(training.history.loss_images[records] > static_cast<float>(stopped_at));
  training.stop();
  REQUIRE(poll_until(training, state, [&] { return training.state() == SessionState::Stopped && training.results_written(); }));
  CHECK(checkpoint_images(run / run_files::kCheckpoint) == training.images_done());
  CHECK(training.images_done() > stopped_at);
  CHECK(state.notes.error_count() == 0);

  training.reset(state);
  CHECK_FALSE(training.active());
  CHECK(training.history.loss.empty());
  CHECK(fs::exists(run / run_files::kPly));  // what the run saved stays
}

TEST_CASE("the up axis chosen is recorded with the run, also when changed while training, and restored on open",
          "[ui][run][run_config]") {
  EndlessRun r("ui_run_up", "run");
  r.state.set_up_axis(UpAxis::MinusZ);
  r.training.start(r.state);
  REQUIRE(r.training.active());
  CHECK(read_run_config(r.run).up == UpAxis::MinusZ);
  r.state.set_up_axis(UpAxis::PlusY);
  REQUIRE(poll_until(r.training, r.state, [&] { return read_run_config(r.run).up == UpAxis::PlusY; }));
  r.training.stop();
  REQUIRE(poll_until(r.training, r.state, [&] { return r.training.results_written(); }));
  CHECK(r.state.notes.error_count() == 0);

  ViewerState other(kernels::Device::CPU, r.dir / "recent2.json");
  TrainingController resumed(kernels::Device::CPU);
  resumed.open_run(other, r.run);
  REQUIRE(poll_until(resumed, other, [&] { return resumed.state() == SessionState::Paused && !resumed.opening_run(); }));
  CHECK(other.notes.error_count() == 0);
  CHECK(other.up_axis() == UpAxis::PlusY);
  CHECK(norm(other.camera.world_up() - Vec3d{0, 1, 0}) < 1e-12);
}

TEST_CASE("a reset run that saved nothing leaves no folder behind; periodic checkpoints stay", "[ui][run]") {
  EndlessRun r("ui_run_reset", fs::path("runs") / "gone");
  const fs::path& dir = r.dir;
  ViewerState& state = r.state;
  TrainingController& training = r.training;
  training.start(state);
  REQUIRE(poll_until(training, state, [&] { return training.history.last_images >= 5; }));
  CHECK(fs::exists(dir / "runs" / "gone" / run_files::kConfig));
  training.reset(state);
  CHECK_FALSE(fs::exists(dir / "runs"));

  // With periodic checkpoints the run has results before it ends, and a reset keeps them.
  training.settings.checkpoint_every = 8;
  training.settings.run_dir = (dir / "runs" / "kept").string();
  training.start(state);
  const fs::path checkpoint = dir / "runs" / "kept" / run_files::kCheckpoint;
  REQUIRE(poll_until(training, state, [&] { return fs::exists(checkpoint); }));
  training.reset(state);
  CHECK(checkpoint_images(checkpoint) % 8 == 0);
  CHECK(fs::exists(dir / "runs" / "kept" / run_files::kConfig));
}

TEST_CASE("the default run folder is runs/<scene name>, absolute, and skips taken ones", "[ui][run]") {
  const fs::path dir = splat::test::scratch_dir("ui_run_default");
  Scene scene;
  scene.root = (dir / "scenes" / "cup").string();
  const fs::path first = default_run_dir(dir, scene);
  CHECK(first == fs::absolute(dir / "runs" / "cup").lexically_normal());
  CHECK(first.is_absolute());
  fs::create_directories(first);
  CHECK(default_run_dir(dir, scene) == first);  // an empty folder holds no run
  std::ofstream(first / run_files::kMetrics) << "\n";
  CHECK(default_run_dir(dir, scene) == first.parent_path() / "cup-2");
}

TEST_CASE("Save and quit closes only once the stopped run's files are written", "[ui][run]") {
  const fs::path dir = splat::test::scratch_dir("ui_run_quit");
  ViewerState state(kernels::Device::CPU, dir / "recent.json");
  splat::test::open_tiny_demo(state, dir);
  TrainingController training(kernels::Device::CPU);
  Confirmations confirm;
  CHECK_FALSE(draw_confirmations(state, training, confirm));
  CHECK_FALSE(state.confirm_discard);  // nothing to discard: opening needs no question

  training.settings.steps = 100000;
  training.settings.eval_every = 0;
  training.settings.run_dir = (dir / "run").string();
  training.start(state);
  REQUIRE(poll_until(training, state, [&] { return training.images_done() >= 5; }));
  // What "Save and quit" does (no ImGui frame is needed while no question is asked).
  training.stop();
  confirm.quit_after_saves = true;
  REQUIRE(poll_until(training, state, [&] {
    const bool closed = draw_confirmations(state, training, confirm);
    if (closed) CHECK(fs::exists(dir / "run" / run_files::kPly));  // never before the files exist
    return closed;
  }));
  CHECK(state.confirm_discard);  // the session still exists: opening asks first
  CHECK(checkpoint_images(dir / "run" / run_files::kCheckpoint) == training.images_done());
}
