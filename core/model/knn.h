#pragma once
// k-nearest-neighbour queries on 3D points with a k-d tree: used to size the initial Gaussians
// from the spacing of the SfM points (hundreds of thousands of points, so O(N^2) is not an option).
#include <cstdint>
#include <span>
#include <vector>

#include "kernels/hd_math.h"

namespace splat {

struct Neighbour {
  int64_t index = -1;
  double dist2 = 0;  // squared Euclidean distance
};

class KdTree {
 public:
  // Copies the points; the tree refers to them by their index in `points`.
  explicit KdTree(std::span<const Vec3d> points);

  // The k points nearest to q in ascending distance (fewer when the tree holds fewer), skipping
  // the point with index `exclude` (pass -1 to skip none). Ties keep the lower index first.
  std::vector<Neighbour> nearest(const Vec3d& q, int k, int64_t exclude = -1) const;

  int64_t size() const { return static_cast<int64_t>(points_.size()); }

 private:
  struct Best;
  void build(int64_t lo, int64_t hi);
  void search(int64_t lo, int64_t hi, const Vec3d& q, int64_t exclude, Best& best) const;

  std::vector<Vec3d> points_;
  // The tree is implicit in `order_`: the node for range [lo, hi) splits at mid = (lo + hi) / 2 on
  // axis_[mid]; points left of mid are <= it on that axis, points right of mid are >= it.
  std::vector<int64_t> order_;
  std::vector<uint8_t> axis_;
};

// For every point, the mean squared distance to its k nearest OTHER points (an index never counts
// as its own neighbour, but a duplicate point at distance 0 does). A point with fewer than k others
// averages over the ones that exist; a lone point gets 0. threads = 0 uses every core.
std::vector<double> mean_sq_distance_to_knn(std::span<const Vec3d> points, int k, int threads = 0);

}  // namespace splat
