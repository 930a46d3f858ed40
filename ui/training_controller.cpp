#include "ui/training_controller.h"

#include "core/metrics_log.h"

namespace splat::ui {

void TrainingController::start(ViewerState& viewer) {
  try {
    const Scene* scene = viewer.content.scene.get();
    if (!scene) throw std::runtime_error("training needs a COLMAP scene (a PLY file has no cameras)");
    if (scene->images.size() != scene->views.size() || scene->train_indices().empty())
      throw std::runtime_error(scene->root + ": training needs the scene's training images");
    TrainerOptions opt;
    opt.device = device_;
    opt.steps = settings.steps;
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
    session_->start();
    history = {};
    snapshot_version_ = 0;
    failure_reported_ = false;
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
}

void TrainingController::reset(ViewerState& viewer) {
  session_.reset();  // stops and joins
  if (initial_model_) {
    viewer.content.model = initial_model_;
    ++viewer.model_version;
  }
  history = {};
}

void TrainingController::apply_live_settings() {
  if (!session_) return;
  session_->set_batch_size(settings.batch_size);
  session_->set_packed(settings.packed);
  session_->set_amp(settings.amp);
  session_->set_sh_degree_cap(settings.sh_degree);
}

void TrainingController::poll(ViewerState& viewer) {
  if (!session_) return;
  if (viewer.content_generation != content_generation_) {
    session_.reset();
    initial_model_.reset();
    history = {};
    return;
  }
  for (const SessionMetrics& m : session_->metrics_since(history.last_step)) {
    history.loss_step.push_back(static_cast<float>(m.step));
    history.loss.push_back(m.loss);
    if (m.psnr) {
      history.psnr_step.push_back(static_cast<float>(m.step));
      history.psnr.push_back(static_cast<float>(*m.psnr));
    }
    history.gaussians = m.gaussians;
    history.images_per_s = m.step_ms > 0 ? settings.batch_size * 1000.0 / m.step_ms : 0.0;
    history.last_step = m.step;
    gpu_mem_mb_ = device_memory_used_mb(device_);
  }
  if (session_->snapshot_version() != snapshot_version_) {
    auto model = std::make_shared<GaussianModel>();
    snapshot_version_ = session_->copy_snapshot(snapshot_version_, *model);
    viewer.content.model = std::move(model);
    ++viewer.model_version;
  }
  if (session_->state() == SessionState::Failed && !failure_reported_) {
    viewer.notes.error("training failed: " + session_->error());
    failure_reported_ = true;
  }
}

}  // namespace splat::ui
