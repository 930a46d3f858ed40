#pragma once
// Row-wise structural edits of column buffers, on the device that holds them. A refinement step
// (clone, split, prune) rebuilds every parameter, moment and statistic column with the same row
// mapping; doing it where the columns live avoids moving the whole model through the host.
// Rows are `width` contiguous floats (or 2-byte values for gather_rows); row indices are int32 (the trainer stays below 2^31 rows).
#include <cstddef>
#include <cstdint>

#include "kernels/device_context.h"

namespace splat::kernels {

// Rows may be empty (width 0: a column that SH degree 0 leaves empty).
// dst row i = src row index[i] for i < n_out; index -1 writes a row of zeros (e.g. the Adam
// moments of a new Gaussian). dst and src must not overlap. On CUDA it is enqueued on the
// context's device and stream, not waited for; index lives in `where` like the columns.
void gather_rows(const ComputeContext& where, float* dst, const float* src, int width, const int32_t* index,
                 int64_t n_out);
// The same for columns of 2-byte values (bf16 storage), `width` of them per row.
void gather_rows(const ComputeContext& where, uint16_t* dst, const uint16_t* src, int width, const int32_t* index,
                 int64_t n_out);
// The same for int32 values: lists of rows, such as a gather's own lists put in another order.
void gather_rows(const ComputeContext& where, int32_t* dst, const int32_t* src, int width, const int32_t* index,
                 int64_t n_out);
// The float or 2-byte one by element size (4: fp32, 2: 2-byte encodings), for callers that move stored
// values as they are whatever their precision.
inline void gather_rows(const ComputeContext& where, void* dst, const void* src, size_t element_bytes, int width,
                        const int32_t* index, int64_t n_out) {
  if (element_bytes == 2)
    gather_rows(where, static_cast<uint16_t*>(dst), static_cast<const uint16_t*>(src), width, index, n_out);
  else
    gather_rows(where, static_cast<float*>(dst), static_cast<const float*>(src), width, index, n_out);
}

// v[i] = min(v[i], cap) for i < n: the opacity reset caps every logit at logit(max opacity).
void cap_values(const ComputeContext& where, float* v, int64_t n, float cap);

// out[i] = the sum over k < count of slices[k * n + i], in order of k, for i < n: the ranks' copies of a
// small array summed alike on every rank (out may not overlap slices).
void sum_slices(const ComputeContext& where, const float* slices, int count, int64_t n, float* out);

// CPU references (the device-agnostic entry points above call these for Device::CPU).
template <class T>
void gather_rows_reference(T* dst, const T* src, int width, const int32_t* index, int64_t n_out);
void cap_values_reference(float* v, int64_t n, float cap);
void sum_slices_reference(const float* slices, int count, int64_t n, float* out);

}  // namespace splat::kernels
