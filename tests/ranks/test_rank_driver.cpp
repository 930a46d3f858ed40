// The rank driver (core/train/rank_driver.h) with simulated CPU ranks: one rank and three train the same
// steps; rank 0's decisions reach every rank only at the decision points the cadence sets (not every step);
// a stop decided by rank 0 stops every rank at the same step; a rank that fails is reported once, named.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "core/train/rank_driver.h"
#include "tests/core/demo_fixture.h"

using namespace splat;

namespace {

// Records what each rank saw; rank 0 decides to train on until `stop_after` steps (0: until the run ends).
class RecordingController final : public RankController {
 public:
  RecordingController(int ranks, int stop_after) : stop_after_(stop_after), ranks_(ranks), seen_(ranks) {}

  struct Seen {
    std::vector<int> images_after_step;  // the run's image count after each step
    int decisions = 0;                   // decisions served
    int end_step = -1;                   // steps done when the loop ended
  };
  const Seen& seen(int rank) const { return seen_[rank]; }
  int decided() const { return decided_; }

  void on_start(TrainingRun&, const DrivenRank& at) override { CHECK(at.ranks == ranks_); }
  RankDecision decide(const TrainingRun& run, Clock::time_point) override {
    ++decided_;
    const bool stop = !can_step(run, ranks_) || (stop_after_ > 0 && run.trainer().steps_done() >= stop_after_);
    return {.stop = stop, .step = !stop};
  }
  void serve(TrainingRun&, const DrivenRank& at, const RankDecision&) override { ++seen_[at.rank].decisions; }
  void on_step(TrainingRun& run, const DrivenRank& at, const RunStep&) override {
    if (at.rank == fail_rank && run.trainer().steps_done() == 3) throw std::runtime_error("step 3 failed on purpose");
    seen_[at.rank].images_after_step.push_back(run.trainer().images_done());
  }
  void on_end(TrainingRun& run, const DrivenRank& at) override { seen_[at.rank].end_step = run.trainer().steps_done(); }

  int fail_rank = -1;

 private:
  const int stop_after_, ranks_;
  std::vector<Seen> seen_;  // entry r touched by rank r only
  int decided_ = 0;         // rank 0 only
};

// A fixed cadence: at most 4 steps between decisions, however fast the steps.
DriverOptions every_4_steps() {
  DriverOptions o;
  o.decision_interval = std::chrono::hours(1);
  o.max_steps_between_decisions = 4;
  return o;
}

}  // namespace

TEST_CASE("rank driver: 1 and 3 CPU ranks train the same steps, deciding only at the cadence's points",
          "[dist][driver]") {
  const Scene scene = test::small_demo_scene(40, 30, 200);
  const GaussianModel init = init_from_points(scene.points);
  // 30 images at batch 3: 10 steps. Metrics every 100 images: the only record is the last step's.
  const RankRunSpec spec{.scene = scene, .init = init, .trainer = {.images = 30, .batch_size = 3, .cpu_threads = 1},
                         .run = {}};
  std::vector<int> expected;
  for (int images = 3; images <= 30; images += 3) expected.push_back(images);
  for (const int ranks : {1, 3}) {
    INFO(ranks << " ranks");
    RecordingController controller(ranks, 0);
    drive_ranks(spec, transport::RankPlan{kernels::Device::CPU, {}, ranks}, controller, every_4_steps());
    // Grants of 1 (no step time known yet), 4, 4, then the 1 step left; then the stop: 5 decisions for 10
    // steps, and every rank served each of them and nothing else.
    CHECK(controller.decided() == 5);
    for (int r = 0; r < ranks; ++r) {
      INFO("rank " << r);
      CHECK(controller.seen(r).images_after_step == expected);
      CHECK(controller.seen(r).decisions == 5);
      CHECK(controller.seen(r).end_step == 10);
    }
  }
}

TEST_CASE("rank driver: a stop decided by rank 0 stops every rank at the same step", "[dist][driver]") {
  const Scene scene = test::small_demo_scene(40, 30, 200);
  const GaussianModel init = init_from_points(scene.points);
  const RankRunSpec spec{.scene = scene, .init = init, .trainer = {.images = 300, .batch_size = 3, .cpu_threads = 1},
                         .run = {}};
  RecordingController controller(3, 2);
  drive_ranks(spec, transport::RankPlan{kernels::Device::CPU, {}, 3}, controller, every_4_steps());
  // Rank 0 decides after the first step (a grant of 1) and after the next 4: it stops at step 5.
  for (int r = 0; r < 3; ++r) {
    INFO("rank " << r);
    CHECK(controller.seen(r).end_step == 5);
    CHECK(controller.seen(r).images_after_step.size() == 5);
  }
}

TEST_CASE("rank driver: a rank that fails stops every rank, reported once naming it", "[dist][driver]") {
  const Scene scene = test::small_demo_scene(40, 30, 200);
  const GaussianModel init = init_from_points(scene.points);
  const RankRunSpec spec{.scene = scene, .init = init, .trainer = {.images = 300, .batch_size = 3, .cpu_threads = 1},
                         .run = {}};
  for (const int bad : {0, 2}) {
    INFO("failing rank " << bad);
    RecordingController controller(3, 0);
    controller.fail_rank = bad;
    DriverOptions o = every_4_steps();
    o.comm.timeout = std::chrono::seconds(60);
    const auto t0 = std::chrono::steady_clock::now();
    try {
      drive_ranks(spec, transport::RankPlan{kernels::Device::CPU, {}, 3}, controller, o);
      FAIL("drive_ranks returned");
    } catch (const transport::CommError& e) {
      CHECK(e.failed_rank() == bad);
      const std::string what = e.what();
      CHECK(what == "rank " + std::to_string(bad) + " (CPU) failed: step 3 failed on purpose");
    }
    CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10));  // not the timeout
    for (int r = 0; r < 3; ++r) CHECK(controller.seen(r).end_step == -1);   // no rank ended normally
  }
}
