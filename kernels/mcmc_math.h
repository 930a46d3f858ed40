#pragma once
// The per-Gaussian math of the MCMC strategy (see core/train/strategy_mcmc.h), shared literally by the
// CPU reference (kernels/cpu/mcmc_cpu.cpp, mcmc_relocate_cpu.cpp) and the CUDA kernels: the position
// noise (its normals from kernels/counter_random.h: a run resumed from a checkpoint draws what the
// uninterrupted run would have drawn from seed + step), the gradients of the opacity and scale L1
// regularisers, and the relocation's weights, draws and corrections.
#include <cstdint>

#include "kernels/counter_random.h"
#include "kernels/hd.h"
#include "kernels/hd_math.h"
#include "kernels/raster_math.h"

namespace splat::kernels {

// Moves only nearly transparent Gaussians: ~1 when 1 - opacity > 0.995, ~0 below 0.99.
template <class T> SPLAT_HD T mcmc_noise_gate(T opacity_logit) {
  const T x = T(1) - sigmoid(opacity_logit);
  return T(1) / (T(1) + std::exp(T(-100) * (x - T(0.995))));
}

// The displacement of one Gaussian: scale * gate(1 - opacity) * Sigma * eps, Sigma = R S^2 R^T its
// covariance (so it moves along its own shape, further along its long axes), scale = noise_lr *
// means_lr. eps comes in so that tests can feed their own; the backends pass counter_normal3.
template <class T>
SPLAT_HD Vec3<T> mcmc_noise_delta(raster::Quat<T> quat, Vec3<T> log_scale, T opacity_logit, T scale, Vec3<T> eps) {
  const Mat3<T> sigma = raster::covariance3d(quat, log_scale);
  return (scale * mcmc_noise_gate(opacity_logit)) * (sigma * eps);
}

// Gradient of weight * sigmoid(logit) (weight = opacity_reg / n for the mean over n Gaussians).
template <class T> SPLAT_HD T opacity_reg_grad(T opacity_logit, T weight) {
  const T s = sigmoid(opacity_logit);
  return weight * s * (T(1) - s);
}

// Gradient of weight * exp(log_scale) (weight = scale_reg / (3 n): the mean over every axis).
template <class T> SPLAT_HD T scale_reg_grad(T log_scale, T weight) { return weight * std::exp(log_scale); }

// --- Relocation (kernels/mcmc_relocate.h) ---

// The correction's alternating binomial sums lose precision for many copies; beyond this count a
// source is treated as copied this many times (its copies then composite to slightly less).
constexpr int kMcmcMaxCopies = 51;

// When one Gaussian of opacity o is replaced by k copies at the same place, each copy gets opacity
// 1 - (1 - o)^(1/k) (the k copies composite to o) and its scale multiplied by the factor that keeps
// the summed footprint (the MCMC paper's correction); k = 1 changes nothing.
SPLAT_HD float relocated_opacity(float opacity, int copies) {
  copies = copies < 1 ? 1 : copies > kMcmcMaxCopies ? kMcmcMaxCopies : copies;
  return static_cast<float>(1.0 - std::pow(1.0 - double(opacity), 1.0 / copies));
}
SPLAT_HD float relocated_scale_factor(float opacity, int copies) {
  copies = copies < 1 ? 1 : copies > kMcmcMaxCopies ? kMcmcMaxCopies : copies;
  const double o_new = relocated_opacity(opacity, copies);
  // denom = sum_{i=1..k} sum_{j=0..i-1} C(i-1, j) (-1)^j o_new^(j+1) / sqrt(j+1)
  double denom = 0;
  for (int i = 1; i <= copies; ++i) {
    double binom = 1;  // C(i-1, j), updated along j
    for (int j = 0; j < i; ++j) {
      denom += binom * ((j % 2) ? -1.0 : 1.0) * std::pow(o_new, j + 1) / std::sqrt(double(j + 1));
      binom = binom * double(i - 1 - j) / double(j + 1);
    }
  }
  return static_cast<float>(double(opacity) / denom);
}

// A row's weight in the draws: its opacity in units of 2^-32 if it is alive (opacity above
// min_opacity), else 0. Integer weights sum exactly, so both backends draw from the same table.
SPLAT_HD uint64_t mcmc_weight(float opacity_logit, float min_opacity) {
  const double o = sigmoid(double(opacity_logit));
  return o > double(min_opacity) ? static_cast<uint64_t>(o * 4294967296.0) : 0u;
}

// Draw k of a relocation keyed by `key`: a point in [0, total) of the rows' summed weights.
SPLAT_HD uint64_t mcmc_draw(uint64_t key, uint64_t k, uint64_t total) {
  const uint64_t h = mix64(key ^ mix64(k));
#if defined(__CUDA_ARCH__)
  return __umul64hi(h, total);
#else
  return static_cast<uint64_t>((static_cast<unsigned __int128>(h) * total) >> 64);
#endif
}

// The row whose weight interval holds `at`: the first i with cum[i] > at (cum: inclusive sums of n rows).
SPLAT_HD int64_t mcmc_drawn_row(const uint64_t* cum, int64_t n, uint64_t at) {
  int64_t lo = 0, hi = n - 1;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (cum[mid] > at) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

// A drawn source's opacity logit and log scales corrected in place for itself and `drawn` copies.
SPLAT_HD void mcmc_correct(float* opacity_logit, float* log_scales, int drawn, float min_opacity) {
  const int k = 1 + drawn;
  const float o = static_cast<float>(sigmoid(double(*opacity_logit)));
  float o_new = relocated_opacity(o, k);
  const float top = 1.f - 1e-6f;
  o_new = o_new < min_opacity ? min_opacity : o_new > top ? top : o_new;
  const float log_factor = static_cast<float>(std::log(double(relocated_scale_factor(o, k))));
  *opacity_logit = static_cast<float>(logit(double(o_new)));
  for (int c = 0; c < 3; ++c) log_scales[c] += log_factor;
}

}  // namespace splat::kernels
