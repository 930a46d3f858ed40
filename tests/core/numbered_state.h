#pragma once
// A host GaussianState for checkpoint tests whose every entry differs from every other.
#include <cstdint>
#include <vector>

#include "core/model/device_gaussians.h"

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

}  // namespace splat::test
