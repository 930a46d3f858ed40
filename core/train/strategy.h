#pragma once
// How the set of Gaussians changes during training: the one interface both densification
// strategies (core/train/strategy_default.h, core/train/strategy_mcmc.h) implement. The trainer calls the
// hooks at fixed points of every step; a strategy decides on the host and edits through
// DeviceGaussians, which keeps parameters, Adam moments and statistics aligned.
#include <cstdint>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "core/model/device_gaussians.h"
#include "kernels/phase_timer.h"

namespace splat {

// What a strategy needs to know about the step just taken. Schedules count images
// (core/train/image_schedule.h): the step trained images [first_image, first_image + batch_size).
struct StepInfo {
  int first_image = 0;     // images trained before this step
  int batch_size = 1;      // cameras rendered in this step (the loss is their mean)
  int total_images = 0;    // the run's image budget
  double scene_extent = 1; // Scene::extent
  float means_lr = 0;      // learning rate the means had in this step, batch scaling included (MCMC's noise)
  int64_t first_row = 0;   // global id of this rank's row 0 (0 for one rank)
  int64_t model_rows = 0;  // rows of the whole model, every rank's (a mean over the model divides by it)
  // Under --profile: the step's timer, on which a refinement marks its parts (null otherwise).
  kernels::PhaseTimer* timer = nullptr;
  // Ends the profiled phase `part` (nothing without --profile).
  void mark(const char* part) const {
    if (timer) timer->mark(part);
  }
};

class Strategy {
 public:
  virtual ~Strategy() = default;
  virtual std::string name() const = 0;

  // Whether backward should accumulate kernels::DensifyStats in the step that starts after
  // `first_image` images (they cost time).
  virtual bool wants_stats(int first_image) const = 0;
  // Whether those statistics include the AbsGS sums (DensifyStats::grad2d_abs_norm), which only a
  // strategy growing by them reads: without them the CUDA backward blend skips a sixth of its
  // cross-lane sums. Read at every step, so a change of options takes effect at the next one (the
  // refinement window then under way has the sums from that step on).
  virtual bool wants_abs_stats() const { return false; }

  // After backward, before the optimizer: add gradients of the strategy's own loss terms
  // (MCMC's regularisers) to g.grad(). The default adds none.
  virtual void add_loss_gradients(const StepInfo&, DeviceGaussians&) {}

  // After the optimizer step: densify, prune, relocate, perturb. Returns true when the number
  // or order of rows changed (the trainer then drops anything sized by the old count).
  virtual bool after_step(const StepInfo& info, DeviceGaussians& g) = 0;

  // Whether, with ranks, each shard's Gaussians may number no more than its share of a budget in
  // proportion to its rows (MCMC's cap, the default strategy's max_gaussians). Such a shard's rows are
  // what its region of the scene may spend, so the trainer keeps the shards even rather than sizing them
  // by what their ranks wait on (core/train/sharded/wait_balance.h): sized by waits, the shards of MCMC
  // on two GPUs swung between 31 % and 69 % of the rows and trained bonsai 0.2-0.4 dB below one GPU
  // (bench/TWO_GPUS.md).
  virtual bool budget_per_shard() const { return false; }

  // Everything the strategy carries between steps (its RNG), for checkpoints: resuming with
  // load_state(state()) makes the next decisions identical.
  virtual nlohmann::json state() const = 0;
  virtual void load_state(const nlohmann::json& s) = 0;
};

}  // namespace splat
