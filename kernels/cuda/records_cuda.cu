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

__global__ void pack_kernel(RecordSources from, uint32_t* records, int64_t words) {
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < words; e += int64_t(gridDim.x) * blockDim.x)
    records[e] = *column_word(from, e);
}

__global__ void unpack_kernel(const uint32_t* records, RecordTargets to, int64_t words) {
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < words; e += int64_t(gridDim.x) * blockDim.x)
    *column_word(to, e) = records[e];
}

// Checks the shape, then runs the CPU reference or launches `kernel` over the records' words.
template <class Word, class Reference, class Kernel, class... Args>
void run(const char* what, const ComputeContext& where, const BasicRecordFields<Word>& f, int64_t rows,
         Reference reference, Kernel kernel, Args... args) {
  if (rows < 0 || (rows > 0 && f.record_words < 1))
    throw std::invalid_argument(std::string(what) + ": " + std::to_string(rows) + " rows of " +
                                std::to_string(f.record_words) + "-word records");
  if (where.device == Device::CPU) return reference();
  const int64_t words = rows * f.record_words;
  if (words == 0) return;
  const cuda::DeviceScope scope(where.ordinal);
  kernel<<<cuda::stride_blocks(words, kThreads), kThreads, 0, static_cast<cudaStream_t>(where.stream)>>>(args..., words);
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

}  // namespace splat::kernels
