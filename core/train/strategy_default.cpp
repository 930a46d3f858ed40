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
#include "core/train/strategy_mcmc.h"
#include "kernels/handoff_memory.h"
#include "kernels/hd_math.h"
#include "kernels/refine_plan.h"

namespace splat {
namespace {

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

kernels::RefineRule refine_rule(const DefaultStrategyOptions& o, int batch_size, double extent, bool check_size) {
  kernels::RefineRule r;
  r.grad_threshold = o.absgrad ? o.absgrad_threshold : o.grad_threshold;
  r.batch_size = float(batch_size);
  r.clone_below = log_scale_cut(o.grow_scale3d * extent);
  r.min_opacity_logit = opacity_logit_cut(o.prune_opacity);
  r.max_log_scale = log_scale_cut(o.prune_scale3d * extent);
  // 0 turns screen-size pruning off: no radius passes infinity.
  r.max_radius = o.prune_scale2d > 0 ? o.prune_scale2d : std::numeric_limits<float>::infinity();
  r.shrink = std::log(o.split_scale_divisor);
  r.check_size = check_size;
  return r;
}

void refine_rows(DeviceGaussians& g, const DefaultStrategyOptions& o, const StepInfo& info, bool check_size,
                 uint64_t key) {
  static_assert(stored_fp32(Group::Means) && stored_fp32(Group::LogScales) && stored_fp32(Group::Opacity),
                "the grown rows are written in fp32");
  const kernels::ComputeContext& where = g.context();
  const int64_t n = g.size();
  const kernels::DensifyStats stats = g.stats();
  const kernels::RefineColumns in{g.param(Group::Opacity).data(), g.param(Group::LogScales).data(),
                                  o.absgrad ? stats.grad2d_abs_norm : stats.grad2d_norm, stats.visible_count,
                                  check_size ? stats.max_radius : nullptr, n};
  // Each row's code, then its places: one byte and three counts a row.
  const kernels::HandoffBlock plan(where, size_t(n) * (1 + 3 * sizeof(int32_t)) + 16);
  int32_t* at = static_cast<int32_t*>(plan.data());
  uint8_t* code = reinterpret_cast<uint8_t*>(at + 3 * n);
  const kernels::RefineRule rule = refine_rule(o, info.batch_size, info.scene_extent, check_size);
  kernels::refine_codes(where, in, rule, growth_room(o, n, info.model_rows), code);
  const kernels::RefineCounts counts = kernels::refine_places(where, code, n, at);
  info.mark("refinement: rows planned");
  if (counts.rows() > std::numeric_limits<int32_t>::max())
    throw std::runtime_error("default strategy: " + std::to_string(counts.rows()) +
                             " Gaussians exceed the row index range");
  const kernels::HandoffBlock sources(where, size_t(counts.rows()) * 2 * sizeof(int32_t) + 16);
  int32_t* params = static_cast<int32_t*>(sources.data());
  int32_t* moments = params + counts.rows();
  kernels::refine_sources(where, code, at, n, counts, params, moments);
  g.gather_rows_on_device(params, moments, counts.rows());
  kernels::refine_grown_rows(where, code, at, n, counts,
                             {g.param(Group::Means).data(), g.param(Group::Quats).data(),
                              g.param(Group::LogScales).data(), g.param(Group::Opacity).data(), rule.shrink, key,
                              info.first_row, o.revised_opacity});
  plan.used_on(where);
  sources.used_on(where);
  info.mark("refinement: rows applied");
}

DefaultStrategy::DefaultStrategy(const DefaultStrategyOptions& o, uint64_t seed) : o_(o), rng_(seed) {}

bool DefaultStrategy::wants_stats(int first_image) const { return first_image < o_.refine_stop; }

void DefaultStrategy::add_loss_gradients(const StepInfo& info, DeviceGaussians& g) {
  add_mean_regularizers(info, g, o_.opacity_reg, o_.scale_reg);
}

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
    if (o_.curve_sort_every > 0 && *refine % o_.curve_sort_every == 0) g.sort_along_curve();
  } else {
    // Each refinement looks at the window since the last refinement or reset.
    g.zero_stats();
  }
  if (reset) g.cap_values(Group::Opacity, logit(o_.reset_opacity));
  return refine.has_value();
}

void DefaultStrategy::refine(const StepInfo& info, DeviceGaussians& g, bool check_size) {
  refine_rows(g, o_, info, check_size, rng_());
}

nlohmann::json DefaultStrategy::state() const { return {{"rng", rng_to_string(rng_)}}; }

void DefaultStrategy::load_state(const nlohmann::json& s) {
  rng_ = rng_from_string(s.at("rng").get<std::string>(), "default strategy state");
}

}  // namespace splat
