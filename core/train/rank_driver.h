#pragma once
// The one loop every rank of a training run goes through, for `splatlab train` (rank threads, or this
// process's rank of an mpirun job) and the GUI's TrainingSession: each rank builds its TrainingRun and
// trains it in step with its peers, and rank 0 alone takes the decisions that no other rank can (stop,
// apply queued commands, publish a snapshot or the PLY). It sends them over the ranks' control channel
// (core/transport/control_channel.h), host memory only, so every rank acts on them at the same step
// boundary and meets its peers in the same collectives, and no decision waits for a GPU stream.
//
// Cadence: not every step is a decision point. Each decision says how many steps the ranks take before
// the next one, as many as fit DriverOptions::decision_interval at rank 0's latest step time (so a stop
// or a request waits some tens of ms at most); the ranks also meet for a decision after a step that
// recorded metrics (due at the same step on every rank, and reading its loss drained the device already)
// and when the run can take no further step. Between decisions a rank exchanges nothing beyond what the
// training's own collectives do.
//
// What differs between callers goes in through a RankController: the CLI's signals, progress line and
// final files; the session's command queue, pause and snapshots.
//
// Failure: a rank that throws stops every rank: its peers' pending and later collectives and decisions
// throw CommError naming it (run_ranks), and the first failure is thrown naming its rank and device.
#include <chrono>
#include <cstdint>
#include <memory>

#include "core/model/gaussian_model.h"
#include "core/scene/scene.h"
#include "core/train/training_run.h"
#include "core/transport/communicator.h"
#include "core/transport/control_channel.h"
#include "core/transport/rank_plan.h"

namespace splat {

// What every rank's TrainingRun is built from (the scene and the initial model outlive the drive).
struct RankRunSpec {
  const Scene& scene;
  const GaussianModel& init;
  TrainerOptions trainer;
  RunOptions run;
  // Ranks sharing this machine's CPU cores when cpu_threads is 0 (0: every rank of the run; an MPI job
  // passes its processes on this node).
  int ranks_on_host = 0;
};

// What rank 0 decided at a decision point, the same on every rank once shared.
struct RankDecision {
  bool stop = false;     // leave the loop once the rest is served
  int64_t commands = 0;  // apply this many of the controller's queued commands, oldest first
  bool publish = false;  // the controller's collective output: the GUI's snapshot, the CLI's PLY export
  bool step = false;     // train up to the next decision point
};

// The rank a controller's hook runs on (comm null: the only rank).
struct DrivenRank {
  int rank = 0;
  int ranks = 1;
  transport::Communicator* comm = nullptr;
  bool root() const { return rank == 0; }
};

// What the caller adds to the loop. One controller serves every rank thread of a process: hooks run on
// the rank's own thread, concurrently with other ranks' hooks, and touch only that rank's state (rank 0's
// includes what rank 0 alone does: printing, deciding, publishing).
class RankController {
 public:
  using Clock = std::chrono::steady_clock;
  virtual ~RankController() = default;

  // Every rank, once its run is built and before the first decision (restoring a checkpoint, settings).
  virtual void on_start(TrainingRun& run, const DrivenRank& at) = 0;
  // Rank 0 at each decision point. It may wait for the user (a paused GUI) but returns by `answer_by`,
  // with a decision to do nothing if need be: the other ranks wait for it, and one that hears nothing
  // within the communicators' timeout declares rank 0 stuck.
  virtual RankDecision decide(const TrainingRun& run, Clock::time_point answer_by) = 0;
  // Every rank, right after a decision is shared, stop included: applies its `commands` and, with
  // `publish`, its collective output (every rank takes part in the gather; rank 0 keeps the result).
  virtual void serve(TrainingRun& run, const DrivenRank& at, const RankDecision& decision) = 0;
  // Every rank after each step.
  virtual void on_step(TrainingRun& run, const DrivenRank& at, const RunStep& step) = 0;
  // Every rank once a stop decision has been served (the CLI's final checkpoint and PLY are collectives).
  virtual void on_end(TrainingRun&, const DrivenRank&) {}
};

struct DriverOptions {
  // The time between decision points the cadence aims at while steps run.
  std::chrono::milliseconds decision_interval{25};
  // A cap for steps the host enqueues faster than the device runs them (their time says little then).
  int max_steps_between_decisions = 16;
  // How long a rank waits for its peers: drive_ranks' timeout, and what rank 0's patience while the
  // controller waits is measured against (an MPI job's communicator and channel take theirs when made).
  transport::CommOptions comm;
};

// Whether the run can take another step: not past its end, and (with ranks) not when the budget's last
// step would leave some rank without an image (the run ends before it; a larger budget continues it).
bool can_step(const TrainingRun& run, int ranks);


// Runs plan.ranks ranks of this process on the plan's devices: rank threads (run_ranks), or, for one rank
// on the CPU or GPU 0, the calling thread without a communicator. Every CUDA rank computes on a stream of
// its own at its device's highest priority (transport::RankStreams), which a viewer on the same GPU
// (lowest priority) does not hold back. Returns once every rank has returned;
// throws the first failure (transport::CommError naming the rank and its device where ranks ran).
void drive_ranks(const RankRunSpec& spec, const transport::RankPlan& plan, RankController& controller,
                 const DriverOptions& options = {});

// One rank's loop on the calling thread: this process's rank of an MPI job (its communicator and control
// channel, computing where the communicator does), or the only rank (comm null, a solo channel; a CUDA
// rank then computes on a stream of its own at the device's highest priority, made and destroyed here).
void drive_rank(const RankRunSpec& spec, transport::Communicator* comm, transport::ControlChannel& channel,
                RankController& controller, const DriverOptions& options = {});

}  // namespace splat
