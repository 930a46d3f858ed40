// The GUI's poll limiter (device memory and step share are read at most twice a second).
#include <catch2/catch.hpp>

#include "ui/throttle.h"

using namespace splat::ui;
using namespace std::chrono_literals;

TEST_CASE("throttle lets one action through per interval", "[ui][throttle]") {
  Throttle t(500ms);
  const auto t0 = Throttle::Clock::now();
  CHECK(t.due(t0));
  CHECK_FALSE(t.due(t0 + 100ms));
  CHECK_FALSE(t.due(t0 + 499ms));
  CHECK(t.due(t0 + 500ms));
  CHECK_FALSE(t.due(t0 + 900ms));  // the interval counts from the last action, not from t0
  CHECK(t.due(t0 + 1000ms));
}
