#include "core/train/training_session.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "core/model/ply_io.h"
#include "core/train/checkpoint.h"
#include "kernels/device.h"

namespace splat {

TrainingSession::TrainingSession(Scene scene, GaussianModel init, TrainerOptions options, SessionOptions session)
    : scene_(std::move(scene)),
      init_(std::move(init)),
      options_(std::move(options)),
      session_(std::move(session)),
      cadence_(std::chrono::milliseconds(session_.snapshot_interval_ms),
               std::chrono::milliseconds(session_.snapshot_max_interval_ms)) {
  transport::RankPlan& plan = session_.ranks;
  plan.device = options_.device;
  if (plan.device == kernels::Device::CUDA && plan.cuda_devices.empty()) plan.cuda_devices = {0};
  plan.check();
  check_batch_size(options_.batch_size);
  budget_ = options_.images;
  queues_.resize(static_cast<size_t>(plan.ranks));
  device_memory_mb_.assign(queues_.size(), 0.0);
  for (int r = 0; r < plan.ranks; ++r) {
    sharded::RankStats row;
    row.rank = r;
    const kernels::ComputeContext where = plan.context(r);
    row.device_ordinal = where.device == kernels::Device::CUDA ? where.ordinal : -1;
    rank_stats_.push_back(row);
  }
}

TrainingSession::~TrainingSession() { stop(); }

void TrainingSession::start() {
  std::lock_guard lock(mutex_);
  if (thread_.joinable() || state_ != SessionState::Idle) return;
  state_ = SessionState::Running;
  thread_ = std::thread([this] { thread_main(); });
}

void TrainingSession::pause() {
  std::lock_guard lock(mutex_);
  paused_ = true;
}

void TrainingSession::resume() {
  {
    std::lock_guard lock(mutex_);
    paused_ = false;
    finishing_ = false;
    // Running from now on when there is budget left, so that no reader sees the old state after
    // resume() returns (the thread changes state only under this lock).
    const SessionState s = state_;
    const bool waiting = s == SessionState::Paused || s == SessionState::Stopped || s == SessionState::Finished;
    if (waiting && images_done_ < budget_) state_ = SessionState::Running;
  }
  wake_.notify_all();
}

void TrainingSession::finish() {
  std::lock_guard lock(mutex_);
  finishing_ = true;
  paused_ = false;
  // The thread changes state only under this lock; a paused one waits and would not notice.
  if (state_ == SessionState::Paused) state_ = SessionState::Stopped;
}

void TrainingSession::stop() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void TrainingSession::enqueue(Command command) {
  {
    std::lock_guard lock(mutex_);
    for (auto& queue : queues_) queue.push_back(command);  // every rank applies it, at the same boundary
  }
  wake_.notify_all();
}

// Checked on the caller's thread so that a bad value fails the caller, not the training thread.
void TrainingSession::check_batch_size(int b) const {
  if (b < 1) throw std::invalid_argument("batch size must be at least 1, got " + std::to_string(b));
  check_batch_covers_ranks(b, ranks());
}

void TrainingSession::set_batch_size(int b) {
  check_batch_size(b);
  enqueue([b](Trainer& t) { t.set_batch_size(b); });
}

void TrainingSession::set_packed(bool packed) {
  enqueue([packed](Trainer& t) { t.set_packed(packed); });
}

void TrainingSession::set_amp(bool amp) {
  amp_ = amp;
  enqueue([amp](Trainer& t) { t.set_amp(amp); });
}

void TrainingSession::set_sh_degree_cap(int cap) {
  if (cap < 0 || cap > 3) throw std::invalid_argument("SH degree must be 0..3, got " + std::to_string(cap));
  enqueue([cap](Trainer& t) { t.set_sh_degree_cap(cap); });
}

void TrainingSession::set_total_images(int images) {
  if (images < 1) throw std::invalid_argument("the image budget must be at least 1, got " + std::to_string(images));
  budget_ = images;
  enqueue([images](Trainer& t) { t.set_total_images(images); });
}

void TrainingSession::set_profiling(bool on) {
  enqueue([this, on](Trainer& t) {
    t.set_profiling(on);
    if (!t.is_root()) return;
    std::lock_guard lock(metrics_mutex_);
    step_phases_ = {};
  });
}

// Saves gather the whole model (a collective: every rank serves the request); rank 0 writes the file and
// reports. Only errors of rank 0's own writing are reported to `done`: a failing peer fails the session.
void TrainingSession::request_save_ply(const std::filesystem::path& file, Done done) {
  enqueue([file, done](Trainer& t) {
    // The parameters alone, gathered device to device (whole_state would move the Adam moments too).
    const std::shared_ptr<const ModelSnapshot> snapshot = t.whole_snapshot(0);
    if (!t.is_root()) return;
    const GaussianModel whole = snapshot->download();
    std::string err;
    try {
      write_ply(file, whole);
    } catch (const std::exception& e) {
      err = e.what();
    }
    if (done) done(err);
  });
}

void TrainingSession::request_save_checkpoint(const std::filesystem::path& file, Done done) {
  enqueue([file, done](Trainer& t) {
    if (!t.is_root()) {
      save_trainer_checkpoint(t, file);  // the gather; rank 0 writes
      return;
    }
    std::string err;
    try {
      save_trainer_checkpoint(t, file);
    } catch (const transport::CommError&) {
      throw;
    } catch (const std::exception& e) {
      err = e.what();
    }
    if (done) done(err);
  });
}

std::string TrainingSession::error() const {
  std::lock_guard lock(mutex_);
  return error_;
}

std::vector<SessionMetrics> TrainingSession::metrics_since(int after_step) const {
  std::lock_guard lock(metrics_mutex_);
  std::vector<SessionMetrics> out;
  for (const SessionMetrics& m : metrics_)
    if (m.step > after_step) out.push_back(m);
  return out;
}

TrainingSession::Evaluation TrainingSession::latest_evaluation() const {
  std::lock_guard lock(metrics_mutex_);
  return latest_evaluation_;
}

kernels::PhaseTotals TrainingSession::step_phases() const {
  std::lock_guard lock(metrics_mutex_);
  return step_phases_;
}

std::vector<sharded::RankStats> TrainingSession::rank_stats() const {
  std::lock_guard lock(metrics_mutex_);
  std::vector<sharded::RankStats> rows = rank_stats_;
  for (size_t r = 0; r < rows.size(); ++r)
    if (rows[r].device_memory_mb == 0) rows[r].device_memory_mb = device_memory_mb_[r];
  return rows;
}

void TrainingSession::push_metrics(const SessionMetrics& m) {
  std::lock_guard lock(metrics_mutex_);
  metrics_.push_back(m);
  while (int(metrics_.size()) > session_.metrics_capacity) metrics_.pop_front();
}

void TrainingSession::publish_rank_stats(const Trainer& t, int rank) {
  std::lock_guard lock(metrics_mutex_);
  rank_stats_[static_cast<size_t>(rank)] = t.rank_stats();
}

void TrainingSession::refresh_device_memory(const Trainer& t, int rank) {
  const kernels::ComputeContext& where = t.gaussians().context();
  if (where.device != kernels::Device::CUDA) return;
  const auto m = kernels::device_memory(where.ordinal);
  std::lock_guard lock(metrics_mutex_);
  device_memory_mb_[static_cast<size_t>(rank)] = m ? double(m->used_bytes) / (1024.0 * 1024.0) : 0.0;
}

// Parameters only, copied on the device: the viewer has no use for the two Adam moments, and nothing goes
// through the host. With ranks every rank sends its shard and rank 0 assembles the whole model on its
// device. The snapshot is stored only once all its copies are issued (on CUDA, enqueued on rank 0's own
// stream, with the event after them that a reader's stream waits for: ModelSnapshot::ready_on). No host
// wait here: the training stream runs on while the viewer's stream waits for the copies alone. The
// snapshot this one replaces still frees its memory with cudaFree, which waits for the whole device
// (core/model/model_snapshot.h): one reason the cadence spaces publications by their measured cost.
// Rank 0 marks its timeline around the whole publication; the cadence reads what an earlier one took
// once the device has passed it, never by waiting.
void TrainingSession::publish_snapshot(const TrainingRun& run, transport::Communicator* comm) {
  const Trainer& t = run.trainer();
  const bool root = t.is_root();
  if (root) {
    if (!publish_marks_) publish_marks_ = std::make_unique<kernels::StepMarks>(t.gaussians().context(), 2);
    publish_marks_->mark(0);
  }
  const uint64_t version = root ? snapshots_published_ + 1 : 0;
  std::shared_ptr<const ModelSnapshot> next = t.whole_snapshot(version);
  refresh_device_memory(t, comm ? comm->rank() : 0);  // at the snapshot rate: the query is not free
  if (!root) return;
  ++snapshots_published_;
  unpublished_steps_ = 0;
  snapshot_.store(std::move(next));  // the previous one lives on while a reader holds it
  publish_marks_->mark(1);
  if (const auto took = publish_marks_->latest()) cadence_.measured(took->front());
  cadence_.published(Clock::now());
  snapshot_cost_ms_ = cadence_.cost_ms().value_or(0.0);
  snapshot_interval_ms_ = std::chrono::duration<double, std::milli>(cadence_.interval()).count();
}

// Rank 0: waits until there is something to do (or until the other ranks are due to hear from it), then
// says what.
RankDecision TrainingSession::decide(const TrainingRun& run, Clock::time_point answer_by) {
  RankDecision d;
  std::unique_lock lock(mutex_);
  while (true) {
    const bool ended = !can_step(run, ranks());
    const bool runnable = !paused_ && !finishing_ && !ended;
    const bool due = cadence_.due(Clock::now());
    d.stop = stop_;
    d.commands = static_cast<int64_t>(queues_[0].size());
    // A snapshot at the cadence, and always of the last step before waiting or stopping.
    d.publish = unpublished_steps_ > 0 && (due || !runnable || d.stop);
    d.step = runnable && !d.stop;
    if (d.stop || d.step || d.commands > 0 || d.publish) break;
    state_ = ended ? SessionState::Finished : finishing_ ? SessionState::Stopped : SessionState::Paused;
    // While paused, stopped or finished, wake for stop, resume or a queued request.
    if (wake_.wait_until(lock, answer_by) == std::cv_status::timeout) return d;  // nothing, for now
  }
  if (d.step) state_ = SessionState::Running;
  return d;
}

void TrainingSession::serve(TrainingRun& run, const DrivenRank& at, const RankDecision& decision) {
  std::vector<Command> mine;  // applied outside the lock: a command may wait in a collective
  {
    std::lock_guard lock(mutex_);
    std::deque<Command>& queue = queues_[static_cast<size_t>(at.rank)];
    for (int64_t i = 0; i < decision.commands; ++i) {
      mine.push_back(std::move(queue.front()));
      queue.pop_front();
    }
  }
  for (Command& c : mine) c(run.trainer());  // requests that came with a stop are served too
  if (decision.publish) publish_snapshot(run, at.comm);
}

void TrainingSession::on_start(TrainingRun& run, const DrivenRank& at) {
  if (!session_.resume_from.empty()) restore_trainer_checkpoint(run.trainer(), session_.resume_from);
  if (at.root()) {
    steps_done_ = run.trainer().steps_done();
    images_done_ = run.trainer().images_done();
    budget_ = run.end_images();
  }
  publish_snapshot(run, at.comm);
}

void TrainingSession::on_step(TrainingRun& run, const DrivenRank& at, const RunStep& step) {
  publish_rank_stats(run.trainer(), at.rank);
  if (!at.root()) return;
  if (interactive_) {
    // This step is queued; the host goes on once the one before it has run (set_interactive).
    last_step_end_ ^= 1;
    step_ends_[last_step_end_].record(run.trainer().context());
    step_ends_[last_step_end_ ^ 1].synchronize("the view moves: one step queued at most");
  }
  ++unpublished_steps_;
  steps_done_ = run.trainer().steps_done();
  images_done_ = run.trainer().images_done();
  if (const kernels::PhaseTotals* phases = run.trainer().step_phases()) {
    std::lock_guard lock(metrics_mutex_);
    step_phases_ = *phases;
  }
  if (!step.metrics) return;
  push_metrics(*step.metrics);
  if (step.metrics->psnr) {
    std::lock_guard lock(metrics_mutex_);
    latest_evaluation_ = {run.last_evaluation(), step.metrics->images};
  }
}

void TrainingSession::thread_main() {
  try {
    RunOptions ro = session_.files;
    ro.metrics_every = session_.metrics_every;
    ro.eval_every = session_.eval_every;
    ro.eval_at_end = session_.eval_at_end;
    drive_ranks({.scene = scene_, .init = init_, .trainer = options_, .run = ro}, session_.ranks, *this,
                {.comm = session_.comm});
    state_ = SessionState::Finished;
  } catch (const std::exception& e) {
    std::lock_guard lock(mutex_);
    error_ = e.what();
    state_ = SessionState::Failed;
  }
}

}  // namespace splat
