#pragma once
// Inputs and independent references shared by the loss tests: random images and masks, the
// double-precision reference loss and gradient, and SSIM computed directly with the 2D window.
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "kernels/loss.h"

namespace splat::test {

template <class T>
std::vector<T> random_image(const kernels::ImageBatchShape& s, uint32_t seed, double lo = 0.0, double hi = 1.0) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<T> v(s.elements());
  for (T& x : v) x = T(u(rng));
  return v;
}

// target plus a random offset of random sign, at least 0.02 away so that the finite
// difference step never crosses the L1 kink at pred == target.
inline std::vector<double> offset_prediction(const std::vector<double>& target, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0.02, 0.3);
  std::bernoulli_distribution sign(0.5);
  std::vector<double> p(target.size());
  for (size_t i = 0; i < p.size(); ++i) p[i] = target[i] + (sign(rng) ? u(rng) : -u(rng));
  return p;
}

// A [C,H,W] mask whose pixels are valid with probability valid_fraction. Valid pixels hold a
// random nonzero byte, not only 1: any nonzero value means valid.
inline std::vector<uint8_t> random_mask(const kernels::ImageBatchShape& s, uint32_t seed, double valid_fraction) {
  std::mt19937 rng(seed);
  std::bernoulli_distribution valid(valid_fraction);
  std::uniform_int_distribution<int> byte(1, 255);
  std::vector<uint8_t> m(size_t(s.cameras) * s.pixels_per_image());
  for (uint8_t& v : m) v = valid(rng) ? uint8_t(byte(rng)) : uint8_t(0);
  return m;
}

inline double reference_loss(const std::vector<double>& pred, const std::vector<double>& target,
                             const kernels::ImageBatchShape& s, double ssim_weight, const uint8_t* mask = nullptr) {
  double a = 0, ss = 0, valid = 0;
  for (const kernels::ImageSums& sum :
       kernels::image_sums_reference<double>(pred.data(), target.data(), s, false, nullptr, mask))
    a += sum.abs_diff, ss += sum.ssim, valid += sum.valid;
  return kernels::photometric_loss_value(a, ss, 3 * valid, ssim_weight);
}

inline std::vector<double> reference_grad(const std::vector<double>& pred, const std::vector<double>& target,
                                          const kernels::ImageBatchShape& s, double ssim_weight, double grad_scale,
                                          const uint8_t* mask = nullptr) {
  std::vector<double> partials(3 * s.elements()), grad(s.elements());
  kernels::image_sums_reference<double>(pred.data(), target.data(), s, false, partials.data(), mask);
  kernels::loss_backward_reference<double>(pred.data(), target.data(), partials.data(), s, ssim_weight, grad_scale,
                                           grad.data(), mask);
  return grad;
}

// Sum over the valid pixels (all when mask is null) of one camera's channel plane of the SSIM
// map of x and y, computed directly with the 2D window (no separation), zero outside the
// image: an independent check of the separable reference.
inline double direct_ssim_sum(const std::vector<double>& x, const std::vector<double>& y,
                              const kernels::ImageBatchShape& s, int cam, int ch, const uint8_t* mask = nullptr) {
  const int R = kernels::kSsimRadius;
  const double two_var = 2 * kernels::kSsimSigma * kernels::kSsimSigma;
  double wsum = 0;
  for (int dy = -R; dy <= R; ++dy)
    for (int dx = -R; dx <= R; ++dx) wsum += std::exp(-(dx * dx + dy * dy) / two_var);
  double total = 0;
  for (int r = 0; r < s.height; ++r)
    for (int c = 0; c < s.width; ++c) {
      if (mask && !mask[(size_t(cam) * s.height + r) * s.width + c]) continue;
      double mx = 0, my = 0, xx = 0, yy = 0, xy = 0;
      for (int dy = -R; dy <= R; ++dy)
        for (int dx = -R; dx <= R; ++dx) {
          const int rr = r + dy, cc = c + dx;
          if (rr < 0 || rr >= s.height || cc < 0 || cc >= s.width) continue;
          const double w = std::exp(-(dx * dx + dy * dy) / two_var) / wsum;
          const size_t e = ((size_t(cam) * s.height + rr) * s.width + cc) * 3 + ch;
          mx += w * x[e], my += w * y[e], xx += w * x[e] * x[e], yy += w * y[e] * y[e], xy += w * x[e] * y[e];
        }
      const double vx = xx - mx * mx, vy = yy - my * my, cov = xy - mx * my;
      total += (2 * mx * my + kernels::kSsimC1) * (2 * cov + kernels::kSsimC2) /
               ((mx * mx + my * my + kernels::kSsimC1) * (vx + vy + kernels::kSsimC2));
    }
  return total;
}

}  // namespace splat::test
