#pragma once
// The 3DGS-as-MCMC strategy (Kheradmand et al. 2024): the Gaussians are samples, so instead of
// clone/split heuristics it (1) relocates dead Gaussians (opacity below min_opacity) onto live
// ones drawn with probability proportional to opacity, correcting opacity and scale so that the
// rendered image is unchanged to first order, (2) adds `grow_rate` more Gaussians per refinement
// the same way until `cap`, (3) perturbs every mean each step with noise shaped like the Gaussian
// itself, gated so that only nearly transparent ones move, and (4) regularises opacity and scale
// (L1 on sigmoid(opacity) and exp(log_scale)) so that unused Gaussians die and get recycled.
// (3) and (4) run every step on the Gaussians' device (kernels/mcmc.h); (1) and (2) are decided on
// the host every refine_every steps from the opacities and scales, and applied on the device.
#include <cstdint>
#include <vector>

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
  float opacity_reg = 0.01f;   // weight of mean(sigmoid(opacity_logit)) in the loss
  float scale_reg = 0.01f;     // weight of mean(exp(log_scale)) in the loss
};

// When one Gaussian of opacity o is replaced by k copies at the same place, each copy gets opacity
// 1 - (1 - o)^(1/k) (the k copies composite to o) and its scale multiplied by the factor that keeps
// the summed footprint (the MCMC paper's correction); k = 1 changes nothing.
float relocated_opacity(float opacity, int copies);
float relocated_scale_factor(float opacity, int copies);

// These four edit a RowEditPlan of the trainer's device copy (the rules read only opacities and
// scales, so only those columns come to the host; RowEditPlan::apply then edits the device rows).
//
// n rows drawn with replacement among rows with eligible[i] != 0, probability proportional to
// opacity; empty when no row is eligible.
std::vector<int64_t> sample_by_opacity(const RowEditPlan& s, const std::vector<uint8_t>& eligible, int64_t n, Rng& rng);

// Makes `targets` copies of the sampled sources (targets[j] <- sources[j]) with the opacity/scale
// correction applied to every copy and every source; moments of all of them are zeroed. Targets
// must be distinct and not among the sources.
void copy_with_correction(RowEditPlan& s, const std::vector<int64_t>& sources, const std::vector<int64_t>& targets,
                          float min_opacity);

// Moves every dead row onto a live one; returns how many moved (0 when all are dead or all live).
int64_t relocate_dead(RowEditPlan& s, const McmcStrategyOptions& o, Rng& rng);
// Appends min(cap, floor((1 + grow_rate) n)) - n rows sampled from the live ones; returns how many.
int64_t grow_towards_cap(RowEditPlan& s, const McmcStrategyOptions& o, Rng& rng);

class McmcStrategy final : public Strategy {
 public:
  // The noise of the step that starts after k images is drawn from (seed, k) alone
  // (kernels/mcmc_math.h), so the seed and the refinement RNG are all the state a resumed run needs.
  explicit McmcStrategy(const McmcStrategyOptions& o = {}, uint64_t seed = 0);
  std::string name() const override { return "mcmc"; }
  bool wants_stats(int) const override { return false; }
  void add_loss_gradients(const StepInfo& info, DeviceGaussians& g) override;
  bool after_step(const StepInfo& info, DeviceGaussians& g) override;
  nlohmann::json state() const override;
  void load_state(const nlohmann::json& s) override;

 private:
  McmcStrategyOptions o_;
  Rng rng_;              // refinement: which live Gaussians the dead and the new ones copy
  uint64_t noise_seed_;  // position noise
};

}  // namespace splat
