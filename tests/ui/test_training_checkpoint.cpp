// The Snapshots panel's "Save checkpoint" through the TrainingController: unavailable (with a
// reason) until a session runs, written by the session at a step boundary, confirmed by a
// notification in the next poll, still served once training was stopped (it can continue), and
// unavailable again after a reset. No window.
#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

#include "core/train/checkpoint.h"
#include "tests/support/test_support.h"
#include "tests/ui/tiny_demo_viewer.h"
#include "ui/training_controller.h"

using namespace splat;
using namespace splat::ui;
namespace fs = std::filesystem;

TEST_CASE("training controller saves a checkpoint of the running session", "[ui][checkpoint]") {
  const fs::path dir = splat::test::scratch_dir("ui_checkpoint");
  ViewerState state(kernels::Device::CPU, dir / "recent.json");
  splat::test::open_tiny_demo(state, dir);

  TrainingController training(kernels::Device::CPU);
  CHECK_FALSE(training.checkpoint_unavailable().empty());  // no session: the button is disabled
  training.save_checkpoint(state, (dir / "early.ckpt").string());
  CHECK(state.notes.error_count() == 1);
  CHECK_FALSE(fs::exists(dir / "early.ckpt"));

  training.settings.steps = 100000;
  training.settings.eval_every = 0;
  training.settings.run_dir = (dir / "run").string();
  training.start(state);
  REQUIRE(training.active());
  CHECK(training.checkpoint_unavailable().empty());

  const fs::path file = dir / "out" / "gui.ckpt";
  fs::create_directories(file.parent_path());
  training.save_checkpoint(state, file.string());
  // The file appears once the session served the request; poll() turns the outcome into a message.
  for (int i = 0; i < 2000 && !fs::exists(file); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  REQUIRE(fs::exists(file));
  training.poll(state);
  CHECK(state.notes.error_count() == 1);
  CHECK(read_checkpoint(file).trainer.at("step").get<int>() >= 0);

  // A stopped session still serves requests (Continue goes on from it); a reset one does not.
  training.stop();
  CHECK(training.checkpoint_unavailable().empty());
  training.save_checkpoint(state, (dir / "late.ckpt").string());
  for (int i = 0; i < 2000 && training.saves_pending() > 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  training.poll(state);
  CHECK(state.notes.error_count() == 1);
  CHECK(fs::exists(dir / "late.ckpt"));

  training.reset(state);
  CHECK_FALSE(training.checkpoint_unavailable().empty());
  training.save_checkpoint(state, (dir / "after_reset.ckpt").string());
  training.poll(state);
  CHECK(state.notes.error_count() == 2);
  CHECK_FALSE(fs::exists(dir / "after_reset.ckpt"));
}
