#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "core/train/checkpoint.h"
#include "core/model/ply_io.h"
#include "core/train/training_session.h"
#include "tests/core/demo_fixture.h"
#include "tests/support/model_checks.h"
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
  const TrainerOptions o{.images = 100000, .cpu_threads = 1};
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

  // While paused, the latest snapshot is of the last step, and holds the trainer's parameters then
  // (the PLY above was written from the trainer itself).
  const std::shared_ptr<const ModelSnapshot> held = session.snapshot();
  REQUIRE(held);
  const uint64_t v = held->version();
  CHECK(v > 0);
  CHECK(held->step() == paused_at);
  CHECK(held->context().device == kernels::Device::CPU);
  const GaussianModel at_pause = held->download();
  const GaussianModel trainer_at_pause = read_ply(ply);
  test::check_same_model(at_pause, trainer_at_pause);
  CHECK(session.snapshot() == held);  // nothing new while paused

  CHECK_THROWS_AS(session.set_batch_size(0), std::invalid_argument);
  CHECK_THROWS_AS(session.set_sh_degree_cap(4), std::invalid_argument);
  session.set_batch_size(3);
  session.resume();
  REQUIRE(eventually([&] { return session.steps_done() >= paused_at + 3; }));
  // Later steps publish new snapshots; the one held is still valid and unchanged.
  const std::shared_ptr<const ModelSnapshot> later = session.snapshot();
  CHECK(later->version() > v);
  CHECK(later->step() > held->step());
  CHECK(later->download().means != at_pause.means);  // training moved the Gaussians
  const GaussianModel held_now = held->download();
  CHECK(held_now.means == at_pause.means);
  CHECK(held_now.opacity_logits == at_pause.opacity_logits);
  CHECK(held_now.sh_dc == at_pause.sh_dc);
  session.stop();
  CHECK(session.state() == SessionState::Finished);
  CHECK(session.error().empty());
}

TEST_CASE("training session: checkpoints are written between steps, profiling follows its switch", "[session]") {
  const Scene scene = test::small_demo_scene(40, 30, 200);
  const TrainerOptions o{.images = 100000, .cpu_threads = 1};
  const GaussianModel init = init_from_points(scene.points);
  TrainingSession session(scene, init, o);
  session.set_profiling(true);
  session.start();
  REQUIRE(eventually([&] { return session.steps_done() >= 3; }));

  // Served while running: the callback runs at the boundary it was served at, so the step count
  // it sees is the one the file must hold, and training goes on afterwards.
  const auto dir = test::scratch_dir("session_ckpt");
  const auto file = dir / "run.ckpt";
  std::string err = "not called";
  std::atomic<int> served_at{-1};
  session.request_save_checkpoint(file, [&](const std::string& e) {
    err = e;
    served_at = session.steps_done();
  });
  REQUIRE(eventually([&] { return served_at.load() >= 0; }));
  CHECK(err.empty());
  REQUIRE(eventually([&] { return session.steps_done() > served_at.load() + 2; }));
  CHECK(read_checkpoint(file).trainer.at("step").get<int>() == served_at.load());
  Trainer resumed(scene, init, o);
  restore_trainer_checkpoint(resumed, file);
  CHECK(resumed.steps_done() == served_at.load());

  // A file that cannot be written reports the error and leaves training running.
  std::ofstream(dir / "not_a_dir") << "x";
  std::atomic<bool> failed{false};
  session.request_save_checkpoint(dir / "not_a_dir" / "x.ckpt", [&](const std::string& e) {
    err = e;
    failed = true;
  });
  REQUIRE(eventually([&] { return failed.load(); }));
  CHECK(!err.empty());
  CHECK(session.state() == SessionState::Running);

  // Profiling was on from the first step: the phases of Trainer::step are published...
  const auto names = [&] {
    std::vector<std::string> n;
    const kernels::PhaseTotals totals = session.step_phases();
    for (const auto& p : totals.phases()) n.push_back(p.name);
    return n;
  };
  REQUIRE(eventually([&] { return names().size() >= 4; }));
  const std::vector<std::string> seen = names();
  CHECK(std::find(seen.begin(), seen.end(), "render forward") != seen.end());
  CHECK(session.step_phases().phases().front().count >= 1);
  // ...and cleared once it is switched off.
  session.set_profiling(false);
  REQUIRE(eventually([&] { return session.step_phases().phases().empty(); }));
  const int off_at = session.steps_done();
  REQUIRE(eventually([&] { return session.steps_done() > off_at + 2; }));
  CHECK(session.step_phases().phases().empty());
  session.stop();
  CHECK(session.error().empty());
}

// The GUI's AMP checkbox: set_amp while training converts the trainer's columns at a step boundary,
// and the snapshots the viewer renders follow (SH rest in bf16, decoding to the stored values).
TEST_CASE("training session: set_amp switches mixed precision while training", "[session][amp]") {
  Scene scene = test::small_demo_scene(40, 30, 200);
  const TrainerOptions o{.images = 100000, .cpu_threads = 1};
  SessionOptions so;
  so.snapshot_interval_ms = 0;
  const GaussianModel init = init_from_points(scene.points);
  TrainingSession session(std::move(scene), init, o, so);
  session.start();
  REQUIRE(eventually([&] { return session.steps_done() >= 3; }));
  REQUIRE(session.snapshot());
  CHECK(session.snapshot()->view().sh_rest_bf16 == nullptr);
  session.set_amp(true);
  CHECK(session.amp());
  REQUIRE(eventually([&] {
    const auto s = session.snapshot();
    return s && s->view().sh_rest_bf16 != nullptr;
  }));
  const int at = session.steps_done();
  REQUIRE(eventually([&] { return session.steps_done() >= at + 3; }));  // it trains on in mixed precision
  const GaussianModel m = session.snapshot()->download();
  for (float v : m.sh_rest) REQUIRE(v == round_to_storage(v, Precision::BF16));
  session.set_amp(false);
  REQUIRE(eventually([&] {
    const auto s = session.snapshot();
    return s && s->view().sh_rest != nullptr;
  }));
  session.stop();
  CHECK(session.error().empty());
}
