#pragma once
// A run that fits a few minutes on the CPU backend. The GUI's defaults (30000 images at full size)
// suit a GPU; on the CPU they mean hours. When a scene opens on the CPU, the GUI measures how fast
// the rasterizer trains on it at a few data factors and proposes the factor and the image budget of a
// run of about `seconds`; the user may change both. The choice is pure arithmetic on the measured
// speeds (tested without a clock); the measurement is a separate function that times the real work.
#include <span>
#include <string>
#include <vector>

#include "core/model/gaussian_model.h"
#include "core/scene/scene.h"

namespace splat {

// Training images a second at one data factor (photos at 1/data_factor size).
struct FactorSpeed {
  int data_factor = 1;
  double images_per_s = 0;
};

struct BudgetGoal {
  double seconds = 600;  // the run's length to aim at
  // Fewer images than this teach the Gaussians little (densification alone takes thousands): a
  // smaller factor is worth it only while it still reaches this many.
  int min_images = 2000;
  int max_images = 30000;  // the GPU default: a fast machine gains nothing from more
};

struct BudgetProposal {
  int data_factor = 1;
  int images = 0;
  double images_per_s = 0;  // measured at data_factor
};

// The smallest data factor (the sharpest photos) whose measured speed reaches goal.min_images in
// goal.seconds, or the fastest factor where none does; the budget is what that speed trains in
// goal.seconds, rounded down to hundreds and clamped to [min(100, ...), goal.max_images]. Speeds
// that are not positive are ignored; with none left the proposal has images = 0 (nothing measured).
BudgetProposal propose_budget(std::span<const FactorSpeed> speeds, const BudgetGoal& goal = {});

// One line for the Training panel: what was proposed and from which speed.
std::string describe(const BudgetProposal& proposal, double seconds);

// Times a forward and backward of the CPU rasterizer over `model` (the Gaussians a run starts from)
// on the scene's first training view at each of `factors`, for about `seconds_each` a factor (at
// least two renders). The scene's photos were loaded at `loaded_factor`: cameras are scaled from there,
// so a factor below it is measured too. `threads` as for make_cpu_rasterizer (0: every core, as the
// trainer uses). A training step also computes the loss and updates the parameters, so the speed is
// an upper bound of the trainer's.
std::vector<FactorSpeed> measure_cpu_speeds(const GaussianModel& model, const Scene& scene, int loaded_factor,
                                            std::span<const int> factors, int threads = 0, double seconds_each = 0.5);

}  // namespace splat
