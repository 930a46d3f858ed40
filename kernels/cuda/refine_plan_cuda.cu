// CUDA backend of the device-planned refinement (kernels/refine_plan.h): one thread per row over the
// shared per-row bodies, CUB's scans for the places and its stable radix sort for a growth room, and
// the device-agnostic entry points, which see both backends.
#include <cuda_runtime.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/small_results.cuh"
#include "kernels/cuda_util.h"
#include "kernels/handoff_memory.h"
#include "kernels/refine_plan.h"

namespace splat::kernels {
namespace {

constexpr int kThreads = 256;

int blocks_for(int64_t n) { return cuda::stride_blocks(n, kThreads); }

#define FOR_EACH_ROW(r, n) \
  for (int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; r < (n); r += int64_t(gridDim.x) * blockDim.x)

__global__ void room_keys_kernel(RefineColumns in, RefineRule rule, uint32_t* key, int32_t* row) {
  FOR_EACH_ROW(r, in.rows) {
    key[r] = refine_room_key(rule, in.grad_sum[r], in.visible_count[r]);
    row[r] = int32_t(r);
  }
}

// grows[row] for the first `room` rows of the sorted order that are candidates (grows zeroed before).
__global__ void room_grows_kernel(const uint32_t* sorted_key, const int32_t* sorted_row, int64_t room, uint8_t* grows) {
  FOR_EACH_ROW(i, room) {
    if (sorted_key[i] != 0) grows[sorted_row[i]] = 1;
  }
}

// grows: null when there is no room limit (every candidate grows).
__global__ void codes_kernel(RefineColumns in, RefineRule rule, const uint8_t* grows, uint8_t* code) {
  FOR_EACH_ROW(r, in.rows) {
    const bool grow = grows ? grows[r] != 0 : refine_candidate(rule, in.grad_sum[r], in.visible_count[r]);
    code[r] = refine_code(rule, grow, in.opacity_logits[r], in.log_scales + 3 * r, in.max_radius ? in.max_radius + r : nullptr);
  }
}

struct KeepBit {
  uint8_t bit;
  __host__ __device__ int32_t operator()(uint8_t c) const { return (c & bit) ? 1 : 0; }
};

__global__ void totals_kernel(const uint8_t* code, const int32_t* at, int64_t n, RefineCounts* totals) {
  const uint8_t bit[3] = {kRefineKeepOld, kRefineKeepClone, kRefineKeepSecond};
  int64_t t[3];
  for (int k = 0; k < 3; ++k) t[k] = int64_t(at[k * n + n - 1]) + ((code[n - 1] & bit[k]) ? 1 : 0);
  *totals = {t[0], t[1], t[2]};
}

__global__ void sources_kernel(const uint8_t* code, const int32_t* at, int64_t n, int64_t kept_old, int64_t kept_clones,
                               int32_t* params, int32_t* moments) {
  FOR_EACH_ROW(r, n) {
    const uint8_t c = code[r];
    const RefinePlaces p = refine_places(at, r, n, kept_old, kept_clones);
    const int32_t row = int32_t(r);
    if (c & kRefineKeepOld) params[p.own] = row, moments[p.own] = (c & kRefineSplit) ? -1 : row;
    if (c & kRefineKeepClone) params[p.clone] = row, moments[p.clone] = -1;
    if (c & kRefineKeepSecond) params[p.second] = row, moments[p.second] = -1;
  }
}

__global__ void grown_kernel(const uint8_t* code, const int32_t* at, int64_t n, int64_t kept_old, int64_t kept_clones,
                             RefineGrown g) {
  FOR_EACH_ROW(r, n) { refine_grown_row(code[r], refine_places(at, r, n, kept_old, kept_clones), r, g); }
}

cudaStream_t stream_of(const ComputeContext& where) { return static_cast<cudaStream_t>(where.stream); }


}  // namespace

void refine_codes(const ComputeContext& where, const RefineColumns& in, const RefineRule& rule, int64_t room,
                  uint8_t* code) {
  if (where.device == Device::CPU) return refine_codes_reference(in, rule, room, code);
  const int64_t n = in.rows;
  if (n == 0) return;
  const cuda::DeviceScope scope(where.ordinal);
  cudaStream_t stream = stream_of(where);
  if (room < 0) {
    codes_kernel<<<blocks_for(n), kThreads, 0, stream>>>(in, rule, nullptr, code);
    return cuda::check_launch("refinement codes");
  }
  // A growth room: the candidates in order of their key (stable, so ties keep row order), the first
  // `room` of them grow.
  size_t sort_bytes = 0;
  cuda::check(cub::DeviceRadixSort::SortPairsDescending(nullptr, sort_bytes, static_cast<uint32_t*>(nullptr),
                                                        static_cast<uint32_t*>(nullptr), static_cast<int32_t*>(nullptr),
                                                        static_cast<int32_t*>(nullptr), int(n), 0, 32, stream),
              "sizing the growth room's sort");
  const size_t keys = cuda::aligned_bytes(size_t(n) * 4), grows = cuda::aligned_bytes(size_t(n));
  const HandoffBlock block(where, 4 * keys + grows + sort_bytes);
  auto* base = static_cast<unsigned char*>(block.data());
  auto* key_in = reinterpret_cast<uint32_t*>(base);
  auto* key_out = reinterpret_cast<uint32_t*>(base + keys);
  auto* row_in = reinterpret_cast<int32_t*>(base + 2 * keys);
  auto* row_out = reinterpret_cast<int32_t*>(base + 3 * keys);
  auto* grow = base + 4 * keys;
  room_keys_kernel<<<blocks_for(n), kThreads, 0, stream>>>(in, rule, key_in, row_in);
  cuda::check_launch("growth room keys");
  cuda::check(cub::DeviceRadixSort::SortPairsDescending(base + 4 * keys + grows, sort_bytes, key_in, key_out, row_in,
                                                        row_out, int(n), 0, 32, stream),
              "sorting the growth candidates");
  cuda::check(cudaMemsetAsync(grow, 0, size_t(n), stream), "clearing the growth flags");
  const int64_t first = std::min(room, n);
  if (first > 0) {
    room_grows_kernel<<<blocks_for(first), kThreads, 0, stream>>>(key_out, row_out, first, grow);
    cuda::check_launch("growth within the room");
  }
  codes_kernel<<<blocks_for(n), kThreads, 0, stream>>>(in, rule, grow, code);
  cuda::check_launch("refinement codes");
  block.used_on(where);
}

RefineCounts refine_places(const ComputeContext& where, const uint8_t* code, int64_t n, int32_t* at) {
  if (where.device == Device::CPU) return refine_places_reference(code, n, at);
  if (n == 0) return {};
  const cuda::DeviceScope scope(where.ordinal);
  cudaStream_t stream = stream_of(where);
  const uint8_t bits[3] = {kRefineKeepOld, kRefineKeepClone, kRefineKeepSecond};
  size_t scan_bytes = 0;
  cuda::check(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, thrust::make_transform_iterator(code, KeepBit{1}), at,
                                            n, stream),
              "sizing the refinement's scans");
  const size_t head = cuda::aligned_bytes(sizeof(RefineCounts));
  const HandoffBlock block(where, head + scan_bytes);
  auto* totals = static_cast<RefineCounts*>(block.data());
  void* temp = static_cast<unsigned char*>(block.data()) + head;
  for (int k = 0; k < 3; ++k)
    cuda::check(cub::DeviceScan::ExclusiveSum(temp, scan_bytes, thrust::make_transform_iterator(code, KeepBit{bits[k]}),
                                              at + k * n, n, stream),
                "placing the refinement's rows");
  totals_kernel<<<1, 1, 0, stream>>>(code, at, n, totals);
  cuda::check_launch("refinement totals");
  const RefineCounts counts = cuda::read_on_host(totals, stream, "refinement: the plan's row counts");
  block.used_on(where);
  return counts;
}

void refine_sources(const ComputeContext& where, const uint8_t* code, const int32_t* at, int64_t n,
                    const RefineCounts& counts, int32_t* params, int32_t* moments) {
  if (where.device == Device::CPU) return refine_sources_reference(code, at, n, counts, params, moments);
  if (n == 0) return;
  const cuda::DeviceScope scope(where.ordinal);
  sources_kernel<<<blocks_for(n), kThreads, 0, stream_of(where)>>>(code, at, n, counts.kept_old, counts.kept_clones,
                                                                   params, moments);
  cuda::check_launch("refinement sources");
}

void refine_grown_rows(const ComputeContext& where, const uint8_t* code, const int32_t* at, int64_t n,
                       const RefineCounts& counts, const RefineGrown& grown) {
  if (where.device == Device::CPU) return refine_grown_rows_reference(code, at, n, counts, grown);
  if (n == 0) return;
  const cuda::DeviceScope scope(where.ordinal);
  grown_kernel<<<blocks_for(n), kThreads, 0, stream_of(where)>>>(code, at, n, counts.kept_old, counts.kept_clones,
                                                                 grown);
  cuda::check_launch("grown rows");
}

}  // namespace splat::kernels
