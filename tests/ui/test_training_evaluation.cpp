// A GUI run evaluates the test views as `splatlab train` does (at the end of its budget even when
// the eval cadence is longer than the run), and the Compare panel's table follows the latest
// evaluation without the user asking; through the TrainingController, without a window.
#include <catch2/catch.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <thread>

#include "core/run/run_folder.h"
#include "tests/support/test_support.h"
#include "tests/ui/poll_training.h"
#include "tests/ui/tiny_demo_viewer.h"
#include "ui/gui_run.h"
#include "ui/training_controller.h"
#include "ui/view_compare.h"

using namespace splat;
using namespace splat::ui;
namespace fs = std::filesystem;
using splat::test::poll_until;

namespace {
std::shared_ptr<const EvalResult> mean_psnr(double psnr) {
  EvalResult e;
  e.psnr = psnr;
  return std::make_shared<const EvalResult>(e);
}

}  // namespace

TEST_CASE("GUI training evaluates at the end and the Compare table follows it", "[ui][run][eval]") {
  const fs::path dir = splat::test::scratch_dir("ui_training_evaluation");
  ViewerState state(kernels::Device::CPU, dir / "recent.json");
  splat::test::open_tiny_demo(state, dir);
  const size_t tests = state.content.scene->test_indices().size();
  REQUIRE(tests > 0);
  TrainingController training(kernels::Device::CPU);
  training.settings.steps = 12;
  training.settings.eval_every = 500;  // the panel's default: longer than this run
  training.settings.checkpoint_every = 0;
  training.settings.run_dir = (dir / "run").string();
  ViewCompare compare;
  CHECK_FALSE(training.latest_evaluation().result);

  training.start(state);
  REQUIRE(training.active());
  REQUIRE(poll_until(training, state, [&] { return training.state() == SessionState::Finished; }));
  REQUIRE(poll_until(training, state, [&] { return training.results_written(); }));
  CHECK(state.notes.error_count() == 0);

  // The run's end was evaluated: metrics.jsonl and the plots have the test PSNR.
  const MetricHistory h = read_metric_history(dir / "run" / run_files::kMetrics);
  REQUIRE(h.psnr.size() == 1);
  CHECK(h.psnr_images.back() == 12.f);
  REQUIRE(training.history.psnr.size() == 1);
  CHECK(training.history.psnr.back() == h.psnr.back());

  // What the frame does after each poll fills the Compare table: no click, no evaluation of its own.
  const TrainingController::Evaluation e = training.latest_evaluation();
  REQUIRE(e.result);
  CHECK(e.of_shown_model);
  compare.follow_training(state, e.result, e.of_shown_model);
  CHECK_FALSE(compare.evaluating());
  REQUIRE(compare.evaluation());
  CHECK(compare.evaluation()->views.size() == tests);
  CHECK(float(compare.evaluation()->psnr) == h.psnr.back());
  CHECK(compare.evaluation_current(state));  // of the model shown: the run's last step
}

TEST_CASE("the Compare table keeps an evaluation the user started over a training one", "[ui][eval]") {
  const fs::path dir = splat::test::scratch_dir("ui_training_evaluation_user");
  ViewerState state(kernels::Device::CPU, dir / "recent.json");
  splat::test::open_tiny_demo(state, dir);
  ViewCompare compare;
  const auto training_eval = mean_psnr(1.0);
  compare.start_evaluation(state);
  REQUIRE(compare.evaluating());
  compare.follow_training(state, training_eval, false);  // arrives while the user's runs
  while (compare.evaluating()) compare.evaluate_next(state);
  REQUIRE(compare.evaluation());
  CHECK(compare.evaluation()->psnr != 1.0);
  compare.follow_training(state, training_eval, false);  // seen already: the user's stays
  CHECK(compare.evaluation()->psnr != 1.0);
  // A newer training evaluation replaces it, marked as not of the model shown.
  compare.follow_training(state, mean_psnr(2.0), false);
  CHECK(compare.evaluation()->psnr == 2.0);
  CHECK_FALSE(compare.evaluation_current(state));
}
