#pragma once
// Comparing two Gaussian models (or training states) exactly, column by column: every column
// kParamColumns lists, so a column added there is compared too.
#include <catch2/catch.hpp>

#include "core/model/device_gaussians.h"
#include "core/model/gaussian_model.h"

namespace splat::test {

// Same size, same SH degree and every parameter column equal bit for bit.
inline void check_same_model(const GaussianModel& a, const GaussianModel& b) {
  REQUIRE(a.size() == b.size());
  CHECK(a.sh_degree() == b.sh_degree());
  for (Group g : kAllGroups) {
    INFO("column " << group_name(g));
    CHECK(a.column(g) == b.column(g));
  }
}

// Same size, same SH degree, and every column's values and both Adam moments equal bit for bit.
inline void check_same_state(const GaussianState& a, const GaussianState& b) {
  REQUIRE(a.size() == b.size());
  CHECK(a.sh_degree() == b.sh_degree());
  for (Group g : kAllGroups) {
    INFO("column " << group_name(g));
    CHECK(a.col(g).value == b.col(g).value);
    CHECK(a.col(g).exp_avg == b.col(g).exp_avg);
    CHECK(a.col(g).exp_avg_sq == b.col(g).exp_avg_sq);
  }
}

}  // namespace splat::test
