// The training-run loop that `splatlab train` and the GUI session share: when it records metrics,
// evaluates and checkpoints, where it ends, and what it writes to metrics.jsonl.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/train/checkpoint.h"
#include "core/train/evaluator.h"
#include "core/train/training_run.h"
#include "tests/core/demo_fixture.h"
#include "tests/support/test_support.h"

using namespace splat;

namespace {
TrainerOptions tiny_options(int images) {
  TrainerOptions o;
  o.images = images;
  o.cpu_threads = 1;
  o.background = {0.8f, 0.8f, 0.8f};
  return o;
}

std::vector<nlohmann::json> read_lines(const std::filesystem::path& file) {
  std::vector<nlohmann::json> out;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(nlohmann::json::parse(line));
  return out;
}
}  // namespace

TEST_CASE("training run: metrics, evaluation and checkpoint cadence up to --stop-at", "[training_run]") {
  const Scene scene = test::small_demo_scene(28, 21, 90);
  REQUIRE(!scene.test_indices().empty());
  const auto dir = test::scratch_dir("training_run");
  RunOptions ro;
  ro.metrics_every = 3;
  ro.eval_every = 4;
  ro.eval_at_end = true;
  ro.stop_at = 10;
  ro.metrics_file = dir / "metrics.jsonl";
  ro.checkpoint_every = 5;
  ro.checkpoint_file = dir / "run.ckpt";
  TrainingRun run(scene, init_from_points(scene.points), tiny_options(20), ro);
  CHECK(run.end_images() == 10);
  CHECK(run.seconds() == 0);
  CHECK_FALSE(run.last_psnr());

  std::vector<int> recorded, evaluated;
  while (!run.done()) {
    const RunStep s = run.step();
    const int step = run.trainer().steps_done();
    CHECK(s.result.step == step - 1);
    if (step == 5) CHECK(read_checkpoint(ro.checkpoint_file).trainer.at("step").get<int>() == 5);
    if (!s.metrics) continue;
    recorded.push_back(s.metrics->step);
    CHECK(s.metrics->step == step);
    CHECK(s.metrics->gaussians == run.trainer().gaussians().size());
    CHECK(s.metrics->loss == run.trainer().read_loss());
    CHECK(s.metrics->step_ms > 0);
    CHECK_FALSE(s.metrics->gpu_mem_mb);  // CPU backend
    if (s.metrics->psnr) {
      evaluated.push_back(step);
      REQUIRE(s.metrics->ssim);
      // Evaluated with the one builder of evaluation settings, on the test views.
      const EvalResult e = evaluate(run.trainer().rasterizer(), run.trainer().gaussians().view(), scene,
                                    scene.test_indices(), eval_options_for(run.trainer()));
      CHECK(*s.metrics->psnr == e.psnr);
      CHECK(*s.metrics->ssim == e.ssim);
      CHECK(run.last_psnr() == s.metrics->psnr);
    }
  }
  CHECK(run.trainer().steps_done() == 10);
  CHECK_FALSE(run.trainer().finished());  // the schedule goes on to 20
  CHECK(recorded == std::vector<int>{3, 4, 6, 8, 9, 10});
  CHECK(evaluated == std::vector<int>{4, 8, 10});  // the last step evaluates too
  CHECK(read_checkpoint(ro.checkpoint_file).trainer.at("step").get<int>() == 10);
  CHECK(run.seconds() > 0);
  CHECK(run.eval_seconds() > 0);
  CHECK(run.eval_seconds() < run.seconds());

  // metrics.jsonl holds the same records, in order, with the fields MetricsLog writes.
  const std::vector<nlohmann::json> lines = read_lines(ro.metrics_file);
  REQUIRE(lines.size() == recorded.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    CHECK(lines[i].at("step").get<int>() == recorded[i]);
    for (const char* key : {"images", "loss", "gaussians", "step_ms", "wall_s"}) CHECK(lines[i].contains(key));
    const bool eval = std::find(evaluated.begin(), evaluated.end(), recorded[i]) != evaluated.end();
    CHECK(lines[i].contains("psnr") == eval);
    CHECK(lines[i].contains("ssim") == eval);
  }
  CHECK(lines.back().at("wall_s").get<double>() >= lines.front().at("wall_s").get<double>());

  // A resumed run appends to the file and continues on the schedule's end.
  ro.stop_at = 0;
  ro.append_metrics = true;
  ro.checkpoint_every = 0;
  TrainingRun resumed(scene, init_from_points(scene.points), tiny_options(20), ro);
  restore_trainer_checkpoint(resumed.trainer(), ro.checkpoint_file);
  CHECK(resumed.end_images() == 20);
  while (!resumed.done()) resumed.step();
  const std::vector<nlohmann::json> all = read_lines(ro.metrics_file);
  REQUIRE(all.size() == lines.size() + 5);  // 12 (eval), 15, 16 (eval), 18, 20 (eval, end)
  CHECK(all[lines.size()].at("step").get<int>() == 12);
  CHECK(all.back().at("step").get<int>() == 20);
  CHECK(all.back().contains("psnr"));
}

TEST_CASE("training run: without eval_at_end the last step is recorded but not evaluated", "[training_run]") {
  const Scene scene = test::small_demo_scene(28, 21, 90);
  RunOptions ro;
  ro.metrics_every = 4;
  ro.eval_every = 2;
  TrainingRun run(scene, init_from_points(scene.points), tiny_options(5), ro);
  std::vector<int> recorded, evaluated;
  while (!run.done()) {
    const RunStep s = run.step();
    if (!s.metrics) continue;
    recorded.push_back(s.metrics->step);
    if (s.metrics->psnr) evaluated.push_back(s.metrics->step);
  }
  CHECK(run.trainer().finished());
  CHECK(recorded == std::vector<int>{2, 4, 5});
  CHECK(evaluated == std::vector<int>{2, 4});
}

TEST_CASE("training run: options that cannot work are refused", "[training_run]") {
  const Scene scene = test::small_demo_scene(28, 21, 90);
  const GaussianModel init = init_from_points(scene.points);
  RunOptions ro;
  ro.metrics_every = 0;
  CHECK_THROWS_WITH(TrainingRun(scene, init, tiny_options(5), ro), Catch::Contains("at least 1"));
  ro.metrics_every = 1;
  ro.checkpoint_every = 2;
  CHECK_THROWS_WITH(TrainingRun(scene, init, tiny_options(5), ro), Catch::Contains("needs a checkpoint file"));
  ro.checkpoint_every = 0;
  ro.metrics_file = test::scratch_dir("training_run_bad") / "missing" / "metrics.jsonl";
  CHECK_THROWS_WITH(TrainingRun(scene, init, tiny_options(5), ro), Catch::Contains("metrics.jsonl"));
}
