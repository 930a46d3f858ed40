#pragma once
// The 3DGS-as-MCMC strategy (Kheradmand et al. 2024): the Gaussians are samples, so instead of
// clone/split heuristics it (1) relocates dead Gaussians (opacity below min_opacity) onto live
// ones drawn with probability proportional to opacity, correcting opacity and scale so that the
// rendered image is unchanged to first order, (2) adds `grow_rate` more Gaussians per refinement
// the same way until `cap`, (3) perturbs every mean each step with noise shaped like the Gaussian
// itself, gated so that only nearly transparent ones move, and (4) regularises opacity and scale
// (L1 on sigmoid(opacity) and exp(log_scale)) so that unused Gaussians die and get recycled.
// (3) and (4) run every step on the Gaussians' device (kernels/mcmc.h); (1) and (2) every
// refine_every images, planned and applied there too (kernels/mcmc_relocate.h).
#include <cstdint>

#include "core/train/rng_state.h"
#include "core/train/strategy.h"

namespace splat {

struct McmcStrategyOptions {
  int64_t cap = 1000000;       // most Gaussians ever
  int refine_start = 500;      // images, like the two below (core/train/image_schedule.h)
  int refine_stop = 25000;
  int refine_every = 100;
  float min_opacity = 0.005f;  // at or below: dead
  float grow_rate = 0.05f;     // growth per refinement, as a fraction of the current count
  float noise_lr = 5e5f;       // noise scale relative to the means' learning rate
  float opacity_reg = 0.01f;   // weight of mean(sigmoid(opacity_logit)) in the loss, per 4 images (below)
  float scale_reg = 0.01f;     // weight of mean(exp(log_scale)) in the loss, per 4 images
};

// Where a relocation round leaves the rows. Kept: each where it was, appended copies at the end.
// AlongCurve: all of them ordered along the Morton curve of their means (kernels/morton.h), in the
// round's one gather. Relocation writes copies of rows drawn anywhere into dead rows wherever they lie,
// so after a few refinements a row's neighbours in memory lie anywhere in space; with ranks, the pairs a
// peer needs from a shard are then scattered over its rows, and the gated exchange writes partial lines
// over the link (bench/bench_gated_copy.cu: at 60 % of the rows kept, 1.6x the time of rows kept in
// runs). The strategy orders a refinement's last gather along the curve.
enum class RowOrder { Kept, AlongCurve };

// The two relocation rounds of a refinement, on g's device (kernels/mcmc_relocate.h), their draws keyed
// by `key`. relocate_dead: every dead row (opacity at or below min_opacity) becomes a copy of a live row
// drawn with probability proportional to opacity; append_copies: `count` such copies are appended. Drawn
// sources and their copies get the opacity and scale correction for their number of copies, and zero
// moments (gradients and statistics are zeroed, as after every row edit); then the rows are put in
// `order`. Each returns the rows moved or appended: 0 when no row is alive (or none is dead; or count is
// 0), and then g is left as it was.
int64_t relocate_dead(DeviceGaussians& g, float min_opacity, uint64_t key, RowOrder order = RowOrder::Kept);
int64_t append_copies(DeviceGaussians& g, float min_opacity, uint64_t key, int64_t count,
                      RowOrder order = RowOrder::Kept);

// The regularisers' weights are per kRegularizerImages images: a step of B images adds them at
// weight * B / kRegularizerImages. They act once per step, and Adam moves a parameter by about its
// learning rate per step whatever the gradient's size, so a fixed weight per step pulled opacity and
// scale down more often the smaller the batch: bonsai with MCMC (cap 1M, 30k images, H100) trained
// 31.85 dB at batch 4 and 31.24 at batch 1 with the same weights; batch 4 at twice the weights gave
// what batch 1 gave at half (31.53, 31.48), and batch 1 at a quarter of them 31.60 (bench/QUALITY.md,
// "MCMC's regularisers per image"). The weights are the reference trainer's, measured best at batch 4.
inline constexpr int kRegularizerImages = 4;
float regularizer_step_weight(float weight, int batch_size);

// Adds to g's gradients those of w_o * mean(opacity) + w_s * mean(world scale) over the whole model
// (info.model_rows; a shard adds its rows' part), with w the step weights of opacity_reg and scale_reg at
// info.batch_size (above): MCMC's regularisers, which the default strategy may add too. Nothing when both
// weights are 0.
void add_mean_regularizers(const StepInfo& info, DeviceGaussians& g, float opacity_reg, float scale_reg);

// How many rows a refinement appends to n rows: min(cap, floor((1 + grow_rate) n)) - n, at least 0.
int64_t mcmc_growth(const McmcStrategyOptions& o, int64_t n);

class McmcStrategy final : public Strategy {
 public:
  // The noise of the step that starts after k images is drawn from (seed, k) alone
  // (kernels/mcmc_math.h), so the seed and the refinement RNG are all the state a resumed run needs.
  explicit McmcStrategy(const McmcStrategyOptions& o = {}, uint64_t seed = 0);
  std::string name() const override { return "mcmc"; }
  bool wants_stats(int) const override { return false; }
  void add_loss_gradients(const StepInfo& info, DeviceGaussians& g) override;
  bool after_step(const StepInfo& info, DeviceGaussians& g) override;
  bool budget_per_shard() const override { return true; }
  nlohmann::json state() const override;
  void load_state(const nlohmann::json& s) override;

 private:
  McmcStrategyOptions o_;
  Rng rng_;              // refinement: which live Gaussians the dead and the new ones copy
  uint64_t noise_seed_;  // position noise
};

}  // namespace splat
