#pragma once
// The GUI side of training: the settings the Training panel edits, the TrainingSession running
// in the background, and the metric history the Metrics panel plots. Once per frame, poll()
// pulls new metrics and, when the session published a newer snapshot, hands it to the viewer.
// No ImGui or GL here.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/training_session.h"
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

// Metric columns, parallel, oldest first (for ImGui::PlotLines).
struct MetricHistory {
  std::vector<float> loss_step, loss;
  std::vector<float> psnr_step, psnr;
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

  // Metrics, snapshot and failure reporting; call once per frame. When other content was opened
  // meanwhile, the session belongs to a scene no longer shown and is dropped.
  void poll(ViewerState& viewer);

  bool active() const { return session_ != nullptr; }
  SessionState state() const { return session_ ? session_->state() : SessionState::Idle; }
  int steps_done() const { return session_ ? session_->steps_done() : 0; }
  kernels::Device device() const { return device_; }
  std::optional<double> gpu_memory_mb() const { return gpu_mem_mb_; }

  TrainingSettings settings;
  MetricHistory history;

 private:
  kernels::Device device_;
  std::unique_ptr<TrainingSession> session_;
  std::shared_ptr<const GaussianModel> initial_model_;  // what reset() returns to
  uint64_t content_generation_ = 0;                     // the viewer content the session trains
  uint64_t snapshot_version_ = 0;
  bool failure_reported_ = false;
  std::optional<double> gpu_mem_mb_;
};

}  // namespace splat::ui
