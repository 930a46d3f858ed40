// Mixed precision with ranks: every rank stores its shard with the one-rank AMP column table (SH rest
// and every moment in bf16), and Adam's stochastic rounding draws its bits by the element's index in
// the whole model, so R ranks step the model as one rank does.
//
// Tolerance. The sharded step's gradients equal the one-rank step's within a few float ulps
// (tests/ranks/test_sharded_step.cpp: relative 3e-7 at most); Adam turns them into fp32 values that
// differ by about as much and then rounds them to bf16 with the same random bits. Two such values
// round to the same bf16 unless the random threshold falls between them: each bf16 entry either
// equals the one-rank entry or is one bf16 step (2^-8 relative) away, and the chance of the latter is
// about 3e-7 / 2^-8, 1e-4 per entry (measured here: none among the 2e4 entries). So
// the check is: every entry within a relative 1e-5 (the fp32 tests' tolerance) or exactly one bf16
// step off, and fewer than 1 in 1000 entries the latter. Shards that drew their bits by their own row
// numbers (rank r > 0 reusing the bits of the model's first rows) round about half of their entries
// the other way: far above that bound.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <numeric>
#include <optional>

#include "core/transport/run_ranks.h"
#include "core/model/shard_layout.h"
#include "core/train/sharded/comm_sharding.h"
#include "core/train/trainer.h"
#include "kernels/storage_math.h"
#include "tests/core/demo_fixture.h"

using namespace splat;

namespace {

// Whether b is a's bf16 neighbour (the next encoding up or down).
bool one_bf16_step(float a, float b) {
  const uint16_t x = kernels::bf16_nearest(a), y = kernels::bf16_nearest(b);
  return kernels::bf16_to_float(x) == a && kernels::bf16_to_float(y) == b && (x == y + 1 || y == x + 1);
}

// The whole state after `steps` AMP steps with `ranks` CPU ranks (0: the one-rank trainer).
GaussianState amp_steps(const Scene& scene, const GaussianModel& init, const TrainerOptions& o, int ranks, int steps) {
  std::optional<GaussianState> whole;
  auto body = [&](transport::Communicator* comm) {
    TrainerOptions mine = o;
    Trainer t(scene, init, mine, comm ? sharded::over(*comm) : nullptr);
    for (int s = 0; s < steps; ++s) t.step();
    GaussianState w = t.whole_state();
    if (t.is_root()) whole = std::move(w);
  };
  if (ranks == 0) body(nullptr);
  else
    transport::run_ranks(ranks, [](int) { return kernels::ComputeContext(kernels::Device::CPU); },
                    [&](transport::Communicator& comm) { body(&comm); });
  REQUIRE(whole);
  return *whole;
}

}  // namespace

TEST_CASE("AMP steps on 2 and 3 CPU ranks equal the one-rank AMP steps, rounding included", "[dist][amp]") {
  const Scene scene = test::small_demo_scene(26, 20, 120);
  TrainerOptions o = test::short_run_options(60);  // no refinement within the steps taken
  o.batch_size = 6;
  o.cpu_threads = 1;
  o.amp = true;
  // The starting model in Morton order: the ranks' shards, concatenated, are then its rows as they are.
  const GaussianModel points = init_from_points(scene.points);
  const std::vector<int64_t> order = sharded::morton_order(points.means);
  const GaussianModel init = sharded::take_rows(GaussianState::from_model(points), order).to_model();
  const GaussianState one = amp_steps(scene, init, o, 0, 2);
  REQUIRE(one.spec(Group::ShRest).storage == Precision::BF16);
  for (int ranks : {2, 3}) {
    const GaussianState r = amp_steps(scene, init, o, ranks, 2);
    INFO(ranks << " ranks");
    REQUIRE(r.size() == one.size());
    for (Group g : kAllGroups) {
      INFO("column " << group_name(g));
      int64_t entries = 0, steps = 0, off = 0;
      auto compare = [&](const std::vector<float>& a, const std::vector<float>& b, Precision p) {
        REQUIRE(a.size() == b.size());
        for (size_t i = 0; i < a.size(); ++i) {
          ++entries;
          if (std::abs(a[i] - b[i]) <= 1e-5f * std::max(std::abs(a[i]), 1e-6f)) continue;
          if (p == Precision::BF16 && one_bf16_step(a[i], b[i])) ++steps;
          else ++off;
        }
      };
      const ColumnSpec& spec = one.spec(g);
      CHECK(r.spec(g).storage == spec.storage);  // the one-rank AMP table on every rank
      CHECK(r.spec(g).moments == spec.moments);
      compare(one.col(g).value, r.col(g).value, spec.storage);
      compare(one.col(g).exp_avg, r.col(g).exp_avg, spec.moments);
      compare(one.col(g).exp_avg_sq, r.col(g).exp_avg_sq, spec.moments);
      INFO(entries << " entries, " << steps << " one bf16 step off, " << off << " further");
      CHECK(off == 0);
      CHECK(steps * 1000 < entries);
    }
  }
}
