#pragma once
// A TrainingRun (core/train/training_run.h) on a background thread, for the GUI. The GUI thread never
// touches the trainer directly: it sends commands (queued, applied at the next step boundary),
// reads the run's metrics records from a bounded ring buffer, and reads the latest published
// snapshot of the Gaussians.
//
// Snapshots stay on the training device: at a step boundary, the trainer thread copies the parameters
// into a new immutable ModelSnapshot (device to device, core/model/model_snapshot.h) and publishes it
// with an atomic shared_ptr store. No lock is held while copying, and readers never wait for one: they
// take the current pointer, and the snapshot lives for as long as they hold it, unchanged by later steps.
// How often: as often as a publication's measured cost allows within its share of training time
// (core/train/snapshot_cadence.h), between `snapshot_interval_ms` and `snapshot_max_interval_ms`.
//
// Ranks: with SessionOptions::ranks asking for more than one rank, the session runs R rank threads, each
// with its own TrainingRun on a shard of the model, through the rank driver (core/train/rank_driver.h),
// whose RankController the session is. Only rank 0 reads the user's controls: at each of the driver's
// decision points it decides what all ranks do (train on, apply the next n queued commands, gather a
// snapshot, stop), and every rank applies the same commands at the same boundary. Commands are queued once
// per rank. While paused, rank 0 still answers every second or so with a decision to do nothing, so a
// long pause never runs into the ranks' timeout. The snapshot is the whole model, gathered onto rank 0's
// device (ModelSnapshot::gather). A rank that fails stops every rank: the session becomes Failed with the
// message naming the rank and its device; files already written (the last checkpoint) stay.
#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/transport/communicator.h"
#include "core/transport/rank_plan.h"
#include "core/train/rank_driver.h"
#include "core/train/rank_stats.h"
#include "core/train/snapshot_cadence.h"
#include "kernels/stream.h"
#include "core/model/gaussian_model.h"
#include "core/model/model_snapshot.h"
#include "core/scene/scene.h"
#include "core/train/training_run.h"
#include "kernels/phase_timer.h"

namespace splat {

// Stopped: finish() ended training before the budget; resume() continues it.
enum class SessionState { Idle, Running, Paused, Stopped, Finished, Failed };

// The run's records (psnr/ssim present on evaluation steps).
using SessionMetrics = MetricsRecord;

struct SessionOptions {
  int metrics_capacity = 4096;      // ring buffer size: the oldest entries are dropped
  int metrics_every = 10;           // RunOptions::metrics_every: images between metrics entries
  int eval_every = 0;               // RunOptions::eval_every: images between test evaluations (0: never)
  // RunOptions::eval_at_end: the run's last step evaluates too, as `splatlab train`'s does. Ending
  // early with finish() does not (a stopped CLI run does not either): the next step may continue it.
  bool eval_at_end = true;
  // While training, snapshots come at least this far apart (at most 5 a second by default), and at most
  // snapshot_max_interval_ms apart however dear they get; between the two, as their cost allows
  // (SnapshotCadence). A maximum below the minimum is raised to it.
  int snapshot_interval_ms = static_cast<int>(SnapshotCadence::kMinInterval.count());
  int snapshot_max_interval_ms = static_cast<int>(SnapshotCadence::kMaxInterval.count());
  // The run's files: metrics_file, append_metrics, checkpoint_every and checkpoint_file, as
  // RunFolder::attach (core/run/run_folder.h) sets them; metrics_every and eval_every above win.
  RunOptions files;
  std::filesystem::path resume_from;  // a checkpoint restored before the first step (empty: none)
  // The ranks that train, on TrainerOptions::device (the plan's own device is replaced by it). One rank
  // on the CPU or GPU 0 trains without a communicator (the default); more ranks need a batch size of at
  // least their count.
  transport::RankPlan ranks;
  transport::CommOptions comm;  // how long a rank waits for a peer that neither arrives nor fails
};

class TrainingSession : private RankController {
 public:
  // The session keeps its own copy of the scene (images included).
  TrainingSession(Scene scene, GaussianModel init, TrainerOptions options, SessionOptions session = {});
  ~TrainingSession() override;  // stops and joins
  TrainingSession(const TrainingSession&) = delete;
  TrainingSession& operator=(const TrainingSession&) = delete;

  void start();   // starts the thread (once)
  void pause();
  void resume();  // continues a paused or stopped run
  // Ends training early at the next step boundary, as the budget's end would: the state becomes
  // Stopped (requests are still served) until resume() continues the run where it stopped.
  void finish();
  void stop();    // finishes the current step and ends the thread; waits for it

  // Settings applied at the next step boundary; out-of-range values throw std::invalid_argument here
  // (a batch size below the rank count too: every rank renders at least one image of a step).
  void set_batch_size(int b);
  void set_packed(bool packed);
  void set_amp(bool amp);  // mixed precision (Trainer::set_amp)
  void set_sh_degree_cap(int cap);
  // The run's image budget (Trainer::set_total_images): raising it lets a finished run go on.
  void set_total_images(int images);
  // Per-phase timing of each step (Trainer::set_profiling), applied at the next step boundary.
  // It waits for every step to finish on the device, so callers keep it on only while they show it.
  void set_profiling(bool on);
  // While the user moves the view (the GUI sets it each frame), rank 0, whose device the viewer
  // shares, lets the host queue at most one step ahead of the device instead of several: a frame's
  // kernels then wait behind at most that step (bench/VIEWER.md). It costs a host wait per step, so
  // only while the view moves.
  void set_interactive(bool on) { interactive_ = on; }

