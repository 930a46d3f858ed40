// CUDA backend of packing and unpacking records, and the device-agnostic entry points. A block
// moves a tile of rows through shared memory, so that both sides are coalesced: consecutive threads
// read (or write) consecutive words of each column, and consecutive words of the tile's records.
// Indices inside a tile are 32-bit (record_word divides by a field's width in int32).
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda_util.h"
#include "kernels/records.h"

namespace splat::kernels {
namespace {

constexpr int kThreads = 256;
constexpr int kTileWords = 4096;  // 16 KiB of shared memory a block: the tile's records

// Rows of a tile: as many records as fit in kTileWords (at least one).
int tile_rows(int record_words) { return std::max(1, kTileWords / record_words); }

__global__ void pack_kernel(RecordSources from, uint32_t* records, int64_t rows, int tile) {
  extern __shared__ uint32_t words[];
  const int64_t first = int64_t(blockIdx.x) * tile;
  const int n = int(min(int64_t(tile), rows - first));
  for (int k = 0; k < from.count; ++k) {
    const uint32_t* column = from.columns[k] + first * from.words[k];
    for (int i = threadIdx.x; i < n * from.words[k]; i += blockDim.x)
      words[record_word(i, from.words[k], from.starts[k], from.record_words)] = column[i];
  }
  __syncthreads();
  uint32_t* out = records + first * from.record_words;
  for (int i = threadIdx.x; i < n * from.record_words; i += blockDim.x) out[i] = words[i];
}

__global__ void unpack_kernel(const uint32_t* records, RecordTargets to, int64_t rows, int tile) {
  extern __shared__ uint32_t words[];
  const int64_t first = int64_t(blockIdx.x) * tile;
  const int n = int(min(int64_t(tile), rows - first));
  const uint32_t* in = records + first * to.record_words;
  for (int i = threadIdx.x; i < n * to.record_words; i += blockDim.x) words[i] = in[i];
  __syncthreads();
  for (int k = 0; k < to.count; ++k) {
    uint32_t* column = to.columns[k] + first * to.words[k];
    for (int i = threadIdx.x; i < n * to.words[k]; i += blockDim.x)
      column[i] = words[record_word(i, to.words[k], to.starts[k], to.record_words)];
  }
}

// Indexed records: a thread per record word (word 0 the row number), so that the record side is
// coalesced; the column side is a gather (scatter) by row.
__global__ void pack_indexed_kernel(RecordSources from, const int32_t* row_of, int64_t n, uint32_t* records) {
  const int W = 1 + from.record_words;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n * W; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t r = i / W;
    const int w = int(i - r * W);
    const int32_t row = row_of[r];
    if (w == 0) {
      records[i] = uint32_t(row);
    } else if (row >= 0) {
      int f = 0, v = 0;
      indexed_record_field(from, w - 1, f, v);
      records[i] = from.columns[f][int64_t(row) * from.words[f] + v];
    }
  }
}

__global__ void unpack_indexed_kernel(const uint32_t* records, int64_t n, RecordTargets to, int32_t* row_of) {
  const int W = 1 + to.record_words;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n * W; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t r = i / W;
    const int w = int(i - r * W);
    const int32_t row = int32_t(records[r * W]);
    if (w == 0) {
      if (row_of) row_of[r] = row;
    } else if (row >= 0) {
      int f = 0, v = 0;
      indexed_record_field(to, w - 1, f, v);
      to.columns[f][int64_t(row) * to.words[f] + v] = records[i];
    }
  }
}

struct Flagged {
  const int32_t* flags;
  __device__ bool operator()(int32_t r) const { return flags[r] > 0; }
};

// Checks the shape, then runs the CPU reference or launches `kernel` with one block per tile.
template <class Word, class Reference, class Kernel, class... Args>
void run(const char* what, const ComputeContext& where, const BasicRecordFields<Word>& f, int64_t rows,
         Reference reference, Kernel kernel, Args... args) {
  if (rows < 0 || (rows > 0 && f.record_words < 1))
    throw std::invalid_argument(std::string(what) + ": " + std::to_string(rows) + " rows of " +
                                std::to_string(f.record_words) + "-word records");
  if (f.record_words > kTileWords)
    throw std::invalid_argument(std::string(what) + ": records of " + std::to_string(f.record_words) +
                                " words, more than the " + std::to_string(kTileWords) + " a tile holds");
  if (where.device == Device::CPU) return reference();
  if (rows == 0) return;
  const int tile = tile_rows(f.record_words);
  const int64_t blocks = (rows + tile - 1) / tile;
  if (blocks > 0x7fffffff) throw std::invalid_argument(std::string(what) + ": too many rows");
  const cuda::DeviceScope scope(where.ordinal);
  const size_t shared = size_t(tile) * size_t(f.record_words) * sizeof(uint32_t);
  kernel<<<unsigned(blocks), kThreads, shared, static_cast<cudaStream_t>(where.stream)>>>(args..., rows, tile);
  cuda::check_launch(what);
}

}  // namespace

