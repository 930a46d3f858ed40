#pragma once
// A host GaussianState for checkpoint tests whose every entry differs from every other.
#include <cstdint>
#include <vector>

#include "core/model/device_gaussians.h"
#include "kernels/storage_math.h"

namespace splat::test {

// n Gaussians at SH degree sh_degree; parameters and both Adam moments, column by column, hold
// 0.75, 1.25, 1.75, ... (exact in float), so that a swapped, shifted or lost entry shows.
inline GaussianState numbered_state(int sh_degree, int64_t n) {
  GaussianState s(sh_degree, n);
  float x = 0.25f;
  for (Group g : kAllGroups)
    for (std::vector<float>* v : {&s.col(g).value, &s.col(g).exp_avg, &s.col(g).exp_avg_sq})
      for (float& f : *v) f = (x += 0.5f);
  return s;
}

// The same for a state stored as `columns` says (e.g. kAmpColumns): the entries are consecutive bf16
// encodings from 2^-7 up (distinct, and exact in bf16 and fp32 alike), so that values and moments go
// to the device and back unchanged whatever their precision.
inline GaussianState numbered_state(int sh_degree, int64_t n, const ColumnTable& columns) {
  GaussianState s(sh_degree, n, columns);
  uint16_t bits = 0x3C00;
  for (Group g : kAllGroups)
    for (std::vector<float>* v : {&s.col(g).value, &s.col(g).exp_avg, &s.col(g).exp_avg_sq})
      for (float& f : *v) f = kernels::bf16_to_float(bits++);
  return s;
}

}  // namespace splat::test
