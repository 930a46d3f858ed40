#include "core/train/strategy_default.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>

#include "core/train/image_schedule.h"
#include "core/util/parallel_for.h"
#include "kernels/hd_math.h"

namespace splat {
namespace {

float max_log_scale(const float* ls) { return std::max({ls[0], ls[1], ls[2]}); }

// The planner's passes over a million rows run in ranges of this many rows, in parallel, and join
// their results in row order: the plan is the same whatever the thread count.
constexpr int64_t kPlanRange = int64_t(1) << 16;
size_t plan_ranges(int64_t rows) { return size_t((rows + kPlanRange - 1) / kPlanRange); }

// Mean 2D gradient of one row (see decide_growth).
float mean_grad2d(float sum, int32_t visible_count, int batch_size) {
  return sum / float(std::max<int32_t>(visible_count, 1)) * float(batch_size);
}

// Position of a non-NaN float on the float line, as an integer: a < b exactly when key(a) < key(b)
// (-0 and +0 share a key). The keys of -inf..+inf are contiguous, so bisection can walk them.
int64_t float_key(float x) {
  const uint32_t bits = std::bit_cast<uint32_t>(x);
  return (bits & 0x80000000u) ? -int64_t(bits & 0x7fffffffu) : int64_t(bits);
}
float key_float(int64_t k) {
  return std::bit_cast<float>(k < 0 ? uint32_t(0x80000000u | uint32_t(-k)) : uint32_t(k));
}

// The smallest float in [-inf, +inf] at which `holds`, a predicate that is false and then true
// along the float line, becomes true; +inf when it never does. 32 evaluations.
template <class Pred>
float first_true(Pred holds) {
  constexpr float inf = std::numeric_limits<float>::infinity();
  if (holds(-inf)) return -inf;
  if (!holds(inf)) return inf;
  int64_t lo = float_key(-inf), hi = float_key(inf);  // holds(lo) is false, holds(hi) true
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    (holds(key_float(mid)) ? hi : lo) = mid;
  }
  return key_float(hi);
}

// The pruning rule on stored columns, its thresholds moved onto logits and log scales once.
class KeepRule {
 public:
  KeepRule(const DefaultStrategyOptions& o, bool check_size, double extent)
      : min_logit_(opacity_logit_cut(o.prune_opacity)),
        max_log_scale_(log_scale_cut(o.prune_scale3d * extent)),
        max_radius_(o.prune_scale2d),
        check_size_(check_size) {}
  // radius: the row's max screen radius, or null for rows not seen on screen yet.
  // Written with & rather than && so that it compiles to compares, not branches.
  bool keep(float opacity_logit, const float* log_scales, const float* radius) const {
    const bool opaque = !(opacity_logit < min_logit_);
    if (!check_size_) return opaque;
    return opaque & !(max_log_scale(log_scales) >= max_log_scale_) & !(radius && *radius > max_radius_);
  }

 private:
  float min_logit_, max_log_scale_, max_radius_;
  bool check_size_;
};

// The transform of N(mean, R diag(scale)^2 R^T) from unit normal draws: x = mean + R (scale * z).
struct SampleFrame {
  Vec3d mean;
  Mat3d R;
  Vec3d scale;
};
SampleFrame sample_frame(const float* m, const float* q, const float* ls) {
  const double qn = std::sqrt(double(q[0]) * q[0] + double(q[1]) * q[1] + double(q[2]) * q[2] + double(q[3]) * q[3]);
  return {{m[0], m[1], m[2]},
          quat_to_rotmat<double>(q[0] / qn, q[1] / qn, q[2] / qn, q[3] / qn),
          {std::exp(double(ls[0])), std::exp(double(ls[1])), std::exp(double(ls[2]))}};
}

}  // namespace

float opacity_logit_cut(float min_opacity) {
  return first_true([&](float x) { return sigmoid(x) >= min_opacity; });
}

float log_scale_cut(double max_scale) {
  return first_true([&](float x) { return double(std::exp(x)) > max_scale; });
}

int64_t growth_room(const DefaultStrategyOptions& o, int64_t rows, int64_t model_rows) {
  if (o.max_gaussians <= 0) return -1;
  const double share = model_rows > 0 ? double(rows) / double(model_rows) : 1.0;
  return std::max<int64_t>(0, std::llround(double(o.max_gaussians) * share) - rows);
}

