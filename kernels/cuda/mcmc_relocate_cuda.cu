// CUDA backend of MCMC's relocation (kernels/mcmc_relocate.h): CUB's scan for the weights' sums and its
// selection for the dead rows, one thread per draw (a binary search, an integer count per source) or
// per row, and the device-agnostic entry points, which see both backends.
#include <cuda_runtime.h>

#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/small_results.cuh"
#include "kernels/cuda_util.h"
#include "kernels/handoff_memory.h"
#include "kernels/mcmc_relocate.h"

namespace splat::kernels {
namespace {

constexpr int kThreads = 256;

struct Weight {
  const float* logits;
  float min_opacity;
  __host__ __device__ uint64_t operator()(int64_t r) const { return mcmc_weight(logits[r], min_opacity); }
};

struct Dead {
  const float* logits;
  float min_opacity;
  __host__ __device__ bool operator()(int32_t r) const { return mcmc_weight(logits[r], min_opacity) == 0; }
};

__global__ void totals_kernel(const uint64_t* cum, int64_t n, const int32_t* dead_count, McmcLiving* out) {
  out->total = cum[n - 1];
  out->dead = *dead_count;
}

__global__ void draw_kernel(const uint64_t* cum, int64_t n, uint64_t total, uint64_t key, int64_t m, int32_t* sources,
                            int32_t* copies) {
  for (int64_t k = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; k < m; k += int64_t(gridDim.x) * blockDim.x) {
    const int32_t row = int32_t(mcmc_drawn_row(cum, n, mcmc_draw(key, uint64_t(k), total)));
    sources[k] = row;
    atomicAdd(copies + row, 1);
  }
}

__global__ void correct_kernel(const int32_t* copies, int64_t n, float min_opacity, float* logits, float* log_scales) {
  for (int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; r < n; r += int64_t(gridDim.x) * blockDim.x)
    if (copies[r] > 0) mcmc_correct(logits + r, log_scales + 3 * r, copies[r], min_opacity);
}

__global__ void keep_kernel(int64_t n, const int32_t* copies, int32_t* params, int32_t* moments) {
  for (int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; r < n; r += int64_t(gridDim.x) * blockDim.x)
    params[r] = int32_t(r), moments[r] = copies[r] > 0 ? -1 : int32_t(r);
}

__global__ void copy_kernel(int64_t n, const int32_t* targets, const int32_t* sources, int64_t m, int32_t* params,
                            int32_t* moments) {
  for (int64_t k = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; k < m; k += int64_t(gridDim.x) * blockDim.x) {
    const int64_t at = targets ? targets[k] : n + k;
    params[at] = sources[k];
    moments[at] = -1;
  }
}

cudaStream_t stream_of(const ComputeContext& where) { return static_cast<cudaStream_t>(where.stream); }

}  // namespace

McmcLiving mcmc_weigh(const ComputeContext& where, const float* opacity_logits, int64_t n, float min_opacity,
                      uint64_t* cum, int32_t* dead) {
  if (where.device == Device::CPU) return mcmc_weigh_reference(opacity_logits, n, min_opacity, cum, dead);
  if (n == 0) return {};
  const cuda::DeviceScope scope(where.ordinal);
  cudaStream_t stream = stream_of(where);
  auto weights = thrust::make_transform_iterator(thrust::counting_iterator<int64_t>(0), Weight{opacity_logits, min_opacity});
  auto rows = thrust::counting_iterator<int32_t>(0);
  size_t scan_bytes = 0, select_bytes = 0;
  cuda::check(cub::DeviceScan::InclusiveSum(nullptr, scan_bytes, weights, cum, n, stream), "sizing the weights' sums");
  cuda::check(cub::DeviceSelect::If(nullptr, select_bytes, rows, dead, static_cast<int32_t*>(nullptr), n,
                                    Dead{opacity_logits, min_opacity}, stream),
              "sizing the dead rows' selection");
  const size_t head = cuda::aligned_bytes(sizeof(McmcLiving)) + cuda::aligned_bytes(sizeof(int32_t));
  const HandoffBlock block(where, head + std::max(scan_bytes, select_bytes));
  auto* base = static_cast<unsigned char*>(block.data());
  auto* living = reinterpret_cast<McmcLiving*>(base);
  auto* dead_count = reinterpret_cast<int32_t*>(base + cuda::aligned_bytes(sizeof(McmcLiving)));
  cuda::check(cub::DeviceScan::InclusiveSum(base + head, scan_bytes, weights, cum, n, stream), "summing the weights");
  cuda::check(cub::DeviceSelect::If(base + head, select_bytes, rows, dead, dead_count, n, Dead{opacity_logits, min_opacity},
                                    stream),
              "listing the dead rows");
  totals_kernel<<<1, 1, 0, stream>>>(cum, n, dead_count, living);
  cuda::check_launch("relocation totals");
  const McmcLiving host = cuda::read_on_host(living, stream, "relocation: the dead rows and the live weight");
  block.used_on(where);
  return host;
}

void mcmc_draw_sources(const ComputeContext& where, const uint64_t* cum, int64_t n, uint64_t total, uint64_t key,
                       int64_t m, int32_t* sources, int32_t* copies) {
  if (where.device == Device::CPU) return mcmc_draw_sources_reference(cum, n, total, key, m, sources, copies);
  const cuda::DeviceScope scope(where.ordinal);
  cudaStream_t stream = stream_of(where);
  cuda::check(cudaMemsetAsync(copies, 0, size_t(n) * sizeof(int32_t), stream), "clearing the draw counts");
  if (m == 0) return;
  draw_kernel<<<cuda::stride_blocks(m, kThreads), kThreads, 0, stream>>>(cum, n, total, key, m, sources, copies);
  cuda::check_launch("relocation draws");
}

void mcmc_correct_sources(const ComputeContext& where, const int32_t* copies, int64_t n, float min_opacity,
                          float* opacity_logits, float* log_scales) {
  if (where.device == Device::CPU) return mcmc_correct_sources_reference(copies, n, min_opacity, opacity_logits, log_scales);
  if (n == 0) return;
  const cuda::DeviceScope scope(where.ordinal);
  correct_kernel<<<cuda::stride_blocks(n, kThreads), kThreads, 0, stream_of(where)>>>(copies, n, min_opacity,
                                                                                     opacity_logits, log_scales);
  cuda::check_launch("relocation corrections");
}

void mcmc_copy_lists(const ComputeContext& where, int64_t n, const int32_t* targets, const int32_t* sources, int64_t m,
                     const int32_t* copies, int32_t* params, int32_t* moments) {
  if (where.device == Device::CPU) return mcmc_copy_lists_reference(n, targets, sources, m, copies, params, moments);
  const cuda::DeviceScope scope(where.ordinal);
  cudaStream_t stream = stream_of(where);
  if (n > 0) keep_kernel<<<cuda::stride_blocks(n, kThreads), kThreads, 0, stream>>>(n, copies, params, moments);
  cuda::check_launch("relocation lists");
  if (m > 0) copy_kernel<<<cuda::stride_blocks(m, kThreads), kThreads, 0, stream>>>(n, targets, sources, m, params, moments);
  cuda::check_launch("relocation copies");
}

}  // namespace splat::kernels
