// Plotting a metric against step or wall time: even resampling along x and the hover lookup.
#include <catch2/catch.hpp>

#include <vector>

#include "ui/plot_series.h"

using namespace splat::ui;

TEST_CASE("plot series: resampling on an even x grid interpolates between entries", "[ui][plot]") {
  // Entries crowded at the start in x (as wall time is when the first steps are fast).
  const std::vector<float> x{0, 1, 2, 10}, y{0, 1, 2, 10};
  const std::vector<float> even = resample_even(x, y, 11);
  REQUIRE(even.size() == 11);
  for (int i = 0; i <= 10; ++i) CHECK(even[i] == Approx(float(i)));  // y = x, now evenly spaced

  const std::vector<float> x2{0, 4}, y2{8, 0};
  const std::vector<float> e2 = resample_even(x2, y2, 5);
  CHECK(e2 == std::vector<float>{8, 6, 4, 2, 0});

  // Too few entries or samples: the values as they are.
  CHECK(resample_even(std::vector<float>{3}, std::vector<float>{7}, 50) == std::vector<float>{7});
  CHECK(resample_even(x, y, 1) == y);
  CHECK_THROWS_AS(resample_even(x, y2, 5), std::invalid_argument);
}

TEST_CASE("plot series: hover finds the nearest entry", "[ui][plot]") {
  const std::vector<float> x{0, 1, 2, 10};
  CHECK(nearest_index(x, -5) == 0);
  CHECK(nearest_index(x, 0.4f) == 0);
  CHECK(nearest_index(x, 0.6f) == 1);
  CHECK(nearest_index(x, 5.9f) == 2);
  CHECK(nearest_index(x, 6.1f) == 3);
  CHECK(nearest_index(x, 99) == 3);
  CHECK_THROWS_AS(nearest_index(std::vector<float>{}, 1), std::invalid_argument);
}
