// The Metrics panel's step-time share: trainer phases folded into parts over the window between
// two readings of the profiling totals.
#include <catch2/catch.hpp>

#include "ui/step_share.h"

using namespace splat;
using namespace splat::ui;

namespace {
// Totals of `steps` identical steps with the trainer's phase names (ms per step given).
kernels::PhaseTotals steps_of(int steps, double other, double fwd, double loss, double bwd, double adam,
                              double strat) {
  kernels::PhaseTotals t;
  for (int i = 0; i < steps; ++i) {
    t.add("rebalance", other);
    t.add("render forward", fwd);
    t.add("loss", loss);
    t.add("render backward (+densify stats)", bwd);
    t.add("strategy loss terms", 0.5 * strat);
    t.add("adam", adam);
    t.add("strategy: other steps", 0.5 * strat);
  }
  return t;
}
double part(const StepShare& s, StepPart p) { return s.fraction[static_cast<int>(p)]; }
}  // namespace

TEST_CASE("step share: phase names fold into parts", "[ui][share]") {
  CHECK(step_part_of("render forward") == StepPart::RenderForward);
  CHECK(step_part_of("render backward (+densify stats)") == StepPart::RenderBackward);
  CHECK(step_part_of("strategy: refinement steps") == StepPart::Strategy);
  CHECK(step_part_of("strategy loss terms") == StepPart::Strategy);
  CHECK(step_part_of("adam") == StepPart::Adam);
  CHECK(step_part_of("loss") == StepPart::Loss);
  CHECK(step_part_of("rebalance") == StepPart::Other);
}

TEST_CASE("step share: fractions over the window between two readings", "[ui][share]") {
  const kernels::PhaseTotals empty;
  CHECK_FALSE(step_share(empty, empty));

  // 4 steps of 10 ms: 1 other, 4 forward, 1 loss, 2 backward, 1 Adam, 1 strategy.
  const kernels::PhaseTotals a = steps_of(4, 1, 4, 1, 2, 1, 1);
  const auto first = step_share(empty, a);
  REQUIRE(first);
  CHECK(first->steps == 4);
  CHECK(first->ms_per_step == Approx(10.0));
  CHECK(part(*first, StepPart::RenderForward) == Approx(0.4));
  CHECK(part(*first, StepPart::RenderBackward) == Approx(0.2));
  CHECK(part(*first, StepPart::Strategy) == Approx(0.1));
  CHECK(part(*first, StepPart::Other) == Approx(0.1));
  double sum = 0;
  for (double f : first->fraction) sum += f;
  CHECK(sum == Approx(1.0));

  // Two more steps where the backward dominates: the window holds only them.
  kernels::PhaseTotals b = a;
  const kernels::PhaseTotals more = steps_of(2, 0, 1, 0, 8, 1, 0);
  for (const auto& p : more.phases())
    for (int i = 0; i < p.count; ++i) b.add(p.name, p.total_ms / double(p.count));
  const auto window = step_share(a, b);
  REQUIRE(window);
  CHECK(window->steps == 2);
  CHECK(window->ms_per_step == Approx(10.0));
  CHECK(part(*window, StepPart::RenderBackward) == Approx(0.8));
  CHECK(part(*window, StepPart::RenderForward) == Approx(0.1));

  // No step in between: nothing to show.
  CHECK_FALSE(step_share(b, b));
  // Totals restarted (profiling switched off and on): the new run alone counts.
  const kernels::PhaseTotals restarted = steps_of(1, 0, 5, 0, 5, 0, 0);
  const auto fresh = step_share(b, restarted);
  REQUIRE(fresh);
  CHECK(fresh->steps == 1);
  CHECK(part(*fresh, StepPart::RenderForward) == Approx(0.5));
}
