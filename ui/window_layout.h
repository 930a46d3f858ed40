#pragma once
// Where the Plots window goes: by default a strip along the bottom of the viewport, right of the
// panel column, so that the viewport, the training controls and the loss/PSNR plots are all in
// sight at 1280x800 and up. The user may move and resize it (ImGui keeps that in imgui.ini beside
// the other settings files); a saved place is pulled back inside a window that has become smaller,
// so a layout saved on a large screen never hides the plots on a small one. Pure, unit-tested.

namespace splat::ui {

struct LayoutRect {
  float x = 0, y = 0, w = 0, h = 0;
  bool operator==(const LayoutRect&) const = default;
};

// The default Plots window for a display of `display_w` x `display_h` (ImGui units) with a menu
// bar `menu_h` tall and the panel column `panel_w` wide; `scale` is the UI's content scale.
LayoutRect default_plots_rect(float display_w, float display_h, float menu_h, float panel_w, float scale);

// `r` moved (and shrunk where it must be) to lie within [0, display_w] x [menu_h, display_h].
LayoutRect keep_inside(LayoutRect r, float display_w, float display_h, float menu_h);

}  // namespace splat::ui
