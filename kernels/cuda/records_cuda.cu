// CUDA backend of packing and unpacking records: one thread per record word in grid-stride loops
// (consecutive threads touch consecutive record words, so the records side is coalesced), and the
// device-agnostic entry points.
#include <cuda_runtime.h>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/cuda/device_scope.cuh"
#include "kernels/records.h"

namespace splat::kernels {
namespace {

constexpr int kThreads = 256;

__global__ void pack_kernel(RecordSources from, int64_t words, uint32_t* records) {
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < words; e += int64_t(gridDim.x) * blockDim.x)
    records[e] = *column_word(from, e);
}

__global__ void unpack_kernel(const uint32_t* records, int64_t words, RecordTargets to) {
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < words; e += int64_t(gridDim.x) * blockDim.x)
    *column_word(to, e) = records[e];
}

template <class Word>
void check_fields(const char* what, const BasicRecordFields<Word>& f, int64_t rows) {
  if (rows < 0 || (rows > 0 && f.record_words < 1))
    throw std::invalid_argument(std::string(what) + ": " + std::to_string(rows) + " rows of " +
                                std::to_string(f.record_words) + "-word records");
}

}  // namespace

void pack_records(const ComputeContext& where, const RecordSources& from, int64_t rows, uint32_t* records) {
  check_fields("pack_records", from, rows);
  if (where.device == Device::CPU) return pack_records_reference(from, rows, records);
  const int64_t words = rows * from.record_words;
  if (words == 0) return;
  const cuda::DeviceScope scope(where.ordinal);
  pack_kernel<<<cuda::stride_blocks(words, kThreads), kThreads, 0, static_cast<cudaStream_t>(where.stream)>>>(
      from, words, records);
  cuda::check_launch("pack_records");
}

void unpack_records(const ComputeContext& where, const uint32_t* records, int64_t rows, const RecordTargets& to) {
  check_fields("unpack_records", to, rows);
  if (where.device == Device::CPU) return unpack_records_reference(records, rows, to);
  const int64_t words = rows * to.record_words;
  if (words == 0) return;
  const cuda::DeviceScope scope(where.ordinal);
  unpack_kernel<<<cuda::stride_blocks(words, kThreads), kThreads, 0, static_cast<cudaStream_t>(where.stream)>>>(
      records, words, to);
  cuda::check_launch("unpack_records");
}

}  // namespace splat::kernels
