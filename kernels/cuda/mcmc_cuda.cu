// CUDA backend of the MCMC strategy's per-step work: one thread per Gaussian (noise) or per
// scale entry (regularisers), grid-stride, the math from kernels/mcmc_math.h.
#include <cuda_runtime.h>

#include <algorithm>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda_util.h"
#include "kernels/mcmc.h"
#include "kernels/reached_rows.h"

namespace splat::kernels {
namespace {

constexpr int kThreads = 256;

unsigned blocks_for(int64_t n) { return unsigned(std::min<int64_t>((n + kThreads - 1) / kThreads, int64_t(1) << 20)); }

__global__ void noise_kernel(float* __restrict__ means, const float* __restrict__ quats,
                             const float* __restrict__ log_scales, const float* __restrict__ opacity_logits, int64_t n,
                             McmcNoiseParams p) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const float* q = quats + 4 * i;
    const float* ls = log_scales + 3 * i;
    const Vec3d d = mcmc_noise_delta<double>({double(q[0]), double(q[1]), double(q[2]), double(q[3])},
                                             {double(ls[0]), double(ls[1]), double(ls[2])},
                                             double(opacity_logits[i]), p.scale, counter_normal3(p.seed, p.step, p.first + uint64_t(i)));
    means[3 * i + 0] += float(d.x);
    means[3 * i + 1] += float(d.y);
    means[3 * i + 2] += float(d.z);
  }
}

// Thread i adds the scale gradient of entry i < 3n and, for i < n, the opacity gradient of row i.
__global__ void regularizer_kernel(const float* __restrict__ opacity_logits, const float* __restrict__ log_scales,
                                   float* __restrict__ grad_opacity, float* __restrict__ grad_log_scales, int64_t n,
                                   double wo, double ws, const uint8_t* __restrict__ reached) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < 3 * n; i += int64_t(gridDim.x) * blockDim.x) {
    if (i < n)
      grad_opacity[i] =
          reached_value(reached, i, grad_opacity[i]) + float(opacity_reg_grad(double(opacity_logits[i]), wo));
    grad_log_scales[i] =
        reached_value(reached, i / 3, grad_log_scales[i]) + float(scale_reg_grad(double(log_scales[i]), ws));
  }
}

}  // namespace

// The device-agnostic entry points live here because this file sees both backends. Negative
// counts go to the reference too, which rejects them with the error message.
void mcmc_add_position_noise(const ComputeContext& where, float* means, const float* quats, const float* log_scales,
                             const float* opacity_logits, int64_t n, const McmcNoiseParams& p) {
  if (where.device == Device::CPU || n < 0)
    return mcmc_add_position_noise_reference<float>(means, quats, log_scales, opacity_logits, n, p);
  if (n == 0) return;
  const cuda::DeviceScope scope(where.ordinal);
  noise_kernel<<<blocks_for(n), kThreads, 0, static_cast<cudaStream_t>(where.stream)>>>(means, quats, log_scales,
                                                                                       opacity_logits, n, p);
  cuda::check_launch("MCMC position noise");
}

void mcmc_add_regularizer_gradients(const ComputeContext& where, const float* opacity_logits, const float* log_scales,
                                    float* grad_opacity, float* grad_log_scales, int64_t n, int64_t model_rows,
                                    float opacity_reg, float scale_reg, const uint8_t* reached) {
  if (where.device == Device::CPU || n < 0 || model_rows < n)
    return mcmc_add_regularizer_gradients_reference<float>(opacity_logits, log_scales, grad_opacity, grad_log_scales,
                                                           n, model_rows, opacity_reg, scale_reg, reached);
  if (n == 0) return;
  const cuda::DeviceScope scope(where.ordinal);
  regularizer_kernel<<<blocks_for(3 * n), kThreads, 0, static_cast<cudaStream_t>(where.stream)>>>(
      opacity_logits, log_scales, grad_opacity, grad_log_scales, n, mcmc_opacity_reg_weight(opacity_reg, model_rows),
      mcmc_scale_reg_weight(scale_reg, model_rows), reached);
  cuda::check_launch("MCMC regulariser gradients");
}

}  // namespace splat::kernels
