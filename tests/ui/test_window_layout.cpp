// The Plots window's default place and the pull back inside a smaller window (ui/window_layout.h).
#include <catch2/catch.hpp>

#include "ui/window_layout.h"

using splat::ui::default_plots_rect;
using splat::ui::keep_inside;
using splat::ui::LayoutRect;

namespace {
bool inside(const LayoutRect& r, float w, float h, float top) {
  return r.x >= 0 && r.y >= top && r.x + r.w <= w && r.y + r.h <= h && r.w > 0 && r.h > 0;
}
}  // namespace

TEST_CASE("layout: the default plots strip lies right of the panels, inside the window", "[ui]") {
  for (const auto& [w, h] : {std::pair{1280.f, 800.f}, {1600.f, 900.f}, {1920.f, 1080.f}}) {
    const float menu = 19.f, panel = 320.f;
    const LayoutRect r = default_plots_rect(w, h, menu, panel, 1.f);
    INFO(w << "x" << h);
    CHECK(inside(r, w, h, menu));
    CHECK(r.x >= panel);                // does not cover the training controls
    CHECK(r.h >= 150.f);                // a plot row fits
    CHECK(r.h <= 0.4f * (h - menu));    // the viewport keeps most of the height
    CHECK(r.w >= 0.5f * (w - panel));   // plots wide enough to read
  }
}

TEST_CASE("layout: a saved place is pulled back inside a smaller window", "[ui]") {
  // Saved at the bottom right of a 1600x900 window, opened at 1280x800.
  const LayoutRect saved{900.f, 700.f, 680.f, 190.f};
  const LayoutRect r = keep_inside(saved, 1280.f, 800.f, 19.f);
  CHECK(inside(r, 1280.f, 800.f, 19.f));
  CHECK(r.w == saved.w);
  CHECK(r.h == saved.h);
  // Already inside: unchanged.
  CHECK(keep_inside(r, 1280.f, 800.f, 19.f) == r);
  // Larger than the window: shrunk to it.
  const LayoutRect huge = keep_inside({-50.f, -50.f, 5000.f, 5000.f}, 1280.f, 800.f, 19.f);
  CHECK(huge == LayoutRect{0.f, 19.f, 1280.f, 781.f});
}
