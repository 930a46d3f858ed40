// CUDA backend of the per-block pair counts (one thread per block: a handful of binary searches),
// and the device-agnostic entry point.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "kernels/camera_blocks.h"
#include "kernels/camera_blocks_math.h"
#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda_util.h"

namespace splat::kernels {
namespace {

constexpr int kThreads = 128;

__global__ void count_kernel(const int32_t* camera, int64_t count, int cameras, int blocks, int64_t* counts) {
  const int q = blockIdx.x * blockDim.x + threadIdx.x;
  if (q < blocks) counts[q] = pairs_in_block(camera, count, q, cameras, blocks);
}

}  // namespace

void count_pairs_per_block(const ComputeContext& where, const int32_t* camera, int64_t count, int cameras, int blocks,
                           int64_t* counts) {
  if (blocks < 1 || cameras < blocks || count < 0)
    throw std::invalid_argument("count_pairs_per_block: " + std::to_string(cameras) + " cameras cannot fill " +
                                std::to_string(blocks) + " blocks");
  if (where.device == Device::CPU) return count_pairs_per_block_reference(camera, count, cameras, blocks, counts);
  const cuda::DeviceScope scope(where.ordinal);
  count_kernel<<<(blocks + kThreads - 1) / kThreads, kThreads, 0, static_cast<cudaStream_t>(where.stream)>>>(
      camera, count, cameras, blocks, counts);
  cuda::check_launch("count_pairs_per_block");
}

}  // namespace splat::kernels
