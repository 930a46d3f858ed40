#pragma once
// One Adam update of one element, shared by the CPU reference and the CUDA kernel so that
// both backends evaluate the same expression (and agree to rounding).
#include <cmath>
#include <type_traits>

#include "kernels/hd.h"
#include "kernels/reached_rows.h"
#include "kernels/storage_math.h"

namespace splat::kernels {

// Per-call constants of a step, computed once on the host from the hyper-parameters and
// the step number t (1 for the first step): the bias corrections 1 - beta^t fold into them.
template <class T>
struct AdamStepConstants {
  T beta1{}, beta2{};
  T step_size{};          // lr / (1 - beta1^t)
  T inv_sqrt_bias2{};     // 1 / sqrt(1 - beta2^t)
  T eps{};
};

// Products rounded on their own on both backends. nvcc would otherwise fuse a product and
// the sum it feeds into one FMA, which the host does not do; in m, a sum of two terms of
// opposite sign that can nearly cancel, that single rounding difference becomes a large
// relative one. With these the CUDA step is bitwise the CPU step (IEEE sqrt and division
// are nvcc's defaults).
template <class T>
SPLAT_HD T mul_rn(T a, T b) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "Adam runs in float or double");
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, float>) return __fmul_rn(a, b);
  else return __dmul_rn(a, b);
#else
  return a * b;
#endif
}

// m <- b1 m + (1-b1) g;  v <- b2 v + (1-b2) g^2;  p <- p - step_size m / (sqrt(v)/sqrt(1-b2^t) + eps).
// The same as m_hat / (sqrt(v_hat) + eps) with m_hat, v_hat the bias-corrected moments.
template <class T>
SPLAT_HD void adam_update(T& param, T grad, T& exp_avg, T& exp_avg_sq, const AdamStepConstants<T>& k) {
  exp_avg = mul_rn(k.beta1, exp_avg) + mul_rn(T(1) - k.beta1, grad);
  exp_avg_sq = mul_rn(k.beta2, exp_avg_sq) + mul_rn(mul_rn(T(1) - k.beta2, grad), grad);
  param -= mul_rn(k.step_size, exp_avg) / (mul_rn(std::sqrt(exp_avg_sq), k.inv_sqrt_bias2) + k.eps);
}

// The rounding bits of element i of a group (`first`: where the group's arrays start in the whole
// model's, a shard's offset), as bf16_stochastic takes them (16 bits), from one 32-bit draw
// (rounding_bits): the parameter gets bits 0-15; each moment 8 bits (16-23, 24-31), centred in its
// 16-bit field (a rounding probability off by at most 1/512 of a spacing; moments only scale and steer
// the step, and a SH coefficient's own update is what needs the finer rounding).
struct ElementRoundingBits {
  uint32_t param, exp_avg, exp_avg_sq;
};
SPLAT_HD ElementRoundingBits element_rounding_bits(uint64_t seed, int64_t first, int64_t i) {
  const uint32_t r = rounding_bits(seed, uint64_t(first + i));
  return {r & 0xffffu, ((r >> 16) & 0xffu) << 8 | 0x80u, (r >> 24) << 8 | 0x80u};
}

// A gradient array as Adam reads it: fp32 elements, or bf16 encodings (mixed precision's SH rest
// gradients, summed in fp32 by the backward pass and stored once: kernels/rasterizer.h). At most one is set.
// `reached`: the rows the backward call reached, `width` values a row (kernels/reached_rows.h): element i
// of an unreached row is zero and is not read. Null: every element is read.
struct GradArray {
  const float* f32 = nullptr;
  const uint16_t* bf16 = nullptr;
  const uint8_t* reached = nullptr;
  int width = 1;
  GradArray() = default;
  GradArray(const float* p) : f32(p) {}  // NOLINT(google-explicit-constructor): fp32 is the usual gradient
  static GradArray narrow(const uint16_t* p) {
    GradArray g;
    g.bf16 = p;
    return g;
  }
  SPLAT_HD bool element_reached(int64_t i) const { return row_reached(reached, i / width); }
};
SPLAT_HD float load_grad(const GradArray& g, int64_t i) {
  if (!g.element_reached(i)) return 0.f;
  return g.bf16 ? bf16_to_float(g.bf16[i]) : g.f32[i];
}

// Element i of a group in its storage precisions: read, update in fp32, write back rounded. With
// `skip_zero` (sparse Adam, AdamGroup::skip_zero_grads) an element whose gradient is zero is left alone.
SPLAT_HD void adam_update_stored(const StoredArray& params, const GradArray& grads, const StoredArray& exp_avg,
                                 const StoredArray& exp_avg_sq, int64_t i, uint64_t seed, int64_t first,
                                 const AdamStepConstants<float>& k, bool skip_zero) {
  const float d = load_grad(grads, i);
  if (skip_zero && d == 0.f) return;
  float p = load_stored(params, i), m = load_stored(exp_avg, i), v = load_stored(exp_avg_sq, i);
  adam_update(p, d, m, v, k);
  const ElementRoundingBits r = element_rounding_bits(seed, first, i);
  store_stored(params, i, p, r.param);
  store_stored(exp_avg, i, m, r.exp_avg);
  store_stored(exp_avg_sq, i, v, r.exp_avg_sq);
}

}  // namespace splat::kernels
