#include "core/train/sharded/render_costs.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "kernels/camera_blocks_math.h"

namespace splat::sharded {

namespace {

// A fold's whole-table scale stays within these: a fold comes every few hundred images at most, and
// rendering does not get twice as fast or slow in that time (a bound against a few outlying credits).
constexpr double kLeastScale = 0.5, kMostScale = 2.0;

// Blocks' loads compared: the longest first, then the sum of squares (the spread below the longest).
// Always computed afresh from an assignment, never updated in place, so that a search accepting only
// strictly better loads visits no assignment twice and ends.
struct Loads {
  double longest = 0, squares = 0;
  bool better_than(const Loads& o) const {
    return longest < o.longest || (longest == o.longest && squares < o.squares);
  }
};

// The loads of blocks over `ranks` ranks where batch position i goes to block[i] at cost c[i].
Loads loads_of(const std::vector<int>& block, const std::vector<double>& c, int ranks) {
  std::vector<double> load(size_t(ranks), 0.0);
  for (size_t i = 0; i < block.size(); ++i) load[size_t(block[i])] += c[i];
  Loads l;
  for (const double x : load) {
    l.longest = std::max(l.longest, x);
    l.squares += x * x;
  }
  return l;
}

}  // namespace

RenderCosts::RenderCosts(int views)
    : cost_ms_(size_t(std::max(views, 0)), 0.0),
      weight_(cost_ms_.size(), 0.0),
      credit_ms_(cost_ms_.size(), 0.0),
      credits_(cost_ms_.size(), 0) {}

double RenderCosts::estimate_or_mean(int view, double even_share) const {
  if (weight_[size_t(view)] > 0) return cost_ms_[size_t(view)];
  return known_mean_ms_ > 0 ? known_mean_ms_ : even_share;
}

void RenderCosts::observe(std::span<const int> block, double ms) {
  if (block.empty() || !std::isfinite(ms) || ms <= 0) return;
  const int V = int(cost_ms_.size());
  for (const int v : block)
    if (v < 0 || v >= V) return;
  const double even = ms / double(block.size());
  double estimated = 0;
  for (const int v : block) estimated += estimate_or_mean(v, even);
  for (const int v : block) {
    credit_ms_[size_t(v)] += ms * estimate_or_mean(v, even) / estimated;
    ++credits_[size_t(v)];
  }
}

void RenderCosts::fold(const std::function<void(std::span<int64_t>)>& sum) {
  const size_t V = cost_ms_.size();
  // Every rank's credits in one sum: whole nanoseconds, then counts.
  std::vector<int64_t> pooled(2 * V);
  for (size_t v = 0; v < V; ++v) {
    pooled[v] = std::llround(credit_ms_[v] * 1e6);
    pooled[V + v] = credits_[v];
  }
  sum(pooled);
  std::fill(credit_ms_.begin(), credit_ms_.end(), 0.0);
  std::fill(credits_.begin(), credits_.end(), 0);
  // How much the credited views' renders grew since their estimates.
  double credited = 0, estimated = 0;
  for (size_t v = 0; v < V; ++v)
    if (pooled[V + v] > 0 && weight_[v] > 0) {
      credited += double(pooled[v]) * 1e-6;
      estimated += double(pooled[V + v]) * cost_ms_[v];
    }
  const double scale = estimated > 0 ? std::clamp(credited / estimated, kLeastScale, kMostScale) : 1.0;
  for (size_t v = 0; v < V; ++v) {
    const int64_t n = pooled[V + v];
    if (n > 0) {
      const double kept = weight_[v] * std::pow(kKeep, double(n));
      cost_ms_[v] = (kept * cost_ms_[v] * scale + double(pooled[v]) * 1e-6) / (kept + double(n));
      weight_[v] = kept + double(n);
    } else {
      cost_ms_[v] *= scale;
    }
  }
  update_known_mean();
}

void RenderCosts::update_known_mean() {
  double known = 0;
  int known_views = 0;
  for (size_t v = 0; v < cost_ms_.size(); ++v)
    if (weight_[v] > 0) {
      known += cost_ms_[v];
      ++known_views;
    }
  known_mean_ms_ = known_views > 0 ? known / known_views : 0;
}

RenderCosts::Table RenderCosts::table() const { return {cost_ms_, weight_}; }

void RenderCosts::load(const Table& t) {
  if (t.cost_ms.size() != cost_ms_.size() || t.weight.size() != weight_.size())
    throw std::invalid_argument("render costs: a table of " + std::to_string(t.cost_ms.size()) + " costs and " +
                                std::to_string(t.weight.size()) + " weights for " + std::to_string(cost_ms_.size()) +
                                " views");
  for (const std::vector<double>* column : {&t.cost_ms, &t.weight})
    for (const double x : *column)
      if (!std::isfinite(x) || x < 0) throw std::invalid_argument("render costs: a cost or weight of " + std::to_string(x));
  cost_ms_ = t.cost_ms;
  weight_ = t.weight;
  std::fill(credit_ms_.begin(), credit_ms_.end(), 0.0);
  std::fill(credits_.begin(), credits_.end(), 0);
  update_known_mean();
}

std::optional<double> RenderCosts::cost(int view) const {
  if (view < 0 || size_t(view) >= cost_ms_.size() || weight_[size_t(view)] <= 0) return std::nullopt;
  return cost_ms_[size_t(view)];
}

std::vector<int> RenderCosts::balanced(std::span<const int> batch, int ranks) const {
  std::vector<int> order(batch.begin(), batch.end());
  const int B = int(batch.size());
  const size_t nb = batch.size(), nr = size_t(std::max(ranks, 0));
  if (ranks < 2 || B <= ranks || !(known_mean_ms_ > 0)) return order;
  std::vector<double> c(nb);
  for (int i = 0; i < B; ++i) c[size_t(i)] = cost(batch[size_t(i)]).value_or(known_mean_ms_);
  // block[i]: the block of batch position i. As drawn: contiguous.
  std::vector<int> drawn(nb), capacity(nr);
  for (int q = 0; q < ranks; ++q) {
    capacity[size_t(q)] = kernels::block_cameras(q, B, ranks);
    for (int i = kernels::block_first_camera(q, B, ranks); i < kernels::block_first_camera(q + 1, B, ranks); ++i)
      drawn[size_t(i)] = q;
  }
  // Longest first into the least loaded block with room (ties: the earlier position, the lower block).
  std::vector<int> by_cost(nb);
  for (int i = 0; i < B; ++i) by_cost[size_t(i)] = i;
  std::stable_sort(by_cost.begin(), by_cost.end(), [&](int a, int b) { return c[size_t(a)] > c[size_t(b)]; });
  std::vector<int> block(nb), room = capacity;
  std::vector<double> load(nr, 0.0);
  for (const int i : by_cost) {
    int best = -1;
    for (int q = 0; q < ranks; ++q)
      if (room[size_t(q)] > 0 && (best < 0 || load[size_t(q)] < load[size_t(best)])) best = q;
    block[size_t(i)] = best;
    load[size_t(best)] += c[size_t(i)];
    --room[size_t(best)];
  }
  // Then single swaps between blocks while one improves the loads (a swap keeps the block sizes).
  Loads now = loads_of(block, c, ranks);
  for (bool improved = true; improved;) {
    improved = false;
    for (size_t i = 0; i < nb; ++i)
      for (size_t j = i + 1; j < nb; ++j) {
        if (block[i] == block[j]) continue;
        std::swap(block[i], block[j]);
        const Loads swapped = loads_of(block, c, ranks);
        if (swapped.better_than(now)) {
          now = swapped;
          improved = true;
        } else {
          std::swap(block[i], block[j]);
        }
      }
  }
  if (!now.better_than(loads_of(drawn, c, ranks))) return order;
  order.clear();
  for (int q = 0; q < ranks; ++q)
    for (int i = 0; i < B; ++i)
      if (block[size_t(i)] == q) order.push_back(batch[size_t(i)]);
  return order;
}

}  // namespace splat::sharded