GrowDecision decide_growth(std::span<const float> log_scales, const HostDensifyStats& stats,
                           const DefaultStrategyOptions& o, int batch_size, double extent, int64_t room) {
  const std::vector<float>& sum = o.absgrad ? stats.grad2d_abs_norm : stats.grad2d_norm;
  const float threshold = o.absgrad ? o.absgrad_threshold : o.grad_threshold;
  const float clone_below = log_scale_cut(o.grow_scale3d * extent);
  const int64_t n = static_cast<int64_t>(log_scales.size() / 3);
  // Row ranges in parallel, joined in order (so both lists stay ascending). Within a range, a chunk
  // at a time without branches on the data: first the rows whose gradient is over the threshold,
  // then clone or split by size. Growing rows are few and scattered, so their log-scale reads miss
  // the cache; branching on each would serialise those misses behind mispredictions, while the
  // branch-free loop lets them overlap.
  std::vector<GrowDecision> parts(plan_ranges(n));
  for_each_parallel(parts.size(), 0, [&](size_t part) {
    constexpr int64_t kChunk = 4096;
    std::array<int64_t, kChunk> grows;
    GrowDecision& d = parts[part];
    const int64_t first = int64_t(part) * kPlanRange, last = std::min(n, first + kPlanRange);
    for (int64_t begin = first; begin < last; begin += kChunk) {
      const int64_t end = std::min(last, begin + kChunk);
      size_t count = 0;
      for (int64_t i = begin; i < end; ++i) {
        grows[count] = i;
        count += mean_grad2d(sum[i], stats.visible_count[i], batch_size) > threshold;
      }
      size_t clones = d.clone.size(), splits = d.split.size();
      d.clone.resize(clones + count);
      d.split.resize(splits + count);
      for (size_t k = 0; k < count; ++k) {
        const bool small = max_log_scale(&log_scales[3 * grows[k]]) < clone_below;
        d.clone[clones] = d.split[splits] = grows[k];
        clones += small;
        splits += !small;
      }
      d.clone.resize(clones);
      d.split.resize(splits);
    }
  });
  GrowDecision d;
  for (const GrowDecision& part : parts) {
    d.clone.insert(d.clone.end(), part.clone.begin(), part.clone.end());
    d.split.insert(d.split.end(), part.split.begin(), part.split.end());
  }
  if (room < 0 || int64_t(d.clone.size() + d.split.size()) <= room) return d;
  // Over the budget: the rows with the largest gradient grow, each still cloned or split by its size.
  std::vector<int64_t> all(d.clone);
  all.insert(all.end(), d.split.begin(), d.split.end());
  const auto larger = [&](int64_t a, int64_t b) {
    const float ga = mean_grad2d(sum[a], stats.visible_count[a], batch_size);
    const float gb = mean_grad2d(sum[b], stats.visible_count[b], batch_size);
    return ga > gb || (ga == gb && a < b);
  };
  std::nth_element(all.begin(), all.begin() + room, all.end(), larger);
  all.resize(size_t(room));
  std::sort(all.begin(), all.end());
  GrowDecision kept;
  for (const int64_t r : all) (max_log_scale(&log_scales[3 * r]) < clone_below ? kept.clone : kept.split).push_back(r);
  return kept;
}

SplitChildren split_children(std::span<const float> means, std::span<const float> quats,
                             std::span<const float> log_scales, float divisor, Rng& rng) {
  const size_t parents = log_scales.size() / 3;
  const float shrink = std::log(divisor);
  SplitChildren c;
  c.means.reserve(parents * 6);
  c.log_scales.reserve(parents * 6);
  // One distribution for every draw, so that none of the normals it makes in pairs is thrown away.
  std::normal_distribution<double> normal(0.0, 1.0);
  for (size_t k = 0; k < parents; ++k) {
    const float* ls = log_scales.data() + 3 * k;
    // Both halves sample the parent's (unshrunk) Gaussian.
    const SampleFrame f = sample_frame(means.data() + 3 * k, quats.data() + 4 * k, ls);
    for (int h = 0; h < 2; ++h) {
      const Vec3d z{f.scale.x * normal(rng), f.scale.y * normal(rng), f.scale.z * normal(rng)};
      const Vec3d p = f.mean + f.R * z;
      c.means.insert(c.means.end(), {float(p.x), float(p.y), float(p.z)});
      c.log_scales.insert(c.log_scales.end(), {ls[0] - shrink, ls[1] - shrink, ls[2] - shrink});
    }
  }
  return c;
}

