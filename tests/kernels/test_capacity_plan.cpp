// The host's plan for device buffers sized by device counts (kernels/capacity_plan.h).
#include <catch2/catch.hpp>
#include <cmath>

#include "kernels/capacity_plan.h"

using splat::kernels::CapacityPlan;

TEST_CASE("capacity plan: nothing planned before a count came back", "[capacity_plan]") {
  CapacityPlan plan;
  CHECK_FALSE(plan.capacity(1000, 1 << 30).has_value());
  CHECK_FALSE(plan.record(1000, 5000, 5000));
  REQUIRE(plan.capacity(1000, 1 << 30).has_value());
}

TEST_CASE("capacity plan: room for the largest recent need per pair, with a margin", "[capacity_plan]") {
  CapacityPlan plan;
  plan.record(1000, 2000, 2000);  // 2 per pair
  plan.record(1000, 3000, 4000);  // 3 per pair: the largest
  plan.record(1000, 1000, 4000);
  const int64_t want = int64_t(3.0 * CapacityPlan::kFirstMargin * 2000) + CapacityPlan::kSlack;
  CHECK(*plan.capacity(2000, int64_t(1) << 40) == want);
  CHECK(*plan.capacity(2000, 100) == 100);  // never past the limit
  CHECK(plan.overflows() == 0);
}

TEST_CASE("capacity plan: an overflow is counted and widens the margin", "[capacity_plan]") {
  CapacityPlan plan;
  plan.record(1000, 1000, 1000);
  const int64_t before = *plan.capacity(1000, int64_t(1) << 40);
  CHECK(plan.record(1000, before + 1, before));
  CHECK(plan.overflows() == 1);
  CHECK(plan.margin() > CapacityPlan::kFirstMargin);
  // The need that overflowed is now in the window, and the margin is wider on top of it.
  CHECK(*plan.capacity(1000, int64_t(1) << 40) > before + 1);
  for (int k = 0; k < 20; ++k) plan.record(1000, 1 << 20, 0);
  CHECK(plan.margin() == CapacityPlan::kMostMargin);
}

TEST_CASE("capacity plan: old needs leave the window", "[capacity_plan]") {
  CapacityPlan plan;
  plan.record(100, 1000, 1000);  // 10 per pair, then a long run of 1 per pair pushes it out
  for (int k = 0; k < CapacityPlan::kWindow; ++k) plan.record(100, 100, 1000);
  // Gone from the needs that bound the room; still in the spread, which keeps the first margin.
  const int64_t far = int64_t(1) << 40;
  CHECK(*plan.capacity(100, far) == int64_t(1.0 * CapacityPlan::kFirstMargin * 100) + CapacityPlan::kSlack);
  for (int k = 0; k < CapacityPlan::kSpreadWindow; ++k) plan.record(100, 100, 1000);
  CHECK(*plan.capacity(100, far) == int64_t(1.0 * CapacityPlan::kLeastMargin * 100) + CapacityPlan::kSlack);
}

TEST_CASE("capacity plan: the margin narrows to twice the needs' spread, not before a few calls", "[capacity_plan]") {
  CapacityPlan plan;
  // Needs per pair alternating 0.95 and 1.0: a spread of 5 % of the largest.
  auto record = [&](int k) { plan.record(1000, k % 2 ? 950 : 1000, 1 << 20); };
  for (int k = 0; k + 1 < CapacityPlan::kSettled; ++k) record(k);
  CHECK(plan.margin() == CapacityPlan::kFirstMargin);  // too few calls to trust their spread
  record(CapacityPlan::kSettled);
  CHECK(plan.margin() == Approx(1.1));
  CHECK(*plan.capacity(1000, int64_t(1) << 40) == int64_t(std::ceil(1.0 * 1.1 * 1000)) + CapacityPlan::kSlack);
  // A wide spread is held to the first margin, agreeing needs get the least one once the wide one
  // has left the spread's window.
  plan.record(1000, 800, 1 << 20);
  CHECK(plan.margin() == CapacityPlan::kFirstMargin);
  for (int k = 0; k < CapacityPlan::kSpreadWindow - 1; ++k) plan.record(1000, 1000, 1 << 20);
  CHECK(plan.margin() == CapacityPlan::kFirstMargin);
  plan.record(1000, 1000, 1 << 20);
  CHECK(plan.margin() == CapacityPlan::kLeastMargin);
  // Once the plan has overflowed, it keeps the widened margin whatever the spread.
  CHECK(plan.record(1000, 2000, 1000));
  for (int k = 0; k < CapacityPlan::kSpreadWindow; ++k) plan.record(1000, 2000, 1 << 20);
  CHECK(plan.margin() == CapacityPlan::kFirstMargin * CapacityPlan::kMarginGrowth);
}
