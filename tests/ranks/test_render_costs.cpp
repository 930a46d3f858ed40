// The views' learned render costs and the batch split they give (core/train/sharded/render_costs.h):
// the credits of measured block renders converge to what each view costs and follow a model that
// grows; every rank folds to the same table; a batch is reordered so that its contiguous blocks are
// even, never worse than drawn.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <random>
#include <vector>

#include "core/train/sharded/render_costs.h"
#include "core/transport/run_ranks.h"
#include "kernels/camera_blocks_math.h"

using namespace splat;
using namespace splat::sharded;
using kernels::ComputeContext;
using kernels::Device;

namespace {

// A fold of one rank alone.
void fold_alone(RenderCosts& costs) {
  costs.fold([](std::span<int64_t>) {});
}

// Each view rendered alone once, at its cost, then folded: the table holds exactly those costs.
RenderCosts measured_alone(const std::vector<double>& cost_ms) {
  RenderCosts costs(int(cost_ms.size()));
  for (int v = 0; v < int(cost_ms.size()); ++v) costs.observe(std::vector<int>{v}, cost_ms[size_t(v)]);
  fold_alone(costs);
  return costs;
}

// The blocks' loads of `order` over `ranks` ranks, by `cost_ms` per view.
std::vector<double> block_loads(const std::vector<int>& order, int ranks, const std::vector<double>& cost_ms) {
  const int B = int(order.size());
  std::vector<double> load(size_t(ranks), 0.0);
  for (int q = 0; q < ranks; ++q)
    for (int i = kernels::block_first_camera(q, B, ranks); i < kernels::block_first_camera(q + 1, B, ranks); ++i)
      load[size_t(q)] += cost_ms[size_t(order[size_t(i)])];
  return load;
}

double longest(const std::vector<double>& load) { return *std::max_element(load.begin(), load.end()); }

// The shortest longest block of any split of a batch of 4 into 2 blocks of 2.
double best_split_of_four(const std::vector<int>& b, const std::vector<double>& c) {
  auto pair = [&](int i, int j) { return c[size_t(b[size_t(i)])] + c[size_t(b[size_t(j)])]; };
  return std::min({std::max(pair(0, 1), pair(2, 3)), std::max(pair(0, 2), pair(1, 3)), std::max(pair(0, 3), pair(1, 2))});
}

// `views` costs drawn from `dist`, and batches of views drawn evenly, with `gen`.
template <class Dist>
std::vector<double> drawn_costs(size_t views, Dist dist, std::mt19937& gen) {
  std::vector<double> c(views);
  for (double& x : c) x = dist(gen);
  return c;
}
std::vector<int> drawn_batch(int size, size_t views, std::mt19937& gen) {
  std::vector<int> batch(static_cast<size_t>(size));
  for (int& v : batch) v = int(gen() % views);
  return batch;
}

}  // namespace

TEST_CASE("render costs: a view is unknown until a fold credits it", "[dist][render_costs]") {
  RenderCosts costs(3);
  costs.observe(std::vector<int>{0}, 2.5);
  CHECK(!costs.cost(0));  // credited, not yet folded
  fold_alone(costs);
  REQUIRE(costs.cost(0));
  CHECK(*costs.cost(0) == Approx(2.5));
  CHECK(!costs.cost(1));
  CHECK(!costs.cost(3));   // outside the table
  CHECK(!costs.cost(-1));
  // Blocks naming a view outside the table, and times that are no times, are ignored.
  costs.observe(std::vector<int>{1, 7}, 4.0);
  costs.observe(std::vector<int>{1}, std::nan(""));
  costs.observe(std::vector<int>{1}, -1.0);
  fold_alone(costs);
  CHECK(!costs.cost(1));
}

TEST_CASE("render costs: a batch's blocks are evened out, each block in batch order", "[dist][render_costs]") {
  const RenderCosts costs = measured_alone({10, 9, 2, 1, 5});
  // Drawn: blocks {0, 1} = 19 and {2, 3} = 3 ms. Evened: {0, 3} and {1, 2}, 11 ms each.
  const std::vector<int> order = costs.balanced(std::vector<int>{0, 1, 2, 3}, 2);
  CHECK(order == std::vector<int>{0, 3, 1, 2});
  // Already even, or nothing better: as drawn.
  CHECK(costs.balanced(std::vector<int>{0, 3, 1, 2}, 2) == std::vector<int>{0, 3, 1, 2});
  CHECK(costs.balanced(std::vector<int>{4, 4, 4, 4}, 2) == std::vector<int>{4, 4, 4, 4});
  // One rank, or a block per image: nothing to choose.
  CHECK(costs.balanced(std::vector<int>{0, 1, 2, 3}, 1) == std::vector<int>{0, 1, 2, 3});
  CHECK(costs.balanced(std::vector<int>{0, 1}, 2) == std::vector<int>{0, 1});
  // Nothing known: as drawn.
  const RenderCosts unknown(5);
  CHECK(unknown.balanced(std::vector<int>{0, 1, 2, 3}, 2) == std::vector<int>{0, 1, 2, 3});
}

