#include "ui/compare_image.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace splat::ui {
namespace {
// Stops of the heat ramp, evenly spaced in t.
constexpr float kStops[][3] = {
    {0.f, 0.f, 0.f}, {0.35f, 0.05f, 0.55f}, {0.85f, 0.15f, 0.25f}, {1.f, 0.6f, 0.05f}, {1.f, 1.f, 0.75f}};
constexpr int kStopCount = sizeof kStops / sizeof kStops[0];
constexpr uint8_t kMaskedGrey = 48;
}  // namespace

std::array<uint8_t, 3> heat_color(float t) {
  t = std::clamp(std::isfinite(t) ? t : 1.f, 0.f, 1.f);
  const float x = t * (kStopCount - 1);
  const int i = std::min(static_cast<int>(x), kStopCount - 2);
  const float u = x - static_cast<float>(i);
  std::array<uint8_t, 3> c;
  for (int k = 0; k < 3; ++k) c[k] = unit_to_byte(kStops[i][k] + u * (kStops[i + 1][k] - kStops[i][k]));
  return c;
}

float pixel_error(const float* render_rgb, const uint8_t* photo_rgb) {
  float e = 0.f;
  for (int c = 0; c < 3; ++c) e += std::abs(std::clamp(render_rgb[c], 0.f, 1.f) - photo_rgb[c] / 255.f);
  return e / 3.f;
}

ImageRGBA8 compare_image(std::span<const float> render_rgb, const ImageRGB8& photo, const uint8_t* mask,
                         const CompareParams& p) {
  const size_t n = static_cast<size_t>(photo.width) * photo.height;
  if (render_rgb.size() != 3 * n || photo.pixels.size() != 3 * n)
    throw std::invalid_argument("compare: the render has " + std::to_string(render_rgb.size() / 3) +
                                " pixels, the photo " + std::to_string(photo.pixels.size() / 3));
  ImageRGBA8 out{photo.width, photo.height, std::vector<uint8_t>(4 * n, 255)};
  const int split_x = static_cast<int>(std::lround(std::clamp(p.split, 0.f, 1.f) * photo.width));
  const float scale = p.error_max > 0.f ? 1.f / p.error_max : 0.f;
  for (int y = 0; y < photo.height; ++y)
    for (int x = 0; x < photo.width; ++x) {
      const size_t i = static_cast<size_t>(y) * photo.width + x;
      const float* r = &render_rgb[3 * i];
      const uint8_t* ph = &photo.pixels[3 * i];
      uint8_t* o = &out.pixels[4 * i];
      if (p.mode == CompareMode::Error) {
        if (mask && !mask[i]) {
          o[0] = o[1] = o[2] = kMaskedGrey;
        } else {
          const auto c = heat_color(pixel_error(r, ph) * scale);
          std::copy(c.begin(), c.end(), o);
        }
      } else if (x == split_x && split_x > 0 && split_x < photo.width) {
        o[0] = o[1] = o[2] = 255;
      } else if (x < split_x) {
        for (int c = 0; c < 3; ++c) o[c] = unit_to_byte(r[c]);
      } else {
        std::copy(ph, ph + 3, o);
      }
    }
  return out;
}

}  // namespace splat::ui
