// CUDA backends of the per-block pair counts (one thread per block: a handful of binary searches) and
// of the per-camera sums, and their device-agnostic entry points.
#include <cuda_runtime.h>

#include <algorithm>
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

// A grid-stride pass; each block sums per camera in shared memory, then adds its sums once. The
// cameras of one call are few (a rank's block of a batch).
__global__ void sum_kernel(const int32_t* camera, const int32_t* values, int64_t count, int first_camera, int cameras,
                           unsigned long long* sums) {
  extern __shared__ unsigned long long block_sums[];
  for (int c = threadIdx.x; c < cameras; c += blockDim.x) block_sums[c] = 0;
  __syncthreads();
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count; i += int64_t(gridDim.x) * blockDim.x) {
    const int c = camera[i] - first_camera;
    if (c >= 0 && c < cameras && values[i] != 0) atomicAdd(&block_sums[c], static_cast<unsigned long long>(values[i]));
  }
  __syncthreads();
  for (int c = threadIdx.x; c < cameras; c += blockDim.x)
    if (block_sums[c]) atomicAdd(&sums[c], block_sums[c]);
}

}  // namespace

void sum_per_camera(const ComputeContext& where, const int32_t* camera, const int32_t* values, int64_t count,
                    int first_camera, int cameras, int64_t* sums) {
  if (cameras < 1 || count < 0)
    throw std::invalid_argument("sum_per_camera: " + std::to_string(cameras) + " cameras, " + std::to_string(count) +
                                " pairs");
  if (where.device == Device::CPU) return sum_per_camera_reference(camera, values, count, first_camera, cameras, sums);
  const cuda::DeviceScope scope(where.ordinal);
  const auto stream = static_cast<cudaStream_t>(where.stream);
  cuda::check(cudaMemsetAsync(sums, 0, size_t(cameras) * sizeof(int64_t), stream), "clearing per-camera sums");
  const int64_t wanted = (count + kThreads * 8 - 1) / (kThreads * 8);
  const unsigned blocks = static_cast<unsigned>(std::clamp<int64_t>(wanted, 1, 1024));
  // 64-bit sums in unsigned arithmetic (the atomics'), modulo 2^64: the same bits as the signed sums.
  sum_kernel<<<blocks, kThreads, size_t(cameras) * sizeof(unsigned long long), stream>>>(
      camera, values, count, first_camera, cameras, reinterpret_cast<unsigned long long*>(sums));
  cuda::check_launch("sum_per_camera");
}

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
