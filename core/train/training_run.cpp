#include "core/train/training_run.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/model/model_snapshot.h"
#include "core/train/checkpoint.h"
#include "core/train/evaluator.h"
#include "core/train/image_schedule.h"

namespace splat {

namespace {
double seconds_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}
}  // namespace

TrainingRun::TrainingRun(const Scene& scene, const GaussianModel& init, const TrainerOptions& options, RunOptions run,
                         std::unique_ptr<Sharding> sharding)
    : opt_(std::move(run)), trainer_(scene, init, options, std::move(sharding)), test_views_(scene.test_indices()) {
  if (opt_.metrics_every < 1)
    throw std::invalid_argument("metrics every " + std::to_string(opt_.metrics_every) + " images: must be at least 1");
  if (opt_.checkpoint_every > 0 && opt_.checkpoint_file.empty())
    throw std::invalid_argument("a checkpoint every " + std::to_string(opt_.checkpoint_every) +
                                " images needs a checkpoint file");
  // Rank 0 alone writes the records.
  if (!opt_.metrics_file.empty() && trainer_.is_root()) metrics_log_.emplace(opt_.metrics_file, opt_.append_metrics);
}

int TrainingRun::end_images() const {
  const int budget = trainer_.options().images;
  return opt_.stop_at > 0 ? std::min(opt_.stop_at, budget) : budget;
}

double TrainingRun::seconds() const { return started_ ? seconds_between(t_start_, Clock::now()) : 0.0; }

RunStep TrainingRun::step() {
  if (!started_) {
    started_ = true;
    t_start_ = last_record_ = Clock::now();
    last_record_step_ = trainer_.steps_done();
  }
  RunStep s;
  s.result = trainer_.step();
  const int before = s.result.first_image, done = trainer_.images_done();
  const bool at_end = done >= end_images();
  const bool evaluate_now = passes_multiple(before, done, opt_.eval_every) || (opt_.eval_at_end && at_end);
  if (passes_multiple(before, done, opt_.metrics_every) || evaluate_now || at_end)
    s.metrics = record(s.result, evaluate_now);
  if (passes_multiple(before, done, opt_.checkpoint_every)) save_trainer_checkpoint(trainer_, opt_.checkpoint_file);
  return s;
}

MetricsRecord TrainingRun::record(const StepResult& r, bool evaluate_now) {
  MetricsRecord m;
  m.step = trainer_.steps_done();
  m.images = trainer_.images_done();
  m.loss = trainer_.read_loss();  // waits for the step: step_ms below then covers its device time
  m.gaussians = r.gaussians;
  m.step_ms = 1000.0 * seconds_between(last_record_, Clock::now()) / std::max(1, m.step - last_record_step_);
  m.gpu_mem_mb = device_memory_used_mb(trainer_.options().device);
  if (trainer_.ranks() > 1) m.ranks = trainer_.gather_rank_stats();  // every rank records at this step
  m.memory = trainer_.memory();  // this rank's (rank 0's with ranks, which writes the records)
  if (evaluate_now && !test_views_.empty()) {
    const auto t_eval = Clock::now();
    const std::optional<EvalResult> e = evaluate_test_views();
    eval_s_ += seconds_between(t_eval, Clock::now());
    if (e) {
      m.psnr = e->psnr;
      m.ssim = e->ssim;
      last_eval_ = std::make_shared<const EvalResult>(*e);
    }
  }
  m.wall_s = seconds();
  if (metrics_log_) metrics_log_->write(m);
  last_record_ = Clock::now();
  last_record_step_ = m.step;
  return m;
}

// Evaluation renders the whole model: with ranks every rank gathers its shard's parameters to rank 0
// (device to device, as the viewer's snapshots; no Adam moments, no host round trip), which evaluates
// alone (the others have no result). One rank renders its rows in place.
std::optional<EvalResult> TrainingRun::evaluate_test_views() {
  if (trainer_.ranks() == 1)
    return evaluate(trainer_.rasterizer(), trainer_.gaussians().view(), trainer_.scene(), test_views_,
                    eval_options_for(trainer_));
  const std::shared_ptr<const ModelSnapshot> whole = trainer_.whole_snapshot(0);
  if (!whole) return std::nullopt;
  return evaluate(trainer_.rasterizer(), whole->view(), trainer_.scene(), test_views_, eval_options_for(trainer_));
}

}  // namespace splat
