#pragma once
// The adaptive density control of the original 3DGS paper: every `refine_every` images in
// (refine_start, refine_stop), Gaussians whose mean screen-space position gradient is large are
// cloned (small ones: under-reconstruction) or split in two (large ones: over-reconstruction);
// nearly transparent and oversized ones are pruned; every `reset_every` images all opacities are
// pulled down so that the optimizer has to re-justify each Gaussian. The schedule counts training
// images (core/train/image_schedule.h), so it is the same at every batch size.
//
// A refinement is planned on the host by RefinementPlanner, which downloads only the small columns
// the rules read (opacity, log scales, statistics) and the parents of splits, and carried out on
// the device with one gather (DeviceGaussians::gather_rows). The growth rule and the split
// sampling are free functions on host data, which the planner calls.
#include <cstdint>
#include <span>
#include <vector>

#include "core/train/rng_state.h"
#include "core/train/strategy.h"

namespace splat {

struct DefaultStrategyOptions {
  float grad_threshold = 2e-4f;      // mean |dL/dmean2d| (NDC-scaled) above which a Gaussian grows
  bool absgrad = false;              // AbsGS: use the summed absolute per-pixel gradient instead
  float absgrad_threshold = 8e-4f;   // AbsGS's own threshold (that statistic is larger)
  int refine_start = 500;            // images, like the three below
  int refine_stop = 15000;
  int refine_every = 100;
  int reset_every = 3000;
  float grow_scale3d = 0.01f;        // x extent: largest scale at or below clones, above splits
  float split_scale_divisor = 1.6f;  // the two halves of a split get scale / this
  float prune_opacity = 0.005f;
  float prune_scale3d = 0.1f;        // x extent: larger in the world is pruned (after the first reset)
  float prune_scale2d = 0.15f;       // max screen radius / image size above which it is pruned (idem)
  float reset_opacity = 0.01f;       // opacity ceiling after a reset
  // Most Gaussians growth may reach (0: no limit): a refinement with less room grows the rows whose
  // gradient is largest. With ranks each shard gets its share of it, in proportion to its rows.
  int64_t max_gaussians = 0;
};

struct GrowDecision {
  std::vector<int64_t> clone, split;
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

// Rows to clone and to split (disjoint; ascending). log_scales: 3 floats per row. A row grows when
// its mean 2D gradient over the cameras that saw it (accumulated norm / visible count, both summed
// per camera, times the batch size because the trainer's loss is the mean over the batch, which
// scales each camera's gradient by 1/B) is above the threshold: a per-image mean, the same
// statistic at every batch size as long as the batch stays the same over the window. stats needs
// visible_count and the gradient sum that o.absgrad selects.
// `room`: how many rows growth may add at most (each clone or split adds one); when more rows are
// over the threshold, the `room` ones with the largest gradient grow (ties: the lower row). Negative:
// no limit.
GrowDecision decide_growth(std::span<const float> log_scales, const HostDensifyStats& stats,
                           const DefaultStrategyOptions& o, int batch_size, double extent, int64_t room = -1);

// The room growth has in a shard of `rows` rows of a model of `model_rows` (0: the shard is the whole
// model) under o.max_gaussians: negative when there is no limit, else the shard's share of the limit
// less its rows, at least 0.
int64_t growth_room(const DefaultStrategyOptions& o, int64_t rows, int64_t model_rows);

// The two halves of each split parent k (row k of means, quats, log_scales): rows 2k and 2k+1 of
// the result, both drawn from N(mean, R diag(scale)^2 R^T) in that order, with log scale - log(divisor).
struct SplitChildren {
  std::vector<float> means, log_scales;
};
SplitChildren split_children(std::span<const float> means, std::span<const float> quats,
                             std::span<const float> log_scales, float divisor, Rng& rng);

// The row edit of one refinement, decided on the host. Growth: the rows decide_growth picks are
// cloned (copies appended) or split (the parent row replaced by its first half of split_children, the
// second half appended), in the order old rows, clones, second halves; new and rewritten rows start
// with zero moments. Pruning of the grown rows then drops opacity < prune_opacity and, when sizes
// are checked, world scale > prune_scale3d * extent or a screen radius > prune_scale2d (only rows
// seen on screen, the old ones, have a radius). The plan holds gather_rows' parameter and moment
// source lists, then the sampled means and shrunk log scales of the split halves, which go to rows
// `written` of the gathered result (3 floats per row each).
struct RefinementPlan {
  std::vector<int32_t> params, moments, written;
  std::vector<float> written_means, written_log_scales;
};
// Plans refinements on the host. It keeps its host copies (opacities, log scales, statistics) and
// the plan's row lists between calls: at a million rows they are ~40 MB, and faulting in that much
// fresh memory every refinement cost more than the decisions themselves.
class RefinementPlanner {
 public:
  // Plans a refinement of g from its opacities, log scales, statistics and split parents; draws the
  // split samples from rng. The plan is valid until the next call.
  const RefinementPlan& plan(DeviceGaussians& g, const DefaultStrategyOptions& o, const StepInfo& info,
                             bool check_size, Rng& rng);

 private:
  // Fetches the columns and statistics the rules read into the kept host copies.
  void download_inputs(DeviceGaussians& g, const DefaultStrategyOptions& o, bool check_size);
  // Fills plan_ from the grown rows that survive pruning.
  void keep_grown_rows(const GrowDecision& d, const SplitChildren& c, const DefaultStrategyOptions& o,
                       bool check_size, double extent);

  std::vector<float> opacity_, log_scales_;
  HostDensifyStats stats_;
  RefinementPlan plan_;
  // keep_grown_rows' scratch: each row's split index + 1 (0 when not split; all zeros between calls),
  // whether each of the first n places is kept, and where each first half landed.
  std::vector<int32_t> split_of_, first_half_at_;
  std::vector<uint8_t> kept_;
};
// Carries a plan out on the device (gradients and statistics are zeroed, as after every row edit).
void apply_refinement(DeviceGaussians& g, const RefinementPlan& p);

class DefaultStrategy final : public Strategy {
 public:
  explicit DefaultStrategy(const DefaultStrategyOptions& o = {}, uint64_t seed = 0);
  std::string name() const override { return "default"; }
  bool wants_stats(int first_image) const override;
  bool after_step(const StepInfo& info, DeviceGaussians& g) override;
  nlohmann::json state() const override;
  void load_state(const nlohmann::json& s) override;

  const DefaultStrategyOptions& options() const { return o_; }

 private:
  // Growth then pruning (RefinementPlan), planned and applied.
  void refine(const StepInfo& info, DeviceGaussians& g, bool check_size);

  DefaultStrategyOptions o_;
  Rng rng_;
  RefinementPlanner planner_;
};

}  // namespace splat
