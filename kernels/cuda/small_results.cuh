#pragma once
// The few values a device plan hands back to the host (a refinement's row counts, a bounding box), and
// the scratch their CUB calls carve from one pooled block: shared by the plans' CUDA backends.
#include <cuda_runtime.h>

#include <cstddef>

#include "kernels/cuda/cuda_check.cuh"
#include "kernels/host_waits.h"

namespace splat::kernels::cuda {

// Bytes rounded up so that the arrays carved one after another from a block stay aligned.
inline size_t aligned_bytes(size_t bytes) { return (bytes + 255) / 256 * 256; }

// *value, once `stream` has computed it: a host wait, counted as `what` (kernels/host_waits.h).
template <class T>
T read_on_host(const T* value, cudaStream_t stream, const char* what) {
  T host;
  check(cudaMemcpyAsync(&host, value, sizeof host, cudaMemcpyDeviceToHost, stream), what);
  note_host_wait(what);
  check(cudaStreamSynchronize(stream), what);
  return host;
}

}  // namespace splat::kernels::cuda
