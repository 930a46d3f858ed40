// No host wait in a training step (docs/ARCHITECTURE.md "No host wait in a step"): one rank trains the
// demo scene, and every step after the warm-up that neither refines nor records metrics must make no
// host wait (kernels/host_waits.h). On the CPU the counter sees the places where a CUDA run would wait
// (reading what the device computed), so these tests guard the GPU's steps without a GPU; the [gpu]
// variant runs the same on CUDA.
#include <catch2/catch.hpp>

#include "tests/core/demo_fixture.h"
#include "tests/core/step_waits.h"
#include "tests/support/test_support.h"

using namespace splat;
using kernels::Device;

namespace {

test::StepWaits train_counting(const Scene& scene, const TrainerOptions& o) {
  TrainingRun run(scene, init_from_points(scene.points), o, test::wait_run_records());
  return test::count_step_waits(run, 3);
}

}  // namespace

TEST_CASE("host waits: a one-rank CPU step makes none outside refinements and records", "[trainer][waits]") {
  const Scene scene = test::small_demo_scene(32, 24, 100);
  const std::string strategy = GENERATE("default", "mcmc");
  const int batch = GENERATE(1, 3);
  INFO(strategy << " strategy, batch " << batch);
  const test::StepWaits w = train_counting(scene, test::wait_run_options(Device::CPU, strategy, batch));
  CHECK(w.refinements >= 2);
  test::check_no_steady_waits(w, 100 / batch);
}

TEST_CASE("host waits: a CPU batch of two image sizes sums its runs' losses without one", "[trainer][waits]") {
  const Scene scene = test::with_two_image_sizes(test::small_demo_scene(32, 24, 100));
  REQUIRE(!scene.has_masks());
  // Batches of 4 from views of two sizes: nearly every batch has runs of both.
  const test::StepWaits w = train_counting(scene, test::wait_run_options(Device::CPU, "default", 4));
  test::check_no_steady_waits(w, 50);
}

// Expected to fail until the CUDA rasterizer no longer waits for its intersection count every
// forward (and counts the wait until then): the message names the wait.
TEST_CASE("host waits: a one-rank CUDA step makes none outside refinements and records", "[trainer][waits][gpu]") {
  if (!test::gpu_or_skip("host waits of a CUDA step")) return;
  const Scene scene = test::with_two_image_sizes(test::small_demo_scene(32, 24, 100));
  const std::string strategy = GENERATE("default", "mcmc");
  INFO(strategy << " strategy");
  const test::StepWaits w = train_counting(scene, test::wait_run_options(Device::CUDA, strategy, 4));
  test::check_no_steady_waits(w, 50);
}