DefaultStrategy::DefaultStrategy(const DefaultStrategyOptions& o, uint64_t seed) : o_(o), rng_(seed) {}

bool DefaultStrategy::wants_stats(int first_image) const { return first_image < o_.refine_stop; }

bool DefaultStrategy::after_step(const StepInfo& info, DeviceGaussians& g) {
  // The events whose image falls in this step (one of each at most, however large the batch).
  const int first = info.first_image, end = std::min(first + info.batch_size, o_.refine_stop);
  const std::optional<int> refine = first_multiple_in(std::max(first, o_.refine_start + 1), end, o_.refine_every);
  const bool reset = first_multiple_in(std::max(first, 1), end, o_.reset_every).has_value();
  if (!refine && !reset) return false;
  // Size pruning waits for the first opacity reset, as in 3DGS: before it, large Gaussians are
  // still what covers the background.
  if (refine) {
    this->refine(info, g, *refine > o_.reset_every);  // zeroes the statistics too
  } else {
    // Each refinement looks at the window since the last refinement or reset.
    g.zero_stats();
  }
  if (reset) g.cap_values(Group::Opacity, logit(o_.reset_opacity));
  return refine.has_value();
}

const RefinementPlan& RefinementPlanner::plan(DeviceGaussians& g, const DefaultStrategyOptions& o,
                                              const StepInfo& info, bool check_size, Rng& rng) {
  download_inputs(g, o, check_size);
  info.mark("refinement: inputs to the host");
  const GrowDecision d = decide_growth(log_scales_, stats_, o, info.batch_size, info.scene_extent,
                                       growth_room(o, g.size(), info.model_rows));
  info.mark("refinement: growth decided");
  const int64_t grown = g.size() + int64_t(d.clone.size() + d.split.size());
  if (grown > std::numeric_limits<int32_t>::max())
    throw std::runtime_error("default strategy: " + std::to_string(grown) + " Gaussians exceed the row index range");
  const std::vector<int32_t> parents(d.split.begin(), d.split.end());
  std::vector<float> parent_log_scales(3 * parents.size());
  for (size_t k = 0; k < parents.size(); ++k)
    std::copy_n(&log_scales_[3 * size_t(parents[k])], 3, &parent_log_scales[3 * k]);
  const SplitChildren c = split_children(g.download_rows(Group::Means, parents), g.download_rows(Group::Quats, parents),
                                         parent_log_scales, o.split_scale_divisor, rng);
  info.mark("refinement: split children drawn");
  keep_grown_rows(d, c, o, check_size, info.scene_extent);
  info.mark("refinement: kept rows planned");
  return plan_;
}

void RefinementPlanner::download_inputs(DeviceGaussians& g, const DefaultStrategyOptions& o, bool check_size) {
  download_into(g.param(Group::Opacity), opacity_);
  download_into(g.param(Group::LogScales), log_scales_);
  StatsSelection needed;  // the gradient sum the growth rule reads, and screen radii only for size pruning
  needed.grad2d_norm = !o.absgrad;
  needed.grad2d_abs_norm = o.absgrad;
  needed.max_radius = check_size;
  g.download_stats(stats_, needed);
}

