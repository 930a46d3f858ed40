#pragma once
// Where the training step's time goes, for the Metrics panel: the trainer's profiled phases
// (kernels/phase_timer.h) folded into a few parts, over the steps between two readings of the
// totals, so the panel shows the recent share rather than the average since profiling began.
// No ImGui here.
#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "kernels/phase_timer.h"

namespace splat::ui {

enum class StepPart { RenderForward, Loss, RenderBackward, Adam, Strategy, Other };
inline constexpr int kStepPartCount = 6;
const char* step_part_name(StepPart part);
// The part a trainer phase belongs to, by the phase's name ("render backward (+densify stats)"
// and "strategy: refinement steps" fold into their parts; zeroing gradients is Other).
StepPart step_part_of(const std::string& phase);

struct StepShare {
  std::array<double, kStepPartCount> fraction{};  // sums to 1
  double ms_per_step = 0;                          // device time of the summed phases per step
  int64_t steps = 0;                               // steps in the window
};

// The share over the steps profiled after `before` up to `now`, two readings of one profiling
// run's totals. When `now` belongs to a newer run (profiling was turned off and on, so its counts
// are smaller), the window is `now` alone. nullopt when no step completed in the window.
std::optional<StepShare> step_share(const kernels::PhaseTotals& before, const kernels::PhaseTotals& now);

}  // namespace splat::ui
