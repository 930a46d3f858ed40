// Which device each rank computes on (core/transport/rank_plan.h), as the GUI's session uses it. CPU only:
// the plan's contexts name CUDA ordinals without touching a device.
#include <catch2/catch.hpp>

#include <vector>

#include "core/transport/rank_plan.h"
#include "kernels/device.h"

using namespace splat;
using namespace splat::transport;

TEST_CASE("rank plan: ranks spread over the chosen GPUs in blocks; CPU ranks", "[dist][rank_plan]") {
  const auto ordinals = [](const RankPlan& p) {
    std::vector<int> o;
    for (int r = 0; r < p.ranks; ++r) {
      const kernels::ComputeContext c = p.context(r);
      CHECK(c.device == kernels::Device::CUDA);
      o.push_back(c.ordinal);
    }
    return o;
  };
  CHECK(ordinals({kernels::Device::CUDA, {2, 5}, 2}) == std::vector<int>{2, 5});
  CHECK(ordinals({kernels::Device::CUDA, {2, 5}, 4}) == std::vector<int>{2, 2, 5, 5});
  CHECK(ordinals({kernels::Device::CUDA, {0, 1}, 3}) == std::vector<int>{0, 0, 1});
  CHECK(ordinals({kernels::Device::CUDA, {3}, 2}) == std::vector<int>{3, 3});
  CHECK(RankPlan{kernels::Device::CUDA, {0, 1}, 3}.describe() == "3 ranks on GPUs 0, 1");
  CHECK(RankPlan{kernels::Device::CUDA, {1}, 1}.describe() == "1 rank on GPU 1");

  const RankPlan cpu{kernels::Device::CPU, {}, 3};
  CHECK_NOTHROW(cpu.check());
  CHECK(cpu.context(2).device == kernels::Device::CPU);
  CHECK(cpu.describe() == "3 ranks on the CPU");

  CHECK_THROWS_WITH((RankPlan{kernels::Device::CPU, {}, 0}.check()), Catch::Contains("at least 1 rank"));
  CHECK_THROWS_WITH((RankPlan{kernels::Device::CUDA, {}, 1}.check()), Catch::Contains("no GPU selected"));
  const int found = kernels::cuda_device_count();
  CHECK_THROWS_WITH((RankPlan{kernels::Device::CUDA, {found}, 1}.check()),
                    Catch::Contains("GPU " + std::to_string(found) + " does not exist"));
  if (found >= 2) {
    CHECK_THROWS_WITH((RankPlan{kernels::Device::CUDA, {0, 1}, 1}.check()), Catch::Contains("every GPU runs at least one"));
    CHECK_THROWS_WITH((RankPlan{kernels::Device::CUDA, {1, 1}, 2}.check()), Catch::Contains("selected twice"));
  }
}
