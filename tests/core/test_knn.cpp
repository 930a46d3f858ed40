#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

#include "core/model/knn.h"

namespace {
std::vector<splat::Vec3d> random_points(int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<splat::Vec3d> p(n);
  // Anisotropic cloud: a flat slab exercises the largest-spread split choice.
  for (auto& v : p) v = {u(rng) * 4.0, u(rng), u(rng) * 0.1};
  return p;
}

std::vector<splat::Neighbour> brute_force(const std::vector<splat::Vec3d>& p, const splat::Vec3d& q, int k,
                                          int64_t exclude) {
  std::vector<splat::Neighbour> all;
  for (int64_t i = 0; i < static_cast<int64_t>(p.size()); ++i) {
    if (i == exclude) continue;
    const splat::Vec3d d = p[i] - q;
    all.push_back({i, splat::dot(d, d)});
  }
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
    return a.dist2 < b.dist2 || (a.dist2 == b.dist2 && a.index < b.index);
  });
  all.resize(std::min<size_t>(all.size(), k));
  return all;
}
}  // namespace

TEST_CASE("k-d tree nearest neighbours equal brute force on random points", "[knn]") {
  const auto pts = random_points(3000, 7);
  const splat::KdTree tree(pts);
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(-4.5, 4.5);
  for (int k : {1, 3, 10}) {
    for (int trial = 0; trial < 300; ++trial) {
      // Half the queries are the points themselves (excluded), half arbitrary locations.
      const bool self = trial % 2 == 0;
      const int64_t ex = self ? trial * 7 : -1;
      const splat::Vec3d q = self ? pts[ex] : splat::Vec3d{u(rng), u(rng) / 4, u(rng) / 40};
      const auto got = tree.nearest(q, k, ex);
      const auto want = brute_force(pts, q, k, ex);
      REQUIRE(got.size() == want.size());
      for (size_t i = 0; i < got.size(); ++i) {
        CHECK(got[i].index == want[i].index);
        CHECK(got[i].dist2 == want[i].dist2);
      }
    }
  }
}

TEST_CASE("mean squared kNN distance matches brute force and handles duplicates and tiny inputs", "[knn]") {
  auto pts = random_points(500, 3);
  pts.push_back(pts[10]);  // a duplicate is a neighbour at distance 0
  const auto d = splat::mean_sq_distance_to_knn(pts, 3);
  REQUIRE(d.size() == pts.size());
  for (size_t i = 0; i < pts.size(); ++i) {
    const auto nn = brute_force(pts, pts[i], 3, static_cast<int64_t>(i));
    const double want = (nn[0].dist2 + nn[1].dist2 + nn[2].dist2) / 3.0;
    CHECK(d[i] == Approx(want).epsilon(1e-12));
  }
  CHECK(splat::mean_sq_distance_to_knn(std::vector<splat::Vec3d>{{0, 0, 0}}, 3) == std::vector<double>{0.0});
  const auto two = splat::mean_sq_distance_to_knn(std::vector<splat::Vec3d>{{0, 0, 0}, {0, 2, 0}}, 3);
  CHECK(two == std::vector<double>{4.0, 4.0});
}
