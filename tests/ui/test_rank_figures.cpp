// The GPUs panel shows per-rank figures only once a step has reported them (ui/rank_figures.h).
#include <catch2/catch.hpp>

#include "ui/rank_figures.h"

TEST_CASE("rank figures: a session that has not stepped has none to show", "[ui]") {
  using splat::sharded::RankStats;
  CHECK_FALSE(splat::ui::ranks_reported({}));
  // An opened run's session: ranks listed, nothing measured yet.
  CHECK_FALSE(splat::ui::ranks_reported({RankStats{.rank = 0}, RankStats{.rank = 1}}));
  CHECK(splat::ui::ranks_reported({RankStats{.rank = 0, .gaussians = 4000, .step_ms = 12.5}}));
}
