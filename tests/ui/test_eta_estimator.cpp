// The ETA from the recent rate (ui/eta_estimator.h).
#include <catch2/catch.hpp>

#include "ui/eta_estimator.h"

using splat::ui::EtaEstimator;

TEST_CASE("ETA: none before a rate is known; a steady rate gives the exact time left", "[ui]") {
  EtaEstimator e;
  CHECK_FALSE(e.eta_s(100));
  e.add(0, 0);
  CHECK_FALSE(e.eta_s(100));
  for (int t = 1; t <= 30; ++t) e.add(10.0 * t, t);
  REQUIRE(e.rate());
  CHECK(*e.rate() == Approx(10.0));
  CHECK(*e.eta_s(500) == Approx(50.0));
  CHECK(*e.eta_s(-5) == 0.0);  // past the budget: nothing left
}

TEST_CASE("ETA: a run slowing down (the Gaussian count grows) is not promised the early rate", "[ui]") {
  // 100 images/s falling to 25 over 3 minutes, a point every 5 s.
  EtaEstimator e;
  double images = 0;
  e.add(0, 0);
  for (int t = 5; t <= 180; t += 5) {
    const double rate = 100.0 - 75.0 * t / 180.0;
    images += 5 * rate;
    e.add(images, t);
  }
  const double left = 10000;
  const double since_start = left * 180.0 / images;  // the mean rate since the start: optimistic
  const double recent = left / 25.0;                  // at the rate the run goes now
  REQUIRE(e.eta_s(left));
  INFO("since start " << since_start << " s, estimate " << *e.eta_s(left) << " s, recent " << recent << " s");
  CHECK(*e.eta_s(left) > 1.5 * since_start);
  // The average lags the slowdown by some half-lives at most: no slower than now, no faster than the
  // rate of two half-lives ago.
  const double lagged = left / (100.0 - 75.0 * (180.0 - 2 * EtaEstimator::kHalfLifeS) / 180.0);
  CHECK(*e.eta_s(left) > lagged);
  CHECK(*e.eta_s(left) <= recent);
}

TEST_CASE("ETA: a new session of a reopened run counts its seconds from zero without a wild rate", "[ui]") {
  EtaEstimator e;
  for (int t = 0; t <= 60; t += 10) e.add(20.0 * t, t);  // the run's recorded history: 20 images/s
  e.add(1200, 0);                                        // reopened: the session's clock starts at 0
  e.add(1400, 10);
  REQUIRE(e.rate());
  CHECK(*e.rate() == Approx(20.0));
}
