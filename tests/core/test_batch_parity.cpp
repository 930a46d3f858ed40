// Batch parity (docs/ARCHITECTURE.md "Schedules count images"): every schedule counts images, so a run at batch B with the same
// image budget as one at batch 1 densifies, resets, grows the SH degree, logs, evaluates and
// checkpoints at the same image counts, and ends as well trained.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "core/train/checkpoint.h"
#include "core/train/evaluator.h"
#include "core/train/training_run.h"
#include "kernels/hd_math.h"
#include "tests/core/demo_fixture.h"
#include "tests/support/test_support.h"

using namespace splat;

namespace {

// What one step of a TrainingRun did, as seen from outside the trainer and the strategy.
struct StepEvents {
  int first_image = 0, batch = 0;
  int sh_degree = 0;  // the degree the step rendered at
  bool refined = false, reset = false, recorded = false, evaluated = false, checkpointed = false;
};

// An opacity reset caps every opacity at reset_opacity and zeroes the opacity moments; Adam runs
// before the strategy, so right after a reset step both hold on every row, and after no other
// step (Adam leaves nonzero moments on every row the step's cameras saw).
bool opacity_was_reset(DeviceGaussians& g, float reset_opacity) {
  const std::vector<float> logits = g.param(Group::Opacity).download();
  const std::vector<float> m1 = g.exp_avg(Group::Opacity).download();
  const float cap = logit(reset_opacity);
  for (size_t i = 0; i < logits.size(); ++i)
    if (logits[i] > cap || m1[i] != 0.f) return false;
  return true;
}

// Schedules far from multiples of 4, so that batch 2 and 4 steps straddle the events.
TrainerOptions schedule_options(const std::string& strategy, int batch) {
  TrainerOptions o;
  o.images = 242;  // not a multiple of 4: the last batch-4 step takes the 2 images left
  o.batch_size = batch;
  o.strategy = strategy;
  o.cpu_threads = 2;
  o.background = {0.8f, 0.8f, 0.8f};
  o.sh_degree_interval = 51;
  o.default_strategy.refine_start = 29;
  o.default_strategy.refine_every = 30;
  o.default_strategy.refine_stop = 200;
  o.default_strategy.reset_every = 91;
  o.default_strategy.grad_threshold = 1e-6f;  // grow at every refinement: each one changes the rows
  o.mcmc.refine_start = 29;
  o.mcmc.refine_every = 30;
  o.mcmc.refine_stop = 200;
  return o;
}

std::vector<StepEvents> run_schedule(const Scene& scene, const TrainerOptions& o, const std::filesystem::path& dir) {
  RunOptions ro;
  ro.metrics_every = 37;
  ro.eval_every = 101;
  ro.eval_at_end = true;
  ro.checkpoint_every = 67;
  ro.checkpoint_file = dir / "run.ckpt";
  std::filesystem::remove(ro.checkpoint_file);
  TrainingRun run(scene, init_from_points(scene.points), o, ro);
  std::vector<StepEvents> out;
  int last_checkpoint_images = -1;
  while (!run.done()) {
    StepEvents e;
    e.sh_degree = run.trainer().active_sh_degree();
    const RunStep s = run.step();
    e.first_image = s.result.first_image;
    e.batch = s.result.batch_size;
    e.refined = s.result.structure_changed;
    e.reset = o.strategy == "default" && opacity_was_reset(run.trainer().gaussians(), o.default_strategy.reset_opacity);
    e.recorded = s.metrics.has_value();
    e.evaluated = s.metrics && s.metrics->psnr;
    if (std::filesystem::exists(ro.checkpoint_file)) {
      const int images = read_checkpoint(ro.checkpoint_file).trainer.at("images").get<int>();
      e.checkpointed = images != last_checkpoint_images;
      last_checkpoint_images = images;
    }
    out.push_back(e);
  }
  CHECK(run.trainer().images_done() == o.images);
  return out;
}

// The images at which a batch-1 run had an event: at batch 1 a step is its one image.
template <class Flag>
std::set<int> event_images(const std::vector<StepEvents>& batch1, Flag flag) {
  std::set<int> images;
  for (const StepEvents& e : batch1)
    if (flag(e)) images.insert(e.first_image);
  return images;
}

// The steps of a batch-B run that hold one of those images must be exactly those with the event.
template <class Flag>
void check_same_images(const std::vector<StepEvents>& run, const std::set<int>& images, Flag flag, const char* what) {
  for (const StepEvents& e : run) {
    const auto it = images.lower_bound(e.first_image);
    const bool expected = it != images.end() && *it < e.first_image + e.batch;
    INFO(what << " in the step of images [" << e.first_image << ", " << e.first_image + e.batch << ")");
    CHECK(flag(e) == expected);
  }
}

}  // namespace

