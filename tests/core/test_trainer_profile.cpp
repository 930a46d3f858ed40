// The trainer's opt-in phase timing: off by default, every step's phases counted when on, and the
// training itself unchanged by it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "core/train/trainer.h"
#include "tests/core/demo_fixture.h"
#include "tests/support/test_support.h"

using namespace splat;

namespace {
const kernels::PhaseTotals::Phase* find_phase(const kernels::PhaseTotals& t, const std::string& name) {
  const auto& p = t.phases();
  const auto it = std::find_if(p.begin(), p.end(), [&](const auto& x) { return x.name == name; });
  return it == p.end() ? nullptr : &*it;
}
}  // namespace

TEST_CASE("trainer: --profile phases count every step and leave the training unchanged", "[trainer][profile]") {
  const Scene scene = test::small_demo_scene(32, 24, 100);
  TrainerOptions o;
  o.images = 10;
  o.cpu_threads = 1;
  o.default_strategy.refine_start = 2;
  o.default_strategy.refine_every = 3;  // refinements after steps 3, 6 and 9
  Trainer plain(scene, init_from_points(scene.points), o), profiled(scene, init_from_points(scene.points), o);
  CHECK(plain.step_phases() == nullptr);
  profiled.set_profiling(true);
  while (!plain.finished()) {
    plain.step();
    profiled.step();
  }
  REQUIRE(profiled.step_phases() != nullptr);
  const kernels::PhaseTotals& t = *profiled.step_phases();
  CHECK(profiled.profiled_steps() == 10);
  for (const char* name : {"render forward", "loss", "adam"}) {
    INFO(name);
    const auto* p = find_phase(t, name);
    REQUIRE(p != nullptr);
    CHECK(p->count == 10);
    CHECK(p->total_ms >= 0);
  }
  const auto* refine = find_phase(t, "strategy: refinement steps");
  const auto* other = find_phase(t, "strategy: other steps");
  REQUIRE(refine != nullptr);
  REQUIRE(other != nullptr);
  CHECK(refine->count == 3);
  CHECK(other->count == 7);
  CHECK(t.total_ms() > 0);
  // The CPU backend has no rasterizer stage clock.
  CHECK(profiled.raster_stages().phases().empty());
  // Timing only observes: both runs end with the same Gaussians.
  const GaussianModel a = plain.gaussians().to_model(), b = profiled.gaussians().to_model();
  CHECK(a.size() == b.size());
  CHECK(a.means == b.means);
  CHECK(a.opacity_logits == b.opacity_logits);
}

TEST_CASE("trainer: profiling on CUDA times the rasterizer's stages through the Rasterizer contract",
          "[trainer][profile][gpu]") {
  if (!splat::test::gpu_or_skip("CUDA rasterizer stage timing")) return;
  const Scene scene = test::small_demo_scene(32, 24, 100);
  TrainerOptions o;
  o.device = kernels::Device::CUDA;
  o.images = 3;
  Trainer t(scene, init_from_points(scene.points), o);
  t.step();
  CHECK(t.raster_stages().phases().empty());  // off by default
  t.set_profiling(true);
  t.step();
  t.step();
  const kernels::PhaseTotals& stages = t.raster_stages();
  REQUIRE_FALSE(stages.phases().empty());
  CHECK(find_phase(stages, "project") != nullptr);
  CHECK(find_phase(stages, "backward start") == nullptr);  // the gap is the loss, timed as a step phase
  for (const auto& p : stages.phases()) CHECK(p.count == 2);
}