TEST_CASE("render costs: an unknown view counts as the known views' mean", "[dist][render_costs]") {
  RenderCosts costs(6);
  const double known[4] = {7.0, 1.0, 1.5, 1.0};  // mean 2.625
  for (int v = 0; v < 4; ++v) costs.observe(std::vector<int>{v}, known[v]);
  fold_alone(costs);
  // View 5 is unknown (2.625): as drawn {0, 5} = 9.625 and {1, 2} = 2.5; best {0, 1} = 8 and {5, 2} = 4.125.
  const std::vector<int> order = costs.balanced(std::vector<int>{0, 5, 1, 2}, 2);
  CHECK(order == std::vector<int>{0, 1, 5, 2});
}

TEST_CASE("render costs: the split of four images over two ranks is the best of the three", "[dist][render_costs]") {
  std::mt19937 gen(3);
  const std::vector<double> c = drawn_costs(40, std::uniform_real_distribution<double>(0.5, 2.0), gen);
  const RenderCosts costs = measured_alone(c);
  for (int trial = 0; trial < 300; ++trial) {
    const std::vector<int> batch = drawn_batch(4, c.size(), gen);
    const std::vector<int> order = costs.balanced(batch, 2);
    CHECK(std::is_permutation(order.begin(), order.end(), batch.begin()));
    CHECK(longest(block_loads(order, 2, c)) == Approx(best_split_of_four(batch, c)).epsilon(1e-12));
  }
}

TEST_CASE("render costs: larger batches and more ranks are never split worse than drawn", "[dist][render_costs]") {
  std::mt19937 gen(5);
  const std::vector<double> c = drawn_costs(64, std::lognormal_distribution<double>(0.0, 0.4), gen);
  const RenderCosts costs = measured_alone(c);
  for (const auto& [B, R] : {std::pair{8, 2}, std::pair{12, 3}, std::pair{7, 2}, std::pair{16, 4}}) {
    double drawn = 0, evened = 0;
    for (int trial = 0; trial < 100; ++trial) {
      const std::vector<int> batch = drawn_batch(B, c.size(), gen);
      const std::vector<int> order = costs.balanced(batch, R);
      REQUIRE(std::is_permutation(order.begin(), order.end(), batch.begin()));
      const double before = longest(block_loads(batch, R, c)), after = longest(block_loads(order, R, c));
      CHECK(after <= before + 1e-12);
      // Never longer than a perfect split plus the largest image.
      const double total = std::accumulate(batch.begin(), batch.end(), 0.0, [&](double s, int v) { return s + c[size_t(v)]; });
      double largest = 0;
      for (int v : batch) largest = std::max(largest, c[size_t(v)]);
      CHECK(after <= total / R + largest);
      drawn += before, evened += after;
    }
    INFO("batch " << B << " over " << R << " ranks");
    CHECK(evened < 0.9 * drawn);  // a real gain on average
  }
}

TEST_CASE("render costs: credits of block renders converge to each view's cost and follow its growth",
          "[dist][render_costs]") {
  // 24 views, batches of 4 over 2 ranks: a block's render is its views' costs plus a fixed 0.2 ms per
  // call, with 3 % noise. The ranks fold every 25 steps (a refinement's cadence at batch 4).
  std::mt19937 gen(11);
  std::normal_distribution<double> noise(0.0, 0.03);
  const std::vector<double> c = drawn_costs(24, std::uniform_real_distribution<double>(0.3, 1.5), gen);
  RenderCosts costs(int(c.size()));
  auto train = [&](int steps, double growth) {
    for (int s = 0; s < steps; ++s) {
      const std::vector<int> order = costs.balanced(drawn_batch(4, c.size(), gen), 2);
      for (int q = 0; q < 2; ++q) {
        const std::vector<int> block{order[size_t(2 * q)], order[size_t(2 * q + 1)]};
        const double ms = growth * (c[size_t(block[0])] + c[size_t(block[1])] + 0.2) * (1 + noise(gen));
        costs.observe(block, ms);
      }
      if (s % 25 == 24) fold_alone(costs);
    }
  };
  // Each view's estimate: its cost plus half the call's fixed part (the partners' estimates carry the rest).
  auto worst_error = [&](double growth) {
    double worst = 0;
    for (int v = 0; v < int(c.size()); ++v) {
      REQUIRE(costs.cost(v));
      worst = std::max(worst, std::abs(*costs.cost(v) - growth * (c[size_t(v)] + 0.1)) / (growth * (c[size_t(v)] + 0.1)));
    }
    return worst;
  };
  train(1500, 1.0);
  CHECK(worst_error(1.0) < 0.12);
  // The model grows: every render costs 1.6 times as much. The table follows within a few folds.
  train(300, 1.6);
  CHECK(worst_error(1.6) < 0.12);
}