void pack_records(const ComputeContext& where, const RecordSources& from, int64_t rows, uint32_t* records) {
  run("pack_records", where, from, rows, [&] { pack_records_reference(from, rows, records); }, pack_kernel, from,
      records);
}

void unpack_records(const ComputeContext& where, const uint32_t* records, int64_t rows, const RecordTargets& to) {
  run("unpack_records", where, to, rows, [&] { unpack_records_reference(records, rows, to); }, unpack_kernel, records,
      to);
}

void select_rows(const ComputeContext& where, const int32_t* flags, int64_t n, int32_t* row_of, int64_t* count) {
  if (n < 0 || n >= (int64_t(1) << 31)) throw std::invalid_argument("select_rows: " + std::to_string(n) + " rows");
  if (where.device == Device::CPU) return select_rows_reference(flags, n, row_of, count);
  const cuda::DeviceScope scope(where.ordinal);
  const auto stream = static_cast<cudaStream_t>(where.stream);
  cuda::check(cudaMemsetAsync(row_of, 0xff, size_t(n) * sizeof(int32_t), stream), "select_rows: clearing");
  if (n == 0) {
    cuda::check(cudaMemsetAsync(count, 0, sizeof(int64_t), stream), "select_rows: no rows");
    return;
  }
  const thrust::counting_iterator<int32_t> rows(0);
  size_t bytes = 0;
  cuda::check(cub::DeviceSelect::If(nullptr, bytes, rows, row_of, count, int(n), Flagged{flags}, stream),
              "select_rows: sizing");
  // Stream-ordered scratch from the device's pool: no synchronisation, reused from step to step.
  void* temp = nullptr;
  cuda::check(cudaMallocAsync(&temp, bytes, stream), "select_rows: scratch");
  cuda::check(cub::DeviceSelect::If(temp, bytes, rows, row_of, count, int(n), Flagged{flags}, stream), "select_rows");
  cuda::check(cudaFreeAsync(temp, stream), "select_rows: freeing scratch");
}

void pack_indexed_records(const ComputeContext& where, const RecordSources& from, const int32_t* row_of, int64_t n,
                          uint32_t* records) {
  if (where.device == Device::CPU) return pack_indexed_records_reference(from, row_of, n, records);
  if (n <= 0) return;
  const cuda::DeviceScope scope(where.ordinal);
  const int64_t words = n * (1 + from.record_words);
  pack_indexed_kernel<<<unsigned(std::min<int64_t>((words + kThreads - 1) / kThreads, 1 << 16)), kThreads, 0,
                        static_cast<cudaStream_t>(where.stream)>>>(from, row_of, n, records);
  cuda::check_launch("pack_indexed_records");
}

void unpack_indexed_records(const ComputeContext& where, const uint32_t* records, int64_t n, const RecordTargets& to,
                            int32_t* row_of) {
  if (where.device == Device::CPU) return unpack_indexed_records_reference(records, n, to, row_of);
  if (n <= 0) return;
  const cuda::DeviceScope scope(where.ordinal);
  const int64_t words = n * (1 + to.record_words);
  unpack_indexed_kernel<<<unsigned(std::min<int64_t>((words + kThreads - 1) / kThreads, 1 << 16)), kThreads, 0,
                          static_cast<cudaStream_t>(where.stream)>>>(records, n, to, row_of);
  cuda::check_launch("unpack_indexed_records");
}

void copy_record_columns(const ComputeContext& where, const RecordSources& from, int64_t rows, const RecordTargets& to) {
  bool same = from.count == to.count && rows >= 0;
  for (int k = 0; same && k < from.count; ++k) same = from.words[k] == to.words[k];
  if (!same)
    throw std::invalid_argument("copy_record_columns: " + std::to_string(rows) + " rows between records of " +
                                std::to_string(from.count) + " and " + std::to_string(to.count) +
                                " fields that do not match");
  if (where.device == Device::CPU) return copy_record_columns_reference(from, rows, to);
  if (rows == 0) return;
  const cuda::DeviceScope scope(where.ordinal);
  for (int k = 0; k < from.count; ++k)
    cuda::check(cudaMemcpyAsync(to.columns[k], from.columns[k], size_t(rows) * size_t(from.words[k]) * 4,
                                cudaMemcpyDeviceToDevice, static_cast<cudaStream_t>(where.stream)),
                "copy_record_columns: copying a column");
}

}  // namespace splat::kernels
