// The CPU budget proposal: the sharpest data factor that still trains enough images in the time aimed
// at, the budget that fits it; and the speed measurement on a demo scene, which must see smaller photos
// train faster.
#include <catch2/catch.hpp>

#include <vector>

#include "core/train/cpu_budget.h"
#include "tests/core/demo_fixture.h"

using namespace splat;

TEST_CASE("cpu budget: the smallest factor that reaches the minimum, the images that fit the time",
          "[core][cpu_budget]") {
  // 1.0 images/s at full size trains 600 images in 10 min, under the 2000 minimum; factor 4 at 3.4 does.
  const std::vector<FactorSpeed> speeds{{1, 1.0}, {2, 2.5}, {4, 3.4}, {8, 9.0}};
  const BudgetProposal p = propose_budget(speeds, {600, 2000, 30000});
  CHECK(p.data_factor == 4);
  CHECK(p.images == 2000);  // 3.4 * 600 = 2040, rounded down to hundreds
  CHECK(p.images_per_s == Approx(3.4));
  CHECK(describe(p, 600) == "proposed for ~10 min on the CPU: data factor 4, 2000 images (measured 3.4 images/s)");
}

TEST_CASE("cpu budget: a fast machine keeps full size, capped at the maximum", "[core][cpu_budget]") {
  const std::vector<FactorSpeed> speeds{{8, 500}, {1, 100}};  // order does not matter
  const BudgetProposal p = propose_budget(speeds, {600, 2000, 30000});
  CHECK(p.data_factor == 1);
  CHECK(p.images == 30000);
}

TEST_CASE("cpu budget: where no factor reaches the minimum the fastest is taken", "[core][cpu_budget]") {
  const std::vector<FactorSpeed> speeds{{1, 0.1}, {2, 0.5}, {4, 0.2}, {8, -1}};
  const BudgetProposal p = propose_budget(speeds, {600, 2000, 30000});
  CHECK(p.data_factor == 2);
  CHECK(p.images == 300);
  const std::vector<FactorSpeed> crawl{{1, 0.01}};
  CHECK(propose_budget(crawl, {600, 2000, 30000}).images == 6);  // under a hundred: not rounded to 0
  CHECK(propose_budget(std::vector<FactorSpeed>{}).images == 0);  // nothing measured
}

TEST_CASE("cpu budget: the measured speed on the demo scene grows with the data factor", "[core][cpu_budget]") {
  const Scene scene = test::small_demo_scene(160, 120, 2000);
  const GaussianModel model = init_from_points(scene.points);
  const std::vector<int> factors{1, 8};
  const std::vector<FactorSpeed> speeds = measure_cpu_speeds(model, scene, 1, factors, 2, 0.5);
  REQUIRE(speeds.size() == 2);
  CHECK(speeds[0].data_factor == 1);
  CHECK(speeds[1].data_factor == 8);
  WARN("images/s at factor 1: " << speeds[0].images_per_s << ", at 8: " << speeds[1].images_per_s);
  CHECK(speeds[0].images_per_s > 0);
  // A 64th of the pixels: clearly faster, whatever the machine's load (projection does not shrink).
  CHECK(speeds[1].images_per_s > 1.5 * speeds[0].images_per_s);
  const BudgetProposal p = propose_budget(speeds);
  CHECK(p.images > 0);
}
