// CUDA backend of the row operations: one thread per element in grid-stride loops (they are
// pure memory traffic), and the device-agnostic entry points, which see both backends.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda_util.h"
#include "kernels/row_ops.h"
#include "kernels/row_ops_math.h"

namespace splat::kernels {
namespace {

constexpr int kThreads = 256;

template <class T>
__global__ void gather_kernel(T* dst, const T* src, int width, const int32_t* index, int64_t count) {
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < count; e += int64_t(gridDim.x) * blockDim.x)
    dst[e] = gathered_element(src, width, index, e);
}

__global__ void cap_kernel(float* v, int64_t n, float cap) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    v[i] = capped(v[i], cap);
}

__global__ void sum_slices_kernel(const float* slices, int count, int64_t n, float* out) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    out[i] = slice_sum(slices, count, n, i);
}

void check_shape(const char* what, int width, int64_t rows) {
  if (width < 0 || rows < 0)
    throw std::invalid_argument(std::string(what) + ": bad shape, width " + std::to_string(width) + ", rows " +
                                std::to_string(rows));
}

template <class T>
void gather_any(const ComputeContext& where, T* dst, const T* src, int width, const int32_t* index, int64_t n_out) {
  check_shape("gather_rows", width, n_out);
  if (where.device == Device::CPU) return gather_rows_reference(dst, src, width, index, n_out);
  const int64_t count = n_out * width;
  if (count == 0) return;
  const cuda::DeviceScope scope(where.ordinal);
  gather_kernel<<<cuda::stride_blocks(count, kThreads), kThreads, 0, static_cast<cudaStream_t>(where.stream)>>>(
      dst, src, width, index, count);
  cuda::check_launch("gather_rows");
}

}  // namespace

void gather_rows(const ComputeContext& where, float* dst, const float* src, int width, const int32_t* index,
                 int64_t n_out) {
  gather_any(where, dst, src, width, index, n_out);
}

void gather_rows(const ComputeContext& where, uint16_t* dst, const uint16_t* src, int width, const int32_t* index,
                 int64_t n_out) {
  gather_any(where, dst, src, width, index, n_out);
}

void gather_rows(const ComputeContext& where, int32_t* dst, const int32_t* src, int width, const int32_t* index,
                 int64_t n_out) {
  gather_any(where, dst, src, width, index, n_out);
}

void cap_values(const ComputeContext& where, float* v, int64_t n, float cap) {
  check_shape("cap_values", 1, n);
  if (where.device == Device::CPU) return cap_values_reference(v, n, cap);
  if (n == 0) return;
  const cuda::DeviceScope scope(where.ordinal);
  cap_kernel<<<cuda::stride_blocks(n, kThreads), kThreads, 0, static_cast<cudaStream_t>(where.stream)>>>(v, n, cap);
  cuda::check_launch("cap_values");
}

void sum_slices(const ComputeContext& where, const float* slices, int count, int64_t n, float* out) {
  check_shape("sum_slices", 1, n);
  if (where.device == Device::CPU) return sum_slices_reference(slices, count, n, out);
  if (n == 0) return;
  const cuda::DeviceScope scope(where.ordinal);
  sum_slices_kernel<<<cuda::stride_blocks(n, kThreads), kThreads, 0, static_cast<cudaStream_t>(where.stream)>>>(
      slices, count, n, out);
  cuda::check_launch("sum_slices");
}

}  // namespace splat::kernels
