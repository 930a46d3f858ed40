// The Training panel's rank choice through the controller, CPU ranks, no window: a session
// with 2 ranks trains, the viewer is handed the whole model (both shards), the per-GPU panel's rows come
// from every rank, and a batch size below the rank count is refused with a notification.
#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

#include "tests/support/test_support.h"
#include "tests/ui/tiny_demo_viewer.h"
#include "ui/training_controller.h"

using namespace splat;
using namespace splat::ui;
namespace fs = std::filesystem;

TEST_CASE("controller trains with 2 CPU ranks and shows the whole model", "[ui][ranks]") {
  const fs::path dir = splat::test::scratch_dir("ui_training_ranks");
  ViewerState state(kernels::Device::CPU, dir / "recent.json");
  splat::test::open_tiny_demo(state, dir);
  const int64_t initial = state.content.model->size();

  TrainingController training(kernels::Device::CPU);
  training.settings.steps = 100000;
  training.settings.eval_every = 0;
  training.settings.ranks = 2;
  training.settings.run_dir = (dir / "run1").string();
  CHECK(training.rank_plan().ranks == 2);
  // Batch size 1 cannot feed 2 ranks: nothing starts, the user is told.
  training.start(state);
  CHECK_FALSE(training.active());
  CHECK(state.notes.error_count() == 1);

  training.settings.batch_size = 2;
  training.start(state);
  REQUIRE(training.active());
  for (int i = 0; i < 3000 && !(state.shown_snapshot() && state.shown_snapshot()->step() >= 2); ++i) {
    training.poll(state);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  REQUIRE(state.shown_snapshot());
  // Both shards are shown: the snapshot has every Gaussian of the model, and the per-rank rows add up to it.
  training.pause();
  for (int i = 0; i < 3000 && training.state() != SessionState::Paused; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  training.poll(state);
  const std::vector<sharded::RankStats>& rows = training.rank_stats();
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].gaussians > 0);
  CHECK(rows[1].gaussians > 0);
  CHECK(rows[0].gaussians + rows[1].gaussians == state.gaussian_count());
  CHECK(state.gaussian_count() == initial);  // no densification this early: the whole model

  // A live batch size below the rank count is refused (a notification) and training goes on at 2.
  training.settings.batch_size = 1;
  training.apply_live_settings();
  training.poll(state);
  CHECK(state.notes.error_count() == 2);
  const int steps = training.steps_done();
  training.resume();
  for (int i = 0; i < 3000 && training.steps_done() < steps + 2; ++i) {
    training.poll(state);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  CHECK(training.images_done() - 2 * steps == 2 * (training.steps_done() - steps));
  CHECK(training.state() == SessionState::Running);
  training.reset(state);
  CHECK(training.rank_stats().empty());
}
