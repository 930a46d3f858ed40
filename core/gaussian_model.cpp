#include "core/gaussian_model.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

#include "core/knn.h"

namespace splat {
namespace {
void check_degree(int degree) {
  if (degree < 0 || degree > 3) throw std::invalid_argument("SH degree must be 0..3, got " + std::to_string(degree));
}
// A uniform double in [0, 1) from the top 53 bits: unlike std::uniform_real_distribution, its
// result is the same with every standard library, so a seed means the same model everywhere.
double unit_double(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }
}  // namespace

GaussianModel::GaussianModel(int sh_degree, int64_t n) : sh_degree_(sh_degree) {
  check_degree(sh_degree);
  resize(n);
}

template <class F>
void GaussianModel::for_each_column(F&& f) {
  f(means, 3);
  f(log_scales, 3);
  f(quats, 4);
  f(opacity_logits, 1);
  f(sh_dc, 3);
  f(sh_rest, sh_rest_coeffs() * 3);
}

kernels::GaussiansView GaussianModel::view() const {
  kernels::GaussiansView v;
  v.n = size();
  v.means = means.data();
  v.quats = quats.data();
  v.log_scales = log_scales.data();
  v.opacity_logits = opacity_logits.data();
  v.sh_dc = sh_dc.data();
  v.sh_rest = sh_rest_coeffs() > 0 ? sh_rest.data() : nullptr;
  v.sh_rest_coeffs = sh_rest_coeffs();
  return v;
}

void GaussianModel::resize(int64_t n) {
  if (n < 0) throw std::invalid_argument("GaussianModel::resize: negative size");
  const int64_t old = size();
  for_each_column([n](std::vector<float>& col, int width) { col.resize(static_cast<size_t>(n * width), 0.0f); });
  for (int64_t i = old; i < n; ++i) quats[static_cast<size_t>(i * 4)] = 1.0f;
}

void GaussianModel::append_rows(std::span<const int64_t> rows) {
  const int64_t n = size();
  for (int64_t r : rows)
    if (r < 0 || r >= n) throw std::out_of_range("GaussianModel::append_rows: row " + std::to_string(r) + " of " + std::to_string(n));
  for_each_column([&](std::vector<float>& col, int width) {
    col.reserve(col.size() + rows.size() * static_cast<size_t>(width));
    for (int64_t r : rows)
      for (int j = 0; j < width; ++j) col.push_back(col[static_cast<size_t>(r * width + j)]);
  });
}

void GaussianModel::keep_rows(std::span<const uint8_t> keep) {
  if (static_cast<int64_t>(keep.size()) != size())
    throw std::invalid_argument("GaussianModel::keep_rows: mask has " + std::to_string(keep.size()) + " entries for " +
                                std::to_string(size()) + " rows");
  for_each_column([&](std::vector<float>& col, int width) {
    size_t out = 0;
    for (size_t r = 0; r < keep.size(); ++r) {
      if (!keep[r]) continue;
      for (int j = 0; j < width; ++j) col[out++] = col[r * static_cast<size_t>(width) + j];
    }
    col.resize(out);
  });
}

void GaussianModel::set_sh_degree(int degree) {
  check_degree(degree);
  const int old_rest = sh_rest_coeffs();
  const int new_rest = kernels::sh_coeffs_for_degree(degree) - 1;
  const int common = std::min(old_rest, new_rest);
  const size_t n = static_cast<size_t>(size());
  std::vector<float> rest(n * static_cast<size_t>(new_rest) * 3, 0.0f);
  for (size_t i = 0; i < n; ++i)
    for (int k = 0; k < common; ++k)
      for (int c = 0; c < 3; ++c) rest[(i * new_rest + k) * 3 + c] = sh_rest[(i * old_rest + k) * 3 + c];
  sh_rest = std::move(rest);
  sh_degree_ = degree;
}

void GaussianModel::check_consistent() const {
  const size_t n = static_cast<size_t>(size());
  const size_t rest = static_cast<size_t>(sh_rest_coeffs()) * 3;
  if (means.size() != n * 3 || log_scales.size() != n * 3 || quats.size() != n * 4 || sh_dc.size() != n * 3 ||
      sh_rest.size() != n * rest)
    throw std::logic_error("GaussianModel: columns disagree on the number of Gaussians");
}

GaussianModel init_from_points(std::span<const ScenePoint> points, const PointInitOptions& opt) {
  if (opt.opacity <= 0.0f || opt.opacity >= 1.0f) throw std::invalid_argument("initial opacity must be in (0, 1)");
  GaussianModel m(opt.sh_degree, static_cast<int64_t>(points.size()));
  std::vector<Vec3d> xyz(points.size());
  for (size_t i = 0; i < points.size(); ++i) xyz[i] = points[i].xyz;
  const std::vector<double> dist2 = mean_sq_distance_to_knn(xyz, opt.neighbours);
  const float logit = static_cast<float>(std::log(opt.opacity / (1.0 - opt.opacity)));
  for (size_t i = 0; i < points.size(); ++i) {
    const float log_scale = static_cast<float>(0.5 * std::log(std::max(opt.min_dist2, dist2[i])));
    for (int a = 0; a < 3; ++a) {
      m.means[i * 3 + a] = static_cast<float>(xyz[i][a]);
      m.log_scales[i * 3 + a] = log_scale;
      m.sh_dc[i * 3 + a] = rgb_to_sh_dc(points[i].rgb[a] / 255.0);
    }
    m.opacity_logits[i] = logit;
  }
  return m;
}

GaussianModel init_random(const RandomInitOptions& opt) {
  if (opt.count < 0 || !(opt.half_extent > 0)) throw std::invalid_argument("random init needs count >= 0 and extent > 0");
  std::mt19937_64 rng(opt.seed);
  std::vector<ScenePoint> pts(static_cast<size_t>(opt.count));
  for (auto& p : pts) {
    for (int a = 0; a < 3; ++a) p.xyz[a] = opt.center[a] + (2.0 * unit_double(rng) - 1.0) * opt.half_extent;
    for (auto& c : p.rgb) c = static_cast<uint8_t>(rng() >> 56);
  }
  return init_from_points(pts, opt.init);
}

}  // namespace splat
