#pragma once
// Per-element bodies of the row operations (kernels/row_ops.h), shared by the CPU reference and
// the CUDA kernels so that both compute the same function.
#include <cstdint>

#include "kernels/hd.h"

namespace splat::kernels {

// Element e of the gathered column: row e / width of the output, component e % width.
// T is float, uint16_t (bf16 encodings, whose zero is +0.0 as well) or int32_t.
template <class T>
SPLAT_HD T gathered_element(const T* src, int width, const int32_t* index, int64_t e) {
  const int64_t row = e / width;
  const int32_t from = index[row];
  return from < 0 ? T(0) : src[int64_t(from) * width + (e - row * width)];
}

SPLAT_HD float capped(float v, float cap) { return v < cap ? v : cap; }

// Element i of the sum of `slices` arrays of n laid one after the other, added in slice order (so
// that every rank summing the same slices gets the same bits).
SPLAT_HD float slice_sum(const float* slices, int count, int64_t n, int64_t i) {
  float s = 0.f;
  for (int k = 0; k < count; ++k) s += slices[int64_t(k) * n + i];
  return s;
}

}  // namespace splat::kernels
