// CUDA backend of the Morton ordering (kernels/morton.h): CUB's reduction for the box and its stable
// radix sort over the codes, and the device-agnostic entry points, which see both backends.
#include <cuda_runtime.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cmath>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/small_results.cuh"
#include "kernels/cuda_util.h"
#include "kernels/handoff_memory.h"
#include "kernels/morton.h"

namespace splat::kernels {
namespace {

constexpr int kThreads = 256;

struct RowBox {
  const float* means;
  __host__ __device__ MortonBox operator()(int64_t i) const {
    MortonBox b;
    for (int a = 0; a < 3; ++a) b.lo[a] = b.hi[a] = means[3 * i + a];
    return b;
  }
};

struct Widen {
  __host__ __device__ MortonBox operator()(const MortonBox& x, const MortonBox& y) const {
    MortonBox b;
    for (int a = 0; a < 3; ++a) b.lo[a] = fminf(x.lo[a], y.lo[a]), b.hi[a] = fmaxf(x.hi[a], y.hi[a]);
    return b;
  }
};

__global__ void codes_kernel(const float* means, int64_t n, MortonBox box, uint32_t* code, int32_t* row) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    code[i] = morton_code(means + 3 * i, box);
    row[i] = int32_t(i);
  }
}


}  // namespace

MortonBox bounding_box(const ComputeContext& where, const float* means, int64_t n) {
  if (where.device == Device::CPU) return bounding_box_reference(means, n);
  if (n == 0) return {};
  const cuda::DeviceScope scope(where.ordinal);
  cudaStream_t stream = static_cast<cudaStream_t>(where.stream);
  auto rows = thrust::make_transform_iterator(thrust::counting_iterator<int64_t>(0), RowBox{means});
  MortonBox empty;
  for (int a = 0; a < 3; ++a) empty.lo[a] = INFINITY, empty.hi[a] = -INFINITY;
  size_t bytes = 0;
  cuda::check(cub::DeviceReduce::Reduce(nullptr, bytes, rows, static_cast<MortonBox*>(nullptr), n, Widen{}, empty, stream),
              "sizing the bounding box");
  const HandoffBlock block(where, cuda::aligned_bytes(sizeof(MortonBox)) + bytes);
  auto* box = static_cast<MortonBox*>(block.data());
  cuda::check(cub::DeviceReduce::Reduce(static_cast<unsigned char*>(block.data()) + cuda::aligned_bytes(sizeof(MortonBox)), bytes,
                                        rows, box, n, Widen{}, empty, stream),
              "the means' bounding box");
  const MortonBox host = cuda::read_on_host(box, stream, "the means' bounding box");
  block.used_on(where);
  return host;
}

void morton_order(const ComputeContext& where, const float* means, int64_t n, const MortonBox& box, int32_t* order) {
  if (where.device == Device::CPU) return morton_order_reference(means, n, box, order);
  if (n == 0) return;
  const cuda::DeviceScope scope(where.ordinal);
  cudaStream_t stream = static_cast<cudaStream_t>(where.stream);
  size_t bytes = 0;
  cuda::check(cub::DeviceRadixSort::SortPairs(nullptr, bytes, static_cast<uint32_t*>(nullptr), static_cast<uint32_t*>(nullptr),
                                              static_cast<int32_t*>(nullptr), static_cast<int32_t*>(nullptr), int(n), 0, 30,
                                              stream),
              "sizing the Morton sort");
  const size_t words = cuda::aligned_bytes(size_t(n) * 4);
  const HandoffBlock block(where, 3 * words + bytes);
  auto* base = static_cast<unsigned char*>(block.data());
  auto* code_in = reinterpret_cast<uint32_t*>(base);
  auto* code_out = reinterpret_cast<uint32_t*>(base + words);
  auto* row_in = reinterpret_cast<int32_t*>(base + 2 * words);
  codes_kernel<<<cuda::stride_blocks(n, kThreads), kThreads, 0, stream>>>(means, n, box, code_in, row_in);
  cuda::check_launch("Morton codes");
  cuda::check(cub::DeviceRadixSort::SortPairs(base + 3 * words, bytes, code_in, code_out, row_in, order, int(n), 0, 30,
                                              stream),
              "sorting rows along the Morton curve");
  block.used_on(where);
}

}  // namespace splat::kernels
