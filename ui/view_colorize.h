#pragma once
// Turns the rasterizer's float outputs into the RGBA8 pixels the viewport shows, for each render
// mode. One SPLAT_HD function serves the CPU upload path and the CUDA-GL interop kernel, so both
// paths show the same pixels (the EGL interop test compares them).
#include <cstdint>

#include "kernels/hd.h"

namespace splat::ui {

enum class RenderMode : int { RGB = 0, Depth = 1, Alpha = 2 };

struct ColorizeParams {
  RenderMode mode = RenderMode::RGB;
  // Depth mode maps [depth_near, depth_far] to white..black (nearer is brighter); pixels with no
  // coverage are black.
  float depth_near = 0.f, depth_far = 1.f;
};

SPLAT_HD uint8_t unit_to_byte(float v) {
  v = v < 0.f ? 0.f : (v > 1.f ? 1.f : v);
  return static_cast<uint8_t>(v * 255.f + 0.5f);
}

// rgb: 3 floats of one pixel; alpha and depth: that pixel's values (depth ignored unless needed).
SPLAT_HD void colorize_pixel(const float* rgb, float alpha, float depth, const ColorizeParams& p,
                                    uint8_t out[4]) {
  float r, g, b;
  if (p.mode == RenderMode::RGB) {
    r = rgb[0], g = rgb[1], b = rgb[2];
  } else if (p.mode == RenderMode::Alpha) {
    r = g = b = alpha;
  } else {
    const float span = p.depth_far - p.depth_near;
    const float t = alpha > 1e-3f && span > 0.f ? 1.f - (depth - p.depth_near) / span : 0.f;
    r = g = b = t;
  }
  out[0] = unit_to_byte(r);
  out[1] = unit_to_byte(g);
  out[2] = unit_to_byte(b);
  out[3] = 255;
}

}  // namespace splat::ui
