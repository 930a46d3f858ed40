// No host wait in a training step with ranks (docs/ARCHITECTURE.md "No host wait in a step"): each rank
// thread counts its own waits (kernels/host_waits.h is per thread) over a short training of the demo,
// and every step after the warm-up that neither refines nor records metrics must make none.
#include <catch2/catch.hpp>

#include <vector>

#include "core/train/sharded/comm_sharding.h"
#include "core/transport/run_ranks.h"
#include "tests/core/demo_fixture.h"
#include "tests/core/step_waits.h"
#include "tests/support/test_support.h"

using namespace splat;
using kernels::ComputeContext;
using kernels::Device;

namespace {

// Each rank's count; checked on the test's thread, rank by rank.
std::vector<test::StepWaits> train_on_ranks(int ranks, const Scene& scene, const TrainerOptions& o) {
  std::vector<test::StepWaits> waits(static_cast<size_t>(ranks));
  transport::run_ranks(ranks, [&](int) { return ComputeContext(o.device); }, [&](transport::Communicator& comm) {
    TrainingRun run(scene, init_from_points(scene.points), o, test::wait_run_records(), sharded::over(comm));
    waits[size_t(comm.rank())] = test::count_step_waits(run, 3);
  });
  return waits;
}

void check_every_rank(const std::vector<test::StepWaits>& waits, int least) {
  for (size_t r = 0; r < waits.size(); ++r) {
    INFO("rank " << r);
    CHECK(waits[r].refinements >= 2);
    test::check_no_steady_waits(waits[r], least);
  }
}

}  // namespace

TEST_CASE("host waits: 2 CPU ranks' steps make none outside refinements and records", "[dist][waits]") {
  const Scene scene = test::small_demo_scene(32, 24, 100);
  const std::string strategy = GENERATE("default", "mcmc");
  INFO(strategy << " strategy");
  check_every_rank(train_on_ranks(2, scene, test::wait_run_options(Device::CPU, strategy, 2)), 100);
}

TEST_CASE("host waits: 2 CPU ranks with two image sizes in a batch make none either", "[dist][waits]") {
  const Scene scene = test::with_two_image_sizes(test::small_demo_scene(32, 24, 100));
  check_every_rank(train_on_ranks(2, scene, test::wait_run_options(Device::CPU, "default", 4)), 50);
}

// Expected to fail until the CUDA rasterizer no longer waits for its intersection count every
// forward (and counts the wait until then): the message names the wait.
TEST_CASE("host waits: 2 ranks on one GPU make none outside refinements and records", "[gpu][dist][waits]") {
  if (!test::gpu_or_skip("host waits of 2 CUDA ranks")) return;
  const Scene scene = test::with_two_image_sizes(test::small_demo_scene(32, 24, 100));
  check_every_rank(train_on_ranks(2, scene, test::wait_run_options(Device::CUDA, "default", 4)), 50);
}
