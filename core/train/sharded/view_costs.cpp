#include "core/train/sharded/view_costs.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

#include "kernels/camera_blocks_math.h"

namespace splat::sharded {

ViewCosts::ViewCosts(int views) : pooled_(size_t(std::max(views, 0)), 0), newest_(pooled_.size(), 0) {}

void ViewCosts::observe(const ViewCost& c) {
  if (c.view < 0 || size_t(c.view) >= newest_.size())
    throw std::out_of_range("view costs: view " + std::to_string(c.view) + " of " + std::to_string(newest_.size()));
  // A render with no intersection costs its pixels: count it as one, so that "observed" stays nonzero.
  newest_[size_t(c.view)] = std::max<int64_t>(c.cost, 1);
}

// Per view: the sum of the ranks' newest costs, then how many ranks observed it.
std::vector<int64_t> ViewCosts::share() const {
  const size_t V = newest_.size();
  std::vector<int64_t> v(2 * V, 0);
  for (size_t i = 0; i < V; ++i)
    if (newest_[i] > 0) v[i] = newest_[i], v[V + i] = 1;
  return v;
}

void ViewCosts::take_shared(std::span<const int64_t> sums) {
  const size_t V = newest_.size();
  if (sums.size() != 2 * V)
    throw std::invalid_argument("view costs: " + std::to_string(sums.size()) + " pooled values for " +
                                std::to_string(V) + " views");
  for (size_t i = 0; i < V; ++i)
    if (sums[V + i] > 0) {
      known_ += pooled_[i] == 0;
      pooled_[i] = std::max<int64_t>(sums[i] / sums[V + i], 1);
    }
  std::fill(newest_.begin(), newest_.end(), 0);
}

void ViewCosts::load_state(const nlohmann::json& s) {
  std::vector<int64_t> table = s.get<std::vector<int64_t>>();
  if (table.size() != pooled_.size())
    throw std::runtime_error("checkpoint's view costs hold " + std::to_string(table.size()) + " views for " +
                             std::to_string(pooled_.size()) + " (another scene?)");
  pooled_ = std::move(table);
  known_ = int(std::count_if(pooled_.begin(), pooled_.end(), [](int64_t c) { return c > 0; }));
  std::fill(newest_.begin(), newest_.end(), 0);
}

std::vector<int> balanced_order(std::span<const int> views, const ViewCosts& costs, int ranks) {
  const int B = int(views.size());
  std::vector<int> out(views.begin(), views.end());
  if (ranks < 2 || B < ranks || !costs.any()) return out;
  int64_t known_sum = 0;
  int known = 0;
  for (const int v : views)
    if (costs.cost(v) > 0) known_sum += costs.cost(v), ++known;
  if (known == 0) return out;
  std::vector<int64_t> cost(static_cast<size_t>(B));
  for (int i = 0; i < B; ++i) {
    const int64_t c = costs.cost(views[size_t(i)]);
    cost[size_t(i)] = c > 0 ? c : known_sum / known;
  }
  std::vector<int> by_cost(static_cast<size_t>(B));
  std::iota(by_cost.begin(), by_cost.end(), 0);
  std::stable_sort(by_cost.begin(), by_cost.end(), [&](int a, int b) { return cost[size_t(a)] > cost[size_t(b)]; });
  std::vector<int64_t> load(static_cast<size_t>(ranks), 0);
  std::vector<int> room(static_cast<size_t>(ranks)), block_of(static_cast<size_t>(B));
  for (int q = 0; q < ranks; ++q) room[size_t(q)] = kernels::block_cameras(q, B, ranks);
  for (const int i : by_cost) {
    int best = -1;
    for (int q = 0; q < ranks; ++q)
      if (room[size_t(q)] > 0 && (best < 0 || load[size_t(q)] < load[size_t(best)])) best = q;
    block_of[size_t(i)] = best;
    load[size_t(best)] += cost[size_t(i)];
    --room[size_t(best)];
  }
  size_t at = 0;
  for (int q = 0; q < ranks; ++q)
    for (int i = 0; i < B; ++i)
      if (block_of[size_t(i)] == q) out[at++] = views[size_t(i)];
  return out;
}

}  // namespace splat::sharded
