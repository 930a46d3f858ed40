#include "ui/plot_series.h"

#include <algorithm>
#include <stdexcept>

namespace splat::ui {

std::vector<float> resample_even(std::span<const float> x, std::span<const float> y, int n) {
  if (x.size() != y.size()) throw std::invalid_argument("resample_even: x and y differ in length");
  if (y.size() < 2 || n < 2) return {y.begin(), y.end()};
  std::vector<float> out(static_cast<size_t>(n));
  const float x0 = x.front(), x1 = x.back();
  size_t j = 0;  // x[j] <= xi < x[j+1], advancing with i
  for (int i = 0; i < n; ++i) {
    const float xi = x0 + (x1 - x0) * float(i) / float(n - 1);
    while (j + 2 < x.size() && x[j + 1] <= xi) ++j;
    const float dx = x[j + 1] - x[j];
    const float t = dx > 0 ? std::clamp((xi - x[j]) / dx, 0.f, 1.f) : 1.f;
    out[i] = y[j] + t * (y[j + 1] - y[j]);
  }
  return out;
}

size_t nearest_index(std::span<const float> x, float at) {
  if (x.empty()) throw std::invalid_argument("nearest_index: no entries");
  const size_t hi = static_cast<size_t>(std::lower_bound(x.begin(), x.end(), at) - x.begin());
  if (hi == 0) return 0;
  if (hi == x.size()) return x.size() - 1;
  return at - x[hi - 1] <= x[hi] - at ? hi - 1 : hi;
}

}  // namespace splat::ui
