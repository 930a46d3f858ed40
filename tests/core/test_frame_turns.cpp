#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/train/frame_turns.h"
#include "core/train/training_session.h"
#include "tests/core/demo_fixture.h"

using namespace splat;
using namespace std::chrono_literals;

namespace {

// The trainer's patience for a granted frame in these tests.
constexpr std::chrono::milliseconds kPatience{20};

// The order in which a trainer's steps and a viewer's frames were queued, as both threads log it.
class QueueLog {
 public:
  void add(std::string what) {
    std::lock_guard lock(mutex_);
    entries_.push_back(std::move(what));
  }
  std::vector<std::string> entries() const {
    std::lock_guard lock(mutex_);
    return entries_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> entries_;
};

// A trainer on the CPU context: `steps` steps, each serving a turn first, as a rank's loop does.
void train(FrameTurns& turns, QueueLog& log, int steps, std::atomic<int>& served) {
  const kernels::ComputeContext cpu;
  for (int s = 0; s < steps; ++s) {
    if (turns.serve(cpu, kPatience)) {
      ++served;
      log.add("turn");
    }
    log.add("step");
    std::this_thread::sleep_for(1ms);  // the step's host time
  }
}

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

TEST_CASE("frame turns: a frame queued in its turn comes before the next step", "[frame_turns]") {
  FrameTurns turns;
  QueueLog log;
  std::atomic<int> served{0};
  std::thread trainer([&] { train(turns, log, 400, served); });
  const kernels::ComputeContext viewer;
  int taken = 0;
  for (int f = 0; f < 5; ++f) {
    std::optional<FrameTurns::Turn> turn = turns.take(5s);
    REQUIRE(turn);
    ++taken;
    turn->start(viewer);
    log.add("frame");
    turn->finish(viewer);
    std::this_thread::sleep_for(3ms);
  }
  trainer.join();
  CHECK(served == taken);
  CHECK(turns.served() == uint64_t(taken));
  CHECK(turns.dropped() == 0);
  // Every frame is logged between the trainer's grant and its next step: "frame" then "turn" then "step".
  const std::vector<std::string> e = log.entries();
  int frames = 0;
  for (size_t i = 0; i < e.size(); ++i)
    if (e[i] == "frame") {
      ++frames;
      REQUIRE(i + 2 < e.size());
      CHECK(e[i + 1] == "turn");
      CHECK(e[i + 2] == "step");
    }
  CHECK(frames == taken);
}

TEST_CASE("frame turns: nobody waits where nobody asks or serves", "[frame_turns]") {
  FrameTurns turns;
  const kernels::ComputeContext cpu;
  // A trainer with no frame waiting goes straight on.
  const auto t0 = std::chrono::steady_clock::now();
  for (int s = 0; s < 1000; ++s) CHECK_FALSE(turns.serve(cpu, kPatience));
  CHECK(ms_since(t0) < 1000.0 * kPatience.count());
  // A frame whose turn does not come renders without one after its patience, and asks no more.
  const auto t1 = std::chrono::steady_clock::now();
  CHECK_FALSE(turns.take(20ms));
  CHECK(ms_since(t1) >= 19.0);
  CHECK_FALSE(turns.serve(cpu, kPatience));
  CHECK(turns.served() == 0);
}

TEST_CASE("frame turns: a turn given back or queued too late leaves the step alone", "[frame_turns]") {
  FrameTurns turns;
  const kernels::ComputeContext cpu;
  std::atomic<bool> stop{false};
  std::atomic<int> served{0}, steps{0};
  std::thread trainer([&] {
    while (!stop) {
      served += turns.serve(cpu, kPatience);
      ++steps;
      std::this_thread::sleep_for(1ms);
    }
  });
  SECTION("given back: the step goes on at once") {
    { const std::optional<FrameTurns::Turn> turn = turns.take(5s); REQUIRE(turn); }
    const int at = steps;
    const auto t0 = std::chrono::steady_clock::now();
    while (steps == at && ms_since(t0) < 5000) std::this_thread::yield();
    CHECK(steps > at);
    CHECK(turns.dropped() == 0);
  }
  SECTION("queued after the trainer's patience: dropped, the late finish ignored, the next turn served") {
    std::optional<FrameTurns::Turn> late = turns.take(5s);
    REQUIRE(late);
    std::this_thread::sleep_for(kPatience * 3);
    CHECK(turns.dropped() == 1);
    late->finish(kernels::ComputeContext());
    std::optional<FrameTurns::Turn> next = turns.take(5s);
    REQUIRE(next);
    next->finish(kernels::ComputeContext());
    const auto t0 = std::chrono::steady_clock::now();
    while (served == 0 && ms_since(t0) < 5000) std::this_thread::yield();
    CHECK(served == 1);
  }
  stop = true;
  trainer.join();
}

TEST_CASE("frame turns: closing releases a waiting frame and refuses later ones until opened", "[frame_turns]") {
  FrameTurns turns;
  std::atomic<bool> returned{false};
  const auto t0 = std::chrono::steady_clock::now();
  std::thread viewer([&] {
    CHECK_FALSE(turns.take(60s));
    returned = true;
  });
  std::this_thread::sleep_for(10ms);
  turns.close();
  viewer.join();
  CHECK(returned);
  CHECK(ms_since(t0) < 30000);
  CHECK_FALSE(turns.take(60s));  // closed: at once
  CHECK(ms_since(t0) < 30000);
  turns.open();
  std::thread trainer([&] {
    for (int s = 0; s < 2000 && turns.served() == 0; ++s) {
      turns.serve(kernels::ComputeContext(), kPatience);
      std::this_thread::sleep_for(1ms);
    }
  });
  std::optional<FrameTurns::Turn> turn = turns.take(5s);
  REQUIRE(turn);
  turn->finish(kernels::ComputeContext());
  trainer.join();
  CHECK(turns.served() == 1);
}

TEST_CASE("training session: rank 0 serves frame turns while it trains, none once it stopped", "[frame_turns][session]") {
  Scene scene = test::small_demo_scene(40, 30, 200);
  const TrainerOptions o{.images = 100000, .cpu_threads = 1};
  SessionOptions so;
  so.snapshot_interval_ms = 0;
  const GaussianModel init = init_from_points(scene.points);
  TrainingSession session(std::move(scene), init, o, so);
  CHECK_FALSE(session.take_frame_turn());  // not started: at once
  session.start();
  const auto started = std::chrono::steady_clock::now();
  while (session.steps_done() < 5 && ms_since(started) < 60000) std::this_thread::sleep_for(1ms);
  REQUIRE(session.steps_done() >= 5);
  const kernels::ComputeContext viewer;
  int taken = 0;
  for (int f = 0; f < 2000 && taken < 3; ++f) {
    std::optional<FrameTurns::Turn> turn = session.take_frame_turn();
    if (!turn) continue;  // a decision point (a snapshot) can take longer than a frame's patience
    turn->start(viewer);
    turn->finish(viewer);
    ++taken;
  }
  CHECK(taken == 3);
  const int at = session.steps_done();
  const auto t0 = std::chrono::steady_clock::now();
  while (session.steps_done() <= at + 2 && ms_since(t0) < 60000) std::this_thread::sleep_for(1ms);
  CHECK(session.steps_done() > at + 2);  // training goes on after the turns
  CHECK(session.frame_turns_served() == 3);
  session.stop();
  const auto t1 = std::chrono::steady_clock::now();
  CHECK_FALSE(session.take_frame_turn());
  CHECK(ms_since(t1) < 1000);
}