TEST_CASE("render costs: every rank folds every rank's credits into the same table", "[dist][render_costs]") {
  // Three CPU ranks, each crediting different blocks; the fold's sum is the communicator's.
  const std::vector<std::vector<std::vector<int>>> blocks{{{0, 1}, {2, 3}}, {{4, 5}, {0, 2}}, {{1, 3}, {5, 4}}};
  std::vector<std::vector<std::optional<double>>> tables(3);
  transport::run_ranks(3, [](int) { return ComputeContext(Device::CPU); }, [&](transport::Communicator& comm) {
    const int r = comm.rank();
    RenderCosts costs(6);
    for (int round = 0; round < 2; ++round) {
      for (const std::vector<int>& b : blocks[size_t(r)]) costs.observe(b, 1.0 + 0.5 * b[0] + 0.25 * b[1] + round);
      costs.fold([&](std::span<int64_t> v) { comm.all_reduce_sum(v); });
    }
    for (int v = 0; v < 6; ++v) tables[size_t(r)].push_back(costs.cost(v));
  });
  // One table that saw every rank's blocks folds alike.
  RenderCosts alone(6);
  for (int round = 0; round < 2; ++round) {
    for (const auto& rank_blocks : blocks)
      for (const std::vector<int>& b : rank_blocks) alone.observe(b, 1.0 + 0.5 * b[0] + 0.25 * b[1] + round);
    fold_alone(alone);
  }
  for (int v = 0; v < 6; ++v) {
    INFO("view " << v);
    REQUIRE(tables[0][size_t(v)]);
    CHECK(tables[1][size_t(v)] == tables[0][size_t(v)]);  // the same bits
    CHECK(tables[2][size_t(v)] == tables[0][size_t(v)]);
    CHECK(*tables[0][size_t(v)] == Approx(*alone.cost(v)).epsilon(1e-9));
  }
}

TEST_CASE("render costs: a saved table loads back as it was, and a damaged one is refused whole", "[dist][render_costs]") {
  const std::vector<double> c = {4.0, 3.0, 1.0, 2.0, 6.0};
  const RenderCosts learned = measured_alone(c);
  RenderCosts resumed(5);
  resumed.load(learned.table());
  const std::vector<int> batch = {0, 1, 2, 3};
  for (int v = 0; v < 5; ++v) CHECK(resumed.cost(v) == learned.cost(v));
  CHECK(resumed.balanced(batch, 2) == learned.balanced(batch, 2));
  CHECK(resumed.balanced(batch, 2) != batch);  // the table is in use: 4 + 3 against 1 + 2 is evened out
  // An unknown view keeps counting as the known views' mean after a load.
  RenderCosts partial(3);
  partial.observe(std::vector<int>{0}, 2.0);
  partial.observe(std::vector<int>{1}, 4.0);
  fold_alone(partial);
  RenderCosts loaded(3);
  loaded.load(partial.table());
  CHECK_FALSE(loaded.cost(2).has_value());
  CHECK(loaded.balanced(std::vector<int>{0, 2, 1, 2}, 2) == partial.balanced(std::vector<int>{0, 2, 1, 2}, 2));

  RenderCosts::Table wrong = learned.table();
  wrong.cost_ms.pop_back();
  CHECK_THROWS_AS(resumed.load(wrong), std::invalid_argument);
  wrong = learned.table();
  wrong.weight[1] = -1;
  CHECK_THROWS_AS(resumed.load(wrong), std::invalid_argument);
  wrong = learned.table();
  wrong.cost_ms[3] = std::nan("");
  CHECK_THROWS_AS(resumed.load(wrong), std::invalid_argument);
  for (int v = 0; v < 5; ++v) CHECK(resumed.cost(v) == learned.cost(v));  // unchanged by the refusals
}
