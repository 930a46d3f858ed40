// CPU reference of the row operations: plain loops over the elements, the same per-element
// functions as the CUDA kernels (kernels/row_ops_math.h).
#include "kernels/row_ops.h"
#include "kernels/row_ops_math.h"

namespace splat::kernels {

template <class T>
void gather_rows_reference(T* dst, const T* src, int width, const int32_t* index, int64_t n_out) {
  const int64_t count = n_out * width;
  for (int64_t e = 0; e < count; ++e) dst[e] = gathered_element(src, width, index, e);
}
template void gather_rows_reference<float>(float*, const float*, int, const int32_t*, int64_t);
template void gather_rows_reference<uint16_t>(uint16_t*, const uint16_t*, int, const int32_t*, int64_t);
template void gather_rows_reference<int32_t>(int32_t*, const int32_t*, int, const int32_t*, int64_t);

void cap_values_reference(float* v, int64_t n, float cap) {
  for (int64_t i = 0; i < n; ++i) v[i] = capped(v[i], cap);
}

void sum_slices_reference(const float* slices, int count, int64_t n, float* out) {
  for (int64_t i = 0; i < n; ++i) out[i] = slice_sum(slices, count, n, i);
}

}  // namespace splat::kernels
