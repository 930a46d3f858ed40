#pragma once
// Per-row bodies of a default-strategy refinement planned where the model lives (kernels/refine_plan.h),
// shared by the CPU reference and the CUDA kernels so that both compute the same plan.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "kernels/counter_random.h"
#include "kernels/hd.h"
#include "kernels/hd_math.h"

namespace splat::kernels {

// What a refinement does with one row, as bits of its code. A growing row is cloned (a copy appended)
// or split (the row replaced by its first half, the second half appended); each of the places it
// leaves in the new model is kept or pruned on its own.
enum RefineBit : uint8_t {
  kRefineGrow = 1,        // its mean 2D gradient is over the threshold (and within the growth room)
  kRefineSplit = 2,       // it grows by a split (else by a clone)
  kRefineKeepOld = 4,     // its own place (the row, or its first half) survives pruning
  kRefineKeepClone = 8,   // its clone survives
  kRefineKeepSecond = 16  // its second half survives
};

// The rules of one refinement on the stored columns (opacity logits and log scales), their thresholds
// moved there once by the strategy (core/train/strategy_default.h: opacity_logit_cut, log_scale_cut).
struct RefineRule {
  float grad_threshold = 2e-4f;  // mean 2D gradient above which a row grows
  float batch_size = 1.f;        // the loss is a batch mean: a camera's gradient is 1/B of its own
  float clone_below = 0.f;       // a growing row whose largest log scale is below this clones, else splits
  float min_opacity_logit = 0.f; // kept: logit not below this
  float max_log_scale = 0.f;     // kept, when sizes are checked: largest log scale below this
  float max_radius = 0.f;        // ... and a screen radius at most this (only rows seen on screen have one)
  float shrink = 0.f;            // log of the split divisor: the halves' log scales are the parent's less this
  bool check_size = false;
};

// A row's mean 2D gradient over the cameras that saw it, as a per-image figure (times the batch size).
SPLAT_HD float refine_mean_grad(float sum, int32_t visible_count, float batch_size) {
  return sum / float(visible_count > 1 ? visible_count : 1) * batch_size;
}

SPLAT_HD bool refine_candidate(const RefineRule& r, float sum, int32_t visible_count) {
  return refine_mean_grad(sum, visible_count, r.batch_size) > r.grad_threshold;
}

// The pruning rule: radius is null for a place not seen on screen yet (a clone, a second half).
// Written with & rather than && so that it compiles to compares, not branches.
SPLAT_HD bool refine_keep(const RefineRule& r, float opacity_logit, float max_log_scale, const float* radius) {
  const bool opaque = !(opacity_logit < r.min_opacity_logit);
  if (!r.check_size) return opaque;
  return opaque & !(max_log_scale >= r.max_log_scale) & !(radius && *radius > r.max_radius);
}

// The code of one row, given whether it grows. A split's halves have the parent's log scales less
// `shrink`, whose largest is the parent's largest less `shrink` (rounding is monotone).
SPLAT_HD uint8_t refine_code(const RefineRule& r, bool grow, float opacity_logit, const float* log_scales,
                             const float* radius) {
  const float largest = std::fmax(log_scales[0], std::fmax(log_scales[1], log_scales[2]));
  if (!grow) return refine_keep(r, opacity_logit, largest, radius) ? kRefineKeepOld : 0;
  if (largest < r.clone_below) {
    return uint8_t(kRefineGrow | (refine_keep(r, opacity_logit, largest, radius) ? kRefineKeepOld : 0) |
                   (refine_keep(r, opacity_logit, largest, nullptr) ? kRefineKeepClone : 0));
  }
  const float half = largest - r.shrink;
  return uint8_t(kRefineGrow | kRefineSplit | (refine_keep(r, opacity_logit, half, radius) ? kRefineKeepOld : 0) |
                 (refine_keep(r, opacity_logit, half, nullptr) ? kRefineKeepSecond : 0));
}

// The growth candidates ordered for a growth room: the largest mean gradient first, ties to the lower
// row (a stable sort by this key, descending). Rows that are not candidates get 0, below every candidate.
SPLAT_HD uint32_t refine_room_key(const RefineRule& r, float sum, int32_t visible_count) {
  if (!refine_candidate(r, sum, visible_count)) return 0u;
  const float g = refine_mean_grad(sum, visible_count, r.batch_size);
  uint32_t bits;
  std::memcpy(&bits, &g, sizeof bits);
  return (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);  // order-preserving, never 0 for a number
}

// The places of one row in the new model: its own (kept old rows in order), its clone's (after every kept
// old row), its second half's (after every kept clone). `at` holds the three exclusive prefix counts of
// the row's keep bits; `kept_old` and `kept_clones` are the totals.
struct RefinePlaces {
  int32_t own, clone, second;
};
SPLAT_HD RefinePlaces refine_places(const int32_t* at, int64_t row, int64_t n, int64_t kept_old, int64_t kept_clones) {
  return {at[row], int32_t(kept_old + at[n + row]), int32_t(kept_old + kept_clones + at[2 * n + row])};
}

// Half h (0 or 1) of a split of the Gaussian (mean, quat, log_scales) with global id `id`: its mean drawn
// from N(mean, R diag(scale)^2 R^T) with the normals of (key, h, id) (kernels/counter_random.h), so that
// a plan draws the same halves on the CPU and the GPU, in any order; written to out_mean. Its log scales
// are the parent's less shrink.
SPLAT_HD void refine_split_half(const float* mean, const float* quat, const float* log_scales, uint64_t key,
                                int64_t id, int h, float shrink, float* out_mean, float* out_log_scales) {
  const Vec3d z = counter_normal3(key, uint64_t(h), uint64_t(id));
  const double qn = std::sqrt(double(quat[0]) * quat[0] + double(quat[1]) * quat[1] + double(quat[2]) * quat[2] +
                         double(quat[3]) * quat[3]);
  const Mat3d R = quat_to_rotmat<double>(quat[0] / qn, quat[1] / qn, quat[2] / qn, quat[3] / qn);
  const Vec3d s{std::exp(double(log_scales[0])) * z.x, std::exp(double(log_scales[1])) * z.y, std::exp(double(log_scales[2])) * z.z};
  const Vec3d p = Vec3d{mean[0], mean[1], mean[2]} + R * s;
  out_mean[0] = float(p.x), out_mean[1] = float(p.y), out_mean[2] = float(p.z);
  for (int c = 0; c < 3; ++c) out_log_scales[c] = log_scales[c] - shrink;
}

// The opacity logit of each of the two Gaussians one becomes (a clone and its parent, or a split's two
// halves) under the revised-opacity rule: opacity a' with 1 - (1 - a')^2 = a, so that a ray through both
// is let through as much as through the parent alone, where copies of the parent's opacity would make
// the pair more opaque than the parent was (Rota Bulò et al., "Revising Densification in Gaussian
// Splatting", 2024). In logits: log(sqrt(1 + e^x) - 1), computed so that neither end loses it (about
// x - log 2 far below 0, x / 2 far above).
SPLAT_HD float revised_opacity_logit(float logit) {
  const double x = logit;
  if (x > 60.0) return float(0.5 * x);               // sqrt(1 + e^x) - 1 = e^(x/2) to double precision
  if (x < -60.0) return float(x - 0.6931471805599453);  // = e^x / 2 to double precision
  return float(std::log(std::expm1(0.5 * std::log1p(std::exp(x)))));
}

// The grown rows' columns after the gather: each new row holds the values of the row it copies, which
// refine_grown_row reads and overwrites.
struct RefineGrown {
  float* means = nullptr;           // 3 per row
  const float* quats = nullptr;     // 4 per row
  float* log_scales = nullptr;      // 3 per row
  float* opacity_logits = nullptr;  // 1 per row; read only with revised_opacity
  float shrink = 0.f;               // RefineRule::shrink
  uint64_t key = 0;                 // this refinement's draw key
  int64_t first_id = 0;             // the global id of row 0 (a shard's first row)
  bool revised_opacity = false;     // both copies of a grown row get revised_opacity_logit
};

// What growth changes in the new rows of old row r (code c, places p): a split's kept halves are drawn
// (refine_split_half, half 0 at its own place, half 1 at the second), and with revised_opacity every
// kept copy of a grown row (its own place, its clone, its second half) takes the revised opacity.
SPLAT_HD void refine_grown_row(uint8_t c, const RefinePlaces& p, int64_t r, const RefineGrown& g) {
  if (!(c & kRefineGrow)) return;
  const int32_t copy[2] = {(c & kRefineKeepOld) ? p.own : -1,
                           (c & kRefineSplit) ? ((c & kRefineKeepSecond) ? p.second : -1)
                                              : ((c & kRefineKeepClone) ? p.clone : -1)};
  for (int k = 0; k < 2; ++k) {
    if (copy[k] < 0) continue;
    const int64_t q = copy[k];
    if (c & kRefineSplit)
      refine_split_half(g.means + 3 * q, g.quats + 4 * q, g.log_scales + 3 * q, g.key, g.first_id + r, k, g.shrink,
                        g.means + 3 * q, g.log_scales + 3 * q);
    if (g.revised_opacity) g.opacity_logits[q] = revised_opacity_logit(g.opacity_logits[q]);
  }
}

}  // namespace splat::kernels
