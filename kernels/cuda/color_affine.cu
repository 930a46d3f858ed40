// CUDA backend of the per-image colour compensation (kernels/color_affine.h): one thread per pixel;
// the backward sums each image's parameter gradient in its blocks (warp shuffles, then shared memory)
// and adds it with one atomic per parameter and block.
#include <algorithm>

#include "kernels/color_affine.h"
#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda_util.h"

namespace splat::kernels {
namespace {

constexpr int kThreads = 256;

struct Views {
  int v[kColorAffineMostImages];
};

__global__ void affine_forward_kernel(const float* params, Views views, const float* rgb, float* out, int64_t pixels) {
  const int c = blockIdx.y;
  const float* p = params + int64_t(views.v[c]) * kColorAffineParams;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < pixels; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t at = 3 * (int64_t(c) * pixels + i);
    color_affine(p, rgb + at, out + at);
  }
}

__global__ void affine_backward_kernel(const float* params, Views views, const float* rgb, const float* grad_out,
                                       float* grad_rgb, float* grad_params, int64_t pixels) {
  __shared__ float s_sums[kThreads / 32][kColorAffineParams];
  const int c = blockIdx.y;
  const float* p = params + int64_t(views.v[c]) * kColorAffineParams;
  float sums[kColorAffineParams] = {};
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < pixels; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t at = 3 * (int64_t(c) * pixels + i);
    color_affine_vjp(p, rgb + at, grad_out + at, grad_rgb + at, sums);
  }
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int k = 0; k < kColorAffineParams; ++k) {
    for (int off = 16; off > 0; off >>= 1) sums[k] += __shfl_xor_sync(0xffffffffu, sums[k], off);
    if (lane == 0) s_sums[warp][k] = sums[k];
  }
  __syncthreads();
  if (threadIdx.x < kColorAffineParams) {
    float total = 0;
    for (int w = 0; w < kThreads / 32; ++w) total += s_sums[w][threadIdx.x];
    atomicAdd(grad_params + int64_t(views.v[c]) * kColorAffineParams + threadIdx.x, total);
  }
}

// One block: thread k shifts parameter k of every listed map.
__global__ void affine_centre_kernel(float* params, const int32_t* views, int count) {
  const int k = threadIdx.x;
  if (k >= kColorAffineParams) return;
  const float shift = color_affine_centre_shift(params, views, count, k);
  for (int i = 0; i < count; ++i) params[int64_t(views[i]) * kColorAffineParams + k] -= shift;
}

Views views_of(std::span<const int> views) {
  check_color_affine(views);
  Views out{};
  std::copy(views.begin(), views.end(), out.v);
  return out;
}

dim3 grid_for(std::span<const int> views, int64_t pixels) {
  return dim3(std::min<unsigned>(cuda::stride_blocks(pixels, kThreads), 256), unsigned(views.size()));
}

}  // namespace

void color_affine_forward(const ComputeContext& where, const float* params, std::span<const int> views,
                          const float* rgb, float* out, int64_t pixels) {
  if (where.device == Device::CPU) return color_affine_forward_reference(params, views, rgb, out, pixels);
  const Views v = views_of(views);
  if (views.empty() || pixels == 0) return;
  const cuda::DeviceScope scope(where.ordinal);
  affine_forward_kernel<<<grid_for(views, pixels), kThreads, 0, static_cast<cudaStream_t>(where.stream)>>>(
      params, v, rgb, out, pixels);
  cuda::check_launch("color_affine_forward");
}

void color_affine_backward(const ComputeContext& where, const float* params, std::span<const int> views,
                           const float* rgb, const float* grad_out, float* grad_rgb, float* grad_params, int64_t pixels) {
  if (where.device == Device::CPU)
    return color_affine_backward_reference(params, views, rgb, grad_out, grad_rgb, grad_params, pixels);
  const Views v = views_of(views);
  if (views.empty() || pixels == 0) return;
  const cuda::DeviceScope scope(where.ordinal);
  affine_backward_kernel<<<grid_for(views, pixels), kThreads, 0, static_cast<cudaStream_t>(where.stream)>>>(
      params, v, rgb, grad_out, grad_rgb, grad_params, pixels);
  cuda::check_launch("color_affine_backward");
}

void color_affine_centre(const ComputeContext& where, float* params, const int32_t* views, int count) {
  if (where.device == Device::CPU) return color_affine_centre_reference(params, views, count);
  if (count == 0) return;
  const cuda::DeviceScope scope(where.ordinal);
  affine_centre_kernel<<<1, 32, 0, static_cast<cudaStream_t>(where.stream)>>>(params, views, count);
  cuda::check_launch("color_affine_centre");
}

}  // namespace splat::kernels
