// CPU reference of the per-image colour compensation (kernels/color_affine.h).
#include <stdexcept>
#include <string>

#include "kernels/color_affine.h"

namespace splat::kernels {

void check_color_affine(std::span<const int> views) {
  if (views.size() > size_t(kColorAffineMostImages))
    throw std::invalid_argument("color_affine: " + std::to_string(views.size()) + " images in one call, at most " +
                                std::to_string(kColorAffineMostImages));
  for (int v : views)
    if (v < 0) throw std::invalid_argument("color_affine: negative view " + std::to_string(v));
}

void color_affine_forward_reference(const float* params, std::span<const int> views, const float* rgb, float* out,
                                    int64_t pixels) {
  check_color_affine(views);
  for (size_t c = 0; c < views.size(); ++c) {
    const float* p = params + size_t(views[c]) * kColorAffineParams;
    for (int64_t i = 0; i < pixels; ++i) {
      const int64_t at = 3 * (int64_t(c) * pixels + i);
      color_affine(p, rgb + at, out + at);
    }
  }
}

void color_affine_backward_reference(const float* params, std::span<const int> views, const float* rgb,
                                     const float* grad_out, float* grad_rgb, float* grad_params, int64_t pixels) {
  check_color_affine(views);
  for (size_t c = 0; c < views.size(); ++c) {
    const float* p = params + size_t(views[c]) * kColorAffineParams;
    double sums[kColorAffineParams] = {};  // a whole image's sums, in double as the reference
    for (int64_t i = 0; i < pixels; ++i) {
      const int64_t at = 3 * (int64_t(c) * pixels + i);
      const double x[3] = {rgb[at], rgb[at + 1], rgb[at + 2]}, g[3] = {grad_out[at], grad_out[at + 1], grad_out[at + 2]};
      const double pd[kColorAffineParams] = {p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11]};
      double g_rgb[3];
      color_affine_vjp(pd, x, g, g_rgb, sums);
      for (int k = 0; k < 3; ++k) grad_rgb[at + k] = float(g_rgb[k]);
    }
    float* gp = grad_params + size_t(views[c]) * kColorAffineParams;
    for (int k = 0; k < kColorAffineParams; ++k) gp[k] += float(sums[k]);
  }
}

void color_affine_centre_reference(float* params, const int32_t* views, int count) {
  for (int k = 0; k < kColorAffineParams; ++k) {
    const float shift = color_affine_centre_shift(params, views, count, k);
    for (int i = 0; i < count; ++i) params[int64_t(views[i]) * kColorAffineParams + k] -= shift;
  }
}

}  // namespace splat::kernels
