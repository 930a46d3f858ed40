// The ranks' cameras ordered by what they cost to render (core/train/sharded/view_costs.h): the batch
// order that evens out the blocks, the pooling of what each rank measured, and a run with 2 CPU ranks
// whose ranks all hold the same costs, measured from their renders.
#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "core/train/sharded/sharded_step.h"
#include "core/train/sharded/comm_sharding.h"
#include "core/train/sharded/view_costs.h"
#include "core/train/training_run.h"
#include "core/transport/run_ranks.h"
#include "tests/core/demo_fixture.h"

using namespace splat;
using namespace splat::sharded;

namespace {

// The cost of each block of `order` split as the ranks' camera blocks are.
std::vector<int64_t> block_costs(const std::vector<int>& order, const ViewCosts& costs, int ranks) {
  std::vector<int64_t> sums(size_t(ranks), 0);
  const int B = int(order.size());
  for (int q = 0; q < ranks; ++q) {
    const CameraBlock b = camera_block(q, ranks, B);
    for (int k = b.first; k < b.first + b.count; ++k) sums[size_t(q)] += costs.cost(order[size_t(k)]);
  }
  return sums;
}

ViewCosts pooled(int views, const std::vector<ViewCost>& observed) {
  ViewCosts c(views);
  for (const ViewCost& o : observed) c.observe(o);
  c.take_shared(c.share());
  return c;
}

}  // namespace

TEST_CASE("a batch is ordered so that the ranks' camera blocks cost alike, keeping draw order within a block",
          "[dist][view_costs]") {
  // Views 0..3 cost 10, 8, 1, 2; drawn as 0, 1, 2, 3 the blocks cost 18 and 3.
  const ViewCosts costs = pooled(4, {{0, 10}, {1, 8}, {2, 1}, {3, 2}});
  const std::vector<int> drawn{0, 1, 2, 3};
  const std::vector<int> order = balanced_order(drawn, costs, 2);
  CHECK(order == std::vector<int>{0, 2, 1, 3});  // 10 + 1 against 8 + 2
  CHECK(block_costs(order, costs, 2) == std::vector<int64_t>{11, 10});
  // One rank, or no cost known: the draw order.
  CHECK(balanced_order(drawn, costs, 1) == drawn);
  CHECK(balanced_order(drawn, ViewCosts(4), 2) == drawn);
}

TEST_CASE("a view of unknown cost counts as the mean of the batch's known ones", "[dist][view_costs]") {
  // Known: view 0 at 9, view 1 at 3; views 2 and 3 unknown count as 6 each.
  const ViewCosts costs = pooled(4, {{0, 9}, {1, 3}});
  // Drawn 2, 3, 0, 1: costliest first, 0 (9) to block 0, 2 and 3 (6 each) to block 1, 1 (3) to block
  // 0: 12 each. Were the unknown views counted as 0, 1 would join 2 in block 1 and 3 join 0.
  CHECK(balanced_order(std::vector<int>{2, 3, 0, 1}, costs, 2) == std::vector<int>{0, 1, 2, 3});
}

TEST_CASE("ordered batches are permutations with the blocks' sizes, and less uneven than drawn",
          "[dist][view_costs]") {
  std::mt19937 rng(11);
  const int V = 40;
  std::vector<ViewCost> observed;
  for (int v = 0; v < V; ++v) observed.push_back({v, 1000 + int64_t(rng() % 9000)});
  const ViewCosts costs = pooled(V, observed);
  double drawn_excess = 0, ordered_excess = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int ranks = 2 + int(rng() % 3), B = ranks + int(rng() % 12);
    std::vector<int> all(static_cast<size_t>(V));
    std::iota(all.begin(), all.end(), 0);
    std::shuffle(all.begin(), all.end(), rng);
    const std::vector<int> drawn(all.begin(), all.begin() + B);
    const std::vector<int> order = balanced_order(drawn, costs, ranks);
    std::vector<int> a = drawn, b = order;
    std::sort(a.begin(), a.end()), std::sort(b.begin(), b.end());
    REQUIRE(a == b);
    // The most a rank waits for, over the mean block.
    auto excess = [&](const std::vector<int>& o) {
      const std::vector<int64_t> s = block_costs(o, costs, ranks);
      const double mean = double(std::accumulate(s.begin(), s.end(), int64_t(0))) / ranks;
      return double(*std::max_element(s.begin(), s.end())) / mean - 1;
    };
    drawn_excess += excess(drawn) / 300, ordered_excess += excess(order) / 300;
  }
  INFO("slowest block over the mean, minus 1: drawn " << drawn_excess << ", ordered " << ordered_excess);
  CHECK(ordered_excess < 0.5 * drawn_excess);
}

TEST_CASE("pooled costs are the mean of the ranks' newest since the last pooling; the rest keep theirs",
          "[dist][view_costs]") {
  ViewCosts a(5), b(5);
  a.observe({1, 100}), a.observe({2, 40}), a.observe({2, 50});  // the newest of view 2 counts
  b.observe({2, 70}), b.observe({3, 10});
  auto pool = [&] {
    std::vector<int64_t> sum = a.share();
    const std::vector<int64_t> other = b.share();
    for (size_t i = 0; i < sum.size(); ++i) sum[i] += other[i];
    a.take_shared(sum), b.take_shared(sum);
  };
  pool();
  for (const ViewCosts* c : {&a, &b}) {
    CHECK(c->cost(0) == 0);
    CHECK(c->cost(1) == 100);
    CHECK(c->cost(2) == 60);
    CHECK(c->cost(3) == 10);
    CHECK(c->any());
  }
  b.observe({1, 300});
  pool();
  for (const ViewCosts* c : {&a, &b}) {
    CHECK(c->cost(1) == 300);
    CHECK(c->cost(2) == 60);
  }
  ViewCosts restored(5);
  restored.load_state(a.state());
  for (int v = 0; v < 5; ++v) CHECK(restored.cost(v) == a.cost(v));
  CHECK_THROWS_WITH(ViewCosts(4).load_state(a.state()), Catch::Contains("5 views for 4"));
  CHECK_THROWS_WITH(a.observe({5, 1}), Catch::Contains("view 5 of 5"));
}

TEST_CASE("2 CPU ranks learn every trained view's cost from their renders and hold the same table",
          "[dist][view_costs][train]") {
  const Scene scene = test::small_demo_scene(36, 27, 160);
  TrainerOptions o = test::short_run_options(400);  // refinements (the pooling points) from image 100
  o.batch_size = 2;
  o.cpu_threads = 1;
  std::vector<std::vector<int64_t>> tables(2);
  transport::run_ranks(2, [](int) { return kernels::ComputeContext(kernels::Device::CPU); },
                       [&](transport::Communicator& comm) {
                         TrainerOptions mine = o;
                         TrainingRun run(scene, init_from_points(scene.points), mine, RunOptions{}, sharded::over(comm));
                         while (!run.done()) run.step();
                         const ViewCosts* costs = run.trainer().view_costs();
                         REQUIRE(costs);
                         for (size_t v = 0; v < scene.views.size(); ++v) tables[size_t(comm.rank())].push_back(costs->cost(int(v)));
                         CHECK(run.trainer().state().at("view_costs") == costs->state());
                       });
  CHECK(tables[0] == tables[1]);
  for (const int v : scene.train_indices()) CHECK(tables[0][size_t(v)] > 0);  // every training view was rendered
  for (const int v : scene.test_indices()) CHECK(tables[0][size_t(v)] == 0);  // test views never are
}
