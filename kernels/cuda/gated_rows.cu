// CUDA backend of the gated row copy and its run counts (kernels/gated_rows.h), and the
// device-agnostic entry points. The copy is a grid-stride loop over rows, one row of every column per
// thread, so that each column's accesses are coalesced across a warp; where the destinations lie on a
// peer GPU, only the rows the gate keeps (and the zeroed column) are written over the link.
#include <cuda_runtime.h>

#include <algorithm>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda_util.h"
#include "kernels/gated_rows.h"

namespace splat::kernels {
namespace {

constexpr int kThreads = 256;

struct Columns {
  RowColumn c[kMostRowColumns];
  int n;
};

struct Runs {
  int64_t start[kMostRuns], length[kMostRuns];
};

__global__ void gated_copy_kernel(Columns columns, int64_t rows, const int32_t* gate) {
  for (int64_t r = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; r < rows; r += int64_t(gridDim.x) * blockDim.x)
    copy_gated_row(columns.c, columns.n, r, gate);
}

// Block (x, k) counts its share of run k; one atomic add per warp.
__global__ void gated_count_kernel(const int32_t* gate, Runs runs, int64_t* counts) {
  const int k = blockIdx.y;
  int n = 0;
  for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < runs.length[k]; i += int64_t(gridDim.x) * blockDim.x)
    n += gate[runs.start[k] + i] != 0;
  for (int off = 16; off > 0; off /= 2) n += __shfl_down_sync(0xffffffffu, n, off);
  if ((threadIdx.x & 31) == 0 && n) atomicAdd(reinterpret_cast<unsigned long long*>(counts + k), (unsigned long long)n);
}

// Enough blocks to fill the device a few times over, no more (grid-stride loops do the rest).
unsigned blocks_for(int64_t rows) { return unsigned(std::min<int64_t>(cuda::stride_blocks(rows, kThreads), 4096)); }

}  // namespace

void copy_gated_rows(const ComputeContext& where, std::span<const RowColumn> columns, int64_t rows,
                     const int32_t* gate) {
  if (where.device == Device::CPU) return copy_gated_rows_reference(columns, rows, gate);
  check_gated_rows(columns, rows);
  if (rows == 0) return;
  Columns cs{};
  for (size_t k = 0; k < columns.size(); ++k) cs.c[k] = columns[k];
  cs.n = int(columns.size());
  const cuda::DeviceScope scope(where.ordinal);
  gated_copy_kernel<<<blocks_for(rows), kThreads, 0, static_cast<cudaStream_t>(where.stream)>>>(cs, rows, gate);
  cuda::check_launch("copy_gated_rows");
}

void count_gated_runs(const ComputeContext& where, const int32_t* gate, std::span<const int64_t> starts,
                      std::span<const int64_t> lengths, int64_t* counts) {
  if (where.device == Device::CPU) return count_gated_runs_reference(gate, starts, lengths, counts);
  check_gated_runs(starts, lengths);
  if (starts.empty()) return;
  Runs runs{};
  int64_t longest = 1;
  for (size_t k = 0; k < starts.size(); ++k) {
    runs.start[k] = starts[k];
    runs.length[k] = lengths[k];
    longest = std::max(longest, lengths[k]);
  }
  const cuda::DeviceScope scope(where.ordinal);
  const auto stream = static_cast<cudaStream_t>(where.stream);
  cuda::check(cudaMemsetAsync(counts, 0, starts.size() * sizeof(int64_t), stream), "clearing gated run counts");
  const dim3 grid(std::min<unsigned>(cuda::stride_blocks(longest, kThreads), 512), unsigned(starts.size()));
  gated_count_kernel<<<grid, kThreads, 0, stream>>>(gate, runs, counts);
  cuda::check_launch("count_gated_runs");
}

}  // namespace splat::kernels
