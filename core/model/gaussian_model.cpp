#include "core/model/gaussian_model.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

#include "core/model/column_rows.h"
#include "core/model/knn.h"

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

namespace {
// The member holding each group's column, in kParamColumns order.
constexpr std::array<std::vector<float> GaussianModel::*, kGroupCount> kMembers = {
    &GaussianModel::means, &GaussianModel::log_scales, &GaussianModel::quats,
    &GaussianModel::opacity_logits, &GaussianModel::sh_dc, &GaussianModel::sh_rest};
}  // namespace

std::vector<float>& GaussianModel::column(Group g) { return this->*kMembers[static_cast<int>(g)]; }
const std::vector<float>& GaussianModel::column(Group g) const { return this->*kMembers[static_cast<int>(g)]; }

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
  for (Group g : kAllGroups) column(g).resize(static_cast<size_t>(n * group_width(g, sh_degree_)), 0.0f);
  for (int64_t i = old; i < n; ++i) quats[static_cast<size_t>(i * 4)] = 1.0f;
}

void GaussianModel::append_rows(std::span<const int64_t> rows) {
  check_rows_in_range(rows, size(), "GaussianModel::append_rows");
  for (Group g : kAllGroups) append_column_rows(column(g), group_width(g, sh_degree_), rows);
}

void GaussianModel::keep_rows(std::span<const uint8_t> keep) {
  check_mask_length(keep, size(), "GaussianModel::keep_rows");
  for (Group g : kAllGroups) keep_column_rows(column(g), group_width(g, sh_degree_), keep);
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
  for (Group g : kAllGroups)
    if (column(g).size() != n * group_width(g, sh_degree_))
      throw std::logic_error(std::string("GaussianModel: column ") + group_name(g) + " has " +
                             std::to_string(column(g).size()) + " floats for " + std::to_string(n) + " Gaussians");
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
