#pragma once
// The adaptive density control of the original 3DGS paper: every `refine_every` images in
// (refine_start, refine_stop), Gaussians whose mean screen-space position gradient is large are
// cloned (small ones: under-reconstruction) or split in two (large ones: over-reconstruction);
// nearly transparent and oversized ones are pruned; every `reset_every` images all opacities are
// pulled down so that the optimizer has to re-justify each Gaussian. The schedule counts training
// images (core/train/image_schedule.h), so it is the same at every batch size.
//
// A refinement is planned and carried out on the device that holds the model (kernels/refine_plan.h:
// a code per row, prefix counts, the source lists of one DeviceGaussians gather, the split halves drawn
// and the grown copies' opacities revised in place); the host reads the new row count. The same plan
// runs on the CPU backend.
#include <cstdint>

#include "core/train/rng_state.h"
#include "core/train/strategy.h"
#include "kernels/refine_plan_math.h"

namespace splat {

struct DefaultStrategyOptions {
  // Mean |dL/dmean2d| (NDC-scaled) above which a Gaussian grows: 3DGS's 2e-4 lowered to 1.5e-4 with
  // revised_opacity, whose grown Gaussians prune sooner (bench/QUALITY.md, "Revised opacity").
  float grad_threshold = 1.5e-4f;
  // The threshold of runs recorded before the one above (config.json without revised_opacity).
  static constexpr float kGradThreshold3dgs = 2e-4f;
  bool absgrad = false;              // AbsGS: use the summed absolute per-pixel gradient instead
  float absgrad_threshold = 8e-4f;   // AbsGS's own threshold (that statistic is larger)
  int refine_start = 500;            // images, like the three below
  int refine_stop = 15000;
  int refine_every = 100;
  int reset_every = 3000;
  // A refinement at a multiple of this many images puts the rows back along the Morton curve afterwards
  // (DeviceGaussians::sort_along_curve; 0: never). A refinement appends the rows it grows at the end,
  // spread over the whole scene, so a camera's visible rows drift apart in memory; a sort costs about
  // what the refinement's own gather does, so it comes every fourth refinement.
  int curve_sort_every = 400;
  float grow_scale3d = 0.01f;        // x extent: largest scale at or below clones, above splits
  float split_scale_divisor = 1.6f;  // the two halves of a split get scale / this
  float prune_opacity = 0.005f;
  float prune_scale3d = 0.1f;        // x extent: larger in the world is pruned (after the first reset)
  float prune_scale2d = 0.15f;       // max screen radius / image size above which it is pruned (idem; 0: never)
  float reset_opacity = 0.01f;       // opacity ceiling after a reset
  // Both copies of a grown Gaussian (a clone and its parent, a split's halves) get the opacity a' with
  // 1 - (1 - a')^2 = a, so that the pair lets through what the parent did (kernels/refine_plan_math.h:
  // revised_opacity_logit); off: both keep the parent's opacity, as in 3DGS.
  bool revised_opacity = true;
  // Weights of mean(opacity) and mean(world scale) in the loss (0: none, the 3DGS default). They are
  // MCMC's regularisers: they push opacity and size down wherever the photos do not hold them up.
  // Per 4 images, as MCMC's (core/train/strategy_mcmc.h: kRegularizerImages).
  float opacity_reg = 0.f;
  float scale_reg = 0.f;
  // Most Gaussians growth may reach (0: no limit): a refinement with less room grows the rows whose
  // gradient is largest. With ranks each shard gets its share of it, in proportion to its rows.
  int64_t max_gaussians = 0;
};

// The thresholds of the rules moved from opacity and world scale onto the stored logits and log
// scales, so that a refinement compares floats per row instead of calling exp or sigmoid on a
// million rows. Each cut is found once by bisection over the float line with the very expression
// the rule used (sigmoid(x) = 1 / (1 + exp(-x)) and exp(x) in float), so the per-row comparison
// gives the same answer as that expression on every row, NaN and rows exactly at the boundary
// included, as long as the float exp is monotone (glibc's is) and the threshold is in range (an
// opacity in [0, 1], a finite scale). Were exp not monotone, rows within an ulp or so of the
// threshold could go either way.
// Logits x < opacity_logit_cut(p) are exactly those with sigmoid(x) < p.
float opacity_logit_cut(float min_opacity);
// Log scales x < log_scale_cut(s) are exactly those with exp(x) <= s (so x >= cut: exp(x) > s).
float log_scale_cut(double max_scale);

// The room growth has in a shard of `rows` rows of a model of `model_rows` (0: the shard is the whole
// model) under o.max_gaussians: negative when there is no limit, else the shard's share of the limit
// less its rows, at least 0.
int64_t growth_room(const DefaultStrategyOptions& o, int64_t rows, int64_t model_rows);

// The rules of one refinement on the stored columns (kernels::RefineRule): a row grows when its mean 2D
// gradient over the cameras that saw it (accumulated norm / visible count, both summed per camera, times
// the batch size because the trainer's loss is the mean over the batch, which scales each camera's
// gradient by 1/B) is above the threshold (o.absgrad picks the statistic and its threshold); it clones
// when its largest scale is at most grow_scale3d * extent, else splits into two halves of scale /
// split_scale_divisor. Pruning drops opacity < prune_opacity and, when sizes are checked, world scale >
// prune_scale3d * extent or a screen radius > prune_scale2d (only rows seen on screen have one).
kernels::RefineRule refine_rule(const DefaultStrategyOptions& o, int batch_size, double extent, bool check_size);

// One refinement of g, where it lives: growth (within growth_room: the rows with the largest gradient),
// then pruning of the grown rows (kernels/refine_plan.h gives the new rows' order). `key` keys the split
// halves' draws, with info.first_row as the global id of g's row 0. Gradients and statistics are zeroed,
// as after every row edit. Marks its parts on info.
void refine_rows(DeviceGaussians& g, const DefaultStrategyOptions& o, const StepInfo& info, bool check_size,
                 uint64_t key);

class DefaultStrategy final : public Strategy {
 public:
  explicit DefaultStrategy(const DefaultStrategyOptions& o = {}, uint64_t seed = 0);
  std::string name() const override { return "default"; }
  bool wants_stats(int first_image) const override;
  bool wants_abs_stats() const override { return o_.absgrad; }
  bool after_step(const StepInfo& info, DeviceGaussians& g) override;
  bool budget_per_shard() const override { return o_.max_gaussians > 0; }
  void add_loss_gradients(const StepInfo& info, DeviceGaussians& g) override;
  nlohmann::json state() const override;
  void load_state(const nlohmann::json& s) override;

  const DefaultStrategyOptions& options() const { return o_; }

 private:
  // Growth then pruning (refine_rows), keyed by the next draw of rng_.
  void refine(const StepInfo& info, DeviceGaussians& g, bool check_size);

  DefaultStrategyOptions o_;
  Rng rng_;  // one draw per refinement keys its split halves
};

}  // namespace splat
