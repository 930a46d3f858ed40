#pragma once
// The MCMC strategy's per-step work on the Gaussians' own device (core/train/strategy_mcmc.h decides,
// these apply): position noise and the regulariser gradients, so that no step copies columns to
// the host. The math lives in kernels/mcmc_math.h.
#include <cstdint>

#include "kernels/mcmc_math.h"
#include "kernels/device_context.h"

namespace splat::kernels {

// The draw of one step: noise for Gaussian i comes from (seed, step, first + i) alone, `first` being the
// global id of row 0, so that a shard's rows draw what the same rows of the whole model draw (and two
// shards never draw alike).
struct McmcNoiseParams {
  double scale = 0;  // noise_lr * means_lr of this step
  uint64_t seed = 0;
  uint64_t step = 0;
  uint64_t first = 0;
};

// means[i] += mcmc_noise_delta(quats[i], log_scales[i], opacity_logits[i], p.scale,
// counter_normal3(p.seed, p.step, p.first + i)) for i < n. Arrays are [n,3], [n,4], [n,3], [n], all in
// `where`; on CUDA the work is enqueued on its device and stream and nothing waits for it.
// Throws std::invalid_argument when n < 0.
void mcmc_add_position_noise(const ComputeContext& where, float* means, const float* quats, const float* log_scales,
                             const float* opacity_logits, int64_t n, const McmcNoiseParams& p);

// Adds to grad_opacity [n] and grad_log_scales [n,3] of n rows the gradients of
// opacity_reg * mean(sigmoid(opacity_logits)) and scale_reg * mean(exp(log_scales)), the means taken
// over the whole model's `model_rows` Gaussians (n for one rank; a shard adds its part of the whole
// model's regulariser). `reached` (null: all): the rows the backward call reached; an unreached row's
// gradients count as zero (kernels/reached_rows.h), and every row's are stored. Same context rules as
// above; n == 0 does nothing.
void mcmc_add_regularizer_gradients(const ComputeContext& where, const float* opacity_logits, const float* log_scales,
                                    float* grad_opacity, float* grad_log_scales, int64_t n, int64_t model_rows,
                                    float opacity_reg, float scale_reg, const uint8_t* reached = nullptr);

// CPU references. The noise is computed in double whatever the storage; the regulariser is
// templated so that tests can run it in double; both instantiated for float and double.
template <class T>
void mcmc_add_position_noise_reference(T* means, const T* quats, const T* log_scales, const T* opacity_logits,
                                       int64_t n, const McmcNoiseParams& p);
template <class T>
void mcmc_add_regularizer_gradients_reference(const T* opacity_logits, const T* log_scales, T* grad_opacity,
                                              T* grad_log_scales, int64_t n, int64_t model_rows, float opacity_reg,
                                              float scale_reg, const uint8_t* reached = nullptr);

// The per-element weights of the two regularisers (their reg / count over a model of `model_rows`),
// computed once on the host in double by both backends.
double mcmc_opacity_reg_weight(float opacity_reg, int64_t model_rows);
double mcmc_scale_reg_weight(float scale_reg, int64_t model_rows);

}  // namespace splat::kernels
