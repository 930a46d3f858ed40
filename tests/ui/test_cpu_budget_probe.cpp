// The GUI's CPU budget proposal: a newly opened scene is measured off the GUI thread and proposed
// once; the same scene is not measured again (what the user sets stays), nor anything while unwanted.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <thread>

#include "tests/support/test_support.h"
#include "tests/ui/tiny_demo_viewer.h"
#include "ui/cpu_budget_probe.h"

namespace fs = std::filesystem;
using namespace splat;
using namespace splat::ui;

namespace {
// Polls as the panel does each frame until a proposal comes or ten seconds pass.
std::optional<BudgetProposal> wait_for_proposal(CpuBudgetProbe& probe, const ViewerContent& content) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < until) {
    if (auto p = probe.poll(content, true)) return p;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return std::nullopt;
}
}  // namespace

TEST_CASE("cpu budget probe: measures a new scene once and proposes a run", "[ui][cpu_budget]") {
  const fs::path dir = test::scratch_dir("ui_cpu_budget");
  ViewerState state(kernels::Device::CPU, dir / "recent.json");
  test::open_tiny_demo(state, dir);
  CpuBudgetProbe probe;
  CHECK_FALSE(probe.poll(state.content, false));  // unwanted: nothing starts
  CHECK_FALSE(probe.measuring());
  CHECK_FALSE(probe.poll(state.content, true));  // starts the measurement, returns at once
  CHECK(probe.measuring());
  const std::optional<BudgetProposal> p = wait_for_proposal(probe, state.content);
  REQUIRE(p);
  CHECK(p->images > 0);
  CHECK(p->images <= probe.goal.max_images);
  CHECK(p->images_per_s > 0);
  CHECK(std::find(std::begin(CpuBudgetProbe::kFactors), std::end(CpuBudgetProbe::kFactors), p->data_factor) !=
        std::end(CpuBudgetProbe::kFactors));
  CHECK(probe.note().find("proposed for ~10 min on the CPU") == 0);
  // The same scene again (as reopening it at the proposed factor gives): no second measurement.
  CHECK_FALSE(probe.poll(state.content, true));
  CHECK_FALSE(probe.measuring());
}
