// CUDA backend of packing and unpacking records, and the device-agnostic entry points. A block
// moves a tile of rows through shared memory, so that both sides are coalesced: consecutive threads
// read (or write) consecutive words of each column, and consecutive words of the tile's records.
// Indices inside a tile are 32-bit (record_word divides by a field's width in int32).
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