  // Requests served at the next step boundary (also while paused); `done` (may be empty) is called on
  // the trainer thread with an empty string on success or the error message.
  using Done = std::function<void(const std::string& error)>;
  void request_save_ply(const std::filesystem::path& file, Done done = {});
  void request_save_checkpoint(const std::filesystem::path& file, Done done = {});

  SessionState state() const { return state_.load(); }
  std::string error() const;
  int steps_done() const { return steps_done_.load(); }
  // Training images done: the run's progress against TrainerOptions::images at any batch size.
  int images_done() const { return images_done_.load(); }
  // The image budget as last set (a restored checkpoint's, or set_total_images).
  int budget() const { return budget_.load(); }
  bool amp() const { return amp_.load(); }

  // Metrics with step > after_step, oldest first (the GUI passes the last step it has).
  std::vector<SessionMetrics> metrics_since(int after_step) const;
  // The run's latest test-view evaluation, per view (TrainingRun::last_evaluation; result null before
  // the first), and the image count of the model it measured. A new one is a new object.
  struct Evaluation {
    std::shared_ptr<const EvalResult> result;
    int images = 0;
  };
  Evaluation latest_evaluation() const;
  // Phase totals over the steps profiled since profiling was last turned on (empty while off).
  kernels::PhaseTotals step_phases() const;

  int ranks() const { return session_.ranks.ranks; }
  // Each rank's figures of its last step (Trainer::rank_stats), one row per rank in rank order (its rank
  // and device, zeros until it has stepped). device_memory_mb is filled in here where the trainer leaves
  // it 0: the memory in use on the rank's GPU, refreshed at the snapshot rate.
  std::vector<sharded::RankStats> rank_stats() const;

  // The latest published snapshot (null before the first one); versions count up from 1. With ranks, the
  // whole model on rank 0's device.
  std::shared_ptr<const ModelSnapshot> snapshot() const { return snapshot_.load(); }
  // The snapshot cadence as it stands: what a publication costs training (ms of rank 0's timeline, 0
  // until measured) and the interval that gives (SnapshotCadence).
  struct SnapshotPace {
    double cost_ms = 0, interval_ms = 0;
  };
  SnapshotPace snapshot_pace() const { return {snapshot_cost_ms_.load(), snapshot_interval_ms_.load()}; }

 private:
  using Command = std::function<void(Trainer&)>;
  void thread_main();
  // The rank driver's hooks (rank_driver.h).
  void on_start(TrainingRun& run, const DrivenRank& at) override;
  RankDecision decide(const TrainingRun& run, Clock::time_point answer_by) override;
  void serve(TrainingRun& run, const DrivenRank& at, const RankDecision& decision) override;
  void on_step(TrainingRun& run, const DrivenRank& at, const RunStep& step) override;
  void enqueue(Command command);
  void apply_commands(Trainer& t, int rank, int64_t count);
  void publish_snapshot(const TrainingRun& run, transport::Communicator* comm);
  void publish_rank_stats(const Trainer& t, int rank);
  void refresh_device_memory(const Trainer& t, int rank);
  void check_batch_size(int b) const;
  void push_metrics(const SessionMetrics& m);

  Scene scene_;
  GaussianModel init_;
  TrainerOptions options_;
  SessionOptions session_;
  std::thread thread_;

  mutable std::mutex mutex_;  // guards queues_, paused_, finishing_, stop_, error_
  std::condition_variable wake_;
  std::vector<std::deque<Command>> queues_;  // one per rank, the same commands in each
  bool paused_ = false, finishing_ = false, stop_ = false;
  std::string error_;
  std::atomic<SessionState> state_{SessionState::Idle};
  std::atomic<int> steps_done_{0};
  std::atomic<int> images_done_{0};
  std::atomic<int> budget_{0};  // the image budget as last set (resume() reads it)
  std::atomic<bool> amp_{false};
  std::atomic<bool> interactive_{false};
  // Rank 0: the ends of its last two steps on its timeline, for set_interactive's limit.
  std::array<kernels::StreamEvent, 2> step_ends_;
  int last_step_end_ = 0;

  mutable std::mutex metrics_mutex_;
  std::deque<SessionMetrics> metrics_;
  Evaluation latest_evaluation_;
  kernels::PhaseTotals step_phases_;  // copied from the trainer after each profiled step
  std::vector<sharded::RankStats> rank_stats_;  // one per rank
  std::vector<double> device_memory_mb_;     // per rank, at the last snapshot (0 on the CPU)

  // Written by the trainer thread only, once a snapshot's copies are issued; no mutex guards it,
  // so no copy can happen under one.
  std::atomic<std::shared_ptr<const ModelSnapshot>> snapshot_;
  uint64_t snapshots_published_ = 0;  // rank 0 only
  int unpublished_steps_ = 0;         // rank 0: steps since the last snapshot
  SnapshotCadence cadence_;           // rank 0 only
  // Rank 0: a mark before and after each publication on its own timeline, read without waiting: what
  // the publication took from training (the copies or the gather, and any gap the host left meanwhile).
  std::unique_ptr<kernels::StepMarks> publish_marks_;
  std::atomic<double> snapshot_cost_ms_{0}, snapshot_interval_ms_{0};
};

}  // namespace splat
