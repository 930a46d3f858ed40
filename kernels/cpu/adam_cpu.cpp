// CPU reference of the fused Adam step and the host-side hyper-parameter helpers.
#include <cmath>
#include <stdexcept>
#include <string>

#include "kernels/adam.h"

namespace splat::kernels {

AdamHyperParams scale_for_batch(const AdamHyperParams& base, int batch_size) {
  if (batch_size < 1) throw std::invalid_argument("Adam batch size must be >= 1, got " + std::to_string(batch_size));
  const double root = std::sqrt(double(batch_size));
  AdamHyperParams h = base;
  h.lr = float(base.lr * root);
  h.eps = float(base.eps / root);
  h.beta1 = float(std::pow(double(base.beta1), batch_size));
  h.beta2 = float(std::pow(double(base.beta2), batch_size));
  return h;
}

template <class T>
AdamStepConstants<T> adam_step_constants(const AdamHyperParams& h, int64_t step) {
  if (step < 1) throw std::invalid_argument("Adam step count must be >= 1, got " + std::to_string(step));
  if (!(h.beta1 >= 0 && h.beta1 < 1) || !(h.beta2 >= 0 && h.beta2 < 1) || !(h.eps >= 0) || !(h.lr >= 0))
    throw std::invalid_argument("Adam hyper-parameters out of range: lr=" + std::to_string(h.lr) +
                                " beta1=" + std::to_string(h.beta1) + " beta2=" + std::to_string(h.beta2) +
                                " eps=" + std::to_string(h.eps));
  const double t = double(step);
  AdamStepConstants<T> k;
  k.beta1 = T(h.beta1);
  k.beta2 = T(h.beta2);
  k.step_size = T(double(h.lr) / (1.0 - std::pow(double(h.beta1), t)));
  k.inv_sqrt_bias2 = T(1.0 / std::sqrt(1.0 - std::pow(double(h.beta2), t)));
  k.eps = T(h.eps);
  return k;
}

template <class T>
void adam_step_reference(T* params, const T* grads, T* exp_avg, T* exp_avg_sq, int64_t n, const AdamHyperParams& h,
                         int64_t step, bool skip_zero_grads) {
  if (n < 0) throw std::invalid_argument("Adam element count must be >= 0, got " + std::to_string(n));
  const AdamStepConstants<T> k = adam_step_constants<T>(h, step);
  for (int64_t i = 0; i < n; ++i)
    if (!skip_zero_grads || grads[i] != T(0)) adam_update(params[i], grads[i], exp_avg[i], exp_avg_sq[i], k);
}

void adam_step_stored_reference(const AdamGroup& g, int64_t step) {
  if (g.n < 0) throw std::invalid_argument("Adam element count must be >= 0, got " + std::to_string(g.n));
  const AdamStepConstants<float> k = adam_step_constants<float>(g.h, step);
  for (int64_t i = 0; i < g.n; ++i)
    adam_update_stored(g.params, g.grads, g.exp_avg, g.exp_avg_sq, i, g.seed, g.first, k, g.skip_zero_grads);
}

template AdamStepConstants<float> adam_step_constants<float>(const AdamHyperParams&, int64_t);
template AdamStepConstants<double> adam_step_constants<double>(const AdamHyperParams&, int64_t);
template void adam_step_reference<float>(float*, const float*, float*, float*, int64_t, const AdamHyperParams&,
                                         int64_t, bool);
template void adam_step_reference<double>(double*, const double*, double*, double*, int64_t,
                                          const AdamHyperParams&, int64_t, bool);

}  // namespace splat::kernels
