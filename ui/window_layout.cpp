#include "ui/window_layout.h"

#include <algorithm>

namespace splat::ui {
namespace {
constexpr float kMargin = 8.f;
// Tall enough for a title bar, the x-axis choice and one plot row (80 px plots with their labels).
constexpr float kPlotsHeight = 190.f;
}  // namespace

LayoutRect default_plots_rect(float display_w, float display_h, float menu_h, float panel_w, float scale) {
  const float m = kMargin * scale;
  // Never more than 40 % of the viewport's height: the scene stays the larger part.
  const float h = std::min(kPlotsHeight * scale, 0.4f * (display_h - menu_h));
  const float w = std::max(1.f, display_w - panel_w - 2 * m);
  return {panel_w + m, display_h - h - m, w, std::max(1.f, h)};
}

LayoutRect keep_inside(LayoutRect r, float display_w, float display_h, float menu_h) {
  r.w = std::min(r.w, display_w);
  r.h = std::min(r.h, std::max(1.f, display_h - menu_h));
  r.x = std::clamp(r.x, 0.f, std::max(0.f, display_w - r.w));
  r.y = std::clamp(r.y, menu_h, std::max(menu_h, display_h - r.h));
  return r;
}

}  // namespace splat::ui
