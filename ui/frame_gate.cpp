#include "ui/frame_gate.h"

namespace splat::ui {

bool FrameGate::due(const ViewKey& view, uint64_t model_version, const GatePolicy& policy, Clock::time_point now) {
  bool render = !view_;
  if (!render && !paused(policy)) {
    if (view != *view_) {
      render = true;
    } else if (model_version != version_) {
      const bool capped = policy.training && policy.fps_cap > 0;
      render = !capped || now - rendered_at_ >= std::chrono::duration<double>(1.0 / policy.fps_cap);
    }
  }
  if (render) {
    view_ = view;
    version_ = model_version;
    rendered_at_ = now;
  }
  return render;
}

}  // namespace splat::ui
