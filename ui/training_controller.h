#pragma once
// The GUI side of training: the settings the Training panel edits, the TrainingSession running
// in the background, its run folder (core/run/run_folder.h: config.json, metrics.jsonl, periodic
// checkpoints, the checkpoint and PLY at the end, as `splatlab train` writes them), and the metric
// history the Metrics panel plots. Once per frame, poll() pulls new metrics and, when the session
// published a newer snapshot, hands it (on the training device, shared, not copied) to the viewer.
// No ImGui or GL here.
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/run/run_config.h"
#include "core/run/run_folder.h"
#include "core/train/training_session.h"
#include "kernels/device.h"
#include "ui/metric_history.h"
#include "ui/step_share.h"
#include "ui/throttle.h"
#include "ui/viewer_state.h"

namespace splat::ui {

struct TrainingSettings {
  int steps = 30000;  // the run's budget in training images (TrainerOptions::images)
  int strategy = 0;   // index into kStrategies
  int batch_size = 1;
  bool packed = false;
  bool amp = false;
  int sh_degree = 3;
  int eval_every = 500;         // images between test-view PSNR evaluations
  int checkpoint_every = 2000;  // images between the run folder's periodic checkpoints (0: none)
  int max_gaussians = 0;        // the default strategy's budget of Gaussians (0: no limit)
  int cap_max = int(McmcStrategyOptions{}.cap);  // MCMC's (a compact model: a lower cap)
  bool exposure = false;        // per-photo colour maps (TrainerOptions::exposure)
  std::string run_dir;          // the run folder; empty: default_run_dir (ui/gui_run.h)
  // Which devices train: the CUDA devices selected (all of them at first), and the ranks over
  // them, 0 for one rank per selected GPU. On the CPU backend `ranks` CPU ranks (0: one), for trying the
  // multi-GPU algorithm without GPUs.
  std::vector<int> gpus;
  int ranks = 0;
};
inline constexpr const auto& kStrategies = kStrategyNames;

class TrainingController {
 public:
  // Selects every CUDA device on the CUDA backend.
  explicit TrainingController(kernels::Device device);

  // Starts training the open scene from the model it shows (needs a posed scene with images), in a
  // new run folder; a paused, stopped or finished session continues instead (with the budget raised
  // to settings.steps). Errors (no scene, no images, bad settings, a taken folder) become notifications.
  void start(ViewerState& viewer);
  // Whether the user is moving the view this frame (TrainingSession::set_interactive).
  void set_interactive(bool on) {
    if (session_) session_->set_interactive(on);
  }
  void pause();
  // Continues a paused or stopped session, with its budget (and config.json) set to settings.steps.
  void resume();
  // Ends training early, like reaching the budget: the run folder gets its checkpoint and PLY, and
  // start() continues from there.
  void stop();
  // Ends the session and shows the initial model again; the run folder keeps what it has saved.
  void reset(ViewerState& viewer);
  // Continues the run in `dir` (opened with RunFolder::open): the viewer opens its scene, loaded as
  // config.json records, the panel takes its settings, its plots come from metrics.jsonl, and
  // training resumes from its checkpoint once the scene is there (see poll()). It drops the current
  // session: callers ask first (ui/dialogs.h). Errors become notifications.
  void open_run(ViewerState& viewer, const std::filesystem::path& dir);
  // The config a session started or continued now trains with: the last opened run's settings
  // (RunConfig's defaults before one was opened) under the panel's settings and the viewer's
  // background. The settings the panel does not show (seed, absgrad, antialiased, the
  // metrics cadence) so keep what the run recorded, whichever front end started it.
  RunConfig run_config(const ViewerState& viewer) const;
  // Applies the live settings (batch size, packed, AMP, SH degree) to a running session; a value the
  // session refuses (a batch size below the rank count) becomes a notification.
  void apply_live_settings();
  // The ranks settings.gpus and settings.ranks ask for: what a session started now trains with (and
  // what the current one does: the panel fixes them while a session exists).
  transport::RankPlan rank_plan() const;
  // Writes a checkpoint of the session at its next step boundary (also while paused or stopped);
  // the outcome becomes a notification in a later poll(). Needs a live session.
  void save_checkpoint(ViewerState& viewer, const std::string& file);
  // Why no checkpoint can be saved now (no session, failed); empty when one can.
  std::string checkpoint_unavailable() const;
  // Whether the step-time share is shown. Profiling waits for every step on the device, so it is
  // on only while shown; the choice carries over to sessions started later.
  void set_step_share_shown(bool shown);

  // Metrics, snapshot, the run's final files and failure reporting; call once per frame. When other
  // content was opened meanwhile, the session belongs to a scene no longer shown and is dropped.
  void poll(ViewerState& viewer);

