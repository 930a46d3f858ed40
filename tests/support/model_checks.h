#pragma once
// Comparing two Gaussian models exactly, column by column: every column kParamColumns lists, so a
// column added there is compared too.
#include <catch2/catch.hpp>

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

}  // namespace splat::test
