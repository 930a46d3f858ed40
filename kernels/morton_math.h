#pragma once
// The Morton (Z-order) code of a point in a box, shared by the host's shard layout and the device's
// ordering (kernels/morton.h), so that both sort rows alike.
#include <cmath>
#include <cstdint>

#include "kernels/hd.h"

namespace splat::kernels {

// An axis-aligned box: the cells of the Morton curve divide it.
struct MortonBox {
  float lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
};

// Spreads the low 10 bits of v so that they occupy every third bit.
SPLAT_HD uint32_t morton_spread_bits(uint32_t v) {
  v &= 0x3FF;
  v = (v | (v << 16)) & 0x030000FF;
  v = (v | (v << 8)) & 0x0300F00F;
  v = (v | (v << 4)) & 0x030C30C3;
  v = (v | (v << 2)) & 0x09249249;
  return v;
}

// 10 bits per axis; a mean outside the box counts as on its faces, a box of no (or no finite) extent
// along an axis puts every mean in its first cell there.
SPLAT_HD uint32_t morton_code(const float* mean, const MortonBox& box) {
  uint32_t c = 0;
  for (int a = 0; a < 3; ++a) {
    const float span = box.hi[a] - box.lo[a];
    const float t = span > 0 && std::isfinite(span) ? (mean[a] - box.lo[a]) / span : 0.f;
    const uint32_t cell = std::isfinite(t) ? uint32_t((t < 0.f ? 0.f : t > 1.f ? 1.f : t) * 1023.f) : 0u;
    c |= morton_spread_bits(cell) << a;
  }
  return c;
}

}  // namespace splat::kernels