TEST_CASE("batch parity: schedules fire at the same image counts at batch sizes 1 2 and 4", "[trainer][batch]") {
  const Scene scene = test::small_demo_scene(30, 22, 120);
  REQUIRE(scene.train_indices().size() >= 4);
  REQUIRE(!scene.test_indices().empty());
  const auto dir = test::scratch_dir("batch_parity_schedule");
  for (const std::string strategy : {"default", "mcmc"}) {
    INFO("strategy " << strategy);
    const std::vector<StepEvents> one = run_schedule(scene, schedule_options(strategy, 1), dir);
    const auto refined = [](const StepEvents& e) { return e.refined; };
    const auto reset = [](const StepEvents& e) { return e.reset; };
    const auto recorded = [](const StepEvents& e) { return e.recorded; };
    const auto evaluated = [](const StepEvents& e) { return e.evaluated; };
    const auto checkpointed = [](const StepEvents& e) { return e.checkpointed; };
    // The batch-1 schedule itself: refinements at images 30, 60, ... 180 (after 29, before 200),
    // resets at 91 and 182 (default only, inside the refinement window); the run's cadences count
    // images done, so the step that completes the count has the event: records every 37 images,
    // at evaluations and at the end, evaluations at 101, 202 and the end, checkpoints at 67, 134, 201.
    CHECK(event_images(one, refined) == std::set<int>{30, 60, 90, 120, 150, 180});
    CHECK(event_images(one, reset) == (strategy == "default" ? std::set<int>{91, 182} : std::set<int>{}));
    CHECK(event_images(one, recorded) == std::set<int>{36, 73, 100, 110, 147, 184, 201, 221, 241});
    CHECK(event_images(one, evaluated) == std::set<int>{100, 201, 241});
    CHECK(event_images(one, checkpointed) == std::set<int>{66, 133, 200});
    for (int batch : {2, 4}) {
      INFO("batch " << batch);
      const std::vector<StepEvents> run = run_schedule(scene, schedule_options(strategy, batch), dir);
      CHECK(run.size() == size_t((242 + batch - 1) / batch));
      check_same_images(run, event_images(one, refined), refined, "refinement");
      check_same_images(run, event_images(one, reset), reset, "opacity reset");
      check_same_images(run, event_images(one, recorded), recorded, "metrics record");
      check_same_images(run, event_images(one, evaluated), evaluated, "evaluation");
      check_same_images(run, event_images(one, checkpointed), checkpointed, "checkpoint");
      // The SH degree of a step is the batch-1 degree of its first image.
      for (const StepEvents& e : run) {
        INFO("SH degree of the step at image " << e.first_image);
        CHECK(e.sh_degree == one[e.first_image].sh_degree);
      }
    }
  }
}

