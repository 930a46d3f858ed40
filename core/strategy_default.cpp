#include "core/strategy_default.h"

#include <algorithm>
#include <cmath>

#include "kernels/hd_math.h"

namespace splat {
namespace {

float sigmoid(float x) { return 1.f / (1.f + std::exp(-x)); }
float logit(float p) { return std::log(p / (1.f - p)); }

float max_scale(const GaussianState& s, int64_t i) {
  const float* ls = s.row(Group::LogScales, i);
  return std::exp(std::max({ls[0], ls[1], ls[2]}));
}

// One sample of N(mean, R diag(scale)^2 R^T) for row i.
Vec3d sample_inside(const GaussianState& s, int64_t i, Rng& rng) {
  std::normal_distribution<double> normal(0.0, 1.0);
  const float* q = s.row(Group::Quats, i);
  const double qn = std::sqrt(double(q[0]) * q[0] + double(q[1]) * q[1] + double(q[2]) * q[2] + double(q[3]) * q[3]);
  const Mat3d R = quat_to_rotmat<double>(q[0] / qn, q[1] / qn, q[2] / qn, q[3] / qn);
  const float* ls = s.row(Group::LogScales, i);
  const Vec3d local{std::exp(double(ls[0])) * normal(rng), std::exp(double(ls[1])) * normal(rng),
                    std::exp(double(ls[2])) * normal(rng)};
  const float* m = s.row(Group::Means, i);
  return Vec3d{m[0], m[1], m[2]} + R * local;
}

}  // namespace

std::vector<float> mean_grad2d(const HostDensifyStats& stats, bool absgrad, int batch_size) {
  const std::vector<float>& sum = absgrad ? stats.grad2d_abs_norm : stats.grad2d_norm;
  std::vector<float> out(sum.size(), 0.f);
  for (size_t i = 0; i < sum.size(); ++i)
    out[i] = sum[i] / float(std::max<int32_t>(stats.visible_count[i], 1)) * float(batch_size);
  return out;
}

GrowDecision decide_growth(const GaussianState& s, const HostDensifyStats& stats, const DefaultStrategyOptions& o,
                           int batch_size, double extent) {
  const std::vector<float> grad = mean_grad2d(stats, o.absgrad, batch_size);
  const float threshold = o.absgrad ? o.absgrad_threshold : o.grad_threshold;
  GrowDecision d;
  for (int64_t i = 0; i < s.size(); ++i) {
    if (!(grad[i] > threshold)) continue;
    if (max_scale(s, i) <= o.grow_scale3d * extent)
      d.clone.push_back(i);
    else
      d.split.push_back(i);
  }
  return d;
}

int64_t apply_growth(GaussianState& s, const GrowDecision& d, const DefaultStrategyOptions& o, Rng& rng) {
  const int64_t before = s.size();
  s.append_rows(d.clone);
  // The second half of each split starts as a copy of its parent; then both halves are re-sampled.
  const int64_t first_second_half = s.size();
  s.append_rows(d.split);
  const float shrink = std::log(o.split_scale_divisor);
  std::vector<int64_t> changed;
  for (size_t k = 0; k < d.split.size(); ++k) {
    const int64_t halves[2] = {d.split[k], first_second_half + int64_t(k)};
    // Both samples come from the parent's (unshrunk) Gaussian, so draw both before editing.
    const Vec3d a = sample_inside(s, halves[0], rng);
    const Vec3d b = sample_inside(s, halves[0], rng);
    const float* parent_ls = s.row(Group::LogScales, halves[0]);
    const float shrunk[3] = {parent_ls[0] - shrink, parent_ls[1] - shrink, parent_ls[2] - shrink};
    for (int h = 0; h < 2; ++h) {
      const Vec3d p = h == 0 ? a : b;
      float* m = s.row(Group::Means, halves[h]);
      m[0] = float(p.x), m[1] = float(p.y), m[2] = float(p.z);
      std::copy(shrunk, shrunk + 3, s.row(Group::LogScales, halves[h]));
      changed.push_back(halves[h]);
    }
  }
  s.reset_moments(changed);
  return before;
}

std::vector<uint8_t> decide_keep(const GaussianState& s, const std::vector<float>& max_radius, bool check_size,
                                 const DefaultStrategyOptions& o, double extent) {
  std::vector<uint8_t> keep(static_cast<size_t>(s.size()), 1);
  for (int64_t i = 0; i < s.size(); ++i) {
    bool drop = sigmoid(s.row(Group::Opacity, i)[0]) < o.prune_opacity;
    if (check_size) {
      drop = drop || max_scale(s, i) > o.prune_scale3d * extent;
      drop = drop || (i < int64_t(max_radius.size()) && max_radius[i] > o.prune_scale2d);
    }
    keep[i] = drop ? 0 : 1;
  }
  return keep;
}

void reset_opacities(GaussianState& s, float max_opacity) {
  const float cap = logit(max_opacity);
  for (float& v : s.col(Group::Opacity).value) v = std::min(v, cap);
  HostColumn& c = s.col(Group::Opacity);
  std::fill(c.exp_avg.begin(), c.exp_avg.end(), 0.f);
  std::fill(c.exp_avg_sq.begin(), c.exp_avg_sq.end(), 0.f);
}

DefaultStrategy::DefaultStrategy(const DefaultStrategyOptions& o, uint64_t seed) : o_(o), rng_(seed) {}

bool DefaultStrategy::wants_stats(int step) const { return step < o_.refine_stop; }

bool DefaultStrategy::after_step(const StepInfo& info, DeviceGaussians& g) {
  const int step = info.step;
  if (step >= o_.refine_stop) return false;
  const bool refine = step > o_.refine_start && step % o_.refine_every == 0;
  const bool reset = step > 0 && step % o_.reset_every == 0;
  if (!refine && !reset) return false;
  GaussianState s = g.download();
  if (refine) {
    const HostDensifyStats stats = g.download_stats();
    apply_growth(s, decide_growth(s, stats, o_, info.batch_size, info.scene_extent), o_, rng_);
    // Size pruning waits for the first opacity reset, as in 3DGS: before it, large Gaussians are
    // still what covers the background.
    s.keep_rows(decide_keep(s, stats.max_radius, step > o_.reset_every, o_, info.scene_extent));
  }
  if (reset) reset_opacities(s, o_.reset_opacity);
  g.upload(s);  // also zeroes the statistics: each refinement looks at the window since the last
  return refine;
}

nlohmann::json DefaultStrategy::state() const { return {{"rng", rng_to_string(rng_)}}; }

void DefaultStrategy::load_state(const nlohmann::json& s) {
  rng_ = rng_from_string(s.at("rng").get<std::string>(), "default strategy state");
}

}  // namespace splat
