// CUDA backend of the fused Adam step: one thread per element, grid-stride, everything in
// registers (each element is read and written once: the step is bandwidth-bound).
#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "kernels/adam.h"

namespace splat::kernels {
namespace {

constexpr int kThreads = 256;

__global__ void adam_kernel(float* __restrict__ params, const float* __restrict__ grads, float* __restrict__ exp_avg,
                            float* __restrict__ exp_avg_sq, int64_t n, AdamStepConstants<float> k) {
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    adam_update(params[i], grads[i], exp_avg[i], exp_avg_sq[i], k);
}

}  // namespace

// The device-agnostic entry point lives here because this file sees both backends.
void adam_step(Device device, float* params, const float* grads, float* exp_avg, float* exp_avg_sq, int64_t n,
               const AdamHyperParams& h, int64_t step, void* cuda_stream) {
  if (device == Device::CPU) return adam_step_reference<float>(params, grads, exp_avg, exp_avg_sq, n, h, step);
  const AdamStepConstants<float> k = adam_step_constants<float>(h, step);
  if (n < 0) throw std::invalid_argument("Adam element count must be >= 0, got " + std::to_string(n));
  if (n == 0) return;
  // Enough blocks to fill the GPU several times over; the grid-stride loop covers the rest.
  const int64_t blocks = std::min<int64_t>((n + kThreads - 1) / kThreads, int64_t(1) << 20);
  adam_kernel<<<unsigned(blocks), kThreads, 0, static_cast<cudaStream_t>(cuda_stream)>>>(params, grads, exp_avg,
                                                                                        exp_avg_sq, n, k);
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) throw std::runtime_error(std::string("CUDA Adam step: ") + cudaGetErrorString(e));
}

}  // namespace splat::kernels
