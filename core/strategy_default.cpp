#include "core/strategy_default.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "kernels/hd_math.h"
#include "kernels/row_ops.h"

namespace splat {
namespace {

float sigmoid(float x) { return 1.f / (1.f + std::exp(-x)); }
float logit(float p) { return std::log(p / (1.f - p)); }

// Largest world scale of row i of a log-scale column (3 floats per row).
float max_scale(std::span<const float> log_scales, int64_t i) {
  const float* ls = log_scales.data() + 3 * i;
  return std::exp(std::max({ls[0], ls[1], ls[2]}));
}

// One sample of N(mean, R diag(scale)^2 R^T).
Vec3d sample_inside(const float* m, const float* q, const float* ls, Rng& rng) {
  std::normal_distribution<double> normal(0.0, 1.0);
  const double qn = std::sqrt(double(q[0]) * q[0] + double(q[1]) * q[1] + double(q[2]) * q[2] + double(q[3]) * q[3]);
  const Mat3d R = quat_to_rotmat<double>(q[0] / qn, q[1] / qn, q[2] / qn, q[3] / qn);
  const Vec3d local{std::exp(double(ls[0])) * normal(rng), std::exp(double(ls[1])) * normal(rng),
                    std::exp(double(ls[2])) * normal(rng)};
  return Vec3d{m[0], m[1], m[2]} + R * local;
}

// The rows of one group listed in `rows`, row-major.
std::vector<float> host_rows(const GaussianState& s, Group g, std::span<const int64_t> rows) {
  const int w = s.width(g);
  std::vector<float> out;
  out.reserve(rows.size() * w);
  for (int64_t r : rows) out.insert(out.end(), s.row(g, r), s.row(g, r) + w);
  return out;
}

}  // namespace

std::vector<float> mean_grad2d(const HostDensifyStats& stats, bool absgrad, int batch_size) {
  const std::vector<float>& sum = absgrad ? stats.grad2d_abs_norm : stats.grad2d_norm;
  std::vector<float> out(sum.size(), 0.f);
  for (size_t i = 0; i < sum.size(); ++i)
    out[i] = sum[i] / float(std::max<int32_t>(stats.visible_count[i], 1)) * float(batch_size);
  return out;
}

GrowDecision decide_growth(std::span<const float> log_scales, const HostDensifyStats& stats,
                           const DefaultStrategyOptions& o, int batch_size, double extent) {
  const std::vector<float> grad = mean_grad2d(stats, o.absgrad, batch_size);
  const float threshold = o.absgrad ? o.absgrad_threshold : o.grad_threshold;
  const int64_t n = static_cast<int64_t>(log_scales.size() / 3);
  GrowDecision d;
  for (int64_t i = 0; i < n; ++i) {
    if (!(grad[i] > threshold)) continue;
    if (max_scale(log_scales, i) <= o.grow_scale3d * extent)
      d.clone.push_back(i);
    else
      d.split.push_back(i);
  }
  return d;
}

GrowDecision decide_growth(const GaussianState& s, const HostDensifyStats& stats, const DefaultStrategyOptions& o,
                           int batch_size, double extent) {
  return decide_growth(s.col(Group::LogScales).value, stats, o, batch_size, extent);
}

SplitChildren split_children(std::span<const float> means, std::span<const float> quats,
                             std::span<const float> log_scales, float divisor, Rng& rng) {
  const size_t parents = log_scales.size() / 3;
  const float shrink = std::log(divisor);
  SplitChildren c;
  c.means.reserve(parents * 6);
  c.log_scales.reserve(parents * 6);
  for (size_t k = 0; k < parents; ++k) {
    const float* m = means.data() + 3 * k;
    const float* q = quats.data() + 4 * k;
    const float* ls = log_scales.data() + 3 * k;
    // Both halves sample the parent's (unshrunk) Gaussian.
    for (int h = 0; h < 2; ++h) {
      const Vec3d p = sample_inside(m, q, ls, rng);
      c.means.insert(c.means.end(), {float(p.x), float(p.y), float(p.z)});
      c.log_scales.insert(c.log_scales.end(), {ls[0] - shrink, ls[1] - shrink, ls[2] - shrink});
    }
  }
  return c;
}

int64_t apply_growth(GaussianState& s, const GrowDecision& d, const DefaultStrategyOptions& o, Rng& rng) {
  const int64_t before = s.size();
  const SplitChildren c = split_children(host_rows(s, Group::Means, d.split), host_rows(s, Group::Quats, d.split),
                                         host_rows(s, Group::LogScales, d.split), o.split_scale_divisor, rng);
  s.append_rows(d.clone);
  // The second half of each split is appended; the first replaces its parent.
  const int64_t first_second_half = s.size();
  s.append_rows(d.split);
  std::vector<int64_t> changed;
  for (size_t k = 0; k < d.split.size(); ++k) {
    const int64_t halves[2] = {d.split[k], first_second_half + int64_t(k)};
    for (int h = 0; h < 2; ++h) {
      const size_t child = 2 * k + h;
      std::copy_n(c.means.data() + 3 * child, 3, s.row(Group::Means, halves[h]));
      std::copy_n(c.log_scales.data() + 3 * child, 3, s.row(Group::LogScales, halves[h]));
      changed.push_back(halves[h]);
    }
  }
  s.reset_moments(changed);
  return before;
}

std::vector<uint8_t> decide_keep(std::span<const float> opacity_logits, std::span<const float> log_scales,
                                 const std::vector<float>& max_radius, bool check_size, const DefaultStrategyOptions& o,
                                 double extent) {
  std::vector<uint8_t> keep(opacity_logits.size(), 1);
  for (int64_t i = 0; i < int64_t(keep.size()); ++i) {
    bool drop = sigmoid(opacity_logits[i]) < o.prune_opacity;
    if (check_size) {
      drop = drop || max_scale(log_scales, i) > o.prune_scale3d * extent;
      drop = drop || (i < int64_t(max_radius.size()) && max_radius[i] > o.prune_scale2d);
    }
    keep[i] = drop ? 0 : 1;
  }
  return keep;
}

std::vector<uint8_t> decide_keep(const GaussianState& s, const std::vector<float>& max_radius, bool check_size,
                                 const DefaultStrategyOptions& o, double extent) {
  return decide_keep(s.col(Group::Opacity).value, s.col(Group::LogScales).value, max_radius, check_size, o, extent);
}

void reset_opacities(GaussianState& s, float max_opacity) {
  HostColumn& c = s.col(Group::Opacity);
  kernels::cap_values_reference(c.value.data(), static_cast<int64_t>(c.value.size()), logit(max_opacity));
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
  // Size pruning waits for the first opacity reset, as in 3DGS: before it, large Gaussians are
  // still what covers the background.
  if (refine) {
    this->refine(info, g, step > o_.reset_every);  // zeroes the statistics too
  } else {
    // Each refinement looks at the window since the last refinement or reset.
    g.zero_grad();
    g.zero_stats();
  }
  if (reset) g.cap_values(Group::Opacity, logit(o_.reset_opacity));
  return refine;
}

void DefaultStrategy::refine(const StepInfo& info, DeviceGaussians& g, bool check_size) {
  const int64_t n = g.size();
  const std::vector<float> opacity = g.param(Group::Opacity).download();
  const std::vector<float> log_scales = g.param(Group::LogScales).download();
  const HostDensifyStats stats = g.download_stats();
  const GrowDecision d = decide_growth(log_scales, stats, o_, info.batch_size, info.scene_extent);
  const int64_t grown = n + int64_t(d.clone.size() + d.split.size());
  if (grown > std::numeric_limits<int32_t>::max())
    throw std::runtime_error("default strategy: " + std::to_string(grown) + " Gaussians exceed the row index range");

  // The grown rows in apply_growth's order: the old rows, clones, second halves of splits.
  // source: old row each grown row copies; child: which split child it is, or -1.
  std::vector<int32_t> source(static_cast<size_t>(n)), child(static_cast<size_t>(grown), -1);
  for (int64_t i = 0; i < n; ++i) source[i] = int32_t(i);
  for (int64_t r : d.clone) source.push_back(int32_t(r));
  std::vector<int32_t> parents;
  std::vector<float> parent_log_scales;
  for (size_t k = 0; k < d.split.size(); ++k) {
    const int32_t r = int32_t(d.split[k]);
    child[r] = int32_t(2 * k);
    child[source.size()] = int32_t(2 * k + 1);
    source.push_back(r);
    parents.push_back(r);
    parent_log_scales.insert(parent_log_scales.end(), log_scales.begin() + 3 * r, log_scales.begin() + 3 * r + 3);
  }
  const SplitChildren c = split_children(g.download_rows(Group::Means, parents), g.download_rows(Group::Quats, parents),
                                         parent_log_scales, o_.split_scale_divisor, rng_);

  // Pruning reads the grown opacities and log scales (split halves already shrunk).
  std::vector<float> grown_opacity(static_cast<size_t>(grown)), grown_log_scales(static_cast<size_t>(grown) * 3);
  for (int64_t r = 0; r < grown; ++r) {
    grown_opacity[r] = opacity[source[r]];
    const float* ls = child[r] < 0 ? &log_scales[3 * size_t(source[r])] : &c.log_scales[3 * size_t(child[r])];
    std::copy_n(ls, 3, &grown_log_scales[3 * r]);
  }
  const std::vector<uint8_t> keep =
      decide_keep(grown_opacity, grown_log_scales, stats.max_radius, check_size, o_, info.scene_extent);

  // New or rewritten rows (clones, split halves) start with zero moments.
  std::vector<int32_t> params, moments, written;
  std::vector<float> written_means, written_log_scales;
  for (int64_t r = 0; r < grown; ++r) {
    if (!keep[r]) continue;
    const bool fresh = r >= n || child[r] >= 0;
    if (child[r] >= 0) {
      written.push_back(int32_t(params.size()));
      const size_t k = 3 * size_t(child[r]);
      written_means.insert(written_means.end(), c.means.begin() + k, c.means.begin() + k + 3);
      written_log_scales.insert(written_log_scales.end(), c.log_scales.begin() + k, c.log_scales.begin() + k + 3);
    }
    params.push_back(source[r]);
    moments.push_back(fresh ? -1 : source[r]);
  }
  g.gather_rows(params, moments);
  g.write_rows(Group::Means, written, written_means);
  g.write_rows(Group::LogScales, written, written_log_scales);
}

nlohmann::json DefaultStrategy::state() const { return {{"rng", rng_to_string(rng_)}}; }

void DefaultStrategy::load_state(const nlohmann::json& s) {
  rng_ = rng_from_string(s.at("rng").get<std::string>(), "default strategy state");
}

}  // namespace splat
