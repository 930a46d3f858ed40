#pragma once
// Per-image colour compensation: an affine map of a rendered pixel's colour, out = M rgb + b, with
// M a 3x3 matrix (row-major, params[0..8]) and b an offset (params[9..11]). Training renders the
// scene, maps each training image's pixels through that image's own map, and compares with its photo,
// so that changes of exposure and white balance between photos are learned by the maps instead of
// the scene. Shared by the CPU reference and the CUDA kernels of kernels/color_affine.h.
#include <cstdint>

#include "kernels/hd.h"

namespace splat::kernels {

inline constexpr int kColorAffineParams = 12;

// Parameter k of the identity map: M = I, b = 0.
template <class T>
SPLAT_HD T color_affine_identity_at(int k) {
  return T(k == 0 || k == 4 || k == 8 ? 1 : 0);
}
template <class T>
SPLAT_HD void color_affine_identity(T* p) {
  for (int k = 0; k < kColorAffineParams; ++k) p[k] = color_affine_identity_at<T>(k);
}

template <class T>
SPLAT_HD void color_affine(const T* p, const T* rgb, T* out) {
  for (int i = 0; i < 3; ++i) out[i] = p[3 * i] * rgb[0] + p[3 * i + 1] * rgb[1] + p[3 * i + 2] * rgb[2] + p[9 + i];
}

// Its vector-Jacobian product: g_rgb = Mᵀ g_out (written), g_p += (g_out rgbᵀ, g_out) (accumulated).
template <class T>
SPLAT_HD void color_affine_vjp(const T* p, const T* rgb, const T* g_out, T* g_rgb, T* g_p) {
  for (int j = 0; j < 3; ++j) g_rgb[j] = p[j] * g_out[0] + p[3 + j] * g_out[1] + p[6 + j] * g_out[2];
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) g_p[3 * i + j] += g_out[i] * rgb[j];
    g_p[9 + i] += g_out[i];
  }
}

// How far the mean of parameter k over `views` lies from the identity's (summed in double, in view
// order: both backends shift by the same amount).
SPLAT_HD float color_affine_centre_shift(const float* params, const int32_t* views, int count, int k) {
  double sum = 0;
  for (int i = 0; i < count; ++i) sum += params[int64_t(views[i]) * kColorAffineParams + k];
  return count > 0 ? float(sum / count - color_affine_identity_at<double>(k)) : 0.f;
}

}  // namespace splat::kernels
