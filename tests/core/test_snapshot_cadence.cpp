// The snapshot cadence: publications take at most their share of training time, between the minimum
// and the maximum interval, and follow the measured cost (up at once, down by halves).
#include <catch2/catch.hpp>

#include <limits>

#include "core/train/snapshot_cadence.h"

using splat::SnapshotCadence;
using namespace std::chrono_literals;

namespace {
double ms(SnapshotCadence::Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }
}  // namespace

TEST_CASE("snapshot cadence: the minimum interval until a cost is measured, due at once before the first",
          "[core][snapshot_cadence]") {
  const SnapshotCadence c;
  CHECK(ms(c.interval()) == Approx(200));
  CHECK_FALSE(c.cost_ms());
  CHECK(c.due(SnapshotCadence::Clock::time_point{}));
}

TEST_CASE("snapshot cadence: a publication takes at most its share of training time", "[core][snapshot_cadence]") {
  SnapshotCadence c(200ms, 2s, 0.02);
  c.measured(1.0);  // 1 ms at 2 %: 50 ms, below the minimum
  CHECK(ms(c.interval()) == Approx(200));
  c.measured(8.0);  // 8 ms: 400 ms
  CHECK(ms(c.interval()) == Approx(400));
  c.measured(100.0);  // 5 s: capped, the view stays live
  CHECK(ms(c.interval()) == Approx(2000));
  c.measured(1e12);  // absurd costs do not overflow the clock
  CHECK(ms(c.interval()) == Approx(2000));
}

TEST_CASE("snapshot cadence: a dearer publication counts at once, a cheaper one by halves", "[core][snapshot_cadence]") {
  SnapshotCadence c(0ms, 10s, 0.01);
  c.measured(10);
  CHECK(*c.cost_ms() == Approx(10));
  c.measured(1);  // halves, not straight to 1
  CHECK(*c.cost_ms() == Approx(5));
  CHECK(ms(c.interval()) == Approx(500));
  c.measured(1);
  CHECK(*c.cost_ms() == Approx(2.5));
  c.measured(20);
  CHECK(*c.cost_ms() == Approx(20));
  c.measured(-1);  // meaningless: ignored
  c.measured(std::numeric_limits<double>::quiet_NaN());
  CHECK(*c.cost_ms() == Approx(20));
}

TEST_CASE("snapshot cadence: due an interval after the last publication", "[core][snapshot_cadence]") {
  SnapshotCadence c(200ms, 2s, 0.02);
  const auto t0 = SnapshotCadence::Clock::time_point{} + 1h;
  c.published(t0);
  CHECK_FALSE(c.due(t0));
  CHECK_FALSE(c.due(t0 + 199ms));
  CHECK(c.due(t0 + 200ms));
  c.measured(10);  // 500 ms from now on, counted from the same publication
  CHECK_FALSE(c.due(t0 + 499ms));
  CHECK(c.due(t0 + 500ms));
}

TEST_CASE("snapshot cadence: a maximum below the minimum is raised to it, a bad share is refused",
          "[core][snapshot_cadence]") {
  SnapshotCadence none(24h, 2s);  // a session that wants no snapshots while it trains
  none.measured(0.5);
  CHECK(none.interval() == SnapshotCadence::Clock::duration(24h));
  CHECK_THROWS_AS(SnapshotCadence(200ms, 2s, 0.0), std::invalid_argument);
  CHECK_THROWS_AS(SnapshotCadence(200ms, 2s, 1.5), std::invalid_argument);
}
