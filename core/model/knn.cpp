#include "core/model/knn.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <thread>

namespace splat {
namespace {
// Ranges this small are scanned linearly: cheaper than descending further.
constexpr int64_t kLeafSize = 8;
}  // namespace

// The k best candidates so far, sorted ascending by (dist2, index); k is small (3 for the
// Gaussian initialisation), so insertion into a sorted vector beats a heap.
struct KdTree::Best {
  int k;
  std::vector<Neighbour> items;
  double worst() const {
    return static_cast<int>(items.size()) < k ? std::numeric_limits<double>::infinity() : items.back().dist2;
  }
  void offer(int64_t index, double dist2) {
    const bool full = static_cast<int>(items.size()) == k;
    if (full && (dist2 > items.back().dist2 || (dist2 == items.back().dist2 && index > items.back().index))) return;
    auto before = [](const Neighbour& a, const Neighbour& b) {
      return a.dist2 < b.dist2 || (a.dist2 == b.dist2 && a.index < b.index);
    };
    const Neighbour n{index, dist2};
    if (full) items.pop_back();
    items.insert(std::upper_bound(items.begin(), items.end(), n, before), n);
  }
};

KdTree::KdTree(std::span<const Vec3d> points) : points_(points.begin(), points.end()) {
  order_.resize(points_.size());
  for (size_t i = 0; i < order_.size(); ++i) order_[i] = static_cast<int64_t>(i);
  axis_.assign(points_.size(), 0);
  build(0, size());
}

void KdTree::build(int64_t lo, int64_t hi) {
  if (hi - lo <= kLeafSize) return;
  // Split on the axis of largest spread so that clustered SfM points still give balanced cells.
  Vec3d mn = points_[order_[lo]], mx = mn;
  for (int64_t i = lo; i < hi; ++i)
    for (int a = 0; a < 3; ++a) {
      mn[a] = std::min(mn[a], points_[order_[i]][a]);
      mx[a] = std::max(mx[a], points_[order_[i]][a]);
    }
  int axis = 0;
  for (int a = 1; a < 3; ++a)
    if (mx[a] - mn[a] > mx[axis] - mn[axis]) axis = a;
  const int64_t mid = (lo + hi) / 2;
  std::nth_element(order_.begin() + lo, order_.begin() + mid, order_.begin() + hi,
                   [&](int64_t a, int64_t b) { return points_[a][axis] < points_[b][axis]; });
  axis_[mid] = static_cast<uint8_t>(axis);
  build(lo, mid);
  build(mid + 1, hi);
}

void KdTree::search(int64_t lo, int64_t hi, const Vec3d& q, int64_t exclude, Best& best) const {
  auto consider = [&](int64_t slot) {
    const int64_t idx = order_[slot];
    if (idx == exclude) return;
    const Vec3d d = points_[idx] - q;
    best.offer(idx, dot(d, d));
  };
  if (hi - lo <= kLeafSize) {
    for (int64_t i = lo; i < hi; ++i) consider(i);
    return;
  }
  const int64_t mid = (lo + hi) / 2;
  const int axis = axis_[mid];
  const double diff = q[axis] - points_[order_[mid]][axis];
  consider(mid);
  // Near side first so the far side is usually pruned by the distance to the splitting plane.
  if (diff < 0) {
    search(lo, mid, q, exclude, best);
    if (diff * diff <= best.worst()) search(mid + 1, hi, q, exclude, best);
  } else {
    search(mid + 1, hi, q, exclude, best);
    if (diff * diff <= best.worst()) search(lo, mid, q, exclude, best);
  }
}

std::vector<Neighbour> KdTree::nearest(const Vec3d& q, int k, int64_t exclude) const {
  if (k < 0) throw std::invalid_argument("KdTree::nearest: k must be >= 0");
  Best best{k, {}};
  best.items.reserve(static_cast<size_t>(k) + 1);
  if (k > 0) search(0, size(), q, exclude, best);
  return best.items;
}

std::vector<double> mean_sq_distance_to_knn(std::span<const Vec3d> points, int k, int threads) {
  const KdTree tree(points);
  std::vector<double> out(points.size(), 0.0);
  // Queries are independent: interleaved chunks over threads give the same result for any count.
  const size_t n = points.size();
  const size_t t = std::max<size_t>(1, std::min<size_t>(n / 4096 + 1, threads > 0 ? threads : std::thread::hardware_concurrency()));
  auto work = [&](size_t first) {
    for (size_t i = first; i < n; i += t) {
      const auto nn = tree.nearest(points[i], k, static_cast<int64_t>(i));
      if (nn.empty()) continue;
      double sum = 0;
      for (const auto& nb : nn) sum += nb.dist2;
      out[i] = sum / static_cast<double>(nn.size());
    }
  };
  std::vector<std::thread> pool;
  for (size_t j = 1; j < t; ++j) pool.emplace_back(work, j);
  work(0);
  for (auto& th : pool) th.join();
  return out;
}

}  // namespace splat
