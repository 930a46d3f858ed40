// Shard rebalancing: targets from counts and weights, and rows moving between CPU ranks with their
// Adam moments, the model in rank order unchanged.
#include <catch2/catch.hpp>

#include <numeric>
#include <vector>

#include "core/train/sharded/rebalance.h"
#include "core/transport/run_ranks.h"
#include "tests/core/numbered_state.h"
#include "tests/support/model_checks.h"

using namespace splat;
using namespace splat::transport;
using namespace splat::sharded;

namespace {

// Rows [first, first + n) of `s`.
GaussianState rows_of(const GaussianState& s, int64_t first, int64_t n) {
  std::vector<uint8_t> keep(static_cast<size_t>(s.size()), 0);
  for (int64_t i = first; i < first + n; ++i) keep[static_cast<size_t>(i)] = 1;
  GaussianState out = s;
  out.keep_rows(keep);
  return out;
}


// Shards of a numbered model with `counts` rows stored as `columns` says, rebalanced to `targets` over
// CPU ranks; every rank's rows afterwards must be the model's rows at its new range, values and both
// moments, bit for bit.
void check_rebalance(const std::vector<int64_t>& counts, const std::vector<int64_t>& targets,
                     const ColumnTable& columns = kParamColumns) {
  const int R = static_cast<int>(counts.size());
  const int64_t total = std::accumulate(counts.begin(), counts.end(), int64_t(0));
  const GaussianState model = test::numbered_state(2, total, columns);
  std::vector<GaussianState> after(R);
  run_ranks(R, [](int) { return kernels::ComputeContext(kernels::Device::CPU); }, [&](Communicator& comm) {
    const int r = comm.rank();
    const int64_t first = std::accumulate(counts.begin(), counts.begin() + r, int64_t(0));
    DeviceGaussians shard(kernels::Device::CPU, rows_of(model, first, counts[r]));
    rebalance(comm, shard, targets);
    after[r] = shard.download();
  });
  int64_t first = 0;
  for (int r = 0; r < R; ++r) {
    INFO("rank " << r);
    test::check_same_state(after[r], rows_of(model, first, targets[r]));
    first += targets[r];
  }
}

}  // namespace

TEST_CASE("balanced counts split the total by weight and add up to it", "[dist][rebalance]") {
  const std::vector<int64_t> counts{10, 3, 0, 8};  // 21 rows
  const auto equal = balanced_counts(counts, std::vector<double>(4, 1.0));
  CHECK(equal == std::vector<int64_t>{6, 5, 5, 5});
  // A rank that renders twice as fast gets twice the rows.
  const auto weighted = balanced_counts(counts, std::vector<double>{2, 1, 1, 1});
  CHECK(weighted == std::vector<int64_t>{9, 4, 4, 4});
  CHECK(std::accumulate(weighted.begin(), weighted.end(), int64_t(0)) == 21);
  CHECK(imbalance(counts, equal) == Approx(5.0 / 5.0));
  CHECK(imbalance(equal, equal) == 0.0);
  CHECK_THROWS_WITH(balanced_counts(counts, std::vector<double>{1, 1, 0, 1}), Catch::Contains("not positive"));
}

TEST_CASE("rebalancing moves rows with their moments and keeps the model in rank order", "[dist][rebalance]") {
  check_rebalance({7, 7}, {7, 7});          // nothing to move
  check_rebalance({12, 2}, {7, 7});         // rank 0 gives its last rows to rank 1
  check_rebalance({1, 2, 30}, {11, 11, 11});  // rows cross two ranks
  check_rebalance({0, 25, 0, 3}, {7, 7, 7, 7});  // empty shards receive, one shard feeds three
  check_rebalance({5, 5, 5, 5}, {0, 20, 0, 0});  // and everything can gather on one rank
}

TEST_CASE("rebalancing under mixed precision moves the bf16 rows and moments as they are", "[dist][rebalance][amp]") {
  const DeviceGaussians probe(kernels::Device::CPU, test::numbered_state(2, 1, kAmpColumns));
  REQUIRE(probe.exp_avg(Group::Means).two_bytes());  // the moments really travel as 2-byte encodings
  check_rebalance({12, 2}, {7, 7}, kAmpColumns);
  check_rebalance({1, 2, 30}, {11, 11, 11}, kAmpColumns);
  check_rebalance({0, 25, 0, 3}, {7, 7, 7, 7}, kAmpColumns);
}

TEST_CASE("rebalancing refuses targets that lose or invent rows", "[dist][rebalance]") {
  CHECK_THROWS_WITH(check_rebalance({4, 4}, {5, 4}), Catch::Contains("the targets add up to 9 rows, the shards hold 8"));
}
