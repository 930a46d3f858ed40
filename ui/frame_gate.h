#pragma once
// Decides, once per frame, whether the viewport renders the Gaussians again or keeps showing its
// texture. Rendering shares the device (or, on the CPU backend, the cores) with training, so the
// viewport renders only when what it shows changed, renders a new training snapshot at most
// fps_cap times a second, and renders nothing while the user paused the view during training.
// No GL or ImGui here, so the decision is tested without a window.
#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

namespace splat::ui {

// Everything a viewport render depends on besides the Gaussians (camera, render size, raster
// settings, colouring), flattened; equal keys render equal images.
using ViewKey = std::vector<float>;

struct GatePolicy {
  bool training = false;  // a session is running (publishing snapshots)
  double fps_cap = 60;    // renders a second for new snapshots while training; <= 0: no cap
  bool pause = false;     // while training, render nothing new
};

class FrameGate {
 public:
  using Clock = std::chrono::steady_clock;
  // Whether to render now the view `view` of model version `model_version`; when true the frame
  // counts as rendered. A changed view renders at once (camera input gets every frame); a new model
  // version alone waits for the cap's interval while training. The first frame always renders, so
  // a paused view still shows something.
  bool due(const ViewKey& view, uint64_t model_version, const GatePolicy& policy, Clock::time_point now);
  // The last render failed: render at the next frame whatever it shows.
  void forget() { view_.reset(); }
  static bool paused(const GatePolicy& policy) { return policy.training && policy.pause; }

 private:
  std::optional<ViewKey> view_;  // of the last render; none before the first
  uint64_t version_ = 0;
  Clock::time_point rendered_at_{};
};

}  // namespace splat::ui
