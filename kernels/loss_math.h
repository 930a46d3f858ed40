#pragma once
// Math of the photometric training loss and of the image metrics, shared by the CPU
// reference (templated, double for finite-difference tests) and the CUDA kernels (float),
// so that both backends evaluate literally the same expressions.
//
// SSIM is computed from five windowed moments of the two images at every pixel:
// E[x], E[y], E[x^2], E[y^2], E[xy], each the image (or product image) filtered by an
// 11x11 Gaussian window with zero padding outside the image, so the SSIM map has the
// image's size. The window is separable: a horizontal 1D pass, then a vertical one.
//
// A per-pixel mask (see kernels/loss.h) enters in three places: masked_pred() replaces an
// ignored pixel's prediction by its target before anything is computed, only valid pixels'
// SSIM values and partials are summed, and the means divide by the valid count.
#include <cmath>
#include <cstdint>

#include "kernels/hd.h"

namespace splat::kernels {

constexpr int kSsimRadius = 5;  // window half-width: 11 taps
constexpr int kSsimTaps = 2 * kSsimRadius + 1;
constexpr double kSsimSigma = 1.5;
// Stabilising constants for a dynamic range of 1: (0.01)^2 and (0.03)^2.
constexpr double kSsimC1 = 0.01 * 0.01;
constexpr double kSsimC2 = 0.03 * 0.03;
// Default weight of the (1 - SSIM) term in the training loss.
constexpr float kDefaultSsimWeight = 0.2f;

// Tap k (0..kSsimTaps-1) of the normalised 1D Gaussian window.
template <class T>
SPLAT_HD T ssim_window_tap(int k) {
  const T inv_two_var = T(1) / T(2 * kSsimSigma * kSsimSigma);
  T sum = 0;
  for (int i = -kSsimRadius; i <= kSsimRadius; ++i) sum += std::exp(-T(i * i) * inv_two_var);
  const int d = k - kSsimRadius;
  return std::exp(-T(d * d) * inv_two_var) / sum;
}

// Windowed moments at one pixel of one channel: E[x], E[y], E[x^2], E[y^2], E[xy].
template <class T>
struct SsimMoments {
  T mu_x{}, mu_y{}, xx{}, yy{}, xy{};
};

// SSIM at one pixel and its partial derivatives with respect to the moments that depend on
// x (the prediction). The backward pass needs exactly these three: dS/dx(q) is then
// sum_p w(p-q) [d_mu_x(p) + 2 x(q) d_xx(p) + y(q) d_xy(p)], a filtering of the three maps.
template <class T>
struct SsimPartials {
  T ssim{}, d_mu_x{}, d_xx{}, d_xy{};
};

template <class T>
SPLAT_HD SsimPartials<T> ssim_partials(const SsimMoments<T>& m) {
  const T c1 = T(kSsimC1), c2 = T(kSsimC2);
  const T var_x = m.xx - m.mu_x * m.mu_x;
  const T var_y = m.yy - m.mu_y * m.mu_y;
  const T cov = m.xy - m.mu_x * m.mu_y;
  const T a1 = T(2) * m.mu_x * m.mu_y + c1;  // luminance numerator
  const T a2 = T(2) * cov + c2;              // contrast-structure numerator
  const T b1 = m.mu_x * m.mu_x + m.mu_y * m.mu_y + c1;
  const T b2 = var_x + var_y + c2;
  const T inv_b = T(1) / (b1 * b2);
  SsimPartials<T> r;
  r.ssim = a1 * a2 * inv_b;
  // mu_x enters a1, a2 (through cov), b1 and b2 (through var_x).
  r.d_mu_x = T(2) * m.mu_y * (a2 - a1) * inv_b + T(2) * m.mu_x * r.ssim * (T(1) / b2 - T(1) / b1);
  r.d_xx = -r.ssim / b2;
  r.d_xy = T(2) * a1 * inv_b;
  return r;
}

// Whether a pixel (index into [C,H,W]) counts: a null mask makes every pixel valid.
SPLAT_HD bool pixel_valid(const uint8_t* mask, int64_t pixel) { return !mask || mask[pixel] != 0; }

// The target images of a batch: floats, or the photos' 8-bit values as decoded, read as v / 255
// (the float photos were made with that same product, so both give the same numbers). Keeping
// training photos as bytes on the device takes a quarter of the memory.
template <class T>
struct BasicTargetImages {
  const T* values = nullptr;
  const uint8_t* bytes = nullptr;
  BasicTargetImages(const T* v) : values(v) {}        // NOLINT: implicit, as the plain pointer it replaces
  BasicTargetImages(const uint8_t* b) : bytes(b) {}  // NOLINT
  SPLAT_HD T operator[](int64_t e) const { return bytes ? T(float(bytes[e]) * (1.f / 255.f)) : values[e]; }
};
using TargetImages = BasicTargetImages<float>;

// The prediction the loss and the metrics see: the target at an ignored pixel, so that it adds
// nothing to |d| and an SSIM window reaching it sees the target's own values there. A select,
// not a product: whatever an ignored pixel holds (even NaN) never enters the arithmetic.
template <class T>
SPLAT_HD T masked_pred(T pred, T target, bool valid) {
  return valid ? pred : target;
}

// Sub-gradient of |d| used by the L1 term: 0 at d == 0.
template <class T>
SPLAT_HD T abs_grad(T d) {
  return d > T(0) ? T(1) : (d < T(0) ? T(-1) : T(0));
}

// Factors of dL/dpred for a batch of `count` valid elements: the L1 term's and the SSIM
// term's; both 0 when nothing is valid (the loss is then the constant 0).
template <class T>
struct LossGradWeights {
  T l1{}, ssim{};
};
template <class T>
SPLAT_HD LossGradWeights<T> loss_grad_weights(T ssim_weight, T count, T grad_scale) {
  if (!(count > T(0))) return {T(0), T(0)};
  return {(T(1) - ssim_weight) / count * grad_scale, -ssim_weight / count * grad_scale};
}

// dL/dpred at one element from its pred x, target y and the window-filtered SSIM partial
// maps f_mu = w * d_mu_x, f_xx = w * d_xx, f_xy = w * d_xy at that element.
template <class T>
SPLAT_HD T loss_grad_element(T x, T y, T f_mu, T f_xx, T f_xy, const LossGradWeights<T>& g) {
  return g.l1 * abs_grad(x - y) + g.ssim * (f_mu + T(2) * x * f_xx + y * f_xy);
}

// Metrics read images in [0,1]: the prediction is clamped first (the target is data).
template <class T>
SPLAT_HD T clamp_unit(T v) {
  return v < T(0) ? T(0) : (v > T(1) ? T(1) : v);
}

// Per-image sums over the valid pixels and their channels that the loss and the metrics are
// made of.
struct ImageSums {
  double abs_diff = 0;  // sum |pred - target|
  double sq_diff = 0;   // sum (pred - target)^2
  double ssim = 0;      // sum of the SSIM map
  double valid = 0;     // number of valid pixels (each has 3 elements)
};

// L = (1 - w) mean|pred - target| + w (1 - mean SSIM), means over `count` valid elements;
// 0 when there is none.
SPLAT_HD double photometric_loss_value(double abs_sum, double ssim_sum, double count, double ssim_weight) {
  if (!(count > 0)) return 0.0;
  return (1.0 - ssim_weight) * abs_sum / count + ssim_weight * (1.0 - ssim_sum / count);
}

// A batch's loss summed over its runs of one image size, each weighted by its share of the batch
// (add_weighted_loss): `earlier` the sum of the runs before (0 for the first).
SPLAT_HD float weighted_loss_sum(float earlier, float value, float weight) { return earlier + weight * value; }

// PSNR in dB for a peak of 1; +inf for identical images.
SPLAT_HD double psnr_from_mse(double mse) { return mse > 0 ? -10.0 * std::log10(mse) : INFINITY; }

}  // namespace splat::kernels
