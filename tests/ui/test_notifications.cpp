// Notifications: at most a few shown, newest first; confirmations fade and expire, errors stay.
#include <catch2/catch.hpp>

#include "ui/notifications.h"

using splat::ui::Notifications;

TEST_CASE("notifications: a burst shows the newest few; confirmations fade and go, errors stay", "[ui]") {
  Notifications n;
  n.error("bad file");
  for (int i = 0; i < 6; ++i) n.info("saved " + std::to_string(i));
  n.expire(0.0);
  const auto shown = n.shown();
  REQUIRE(shown.size() == Notifications::kMaxShown);
  CHECK(shown.front() == n.size() - 1);  // newest first
  CHECK(n.alpha(shown.front(), 0.0) == 1.0);
  // Fading over the last second of a confirmation's life.
  const double mid = Notifications::kInfoSeconds - 0.5 * Notifications::kFadeSeconds;
  CHECK(n.alpha(shown.front(), mid) == Approx(0.5));
  // The shown confirmations expire; those that waited get their own seconds from now on.
  n.expire(Notifications::kInfoSeconds + 0.1);
  CHECK(n.size() == 4);  // the error and three confirmations never shown yet
  const double t = Notifications::kInfoSeconds + 0.1;
  for (size_t i : n.shown()) CHECK(n.alpha(i, t) == 1.0);
  n.expire(3 * Notifications::kInfoSeconds);
  // Only the error is left, and it does not fade.
  REQUIRE(n.size() == 1);
  CHECK(n.alpha(0, 100.0) == 1.0);
  CHECK(n.error_count() == 1);
}
