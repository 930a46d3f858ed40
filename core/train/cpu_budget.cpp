#include "core/train/cpu_budget.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "kernels/rasterizer.h"

namespace splat {

BudgetProposal propose_budget(std::span<const FactorSpeed> speeds, const BudgetGoal& goal) {
  std::vector<FactorSpeed> usable;
  for (const FactorSpeed& s : speeds)
    if (s.images_per_s > 0 && s.data_factor >= 1) usable.push_back(s);
  if (usable.empty()) return {};
  std::sort(usable.begin(), usable.end(), [](const FactorSpeed& a, const FactorSpeed& b) { return a.data_factor < b.data_factor; });
  const FactorSpeed* chosen = nullptr;
  for (const FactorSpeed& s : usable) {
    if (s.images_per_s * goal.seconds >= goal.min_images) {
      chosen = &s;
      break;
    }
  }
  if (!chosen)  // none reaches the minimum: the fastest gets closest
    chosen = &*std::max_element(usable.begin(), usable.end(),
                                [](const FactorSpeed& a, const FactorSpeed& b) { return a.images_per_s < b.images_per_s; });
  const double fits = chosen->images_per_s * goal.seconds;
  // Hundreds read as a chosen number; a machine too slow for a hundred still gets a run.
  const int rounded = fits >= 100 ? static_cast<int>(std::min<double>(fits, goal.max_images) / 100) * 100
                                  : std::max(1, static_cast<int>(fits));
  return {chosen->data_factor, std::min(rounded, goal.max_images), chosen->images_per_s};
}

std::string describe(const BudgetProposal& p, double seconds) {
  char line[160];
  std::snprintf(line, sizeof line, "proposed for ~%.0f min on the CPU: data factor %d, %d images (measured %.1f images/s)",
                seconds / 60, p.data_factor, p.images, p.images_per_s);
  return line;
}

namespace {
// The camera of photos loaded at `from` as they would be at `to`: sizes and intrinsics scale alike,
// as the loader's data factor scales them.
kernels::Camera rescaled(kernels::Camera c, int from, int to) {
  const double s = static_cast<double>(from) / to;
  const int w = std::max(1, static_cast<int>(std::lround(c.width * s)));
  const int h = std::max(1, static_cast<int>(std::lround(c.height * s)));
  const double sx = static_cast<double>(w) / c.width, sy = static_cast<double>(h) / c.height;
  c.fx = static_cast<float>(c.fx * sx);
  c.cx = static_cast<float>(c.cx * sx);
  c.fy = static_cast<float>(c.fy * sy);
  c.cy = static_cast<float>(c.cy * sy);
  c.width = w;
  c.height = h;
  return c;
}
}  // namespace

std::vector<FactorSpeed> measure_cpu_speeds(const GaussianModel& model, const Scene& scene, int loaded_factor,
                                            std::span<const int> factors, int threads, double seconds_each) {
  std::vector<FactorSpeed> speeds;
  const std::vector<int> train = scene.train_indices();
  if (model.size() == 0 || scene.views.empty()) return speeds;
  const kernels::Camera base = scene.views[train.empty() ? 0 : train.front()].to_kernel_camera();
  auto raster = kernels::make_cpu_rasterizer(threads);
  const kernels::GaussiansView g = model.view();
  const size_t n = static_cast<size_t>(model.size());
  std::vector<float> d_means(n * 3), d_quats(n * 4), d_scales(n * 3), d_opacity(n), d_dc(n * 3),
      d_rest(n * 3 * std::max(0, g.sh_rest_coeffs)), grad2d(n), grad2d_abs(n), max_radius(n);
  std::vector<int32_t> visible(n);
  const kernels::GaussiansGrad grad{d_means.data(), d_quats.data(), d_scales.data(), d_opacity.data(), d_dc.data(),
                                    g.sh_rest_coeffs > 0 ? d_rest.data() : nullptr, nullptr, true};
  const kernels::DensifyStats stats{grad2d.data(), grad2d_abs.data(), visible.data(), max_radius.data()};
  kernels::RasterSettings settings;
  settings.sh_degree = model.sh_degree();
  using Clock = std::chrono::steady_clock;
  for (const int factor : factors) {
    const kernels::Camera cams[1] = {rescaled(base, loaded_factor, factor)};
    const size_t pixels = static_cast<size_t>(cams[0].width) * cams[0].height;
    std::vector<float> rgb(pixels * 3), alpha(pixels), depth(pixels), d_rgb(pixels * 3, 1.f / pixels);
    int renders = 0;
    const Clock::time_point start = Clock::now();
    double elapsed = 0;
    while (renders < 2 || elapsed < seconds_each) {
      raster->forward(g, cams, settings, {rgb.data(), alpha.data(), depth.data()});
      raster->backward({d_rgb.data(), nullptr, nullptr}, grad, stats);
      ++renders;
      elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    }
    speeds.push_back({factor, renders / std::max(elapsed, 1e-9)});
  }
  return speeds;
}

}  // namespace splat
