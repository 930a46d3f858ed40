#pragma once
// The GUI side of training: the settings the Training panel edits, the TrainingSession running
// in the background, and the metric history the Metrics panel plots. Once per frame, poll()
// pulls new metrics and, when the session published a newer snapshot, hands it (on the training
// device, shared, not copied) to the viewer.
// No ImGui or GL here.
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/train/training_session.h"
#include "kernels/device.h"
#include "ui/step_share.h"
#include "ui/throttle.h"
#include "ui/viewer_state.h"

namespace splat::ui {

struct TrainingSettings {
  int steps = 30000;
  int strategy = 0;  // index into kStrategies
  int batch_size = 1;
  bool packed = false;
  bool amp = false;
  int sh_degree = 3;
  int eval_every = 500;  // steps between test-view PSNR evaluations
};
inline constexpr const char* kStrategies[] = {"default", "mcmc"};

// Metric columns, parallel, oldest first (for ImGui::PlotLines); *_wall is seconds since start.
struct MetricHistory {
  std::vector<float> loss_step, loss_wall, loss;
  std::vector<float> psnr_step, psnr_wall, psnr;
  int64_t gaussians = 0;
  double images_per_s = 0;
  int last_step = 0;
};

class TrainingController {
 public:
  explicit TrainingController(kernels::Device device) : device_(device) {}

  // Starts training the open scene from the model it shows (needs a posed scene with images).
  // Errors (no scene, no images, bad settings) become notifications.
  void start(ViewerState& viewer);
  void pause();
  void resume();
  // Ends the session; the viewer keeps showing the last snapshot.
  void stop();
  // Ends the session and shows the initial model again.
  void reset(ViewerState& viewer);
  // Applies the live settings (batch size, packed, AMP, SH degree) to a running session.
  void apply_live_settings();
  // Writes a checkpoint of the running session at its next step boundary (also while paused);
  // the outcome becomes a notification in a later poll(). Needs a live session.
  void save_checkpoint(ViewerState& viewer, const std::string& file);
  // Why no checkpoint can be saved now (no session, stopped, failed); empty when one can.
  std::string checkpoint_unavailable() const;
  // Whether the step-time share is shown. Profiling waits for every step on the device, so it is
  // on only while shown; the choice carries over to sessions started later.
  void set_step_share_shown(bool shown);

  // Metrics, snapshot and failure reporting; call once per frame. When other content was opened
  // meanwhile, the session belongs to a scene no longer shown and is dropped.
  void poll(ViewerState& viewer);

  bool active() const { return session_ != nullptr; }
  SessionState state() const { return session_ ? session_->state() : SessionState::Idle; }
  int steps_done() const { return session_ ? session_->steps_done() : 0; }
  kernels::Device device() const { return device_; }
  // One entry per CUDA device (nullopt where the query failed), refreshed at most twice a second;
  // empty on the CPU backend.
  const std::vector<std::optional<kernels::DeviceMemory>>& device_memory() const { return device_memory_; }
  // The step-time share over the last half second or so of profiled steps, while shown.
  const std::optional<StepShare>& step_share() const { return step_share_; }

  TrainingSettings settings;
  MetricHistory history;
  bool plot_wall_time = false;  // Metrics panel: loss and PSNR against wall time instead of step

 private:
  void poll_device_memory();
  void poll_step_share();

  // Outcomes of saves, written on the trainer thread and turned into notifications by poll().
  // Shared with the callbacks, and declared before session_ so that it outlives the session.
  struct SaveOutbox {
    std::mutex mutex;
    std::vector<std::pair<bool, std::string>> results;  // (ok, message)
  };
  std::shared_ptr<SaveOutbox> outbox_ = std::make_shared<SaveOutbox>();

  kernels::Device device_;
  std::unique_ptr<TrainingSession> session_;
  std::shared_ptr<const GaussianModel> initial_model_;  // what reset() returns to
  uint64_t content_generation_ = 0;                     // the viewer content the session trains
  uint64_t snapshot_version_ = 0;  // of the session's snapshot last handed to the viewer
  bool failure_reported_ = false;
  bool stopped_ = false;  // stop() ended the session's thread: it serves no more requests
  std::vector<std::optional<kernels::DeviceMemory>> device_memory_;
  Throttle memory_poll_{std::chrono::milliseconds(500)};
  bool step_share_shown_ = false;
  kernels::PhaseTotals last_phases_;
  std::optional<StepShare> step_share_;
  Throttle share_poll_{std::chrono::milliseconds(500)};
};

}  // namespace splat::ui