TEST_CASE("batch parity: a checkpoint from before image counting resumes at steps x batch size images",
          "[checkpoint][batch]") {
  const Scene scene = test::small_demo_scene(30, 22, 120);
  TrainerOptions o = schedule_options("default", 2);
  o.images = 40;
  const auto file = test::scratch_dir("batch_parity_legacy") / "old.ckpt";
  Trainer t(scene, init_from_points(scene.points), o);
  for (int i = 0; i < 5; ++i) t.step();
  save_trainer_checkpoint(t, file);
  // Rewrite its trainer state as the format before images were counted had it: step and steps.
  Checkpoint ck = read_checkpoint(file);
  ck.trainer.erase("images");
  ck.trainer.erase("total_images");
  ck.trainer["steps"] = 20;
  write_checkpoint(file, ck);

  Trainer resumed(scene, init_from_points(scene.points), schedule_options("default", 1));
  restore_trainer_checkpoint(resumed, file);
  CHECK(resumed.steps_done() == 5);
  CHECK(resumed.images_done() == 10);
  CHECK(resumed.options().images == 40);
  CHECK(resumed.options().batch_size == 2);
  // The same run from here on as the one that wrote it.
  for (int i = 0; i < 3; ++i) {
    t.step();
    resumed.step();
  }
  const GaussianState a = t.gaussians().download(), b = resumed.gaussians().download();
  REQUIRE(a.size() == b.size());
  for (Group g : kAllGroups) CHECK(a.col(g).value == b.col(g).value);
}

// Measured with exactly this configuration (CPU backend, 2 threads, Nov 2026) for seeds 0, 1, 2, 3:
// test PSNR at batch 1 20.55, 20.71, 20.58, 20.51 dB, at batch 4 19.66, 20.26, 20.14, 20.22 dB
// (so seeds 0 and 1 average a 0.67 dB trail), with 2066, 2002, 2009, 2006 Gaussians against 1969,
// 2001, 1975, 1947 (within 5 %). The trail is what is left when the schedules match: 400 images
// are 100 steps at batch 4, and this early the loss still falls steadily (the gradient's drift,
// not its noise, dominates), where the sqrt(B) rule moves only half as far per image as batch 1;
// it shrinks as the budget grows (on 48x36, 0.48 to 0.66 dB at 400 images; on 32x24, 0.31 dB at
// 1200, one seed). With the
// former step-counted schedules (measured on 48x36) batch 4 trailed by 0.8 to 1.2 dB and never
// densified: 400 Gaussians, its first refinement would have come at the run's end. Tolerances: 1 dB
// on the mean over two seeds (the measured 0.67 dB plus the margin the e2e test keeps for float
// differences between machines) and 10 % on the Gaussian count (measured within 5 %), which a
// difference in densification (its schedule, or statistics on another scale at batch 4) breaks.
TEST_CASE("batch parity: batch 4 trains as well as batch 1 on the same image budget", "[trainer][batch][e2e]") {
  const Scene scene = test::small_demo_scene(44, 33, 400);
  double psnr[2] = {};        // per batch size, mean over the seeds
  int64_t gaussians[2] = {};  // per batch size, summed over the seeds
  for (int seed : {0, 1})
    for (int k = 0; k < 2; ++k) {
      TrainerOptions o = test::short_run_options(400);
      o.seed = uint64_t(seed);
      o.batch_size = k == 0 ? 1 : 4;
      Trainer t(scene, init_from_points(scene.points), o);
      while (!t.finished()) t.step();
      CHECK(t.steps_done() == 400 / o.batch_size);
      const double p = evaluate(t.rasterizer(), t.gaussians().view(), scene, scene.test_indices(), eval_options_for(t)).psnr;
      psnr[k] += p / 2;
      gaussians[k] += t.gaussians().size();
      std::printf("batch parity: seed %d, batch %d, %d images in %d steps: test PSNR %.2f dB, %lld Gaussians\n", seed,
                  o.batch_size, t.images_done(), t.steps_done(), p, static_cast<long long>(t.gaussians().size()));
    }
  CHECK(std::abs(psnr[1] - psnr[0]) < 1.0);
  CHECK(std::abs(double(gaussians[1]) / double(gaussians[0]) - 1.0) < 0.1);
}
