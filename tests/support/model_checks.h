#pragma once
// Comparing two Gaussian models (or training states) exactly, column by column: every column
// kParamColumns lists, so a column added there is compared too.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "core/model/device_gaussians.h"
#include "core/model/gaussian_model.h"
#include "kernels/morton.h"

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

// The rows of a state (each row's values and both moments over every column), sorted: equal for two
// states that hold the same rows in any order.
inline std::vector<std::vector<float>> rows_as_set(const GaussianState& s) {
  std::vector<std::vector<float>> rows;
  for (int64_t i = 0; i < s.size(); ++i) {
    std::vector<float> r;
    for (Group g : kAllGroups) {
      const int w = s.width(g);
      for (const std::vector<float>* v : {&s.col(g).value, &s.col(g).exp_avg, &s.col(g).exp_avg_sq})
        r.insert(r.end(), v->begin() + i * w, v->begin() + (i + 1) * w);
    }
    rows.push_back(std::move(r));
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

// Whether a state's rows follow the Morton curve of their means over their box
// (DeviceGaussians::sort_along_curve).
inline bool along_curve(const GaussianState& s) {
  const std::vector<float>& means = s.col(Group::Means).value;
  const kernels::MortonBox box = kernels::bounding_box_reference(means.data(), s.size());
  std::vector<uint32_t> codes;
  for (int64_t i = 0; i < s.size(); ++i) codes.push_back(kernels::morton_code(means.data() + 3 * i, box));
  return std::is_sorted(codes.begin(), codes.end());
}

}  // namespace splat::test
