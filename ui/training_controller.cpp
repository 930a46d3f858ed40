#include "ui/training_controller.h"

#include <algorithm>

#include "core/run/run_config.h"
#include "ui/gui_run.h"

namespace splat::ui {
namespace fs = std::filesystem;

namespace {
// The one mapping between the panel's settings and a run's config: f(panel member, config member)
// for each, used in both directions (the strategy, a combo index in the panel, aside).
template <class Settings, class Config, class F>
void for_each_panel_setting(Settings& s, Config& c, F&& f) {
  f(s.steps, c.images);  // the run's budget counts images (core/train/image_schedule.h)
  f(s.batch_size, c.batch_size);
  f(s.packed, c.packed);
  f(s.amp, c.amp);
  f(s.sh_degree, c.sh_degree);
  f(s.eval_every, c.eval_every);
  f(s.checkpoint_every, c.checkpoint_every);
  f(s.max_gaussians, c.max_gaussians);
  f(s.cap_max, c.cap_max);
  f(s.exposure, c.exposure);
}

const Scene& trainable_scene(const ViewerState& viewer) {
  const Scene* scene = viewer.content.scene.get();
  if (!scene) throw std::runtime_error("training needs a COLMAP scene (a PLY file has no cameras)");
  if (scene->images.size() != scene->views.size() || scene->train_indices().empty())
    throw std::runtime_error(scene->root + ": training needs the scene's training images");
  return *scene;
}
}  // namespace

TrainingController::TrainingController(kernels::Device device) : device_(device) {
  recorded_.started_by = "gui";
  recorded_.log_every = SessionOptions{}.metrics_every;  // the plots want finer records than the CLI's log
  if (device == kernels::Device::CUDA)
    for (int d = 0; d < kernels::cuda_device_count(); ++d) settings.gpus.push_back(d);
}

RunConfig TrainingController::run_config(const ViewerState& viewer) const {
  RunConfig c = recorded_;
  for_each_panel_setting(settings, c, [](const auto& from, auto& to) { to = from; });
  c.strategy = kStrategies[settings.strategy];
  std::copy(viewer.view.background, viewer.view.background + 3, c.background.begin());
  c.up = viewer.up_axis();
  return c;
}

transport::RankPlan TrainingController::rank_plan() const {
  transport::RankPlan plan;
  plan.device = device_;
  if (device_ == kernels::Device::CUDA) plan.cuda_devices = settings.gpus;
  const int per_gpu = device_ == kernels::Device::CUDA ? std::max<int>(1, int(settings.gpus.size())) : 1;
  plan.ranks = settings.ranks > 0 ? settings.ranks : per_gpu;
  return plan;
}

void TrainingController::start(ViewerState& viewer) {
  try {
    if (session_ && session_->state() != SessionState::Failed) {
      resume();
      return;
    }
    start_new(viewer);
  } catch (const std::exception& e) {
    session_.reset();
    run_.reset();
    viewer.notes.error(std::string("cannot start training: ") + e.what());
  }
}

void TrainingController::start_new(ViewerState& viewer) {
  const Scene& scene = trainable_scene(viewer);
  RunConfig config = run_config(viewer);
  // A new run of the shown scene, loaded as it was (the demo ignores the data factor setting).
  config.started_by = "gui";
  config.scene = scene.root;
  config.scene_folder = fs::absolute(scene.root).string();
  SceneLoadOptions loaded;
  loaded.data_factor = viewer.content.data_factor;
  loaded.undistort = viewer.content.undistort;
  loaded.mask_mode = viewer.content.mask_mode;
  config.set_scene_load_options(loaded);
  const TrainerOptions opt = config.trainer_options(device_);
  viewer.view.antialiased = config.antialiased;  // the view draws as the run trains
  session_.reset();
  run_.reset();
  const fs::path dir = settings.run_dir.empty() ? default_run_dir(fs::current_path(), scene)
                                                : fs::absolute(settings.run_dir).lexically_normal();
  if (holds_run(dir))
    throw RunFolderError(dir, "already holds a run: choose another run folder, or open this one to continue it");
  run_.emplace(RunFolder::create(dir, false));
  run_->write_config(to_json(config));
  recorded_up_ = config.up;
  SessionOptions so;
  so.metrics_every = config.log_every;
  so.eval_every = config.eval_every;
  run_->attach(so.files);
  so.files.checkpoint_every = config.checkpoint_every;
  so.ranks = rank_plan();
  initial_model_ = viewer.content.model;
  content_generation_ = viewer.content_generation;
  session_ = std::make_unique<TrainingSession>(scene, *viewer.content.model, opt, so);
  session_->set_amp(settings.amp);
  if (step_share_shown_) session_->set_profiling(true);
  history = {};
  images_at_start_ = 0;
  restoring_ = false;
  session_->start();
  last_phases_ = {};
  step_share_.reset();
  snapshot_version_ = 0;
  failure_reported_ = false;
  saved_images_ = -1;
  elapsed_s_ = 0;
  running_since_.reset();
  short_end_reported_ = false;
  settings.run_dir = dir.string();
  viewer.notes.info("training into " + dir.string() + (so.ranks.ranks > 1 ? " with " + so.ranks.describe() : ""));
}

void TrainingController::open_run(ViewerState& viewer, const fs::path& dir) {
  try {
    const RunConfig config = read_run_config(dir);
    if (!fs::exists(dir / run_files::kCheckpoint))
      throw RunFolderError(dir, "has no checkpoint.ckpt to continue from");
    TrainingSettings s = settings;
    for_each_panel_setting(s, config, [](auto& to, const auto& from) { to = from; });
    s.strategy = int(std::find(std::begin(kStrategies), std::end(kStrategies), config.strategy) - std::begin(kStrategies));
    s.run_dir = fs::absolute(dir).lexically_normal().string();
    session_.reset();
    run_.reset();
    viewer.confirm_discard = false;  // the session is gone: opening its scene discards nothing more
    settings = s;
    recorded_ = config;
    const SceneLoadOptions load = config.scene_load_options();
    viewer.data_factor = load.data_factor;
    viewer.undistort = load.undistort;
    viewer.mask_mode = load.mask_mode;
    std::copy(config.background.begin(), config.background.end(), viewer.view.background);
    viewer.view.antialiased = config.antialiased;
    viewer.open(config.scene_folder, config.up);
    pending_resume_ = fs::path(settings.run_dir);
    pending_generation_ = viewer.content_generation;
  } catch (const std::exception& e) {
    viewer.notes.error(std::string("cannot open the run: ") + e.what());
  }
}

void TrainingController::start_resumed(ViewerState& viewer) {
  const fs::path dir = *pending_resume_;
  pending_resume_.reset();
  try {
    const Scene& scene = trainable_scene(viewer);
    run_.emplace(RunFolder::open(dir));
    const RunConfig config = run_config(viewer);
    recorded_up_ = recorded_.up;  // what its config.json says; poll() records a change
    SessionOptions so;
    so.metrics_every = config.log_every;
    so.eval_every = config.eval_every;
    run_->attach(so.files);
    so.files.checkpoint_every = config.checkpoint_every;
    so.resume_from = run_->checkpoint_file();
    so.ranks = rank_plan();
    initial_model_ = viewer.content.model;
    content_generation_ = viewer.content_generation;
    history = read_metric_history(run_->metrics_file());
    session_ = std::make_unique<TrainingSession>(scene, *viewer.content.model, config.trainer_options(device_), so);
    session_->set_amp(settings.amp);
    // Opened paused: the user sees the run as it was and chooses to continue it.
    session_->pause();
    session_->start();
    restoring_ = true;  // until the session has restored the checkpoint (see poll())
    snapshot_version_ = 0;
    failure_reported_ = false;
    short_end_reported_ = false;
    // The run's training time so far, as its metrics recorded it (every continuation's clock added).
    elapsed_s_ = history.loss_wall.empty() ? 0.0 : double(history.loss_wall.back());
    running_since_.reset();
  } catch (const std::exception& e) {
    session_.reset();
    run_.reset();
    viewer.notes.error(std::string("cannot resume the run: ") + e.what());
  }
}

void TrainingController::pause() {
  if (session_) session_->pause();
}
void TrainingController::resume() {
  if (!session_) return;
  // The budget may have changed while paused or stopped: the run and its config.json follow it (a
  // budget below what is done ends the run at once).
  const int budget = std::max(settings.steps, session_->images_done());
  session_->set_total_images(budget);
  if (run_) {
    try {
      RunConfig config = run_->read_config();
      if (config.images != budget) {
        config.images = budget;
        run_->write_config(to_json(config));
      }
    } catch (const std::exception& e) {  // training goes on; the message says what was not recorded
      std::lock_guard lock(outbox_->mutex);
      outbox_->results.emplace_back(false, std::string("the new budget is not recorded: ") + e.what());
    }
  }
  short_end_reported_ = false;
  session_->resume();
}

void TrainingController::record_up(const ViewerState& viewer) {
  if (!run_ || viewer.up_axis() == recorded_up_) return;
  recorded_up_ = viewer.up_axis();
  try {
    RunConfig config = run_->read_config();
    config.up = recorded_up_;
    run_->write_config(to_json(config));
  } catch (const std::exception& e) {  // the view has it; the message says what was not recorded
    std::lock_guard lock(outbox_->mutex);
    outbox_->results.emplace_back(false, std::string("the up axis is not recorded: ") + e.what());
  }
}

void TrainingController::stop() {
  if (!session_) return;
  session_->finish();
}

void TrainingController::reset(ViewerState& viewer) {
  session_.reset();  // stops and joins
  run_.reset();
  rank_stats_.clear();
  pending_resume_.reset();
  if (initial_model_) viewer.show_model(initial_model_);
  history = {};
  elapsed_s_ = 0;
  running_since_.reset();
  settings.run_dir.clear();  // the next run gets a fresh default folder
}

bool TrainingController::in_progress() const {
  if (restoring_) return false;
  const SessionState s = state();
  return (s == SessionState::Running || s == SessionState::Paused) && session_->images_done() > images_at_start_;
}

int TrainingController::saves_pending() const {
  std::lock_guard lock(outbox_->mutex);
  return outbox_->pending;
}

bool TrainingController::results_written() const {
  const SessionState s = state();
  const bool ended = s == SessionState::Stopped || s == SessionState::Finished;
  return ended && images_done() == saved_images_ && saves_pending() == 0;
}

double TrainingController::elapsed_s() const {
  double s = elapsed_s_;
  if (running_since_) s += std::chrono::duration<double>(std::chrono::steady_clock::now() - *running_since_).count();
  return s;
}

// From the recent rate (ui/eta_estimator.h), not the mean since the start, which promises the early
// rate of a run that slows as its Gaussians grow.
std::optional<double> TrainingController::eta_s() const {
  if (!session_) return std::nullopt;
  return history.eta.eta_s(std::max(0, settings.steps - images_done()));
}

TrainingController::Evaluation TrainingController::latest_evaluation() const {
  if (!session_) return {};
  const TrainingSession::Evaluation e = session_->latest_evaluation();
  const SessionState s = session_->state();
  const bool ended = s == SessionState::Stopped || s == SessionState::Finished;
  // The snapshot of the last step is published before the state reads ended (TrainingSession::decide),
  // and poll() hands a newer snapshot to the viewer as soon as it sees one.
  return {e.result, e.result && ended && e.images == session_->images_done() &&
                        snapshot_version_ == (session_->snapshot() ? session_->snapshot()->version() : 0)};
}

void TrainingController::apply_live_settings() {
  if (!session_) return;
  try {
    session_->set_batch_size(settings.batch_size);
  } catch (const std::invalid_argument& e) {  // the session keeps its batch size
    std::lock_guard lock(outbox_->mutex);
    outbox_->results.emplace_back(false, e.what());
  }
  session_->set_packed(settings.packed);
  session_->set_amp(settings.amp);
  session_->set_sh_degree_cap(settings.sh_degree);
}

std::string TrainingController::checkpoint_unavailable() const {
  if (!session_) return "no training session: start training first";
  if (session_->state() == SessionState::Failed) return "training failed: " + session_->error();
  return {};
}

void TrainingController::request_save(bool ply, const fs::path& file) {
  {
    std::lock_guard lock(outbox_->mutex);
    ++outbox_->pending;
  }
  // The callback runs on the trainer thread at the step boundary it was served at, so the
  // session's counts then are the file's.
  auto done = [outbox = outbox_, file, ply, session = session_.get()](const std::string& error) {
    const bool ok = error.empty();
    std::string text = !ok ? (ply ? "PLY: " : "checkpoint: ") + error
                           : "saved " + fs::absolute(file).lexically_normal().string() + (ply ? " (PLY" : " (checkpoint") + " at image " +
                                 std::to_string(session->images_done()) + ", step " +
                                 std::to_string(session->steps_done()) + ")";
    std::lock_guard lock(outbox->mutex);
    --outbox->pending;
    outbox->results.emplace_back(ok, std::move(text));
  };
  if (ply) session_->request_save_ply(file, done);
  else session_->request_save_checkpoint(file, done);
}

void TrainingController::save_checkpoint(ViewerState& viewer, const std::string& file) {
  if (const std::string why = checkpoint_unavailable(); !why.empty()) {
    viewer.notes.error("checkpoint: " + why);
    return;
  }
  request_save(false, file);
}

void TrainingController::save_results() {
  // Once per image count: right after Continue the state may still read stopped for a frame.
  if (!run_ || session_->images_done() == saved_images_) return;
  saved_images_ = session_->images_done();
  request_save(false, run_->checkpoint_file());
  request_save(true, run_->ply_file());
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

void TrainingController::track_time() {
  const bool running = state() == SessionState::Running;
  const auto now = std::chrono::steady_clock::now();
  if (running && !running_since_) running_since_ = now;
  if (!running && running_since_) {
    elapsed_s_ += std::chrono::duration<double>(now - *running_since_).count();
    running_since_.reset();
  }
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
  if (pending_resume_ && !viewer.loader.busy()) {
    if (viewer.content_generation != pending_generation_) start_resumed(viewer);
    else pending_resume_.reset();  // the scene did not load (its error is shown)
  }
  if (!session_) return;
  if (viewer.content_generation != content_generation_) {
    session_.reset();
    run_.reset();
    rank_stats_.clear();
    initial_model_.reset();
    history = {};
    settings.run_dir.clear();
    return;
  }
  // The session publishes its first snapshot once the checkpoint is restored: its image count is
  // where this session starts, and what the run has saved.
  if (restoring_ && session_->snapshot()) {
    restoring_ = false;
    images_at_start_ = saved_images_ = session_->images_done();
    viewer.notes.info("opened run " + run_->dir().string() + " (" + std::to_string(images_at_start_) +
                      " images trained): " +
                      (images_at_start_ < settings.steps ? "Resume continues it" : "raise the budget to continue it"));
  }
  record_up(viewer);
  track_time();
  for (const SessionMetrics& m : session_->metrics_since(history.last_step)) history.add(m, settings.batch_size);
  poll_step_share();
  rank_stats_ = session_->rank_stats();
  // The viewer takes the snapshot itself (it stays on the training device), not a host copy.
  if (std::shared_ptr<const ModelSnapshot> snap = session_->snapshot(); snap && snap->version() != snapshot_version_) {
    snapshot_version_ = snap->version();
    viewer.show_snapshot(std::move(snap));
  }
  const SessionState st = session_->state();
  if (st == SessionState::Stopped || st == SessionState::Finished) save_results();
  // With ranks a run ends before a last step of fewer images than ranks (TrainingSession).
  const int left = session_->budget() - session_->images_done();
  if (st == SessionState::Finished && left > 0 && !short_end_reported_) {
    viewer.notes.info("training ended at image " + std::to_string(session_->images_done()) + ": the last " +
                      std::to_string(left) + " image(s) of the budget are fewer than the " +
                      std::to_string(session_->ranks()) + " ranks; raise the budget to continue");
    short_end_reported_ = true;
  }
  if (st == SessionState::Failed && !failure_reported_) {
    // The run folder keeps what was written before the failure.
    const bool kept = run_ && fs::exists(run_->checkpoint_file());
    viewer.notes.error("training failed: " + session_->error() +
                       (kept ? "; the run keeps its last checkpoint " + run_->checkpoint_file().string() : ""));
    failure_reported_ = true;
  }
}

}  // namespace splat::ui