void RefinementPlanner::keep_grown_rows(const GrowDecision& d, const SplitChildren& c, const DefaultStrategyOptions& o,
                                        bool check_size, double extent) {
  // The grown rows in apply_growth's order are the old rows with each split parent replaced by its
  // first half, then the clones, then the second halves. Pruning reads the grown values (split
  // halves already shrunk); only old rows have been seen on screen, so only they have a radius.
  const KeepRule rule(o, check_size, extent);
  const float* radius = check_size ? stats_.max_radius.data() : nullptr;
  const int64_t n = static_cast<int64_t>(opacity_.size());
  RefinementPlan& p = plan_;
  p.params.resize(static_cast<size_t>(n) + d.clone.size() + d.split.size());
  p.moments.resize(p.params.size());
  p.written.clear();
  p.written_means.clear();
  p.written_log_scales.clear();
  // The first n places, in parallel ranges: whether each old row (or, for a split parent, its first
  // half) is kept, the ranges' kept counts, then each range writes its kept rows from its start.
  split_of_.resize(size_t(n), 0);  // k + 1 for split parent k, else 0 (kept zero between calls)
  for (size_t k = 0; k < d.split.size(); ++k) split_of_[size_t(d.split[k])] = int32_t(k + 1);
  kept_.resize(size_t(n));
  first_half_at_.assign(d.split.size(), -1);
  const size_t ranges = plan_ranges(n);
  std::vector<int64_t> range_at(ranges + 1, 0);
  for_each_parallel(ranges, 0, [&](size_t range) {
    const int64_t first = int64_t(range) * kPlanRange, last = std::min(n, first + kPlanRange);
    int64_t count = 0;
    for (int64_t r = first; r < last; ++r) {
      const int32_t k = split_of_[size_t(r)];
      const float* ls = k ? &c.log_scales[3 * 2 * size_t(k - 1)] : &log_scales_[3 * size_t(r)];
      kept_[size_t(r)] = rule.keep(opacity_[r], ls, radius ? radius + r : nullptr);
      count += kept_[size_t(r)];
    }
    range_at[range + 1] = count;
  });
  for (size_t range = 0; range < ranges; ++range) range_at[range + 1] += range_at[range];
  for_each_parallel(ranges, 0, [&](size_t range) {
    const int64_t first = int64_t(range) * kPlanRange, last = std::min(n, first + kPlanRange);
    int64_t out = range_at[range];
    for (int64_t r = first; r < last; ++r) {
      if (!kept_[size_t(r)]) continue;
      const int32_t k = split_of_[size_t(r)];
      p.params[size_t(out)] = int32_t(r);
      p.moments[size_t(out)] = k ? -1 : int32_t(r);  // a first half is a new row: zero moments
      if (k) first_half_at_[size_t(k - 1)] = int32_t(out);
      ++out;
    }
  });
  size_t out = size_t(range_at[ranges]);
  auto written_half = [&](size_t child, int32_t at) {
    const float* ls = &c.log_scales[3 * child];
    p.written.push_back(at);
    p.written_means.insert(p.written_means.end(), &c.means[3 * child], &c.means[3 * child] + 3);
    p.written_log_scales.insert(p.written_log_scales.end(), ls, ls + 3);
  };
  for (size_t k = 0; k < d.split.size(); ++k) {
    if (first_half_at_[k] >= 0) written_half(2 * k, first_half_at_[k]);
    split_of_[size_t(d.split[k])] = 0;
  }
  // New rows start with zero moments: the clones, then the second halves.
  for (int64_t r : d.clone)
    if (rule.keep(opacity_[r], &log_scales_[3 * r], nullptr)) {
      p.params[out] = int32_t(r);
      p.moments[out++] = -1;
    }
  for (size_t k = 0; k < d.split.size(); ++k) {
    const int64_t parent = d.split[k];
    if (!rule.keep(opacity_[parent], &c.log_scales[3 * (2 * k + 1)], nullptr)) continue;
    written_half(2 * k + 1, int32_t(out));
    p.params[out] = int32_t(parent);
    p.moments[out++] = -1;
  }
  p.params.resize(out);
  p.moments.resize(out);
}

void apply_refinement(DeviceGaussians& g, const RefinementPlan& p) {
  g.gather_rows(p.params, p.moments);
  g.write_rows(Group::Means, p.written, p.written_means);
  g.write_rows(Group::LogScales, p.written, p.written_log_scales);
}

void DefaultStrategy::refine(const StepInfo& info, DeviceGaussians& g, bool check_size) {
  apply_refinement(g, planner_.plan(g, o_, info, check_size, rng_));
  info.mark("refinement: rows applied");
}

nlohmann::json DefaultStrategy::state() const { return {{"rng", rng_to_string(rng_)}}; }

void DefaultStrategy::load_state(const nlohmann::json& s) {
  rng_ = rng_from_string(s.at("rng").get<std::string>(), "default strategy state");
}

}  // namespace splat
