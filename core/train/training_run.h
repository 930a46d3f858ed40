#pragma once
// One training run: a Trainer and what happens at its step boundaries, shared by `splatlab train`
// and the GUI's TrainingSession so that both record metrics, evaluate, checkpoint and end alike.
// step() trains one step and then, when due, reads the loss into a metrics record (with the test
// views' PSNR/SSIM on evaluation steps), appends it to metrics.jsonl when the run has one, and
// writes the periodic checkpoint. Every cadence counts images (core/train/image_schedule.h): a
// record is due in the step that reaches or passes a multiple of its interval, so runs at any batch
// size with the same image budget record at the same image counts (rounded up to whole steps). What belongs to one caller stays with it, around step(): the
// CLI's progress line, signals and final files; the session's control queue, pause and snapshots.
//
// With ranks every rank runs its own TrainingRun with the same options and calls step() in lockstep; the records' loss and Gaussian count are the whole model's on every rank,
// and rank 0 alone writes metrics and checkpoints and evaluates (the gathered model).
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include "core/train/evaluator.h"
#include "core/train/metrics_log.h"
#include "core/train/trainer.h"

namespace splat {

struct RunOptions {
  int metrics_every = 100;   // images between metrics records (reading the loss waits for the device)
  int eval_every = 0;        // images between test-view evaluations (0: none on a cadence)
  bool eval_at_end = false;  // also evaluate at the run's last step
  int stop_at = 0;           // end with the step that reaches this many images (0: at the budget's end)
  std::filesystem::path metrics_file;  // metrics.jsonl to write the records to (empty: none)
  bool append_metrics = false;         // append to it (a resumed run) instead of starting it afresh
  int checkpoint_every = 0;            // images between checkpoints written to checkpoint_file (0: none)
  std::filesystem::path checkpoint_file;
};

// What one TrainingRun::step did.
struct RunStep {
  StepResult result;
  std::optional<MetricsRecord> metrics;  // present when a record was due (metrics, evaluation or last step)
};

class TrainingRun {
 public:
  // Builds the trainer (the scene must outlive the run) and opens the metrics file. Throws
  // std::invalid_argument for a metrics_every below 1 or a checkpoint cadence without a file,
  // std::runtime_error naming an unwritable metrics file.
  // `sharding`: the trainer's place among ranks (Trainer's constructor; null for one rank).
  TrainingRun(const Scene& scene, const GaussianModel& init, const TrainerOptions& options, RunOptions run,
              std::unique_ptr<Sharding> sharding = nullptr);

  // For what happens between steps: restoring a checkpoint, changing settings, saving, reading.
  Trainer& trainer() { return trainer_; }
  const Trainer& trainer() const { return trainer_; }

  // The image count the run ends at: stop_at when it lies inside the budget, else the budget (which
  // a restored checkpoint or Trainer::set_total_images may have moved). A stop_at that is not a
  // multiple of the batch size ends with the step that passes it, so that a resumed run continues
  // with the very steps an uninterrupted one takes.
  int end_images() const;
  bool done() const { return trainer_.images_done() >= end_images(); }

  // Trains one step, then makes the records due at its boundary. The run's clock (wall_s, step_ms)
  // starts with the first call.
  RunStep step();

  // Seconds since the first step began (0 before it), and of those, the seconds spent evaluating.
  double seconds() const;
  double eval_seconds() const { return eval_s_; }
  // Test PSNR of the latest evaluation, if any (rank 0's alone in distributed mode).
  std::optional<double> last_psnr() const {
    return last_eval_ ? std::optional<double>(last_eval_->psnr) : std::nullopt;
  }
  // The latest evaluation with its per-view figures (null before the first; rank 0's alone with
  // ranks). Shared and never changed, so that a reader on another thread may keep it.
  std::shared_ptr<const EvalResult> last_evaluation() const { return last_eval_; }

 private:
  using Clock = std::chrono::steady_clock;
  MetricsRecord record(const StepResult& r, bool evaluate_now);
  std::optional<EvalResult> evaluate_test_views();

  RunOptions opt_;
  Trainer trainer_;
  std::vector<int> test_views_;
  std::optional<MetricsLog> metrics_log_;
  bool started_ = false;
  Clock::time_point t_start_, last_record_;
  int last_record_step_ = 0;  // steps done at the last record
  double eval_s_ = 0;
  std::shared_ptr<const EvalResult> last_eval_;
};

}  // namespace splat
