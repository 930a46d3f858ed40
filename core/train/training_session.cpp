#include "core/train/training_session.h"

#include <chrono>
#include <stdexcept>

#include "core/train/checkpoint.h"
#include "core/model/ply_io.h"

namespace splat {

TrainingSession::TrainingSession(Scene scene, GaussianModel init, TrainerOptions options, SessionOptions session)
    : scene_(std::move(scene)), init_(std::move(init)), options_(std::move(options)), session_(session) {
  budget_ = options_.images;
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

void TrainingSession::enqueue(std::function<void(Trainer&)> command) {
  {
    std::lock_guard lock(mutex_);
    commands_.push_back(std::move(command));
  }
  wake_.notify_all();
}

void TrainingSession::set_batch_size(int b) {
  // Checked here so that a bad value fails the caller, not the training thread.
  if (b < 1) throw std::invalid_argument("batch size must be at least 1, got " + std::to_string(b));
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
    std::lock_guard lock(metrics_mutex_);
    step_phases_ = {};
  });
}

void TrainingSession::request_save_ply(const std::filesystem::path& file, Done done) {
  enqueue([file, done](Trainer& t) {
    std::string err;
    try {
      write_ply(file, t.gaussians().to_model());
    } catch (const std::exception& e) {
      err = e.what();
    }
    if (done) done(err);
  });
}

void TrainingSession::request_save_checkpoint(const std::filesystem::path& file, Done done) {
  enqueue([file, done](Trainer& t) {
    std::string err;
    try {
      save_trainer_checkpoint(t, file);
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

kernels::PhaseTotals TrainingSession::step_phases() const {
  std::lock_guard lock(metrics_mutex_);
  return step_phases_;
}

void TrainingSession::push_metrics(const SessionMetrics& m) {
  std::lock_guard lock(metrics_mutex_);
  metrics_.push_back(m);
  while (int(metrics_.size()) > session_.metrics_capacity) metrics_.pop_front();
}

void TrainingSession::publish_snapshot(bool force) {
  const auto now = std::chrono::steady_clock::now();
  if (!force && now - last_snapshot_ < std::chrono::milliseconds(session_.snapshot_interval_ms)) return;
  last_snapshot_ = now;
  // Parameters only, copied on the device: the viewer has no use for the two Adam moments, and
  // nothing goes through the host. The snapshot is stored only once all its copies are issued
  // (on CUDA, enqueued on the trainer's stream ahead of anything a reader enqueues there later).
  const Trainer& t = run_->trainer();
  std::shared_ptr<const ModelSnapshot> next =
      ModelSnapshot::capture(t.gaussians(), ++snapshots_published_, t.steps_done());
  snapshot_.store(std::move(next));  // the previous one lives on while a reader holds it
}

void TrainingSession::apply_commands() {
  std::deque<std::function<void(Trainer&)>> cmds;
  {
    std::lock_guard lock(mutex_);
    cmds.swap(commands_);
  }
  for (auto& c : cmds) c(run_->trainer());
}

void TrainingSession::thread_main() {
  try {
    RunOptions ro = session_.files;
    ro.metrics_every = session_.metrics_every;
    ro.eval_every = session_.eval_every;
    run_ = std::make_unique<TrainingRun>(scene_, init_, options_, ro);
    if (!session_.resume_from.empty()) {
      restore_trainer_checkpoint(run_->trainer(), session_.resume_from);
      steps_done_ = run_->trainer().steps_done();
      images_done_ = run_->trainer().images_done();
      budget_ = run_->end_images();
    }
    publish_snapshot(true);
    while (true) {
      {
        std::unique_lock lock(mutex_);
        const bool finished = run_->done();
        if (finished) state_ = SessionState::Finished;
        else if (finishing_) state_ = SessionState::Stopped;
        else if (paused_) state_ = SessionState::Paused;
        // While paused, stopped or finished, wake for stop, resume, or a queued request (served below).
        wake_.wait(lock, [&] { return stop_ || (!paused_ && !finishing_ && !finished) || !commands_.empty(); });
        if (stop_) break;
      }
      apply_commands();
      {
        std::lock_guard lock(mutex_);
        if (paused_ || finishing_ || run_->done()) continue;
        state_ = SessionState::Running;
      }
      const RunStep s = run_->step();
      steps_done_ = run_->trainer().steps_done();
      images_done_ = run_->trainer().images_done();
      if (const kernels::PhaseTotals* phases = run_->trainer().step_phases()) {
        std::lock_guard lock(metrics_mutex_);
        step_phases_ = *phases;
      }
      if (s.metrics) push_metrics(*s.metrics);
      publish_snapshot(run_->done());
    }
    apply_commands();  // serve save requests that arrived with the stop
    publish_snapshot(true);
    state_ = SessionState::Finished;
  } catch (const std::exception& e) {
    std::lock_guard lock(mutex_);
    error_ = e.what();
    state_ = SessionState::Failed;
  }
}

}  // namespace splat
