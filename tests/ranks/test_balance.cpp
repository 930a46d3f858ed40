// Balance of a distributed run (docs/ARCHITECTURE.md "Rebalance"): every rank's figures gathered in rank order, shards
// evened out after a refinement with every Gaussian and its Adam moments kept and spatial order kept,
// and a training run that rebalances still reaching the one-rank result.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "core/train/rank_stats.h"
#include "core/train/sharded/rebalance.h"
#include "core/transport/run_ranks.h"
#include "core/model/shard_layout.h"
#include "core/train/evaluator.h"
#include "core/train/sharded/comm_sharding.h"
#include "core/train/training_run.h"
#include "tests/core/demo_fixture.h"
#include "tests/core/numbered_state.h"
#include "tests/support/model_checks.h"
#include "tests/support/test_support.h"

using namespace splat;
using namespace splat::transport;
using namespace splat::sharded;
using kernels::ComputeContext;
using kernels::Device;

namespace {

ContextFor cpu() {
  return [](int) { return ComputeContext(Device::CPU); };
}

// A numbered state (every entry distinct) whose means are scattered at random, so that sorting
// along a curve does move rows.
GaussianState scattered_state(int64_t n, unsigned seed) {
  GaussianState s = test::numbered_state(1, n);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> U(-3, 3);
  for (float& x : s.col(Group::Means).value) x = U(gen);
  return s;
}

// Rows [first, first + n) of `s`, values and moments.
GaussianState rows_of(const GaussianState& s, int64_t first, int64_t n) {
  std::vector<int64_t> rows(static_cast<size_t>(n));
  std::iota(rows.begin(), rows.end(), first);
  return take_rows(s, rows);
}

// Every row of a state (values and both moments of every column) as one vector, sorted: two states
// hold the same Gaussians with the same optimizer state exactly when these are equal.
std::vector<std::vector<float>> sorted_rows(const GaussianState& s) {
  std::vector<std::vector<float>> rows(size_t(s.size()));
  for (Group g : kAllGroups) {
    const size_t w = size_t(s.width(g));
    for (size_t i = 0; i < rows.size(); ++i)
      for (auto part : {&HostColumn::value, &HostColumn::exp_avg, &HostColumn::exp_avg_sq})
        rows[i].insert(rows[i].end(), (s.col(g).*part).begin() + i * w, (s.col(g).*part).begin() + (i + 1) * w);
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

struct Rebalanced {
  bool moved = false;
  std::vector<int64_t> counts;  // after
  GaussianState whole;          // after, gathered in rank order
};

// Shards of `model` with `counts` rows on CPU ranks, then rebalance_if_uneven with each rank's window
// (none: every window empty).
Rebalanced rebalance_shards(const GaussianState& model, const std::vector<int64_t>& counts, double threshold,
                            const std::vector<RankWindow>& windows = {}) {
  Rebalanced out;
  std::vector<int> moved(counts.size());
  run_ranks(int(counts.size()), cpu(), [&](Communicator& comm) {
    const int r = comm.rank();
    DeviceGaussians shard(Device::CPU, rows_of(model, first_global_id(counts, r), counts[size_t(r)]));
    moved[size_t(r)] = rebalance_if_uneven(comm, shard, threshold, windows.empty() ? RankWindow{} : windows[size_t(r)]);
    const std::vector<int64_t> after = comm.all_gather_value(shard.size());
    GaussianState whole = gather_state(comm, shard);
    if (r == 0) out.counts = after, out.whole = std::move(whole);
  });
  for (int m : moved) CHECK(m == moved[0]);  // every rank took the same decision
  out.moved = moved[0];
  return out;
}

}  // namespace

TEST_CASE("every rank's figures are gathered in rank order on every rank", "[dist][balance]") {
  std::vector<std::vector<RankStats>> seen(3);
  run_ranks(3, cpu(), [&](Communicator& comm) {
    const int r = comm.rank();
    RankStats mine;
    mine.rank = r;
    mine.device_ordinal = r - 1;
    mine.gaussians = 1000 + r;
    mine.step_ms = 10.5 + r;
    mine.render_ms = 4.25 * (r + 1);
    mine.exchange_wait_ms = 0.5 * r;
    mine.bytes_sent = (int64_t(1) << 40) + r;  // past float precision: travels as an integer
    mine.bytes_received = 7 * r;
    mine.device_memory_mb = 100.0 * r;
    seen[size_t(r)] = gather_rank_stats(comm, mine);
  });
  for (int r = 0; r < 3; ++r) {
    INFO("as seen by rank " << r);
    REQUIRE(seen[size_t(r)].size() == 3);
    for (int q = 0; q < 3; ++q) {
      const RankStats& s = seen[size_t(r)][size_t(q)];
      CHECK(s.rank == q);
      CHECK(s.device_ordinal == q - 1);
      CHECK(s.gaussians == 1000 + q);
      CHECK(s.step_ms == 10.5 + q);
      CHECK(s.render_ms == 4.25 * (q + 1));
      CHECK(s.exchange_wait_ms == 0.5 * q);
      CHECK(s.bytes_sent == (int64_t(1) << 40) + q);
      CHECK(s.bytes_received == 7 * q);
      CHECK(s.device_memory_mb == 100.0 * q);
    }
  }
  CHECK(imbalance(std::vector<double>{1, 1, 4}) == Approx(2.0));
}

TEST_CASE("uneven shards are evened out keeping every Gaussian with its moments, in curve order", "[dist][balance]") {
  const std::vector<int64_t> counts{40, 5, 12, 3};  // 60 rows; an equal split is 15 each
  const GaussianState model = scattered_state(60, 4);
  const Rebalanced after = rebalance_shards(model, counts, 0.10);
  CHECK(after.moved);
  CHECK(after.counts == std::vector<int64_t>{15, 15, 15, 15});
  // The rebalance itself keeps every Gaussian and its optimizer state...
  CHECK(sorted_rows(after.whole) == sorted_rows(model));
  // ...and is exactly: each shard sorted along one Morton curve over the whole model's box, the
  // sorted shards concatenated in rank order, cut into equal blocks.
  const Box box = bounding_box(model.col(Group::Means).value);
  std::vector<int64_t> order;
  for (size_t r = 0; r < counts.size(); ++r) {
    const GaussianState shard = rows_of(model, first_global_id(counts, int(r)), counts[r]);
    for (int64_t i : morton_order(shard.col(Group::Means).value, box))
      order.push_back(first_global_id(counts, int(r)) + i);
  }
  test::check_same_state(after.whole, take_rows(model, order));
}

TEST_CASE("shards within the threshold, or a threshold of 0, are left as they are", "[dist][balance]") {
  const GaussianState model = scattered_state(42, 5);
  for (const auto& [counts, threshold] : {std::pair{std::vector<int64_t>{20, 22}, 0.10},  // 20 vs 21: 4.8 %
                                          std::pair{std::vector<int64_t>{40, 2}, 0.0}}) {
    const Rebalanced after = rebalance_shards(model, counts, threshold);
    CHECK_FALSE(after.moved);
    CHECK(after.counts == counts);
    test::check_same_state(after.whole, model);
  }
}

TEST_CASE("shards follow what the ranks waited on where every rank measured it, keeping every Gaussian",
          "[dist][balance]") {
  const GaussianState model = scattered_state(80, 6);
  const std::vector<int64_t> counts{20, 20, 20, 20};
  // Rank 2 is the one the others wait for (it waits least); rank 0 waits most. 10 ms steps.
  const std::vector<RankWindow> windows{{1.4, 10, 60}, {1.0, 10, 60}, {0.2, 10, 60}, {1.0, 10, 60}};
  const Rebalanced after = rebalance_shards(model, counts, 0.05, windows);
  CHECK(after.moved);
  CHECK(after.counts == wait_balanced_counts(counts, windows));
  CHECK(after.counts[2] < 20);
  CHECK(after.counts[0] > 20);
  CHECK(sorted_rows(after.whole) == sorted_rows(model));
  // One rank without a window: an equal split, which these shards already are.
  std::vector<RankWindow> partly = windows;
  partly[3] = {};
  const Rebalanced untimed = rebalance_shards(model, counts, 0.05, partly);
  CHECK_FALSE(untimed.moved);
  CHECK(untimed.counts == counts);
}

// Why a mean over seeds: each shard densifies with its own draws and a rebalance re-orders rows, so a run
// with ranks is another sample of the same training, not the same numbers. On this demo single runs of
// one configuration spread by up to 0.8 dB from seed to seed (measured over seeds 0 to 3, with and without
// rebalancing, one rank and two), more than the 0.5 dB tolerance; the mean of 3 seeds is within it.
TEST_CASE("a run whose densification makes the shards unequal is rebalanced and trains like one rank",
          "[dist][balance][train]") {
  const Scene scene = test::small_demo_scene(36, 27, 160);
  TrainerOptions o = test::short_run_options(900);  // densification from image 100 to 300
  o.batch_size = 3;
  o.cpu_threads = 1;
  o.rebalance_threshold = 0.02;
  RunOptions ro;
  ro.metrics_every = 150;
  ro.eval_at_end = true;
  double one_psnr = 0, psnr = 0;
  constexpr int kSeeds = 3;
  for (int seed = 0; seed < kSeeds; ++seed) {
    o.seed = uint64_t(seed);
    TrainingRun one(scene, init_from_points(scene.points), o, ro);
    while (!one.done()) one.step();
    REQUIRE(one.last_psnr());
    one_psnr += *one.last_psnr() / kSeeds;

    int rebalances = 0;
    std::vector<MetricsRecord> records;
    run_ranks(2, cpu(), [&](Communicator& comm) {
      TrainerOptions mine = o;
      TrainingRun run(scene, init_from_points(scene.points), mine, ro, sharded::over(comm));
      while (!run.done()) {
        const RunStep s = run.step();
        if (s.metrics && comm.rank() == 0) records.push_back(*s.metrics);
        if (!s.result.rebalanced) continue;
        // Right after a rebalance the shards are within the threshold of an equal split.
        const std::vector<RankStats> all = run.trainer().gather_rank_stats();
        if (comm.rank() != 0) continue;
        ++rebalances;
        const double mean = double(all[0].gaussians + all[1].gaussians) / 2;
        for (const RankStats& r : all) CHECK(std::abs(double(r.gaussians) - mean) <= o.rebalance_threshold * mean);
        CHECK(all[0].gaussians + all[1].gaussians == s.result.gaussians);
      }
      if (comm.rank() == 0) psnr += run.last_psnr().value_or(0) / kSeeds;
    });
    INFO("seed " << seed);
    CHECK(rebalances > 0);  // densification did unbalance the shards
    // Rank 0's records hold both ranks' figures of that step.
    REQUIRE(!records.empty());
    for (const MetricsRecord& m : records) {
      REQUIRE(m.ranks.size() == 2);
      CHECK(m.ranks[0].rank == 0);
      CHECK(m.ranks[1].rank == 1);
      CHECK(m.ranks[0].gaussians + m.ranks[1].gaussians == m.gaussians);
      for (const RankStats& r : m.ranks) {
        CHECK(r.render_ms > 0);
        CHECK(r.step_ms >= r.render_ms);
        CHECK(r.bytes_sent > 0);
        CHECK(r.device_ordinal == -1);
      }
      CHECK(*gaussian_imbalance(m) >= 1.0);
    }
  }
  INFO("mean over " << kSeeds << " seeds: one rank " << one_psnr << " dB, 2 ranks " << psnr << " dB");
  CHECK(std::abs(psnr - one_psnr) < 0.5);
}

TEST_CASE("ranks sharing one GPU measure their render and exchange times without waiting", "[gpu][dist][balance]") {
  if (!test::gpu_or_skip("rank figures on one GPU")) return;
  const Scene scene = test::small_demo_scene(34, 25, 110);
  TrainerOptions o = test::short_run_options(40);
  o.device = Device::CUDA;
  o.batch_size = 2;
  std::vector<RankStats> last;
  run_ranks(2, [](int) { return ComputeContext(Device::CUDA); }, [&](Communicator& comm) {
    TrainerOptions mine = o;
    Trainer t(scene, init_from_points(scene.points), mine, sharded::over(comm));
    while (!t.finished()) t.step();
    const std::vector<RankStats> all = t.gather_rank_stats();
    if (comm.rank() == 0) last = all;
  });
  REQUIRE(last.size() == 2);
  for (const RankStats& r : last) {
    INFO("rank " << r.rank);
    CHECK(r.device_ordinal == 0);
    CHECK(r.render_ms > 0);  // a step's events, read once the device had passed them
    CHECK(r.exchange_wait_ms > 0);
    CHECK(r.step_ms > 0);
    CHECK(r.bytes_sent > 0);
    CHECK(r.device_memory_mb > 0);
  }
}

// The check every rebalance_every images is a collective: a rank that took it where another did not
// would wait for a peer that never comes, and the communicators' timeout would fail the run.
TEST_CASE("the periodic balance check is taken by every rank at the same step", "[dist][balance][train]") {
  const Scene scene = test::small_demo_scene(30, 22, 90);
  TrainerOptions o = test::short_run_options(150);
  o.strategy = "mcmc";  // gathers no refinement statistics: every check is due
  o.batch_size = 3;
  o.cpu_threads = 1;
  o.rebalance_every = 20;
  std::vector<int64_t> totals(2);
  run_ranks(2, cpu(), [&](Communicator& comm) {
    Trainer t(scene, init_from_points(scene.points), o, sharded::over(comm));
    while (!t.finished()) t.step();
    totals[size_t(comm.rank())] = t.whole_state().size();
  });
  CHECK(totals[0] == int64_t(scene.points.size()));  // rank 0 holds the whole model, nothing lost
  CHECK(totals[1] == 0);
}

// On a GPU the targets follow the measured waits: two ranks sharing one GPU check every 20 images, and
// whatever moves, every Gaussian stays and no shard leaves the bounds.
TEST_CASE("ranks on one GPU size their shards by their waits within the bounds", "[gpu][dist][balance]") {
  if (!test::gpu_or_skip("wait-balanced shards on one GPU")) return;
  const Scene scene = test::small_demo_scene(34, 25, 400);
  TrainerOptions o = test::short_run_options(300);
  o.device = Device::CUDA;
  o.strategy = "mcmc";
  o.mcmc.cap = 600;
  o.batch_size = 2;
  o.rebalance_every = 20;
  std::vector<RankStats> last;
  run_ranks(2, [](int) { return ComputeContext(Device::CUDA); }, [&](Communicator& comm) {
    Trainer t(scene, init_from_points(scene.points), o, sharded::over(comm));
    while (!t.finished()) t.step();
    const std::vector<RankStats> all = t.gather_rank_stats();
    if (comm.rank() == 0) last = all;
  });
  REQUIRE(last.size() == 2);
  const double total = double(last[0].gaussians + last[1].gaussians), equal = total / 2;
  CHECK(total <= 600);
  for (const RankStats& r : last) {
    INFO("rank " << r.rank << ": " << r.gaussians << " of " << total);
    CHECK(double(r.gaussians) >= kLeastShare * equal * (1 - o.rebalance_threshold) - 1);
    CHECK(double(r.gaussians) <= kMostShare * equal * (1 + o.rebalance_threshold) + 1);
  }
}
