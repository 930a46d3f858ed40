#pragma once
// Mouse and keyboard conventions of the viewport, applied to the viewer state:
//   left drag orbit, right or middle drag pan, wheel zoom, W/A/S/D/Q/E fly (Shift faster),
//   [ and ] previous / next training camera, N nearest training camera, F frame, R reset.
// Input over ImGui windows (panels, menus, text fields) is left to ImGui.
#include "ui/key_taps.h"
#include "ui/presenter.h"
#include "ui/viewer_state.h"

namespace splat::ui {

// viewport: the viewport's rectangle in framebuffer pixels (GL convention); dt: seconds since the
// last frame; pixel_ratio: framebuffer pixels per ImGui (window) unit; taps: the key presses since
// the last frame (the shortcuts' keys).
void handle_camera_input(ViewerState& state, const PixelRect& viewport, float dt, float pixel_ratio, const KeyTaps& taps);

}  // namespace splat::ui
