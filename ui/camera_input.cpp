#include "ui/camera_input.h"

#include <GLFW/glfw3.h>
#include <imgui.h>

namespace splat::ui {
namespace {
// Fly speed in frame radii per second, and the factor Shift applies.
constexpr double kFlyRadiiPerSecond = 0.5;
constexpr double kFastFactor = 4.0;
}  // namespace

void handle_camera_input(ViewerState& state, const PixelRect& viewport, float dt, float pixel_ratio, const KeyTaps& taps) {
  const ImGuiIO& io = ImGui::GetIO();
  OrbitCamera& cam = state.camera;
  if (!io.WantCaptureMouse) {
    // ImGui reports motion in window units; gestures are defined per framebuffer pixel.
    const double dx = io.MouseDelta.x * pixel_ratio, dy = io.MouseDelta.y * pixel_ratio;
    if (io.MouseDown[0]) cam.orbit(dx, dy);
    if (io.MouseDown[1] || io.MouseDown[2]) cam.pan(dx, dy, viewport.height);
    if (io.MouseWheel != 0.f) cam.zoom(io.MouseWheel);
  }
  if (io.WantCaptureKeyboard) return;
  const double speed = kFlyRadiiPerSecond * state.frame_radius() * dt * (io.KeyShift ? kFastFactor : 1.0);
  const auto held = [](int key) { return ImGui::IsKeyDown(key) ? 1.0 : 0.0; };
  // Camera axes: x right, y down, z forward; E rises (against y), Q sinks.
  const Vec3d move{held(GLFW_KEY_D) - held(GLFW_KEY_A), held(GLFW_KEY_Q) - held(GLFW_KEY_E),
                   held(GLFW_KEY_W) - held(GLFW_KEY_S)};
  if (norm(move) > 0) cam.fly(speed * move);
  // Every tap counts, however slow the frame (ui/key_taps.h); holding [ or ] keeps stepping.
  const int steps = taps.presses(GLFW_KEY_RIGHT_BRACKET, true) - taps.presses(GLFW_KEY_LEFT_BRACKET, true);
  if (steps != 0) state.step_view(steps);
  if (taps.presses(GLFW_KEY_N, false)) state.snap_nearest();
  if (taps.presses(GLFW_KEY_F, false)) state.frame_scene();
  if (taps.presses(GLFW_KEY_R, false)) state.reset_view();
}

}  // namespace splat::ui