  bool active() const { return session_ != nullptr; }
  // open_run() has not finished yet: its scene is loading or its checkpoint being restored.
  bool opening_run() const { return pending_resume_.has_value() || (session_ && restoring_ && state() != SessionState::Failed); }
  // Training that closing or discarding would lose: running or paused (stopped and finished runs
  // have saved their files).
  bool in_progress() const;
  // Saves requested and not yet written.
  int saves_pending() const;
  // The run ended (stopped or finished) and its checkpoint and PLY for that point are written:
  // what Save and quit waits for.
  bool results_written() const;
  SessionState state() const { return session_ ? session_->state() : SessionState::Idle; }
  int steps_done() const { return session_ ? session_->steps_done() : 0; }
  int images_done() const { return session_ ? session_->images_done() : 0; }
  // How often the session publishes snapshots and what each costs it (zeros without a session).
  TrainingSession::SnapshotPace snapshot_pace() const { return session_ ? session_->snapshot_pace() : TrainingSession::SnapshotPace{}; }
  // Seconds spent training (running, not paused or stopped) in this session, and the estimated
  // seconds left to the budget at the recent pace (nullopt before there is one; ui/eta_estimator.h).
  double elapsed_s() const;
  std::optional<double> eta_s() const;
  // The run folder of the session (empty before one started).
  std::filesystem::path run_dir() const { return run_ ? run_->dir() : std::filesystem::path(); }
  kernels::Device device() const { return device_; }
  // One entry per CUDA device (nullopt where the query failed), refreshed at most twice a second;
  // empty on the CPU backend.
  const std::vector<std::optional<kernels::DeviceMemory>>& device_memory() const { return device_memory_; }
  // The step-time share over the last half second or so of profiled steps, while shown.
  const std::optional<StepShare>& step_share() const { return step_share_; }
  // The session's latest test-view evaluation (no result without a session or before the first),
  // and whether it measured the model the viewer shows: the run has ended (stopped or finished) at
  // the image count it was made at, and the viewer shows that last step's snapshot (poll()).
  struct Evaluation {
    std::shared_ptr<const EvalResult> result;
    bool of_shown_model = false;
  };
  Evaluation latest_evaluation() const;
  // Each rank's figures of its last step (TrainingSession::rank_stats), as of the last poll(); empty
  // without a session.
  const std::vector<sharded::RankStats>& rank_stats() const { return rank_stats_; }

  TrainingSettings settings;
  MetricHistory history;
  bool plot_wall_time = false;  // Metrics panel: loss and PSNR against wall time instead of images

 private:
  void start_new(ViewerState& viewer);
  void start_resumed(ViewerState& viewer);
  // A checkpoint or (ply) a PLY written by the session; the outcome is a notification.
  void request_save(bool ply, const std::filesystem::path& file);
  // The run's checkpoint and PLY, once per stop or finish.
  void save_results();
  // Writes the viewer's up axis into the run's config.json when it changed: the run is shown and
  // rendered (`render --path orbit`) upright as last chosen.
  void record_up(const ViewerState& viewer);
  void track_time();
  void poll_device_memory();
  void poll_step_share();

  // Outcomes of saves, written on the trainer thread and turned into notifications by poll().
  // Shared with the callbacks, and declared before session_ so that it outlives the session.
  struct SaveOutbox {
    std::mutex mutex;
    int pending = 0;
    std::vector<std::pair<bool, std::string>> results;  // (ok, message)
  };
  std::shared_ptr<SaveOutbox> outbox_ = std::make_shared<SaveOutbox>();

  kernels::Device device_;
  RunConfig recorded_;  // the last opened run's config, or the defaults of a GUI run; see run_config()
  UpAxis recorded_up_ = UpAxis::Auto;  // the up axis run_'s config.json records
  // Declared before session_: a folder that never got results is removed when it goes, after the
  // session (which writes its metrics) is gone.
  std::optional<RunFolder> run_;
  std::unique_ptr<TrainingSession> session_;
  std::shared_ptr<const GaussianModel> initial_model_;  // what reset() returns to
  uint64_t content_generation_ = 0;                     // the viewer content the session trains
  uint64_t snapshot_version_ = 0;  // of the session's snapshot last handed to the viewer
  bool failure_reported_ = false;
  int saved_images_ = -1;          // images done when the run's final files were last requested
  std::optional<std::filesystem::path> pending_resume_;  // open_run(): the run, until its scene is loaded
  uint64_t pending_generation_ = 0;                      // the load open_run() started
  // Training time: accumulated while the session runs (frames see the state).
  double elapsed_s_ = 0;
  int images_at_start_ = 0;  // images done when this session began (a resumed run starts above 0)
  bool restoring_ = false;   // a resumed session that has not restored its checkpoint yet
  std::optional<std::chrono::steady_clock::time_point> running_since_;
  std::vector<std::optional<kernels::DeviceMemory>> device_memory_;
  Throttle memory_poll_{std::chrono::milliseconds(500)};
  bool step_share_shown_ = false;
  kernels::PhaseTotals last_phases_;
  std::optional<StepShare> step_share_;
  Throttle share_poll_{std::chrono::milliseconds(500)};
  std::vector<sharded::RankStats> rank_stats_;
  bool short_end_reported_ = false;  // the note that a run with ranks ended before its budget
};

}  // namespace splat::ui
