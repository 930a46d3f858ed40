#include <cuda_runtime.h>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda_util.h"
#include "kernels/host_waits.h"
#include "ui/cuda_frame_copy.h"

namespace splat::ui {
namespace {
using kernels::cuda::check;

__global__ void colorize_to_pixels(const float* rgb, const float* alpha, const float* depth, int width, int height,
                                   ColorizeParams params, uchar4* out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  const long long i = static_cast<long long>(y) * width + x;
  uint8_t px[4];
  colorize_pixel(rgb + 3 * i, alpha[i], depth ? depth[i] : 0.f, params, px);
  out[i] = make_uchar4(px[0], px[1], px[2], px[3]);
}
}  // namespace

CudaFrameCopy::~CudaFrameCopy() { release(); }

void CudaFrameCopy::release() {
  if (bytes_ == 0) return;
  // No throwing from a destructor; a lost device is reported elsewhere.
  const kernels::cuda::DeviceScope scope(ordinal_, std::nothrow);
  if (scope.ok()) {
    cudaFree(device_);
    cudaFreeHost(host_);
  }
  device_ = host_ = nullptr;
  bytes_ = 0;
}

const uint8_t* CudaFrameCopy::colorize(const float* rgb, const float* alpha, const float* depth, int width,
                                       int height, const ColorizeParams& params, void* cuda_stream) {
  auto stream = static_cast<cudaStream_t>(cuda_stream);
  int ordinal = 0;
  check(cudaGetDevice(&ordinal), "reading the current CUDA device");
  const size_t bytes = size_t(width) * height * 4;
  if (bytes > bytes_ || ordinal != ordinal_) {
    // Grows to the largest frame seen (a resize is rare; cudaFree waits for the device).
    release();
    check(cudaMalloc(&device_, bytes), "allocating the viewport's frame");
    check(cudaMallocHost(&host_, bytes), "allocating the viewport's pinned frame");
    bytes_ = bytes;
    ordinal_ = ordinal;
  }
  const dim3 block(16, 16);
  const dim3 grid((width + 15) / 16, (height + 15) / 16);
  colorize_to_pixels<<<grid, block, 0, stream>>>(rgb, alpha, depth, width, height, params,
                                                 reinterpret_cast<uchar4*>(device_));
  check(cudaGetLastError(), "colorize_to_pixels");
  check(cudaMemcpyAsync(host_, device_, bytes, cudaMemcpyDeviceToHost, stream), "copying the viewport's frame");
  kernels::note_host_wait("copying the viewport's frame");
  check(cudaStreamSynchronize(stream), "copying the viewport's frame");
  return host_;
}

}  // namespace splat::ui
