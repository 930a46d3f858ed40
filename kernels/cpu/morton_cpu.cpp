// CPU reference of the Morton ordering (kernels/morton.h): a stable sort by code, as the CUDA backend's
// radix sort orders.
#include <algorithm>
#include <numeric>
#include <vector>

#include "kernels/morton.h"

namespace splat::kernels {

MortonBox bounding_box_reference(const float* means, int64_t n) {
  MortonBox b;
  for (int a = 0; a < 3; ++a) b.lo[a] = b.hi[a] = n ? means[a] : 0.f;
  for (int64_t i = 0; i < n; ++i)
    for (int a = 0; a < 3; ++a) {
      b.lo[a] = std::min(b.lo[a], means[3 * i + a]);
      b.hi[a] = std::max(b.hi[a], means[3 * i + a]);
    }
  return b;
}

void morton_order_reference(const float* means, int64_t n, const MortonBox& box, int32_t* order) {
  std::vector<uint32_t> code(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) code[size_t(i)] = morton_code(means + 3 * i, box);
  std::iota(order, order + n, int32_t(0));
  std::stable_sort(order, order + n, [&](int32_t a, int32_t b) { return code[size_t(a)] < code[size_t(b)]; });
}

}  // namespace splat::kernels
