// CPU reference of the MCMC strategy's per-step work: position noise and regulariser gradients.
#include <stdexcept>
#include <string>

#include "kernels/mcmc.h"
#include "kernels/reached_rows.h"

namespace splat::kernels {
namespace {

void check_count(int64_t n, const char* what) {
  if (n < 0) throw std::invalid_argument(std::string(what) + ": Gaussian count must be >= 0, got " + std::to_string(n));
}

}  // namespace

double mcmc_opacity_reg_weight(float opacity_reg, int64_t model_rows) {
  return model_rows > 0 ? double(opacity_reg) / double(model_rows) : 0.0;
}
double mcmc_scale_reg_weight(float scale_reg, int64_t model_rows) {
  return model_rows > 0 ? double(scale_reg) / double(3 * model_rows) : 0.0;
}

template <class T>
void mcmc_add_position_noise_reference(T* means, const T* quats, const T* log_scales, const T* opacity_logits,
                                       int64_t n, const McmcNoiseParams& p) {
  check_count(n, "MCMC position noise");
  for (int64_t i = 0; i < n; ++i) {
    const T* q = quats + 4 * i;
    const T* ls = log_scales + 3 * i;
    const Vec3d d = mcmc_noise_delta<double>({double(q[0]), double(q[1]), double(q[2]), double(q[3])},
                                             {double(ls[0]), double(ls[1]), double(ls[2])},
                                             double(opacity_logits[i]), p.scale, counter_normal3(p.seed, p.step, p.first + uint64_t(i)));
    means[3 * i + 0] += T(d.x);
    means[3 * i + 1] += T(d.y);
    means[3 * i + 2] += T(d.z);
  }
}

template <class T>
void mcmc_add_regularizer_gradients_reference(const T* opacity_logits, const T* log_scales, T* grad_opacity,
                                              T* grad_log_scales, int64_t n, int64_t model_rows, float opacity_reg,
                                              float scale_reg, const uint8_t* reached) {
  check_count(n, "MCMC regulariser gradients");
  if (model_rows < n)
    throw std::invalid_argument("MCMC regulariser gradients: " + std::to_string(n) + " rows of a model of " +
                                std::to_string(model_rows));
  const double wo = mcmc_opacity_reg_weight(opacity_reg, model_rows), ws = mcmc_scale_reg_weight(scale_reg, model_rows);
  for (int64_t i = 0; i < n; ++i)
    grad_opacity[i] = reached_value(reached, i, grad_opacity[i]) + T(opacity_reg_grad(double(opacity_logits[i]), wo));
  for (int64_t i = 0; i < 3 * n; ++i)
    grad_log_scales[i] =
        reached_value(reached, i / 3, grad_log_scales[i]) + T(scale_reg_grad(double(log_scales[i]), ws));
}

template void mcmc_add_position_noise_reference<float>(float*, const float*, const float*, const float*, int64_t,
                                                       const McmcNoiseParams&);
template void mcmc_add_position_noise_reference<double>(double*, const double*, const double*, const double*,
                                                        int64_t, const McmcNoiseParams&);
template void mcmc_add_regularizer_gradients_reference<float>(const float*, const float*, float*, float*, int64_t, int64_t,
                                                              float, float, const uint8_t*);
template void mcmc_add_regularizer_gradients_reference<double>(const double*, const double*, double*, double*,
                                                               int64_t, int64_t, float, float, const uint8_t*);

}  // namespace splat::kernels
