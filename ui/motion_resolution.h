#pragma once
// The viewport's render scale, frame by frame. On a GPU it shares with training, the viewer's stream has
// the lowest priority and gets the device only between training's kernels, so a full-resolution frame
// takes tens of ms and a moving camera stutters. While training runs and the camera moves, frames render
// at a reduced scale (fewer pixels: the frame fits in the gaps), drawn scaled up to the viewport; once the
// camera has rested for `rest_after`, one frame renders at full scale (the frame gate renders it since its
// size changed) and stays on screen. Without training, or with the camera at rest, always full scale.
// No GL or ImGui here, so the decision is tested without a window; bench_viewer takes the same one.
#include <chrono>
#include <optional>

#include "ui/frame_gate.h"

namespace splat::ui {

struct MotionPolicy {
  bool training = false;     // a session trains on the viewer's device (its GPU, or the CPU cores)
  float rest_scale = 1.f;    // rendered pixels per viewport pixel at rest (View panel: Resolution)
  float moving_scale = 0.5f; // ... while the camera moves during training; never above rest_scale
  std::chrono::milliseconds rest_after{150};  // no move for this long: at rest
};

class MotionResolution {
 public:
  using Clock = std::chrono::steady_clock;
  // The smallest scale either setting may take: a frame of a few pixels shows nothing.
  static constexpr float kMinScale = 0.05f;

  // The scale to render this frame at. `pose` is everything about the camera that moves the picture
  // (pose, intrinsics, the viewport's size at full scale, not the scaled render size); a pose unlike
  // the previous frame's is a move. The first frame is at rest.
  float scale(const ViewKey& pose, const MotionPolicy& policy, Clock::time_point now);
  // Whether the camera counts as moving at `now` (a move within policy.rest_after).
  bool moving(const MotionPolicy& policy, Clock::time_point now) const;

 private:
  std::optional<ViewKey> pose_;
  std::optional<Clock::time_point> moved_at_;
};

}  // namespace splat::ui
