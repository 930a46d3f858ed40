// The cut of the whole model into rank shards and its inverse (core/model/shard_layout.h): blocks cover
// every row once, the Morton order keeps each shard spatially compact, and gathering the shards (values
// and Adam moments) in rank order gives back the whole state exactly, also for shards with no rows.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <set>
#include <vector>

#include "core/transport/run_ranks.h"
#include "core/model/shard_layout.h"
#include "tests/core/numbered_state.h"
#include "tests/support/model_checks.h"

using namespace splat;
using namespace splat::transport;
using namespace splat::sharded;


TEST_CASE("row blocks cover every row once and differ by at most one row", "[dist][shard]") {
  for (int64_t n : {0, 1, 5, 7, 100})
    for (int ranks = 1; ranks <= 4; ++ranks) {
      int64_t next = 0, smallest = n, largest = 0;
      for (int r = 0; r < ranks; ++r) {
        const RowBlock b = row_block(n, r, ranks);
        CHECK(b.first == next);
        next += b.count;
        smallest = std::min(smallest, b.count), largest = std::max(largest, b.count);
      }
      CHECK(next == n);
      CHECK(largest - smallest <= 1);
    }
  CHECK_THROWS_AS(row_block(10, 2, 2), std::invalid_argument);
}

TEST_CASE("the Morton order is a permutation that keeps shards spatially compact", "[dist][shard]") {
  // Four clusters far apart, rows shuffled: cut into four shards, each shard must be one cluster.
  std::mt19937 rng(3);
  std::normal_distribution<float> noise(0.f, 0.1f);
  const float centres[4][3] = {{-5, -5, 0}, {5, -5, 1}, {-5, 5, 2}, {5, 5, 3}};
  std::vector<int> cluster;
  for (int c = 0; c < 4; ++c)
    for (int k = 0; k < 25; ++k) cluster.push_back(c);
  std::shuffle(cluster.begin(), cluster.end(), rng);
  GaussianModel m;
  m.resize(int64_t(cluster.size()));
  for (size_t i = 0; i < cluster.size(); ++i)
    for (int a = 0; a < 3; ++a) m.means[3 * i + size_t(a)] = centres[cluster[i]][a] + noise(rng);
  m.opacity_logits.assign(cluster.size(), 0.f);
  for (size_t i = 0; i < cluster.size(); ++i) m.opacity_logits[i] = float(cluster[i]);  // tags the row's cluster

  const std::vector<int64_t> order = morton_order(m.means);
  CHECK(std::set<int64_t>(order.begin(), order.end()).size() == cluster.size());
  for (int r = 0; r < 4; ++r) {
    const GaussianState shard = initial_shard(m, r, 4);
    REQUIRE(shard.size() == 25);
    const std::vector<float>& tags = shard.col(Group::Opacity).value;
    CHECK(std::set<float>(tags.begin(), tags.end()).size() == 1);
  }
}

TEST_CASE("gathering the shards of a state gives the whole state back, moments included", "[dist][shard]") {
  // Gathered as stored, device to device, and downloaded once on rank 0.
  // Whatever the column table: under mixed precision the shards hold the same columns as one rank.
  for (const ColumnTable* table : {&kParamColumns, &kAmpColumns})
  for (int64_t n : {0, 2, 11})
    for (int ranks : {1, 2, 3, 4}) {
      INFO(n << " rows over " << ranks << " ranks, " << (table == &kAmpColumns ? "AMP" : "fp32") << " columns");
      const GaussianState whole = test::numbered_state(1, n, *table);
      GaussianState gathered;
      std::vector<int64_t> shard_sizes(static_cast<size_t>(ranks), 0);
      run_ranks(ranks, [](int) { return kernels::ComputeContext(kernels::Device::CPU); }, [&](Communicator& comm) {
        const GaussianState shard = shard_of(whole, comm.rank(), comm.size());
        shard_sizes[size_t(comm.rank())] = shard.size();
        const DeviceGaussians on_rank(comm.context(), shard);
        GaussianState g = gather_state(comm, on_rank);
        if (comm.rank() == 0) gathered = std::move(g);
        else CHECK(g.size() == 0);
      });
      test::check_same_state(gathered, whole);
      for (Group g : kAllGroups) CHECK(gathered.spec(g).storage == whole.spec(g).storage);
      for (int r = 0; r < ranks; ++r) CHECK(first_global_id(shard_sizes, r) == row_block(n, r, ranks).first);
    }
}
