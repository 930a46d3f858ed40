#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <thread>

#include "core/ply_io.h"
#include "core/training_session.h"
#include "tests/core/demo_fixture.h"
#include "tests/support/test_support.h"

using namespace splat;
using namespace std::chrono_literals;

namespace {
// Polls until pred() or a generous timeout (the session runs on its own thread).
template <class P>
bool eventually(P pred) {
  for (int i = 0; i < 3000 && !pred(); ++i) std::this_thread::sleep_for(5ms);
  return pred();
}
}  // namespace

TEST_CASE("training session: pause, settings, requests, metrics ring and snapshots", "[session]") {
  Scene scene = test::small_demo_scene(40, 30, 200);
  TrainerOptions o;
  o.steps = 100000;
  o.cpu_threads = 1;
  SessionOptions so;
  so.metrics_capacity = 5;
  so.metrics_every = 1;
  so.snapshot_interval_ms = 0;
  const GaussianModel init = init_from_points(scene.points);
  TrainingSession session(std::move(scene), init, o, so);
  CHECK(session.state() == SessionState::Idle);
  session.start();
  REQUIRE(eventually([&] { return session.steps_done() >= 8; }));

  session.pause();
  REQUIRE(eventually([&] { return session.state() == SessionState::Paused; }));
  const int paused_at = session.steps_done();
  std::this_thread::sleep_for(50ms);
  CHECK(session.steps_done() == paused_at);

  // Requests are served while paused.
  const auto ply = test::scratch_dir("session") / "snap.ply";
  std::atomic<bool> saved{false};
  std::string err = "not called";
  session.request_save_ply(ply, [&](const std::string& e) {
    err = e;
    saved = true;
  });
  REQUIRE(eventually([&] { return saved.load(); }));
  CHECK(err.empty());
  CHECK(read_ply(ply).size() == init.size());

  // The ring keeps only the newest entries.
  const auto m = session.metrics_since(0);
  REQUIRE(m.size() == 5);
  CHECK(m.back().step == paused_at);
  CHECK(m.front().step == paused_at - 4);

  GaussianModel snap;
  const uint64_t v = session.copy_snapshot(0, snap);
  CHECK(v > 0);
  CHECK(snap.size() == init.size());
  CHECK(session.copy_snapshot(v, snap) == v);

  CHECK_THROWS_AS(session.set_batch_size(0), std::invalid_argument);
  CHECK_THROWS_AS(session.set_sh_degree_cap(4), std::invalid_argument);
  session.set_batch_size(3);
  session.resume();
  REQUIRE(eventually([&] { return session.steps_done() >= paused_at + 3; }));
  CHECK(session.snapshot_version() > v);
  session.stop();
  CHECK(session.state() == SessionState::Finished);
  CHECK(session.error().empty());
}
