#include "ui/training_controller.h"


namespace splat::ui {

void TrainingController::start(ViewerState& viewer) {
  try {
    const Scene* scene = viewer.content.scene.get();
    if (!scene) throw std::runtime_error("training needs a COLMAP scene (a PLY file has no cameras)");
    if (scene->images.size() != scene->views.size() || scene->train_indices().empty())
      throw std::runtime_error(scene->root + ": training needs the scene's training images");
    TrainerOptions opt;
    opt.device = device_;
    opt.images = settings.steps;  // the run's budget counts images (core/train/image_schedule.h)
    opt.strategy = kStrategies[settings.strategy];
    opt.batch_size = settings.batch_size;
    opt.packed = settings.packed;
    opt.sh_degree_cap = settings.sh_degree;
    std::copy(viewer.view.background, viewer.view.background + 3, opt.background.begin());
    SessionOptions so;
    so.eval_every = settings.eval_every;
    stop();
    initial_model_ = viewer.content.model;
    content_generation_ = viewer.content_generation;
    session_ = std::make_unique<TrainingSession>(*scene, *viewer.content.model, opt, so);
    session_->set_amp(settings.amp);
    if (step_share_shown_) session_->set_profiling(true);
    session_->start();
    history = {};
    last_phases_ = {};
    step_share_.reset();
    snapshot_version_ = 0;
    failure_reported_ = false;
    stopped_ = false;
  } catch (const std::exception& e) {
    session_.reset();
    viewer.notes.error(std::string("cannot start training: ") + e.what());
  }
}

void TrainingController::pause() {
  if (session_) session_->pause();
}
void TrainingController::resume() {
  if (session_) session_->resume();
}
void TrainingController::stop() {
  if (session_) session_->stop();
  stopped_ = true;
}

void TrainingController::reset(ViewerState& viewer) {
  session_.reset();  // stops and joins
  if (initial_model_) viewer.show_model(initial_model_);
  history = {};
}

void TrainingController::apply_live_settings() {
  if (!session_) return;
  session_->set_batch_size(settings.batch_size);
  session_->set_packed(settings.packed);
  session_->set_amp(settings.amp);
  session_->set_sh_degree_cap(settings.sh_degree);
}

std::string TrainingController::checkpoint_unavailable() const {
  if (!session_) return "no training session: start training first";
  if (session_->state() == SessionState::Failed) return "training failed: " + session_->error();
  if (stopped_) return "training was stopped: its trainer is gone (the PLY snapshot still works)";
  return {};
}

void TrainingController::save_checkpoint(ViewerState& viewer, const std::string& file) {
  if (const std::string why = checkpoint_unavailable(); !why.empty()) {
    viewer.notes.error("checkpoint: " + why);
    return;
  }
  // The callback runs on the trainer thread at the step boundary it was served at, so the
  // session's step count then is the checkpoint's step.
  session_->request_save_checkpoint(
      file, [outbox = outbox_, file, session = session_.get()](const std::string& error) {
        const bool ok = error.empty();
        std::string text = ok ? "saved " + file + " (checkpoint at step " + std::to_string(session->steps_done()) + ")"
                              : "checkpoint: " + error;
        std::lock_guard lock(outbox->mutex);
        outbox->results.emplace_back(ok, std::move(text));
      });
}

void TrainingController::set_step_share_shown(bool shown) {
  if (shown == step_share_shown_) return;
  step_share_shown_ = shown;
  if (session_) session_->set_profiling(shown);
  last_phases_ = {};
  step_share_.reset();
}

void TrainingController::poll_device_memory() {
  if (device_ != kernels::Device::CUDA || !memory_poll_.due(Throttle::Clock::now())) return;
  const int n = kernels::cuda_device_count();
  device_memory_.resize(static_cast<size_t>(n));
  for (int d = 0; d < n; ++d) device_memory_[d] = kernels::device_memory(d);
}

void TrainingController::poll_step_share() {
  if (!step_share_shown_ || !share_poll_.due(Throttle::Clock::now())) return;
  kernels::PhaseTotals now = session_->step_phases();
  // Keep the last share while no step completed (paused, finished): it stays readable.
  if (auto share = ui::step_share(last_phases_, now)) step_share_ = share;
  last_phases_ = std::move(now);
}

void TrainingController::poll(ViewerState& viewer) {
  {
    std::lock_guard lock(outbox_->mutex);
    for (auto& [ok, text] : outbox_->results) {
      if (ok) viewer.notes.info(std::move(text));
      else viewer.notes.error(std::move(text));
    }
    outbox_->results.clear();
  }
  poll_device_memory();
  if (!session_) return;
  if (viewer.content_generation != content_generation_) {
    session_.reset();
    initial_model_.reset();
    history = {};
    return;
  }
  for (const SessionMetrics& m : session_->metrics_since(history.last_step)) {
    history.loss_step.push_back(static_cast<float>(m.step));
    history.loss_wall.push_back(static_cast<float>(m.wall_s));
    history.loss.push_back(m.loss);
    if (m.psnr) {
      history.psnr_step.push_back(static_cast<float>(m.step));
      history.psnr_wall.push_back(static_cast<float>(m.wall_s));
      history.psnr.push_back(static_cast<float>(*m.psnr));
    }
    history.gaussians = m.gaussians;
    history.images_per_s = m.step_ms > 0 ? settings.batch_size * 1000.0 / m.step_ms : 0.0;
    history.last_step = m.step;
  }
  poll_step_share();
  // The viewer takes the snapshot itself (it stays on the training device), not a host copy.
  if (std::shared_ptr<const ModelSnapshot> snap = session_->snapshot(); snap && snap->version() != snapshot_version_) {
    snapshot_version_ = snap->version();
    viewer.show_snapshot(std::move(snap));
  }
  if (session_->state() == SessionState::Failed && !failure_reported_) {
    viewer.notes.error("training failed: " + session_->error());
    failure_reported_ = true;
  }
}

}  // namespace splat::ui
