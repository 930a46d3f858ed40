#pragma once
// The render-versus-photo comparison of one scene view, as pixels: the render left of a split
// column and the photo right of it, or the per-pixel error as a heat map. No GL or ImGui here, so
// it is tested without a window.
#include <array>
#include <cstdint>
#include <span>

#include "core/scene/scene.h"
#include "ui/view_rasterizer.h"

namespace splat::ui {

enum class CompareMode : int { Split = 0, Error = 1 };

struct CompareParams {
  CompareMode mode = CompareMode::Split;
  float split = 0.5f;      // Split: the share of the width, from the left, that shows the render
  float error_max = 0.2f;  // Error: the mean absolute error per channel shown as the hottest colour
  bool operator==(const CompareParams&) const = default;
};

// The heat map's colour of t in [0, 1] (clamped): black through purple, red and orange to pale
// yellow, brighter for larger t, so that the order of errors reads at a glance.
std::array<uint8_t, 3> heat_color(float t);

// The per-pixel error: mean over the channels of |render - photo / 255|, with the render clamped to
// [0, 1] as the metrics clamp it.
float pixel_error(const float* render_rgb, const uint8_t* photo_rgb);

// The comparison image at the photo's size: `render_rgb` is the render of the photo's camera, float
// RGB [h, w, 3]. Pixels the mask leaves out (mask may be null) are dimmed grey in the error map.
// Split draws a one-pixel white line at the split column.
ImageRGBA8 compare_image(std::span<const float> render_rgb, const ImageRGB8& photo, const uint8_t* mask,
                         const CompareParams& params);

}  // namespace splat::ui
