// The viewer's render time per second of wall time, over a sliding window.
#include <catch2/catch.hpp>

#include "ui/render_cost.h"

using namespace splat::ui;
using namespace std::chrono_literals;

TEST_CASE("render cost sums the renders of the last second", "[ui][render_cost]") {
  RenderCost cost;
  const auto t0 = RenderCost::Clock::now();
  CHECK(cost.ms_per_s(t0) == 0.0);
  cost.add(t0, 4.0);
  cost.add(t0 + 500ms, 6.0);
  CHECK(cost.ms_per_s(t0 + 500ms) == Approx(10.0));
  CHECK(cost.ms_per_s(t0 + 1200ms) == Approx(6.0));  // the first left the window
  cost.add(t0 + 2s, 2.0);
  CHECK(cost.ms_per_s(t0 + 2s) == Approx(2.0));
  CHECK(cost.ms_per_s(t0 + 4s) == 0.0);  // idle: no cost
}

TEST_CASE("render cost scales to its window", "[ui][render_cost]") {
  RenderCost cost(500ms);
  const auto t0 = RenderCost::Clock::now();
  cost.add(t0, 5.0);
  CHECK(cost.ms_per_s(t0) == Approx(10.0));  // 5 ms in half a second
}
