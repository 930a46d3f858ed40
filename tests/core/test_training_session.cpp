#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/train/checkpoint.h"
#include "core/model/ply_io.h"
#include "core/train/training_session.h"
#include "tests/core/demo_fixture.h"
#include "tests/support/model_checks.h"
#include "tests/support/test_support.h"

using namespace splat;
using namespace std::chrono_literals;

namespace {
// Polls until pred() or a generous timeout (the session runs on its own thread). A minute: on a machine
// whose other GPUs and cores are busy training, a two-rank CUDA session once took more than 15 s to
// start and take its first steps; a wait that holds returns at once whatever the limit.
template <class P>
bool eventually(P pred) {
  for (int i = 0; i < 12000 && !pred(); ++i) std::this_thread::sleep_for(5ms);
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
  // Later steps publish new snapshots at the session's cadence (a time interval, at most
  // SnapshotCadence::kMaxInterval apart: on a loaded machine three steps can all fall inside one);
  // the one held is still valid and unchanged.
  REQUIRE(eventually([&] { return session.steps_done() >= paused_at + 3 && session.snapshot()->version() > v; }));
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

// Ranks: two CPU ranks as threads, each training a shard; rank 0 decides at the rank driver's decision points.
namespace {
SessionOptions two_rank_options() {
  SessionOptions so;
  so.metrics_every = 2;
  so.snapshot_interval_ms = 0;
  so.ranks.ranks = 2;
  return so;
}

// Two rank threads that train until stopped, one CPU thread each (the failure tests).
TrainerOptions endless_two_rank_options() { return {.images = 100000, .batch_size = 2, .cpu_threads = 1}; }

// two_rank_options with a periodic checkpoint every 4 images into `dir`/checkpoint.ckpt.
SessionOptions checkpointed_two_rank_options(const std::filesystem::path& dir) {
  SessionOptions so = two_rank_options();
  so.files.checkpoint_every = 4;
  so.files.checkpoint_file = dir / "checkpoint.ckpt";
  return so;
}

// Waits for a save request's outcome; returns its error ("" on success).
template <class Request>
std::string saved(Request request) {
  std::atomic<bool> done{false};
  std::string err = "not called";
  request([&](const std::string& e) {
    err = e;
    done = true;
  });
  REQUIRE(eventually([&] { return done.load(); }));
  return err;
}
}  // namespace

TEST_CASE("training session with 2 CPU ranks: whole-model snapshots, controls and saves at shared boundaries",
          "[session][ranks]") {
  const Scene scene = test::small_demo_scene(40, 30, 200);
  const TrainerOptions o{.images = 100000, .batch_size = 2, .cpu_threads = 1};
  const GaussianModel init = init_from_points(scene.points);
  TrainingSession session(scene, init, o, two_rank_options());
  REQUIRE(session.ranks() == 2);
  // Every rank renders at least one image of a step: a smaller batch is refused on the caller's thread.
  CHECK_THROWS_WITH(session.set_batch_size(1), Catch::Contains("smaller than the 2 ranks"));
  session.start();
  REQUIRE(eventually([&] { return session.steps_done() >= 3; }));

  session.pause();
  REQUIRE(eventually([&] { return session.state() == SessionState::Paused; }));
  const int paused_at = session.steps_done();
  const int images_at = session.images_done();
  CHECK(images_at == 2 * paused_at);
  std::this_thread::sleep_for(50ms);
  CHECK(session.steps_done() == paused_at);

  // The snapshot is the whole model, gathered from both shards in rank order: what a checkpoint (gathered
  // to rank 0 through the host) holds, bit for bit, and as many rows as the two shards together.
  const std::shared_ptr<const ModelSnapshot> held = session.snapshot();
  REQUIRE(held);
  CHECK(held->step() == paused_at);
  CHECK(held->context().device == kernels::Device::CPU);
  const auto dir = test::scratch_dir("session_ranks");
  const auto ckpt = dir / "ranks.ckpt";
  CHECK(saved([&](auto done) { session.request_save_checkpoint(ckpt, done); }).empty());
  const Checkpoint ck = read_checkpoint(ckpt);
  CHECK(ck.trainer.at("step").get<int>() == paused_at);
  test::check_same_model(held->download(), ck.gaussians.to_model());
  const std::vector<sharded::RankStats> rows = session.rank_stats();
  REQUIRE(rows.size() == 2);
  int64_t shards = 0;
  for (int r = 0; r < 2; ++r) {
    INFO("rank " << r);
    CHECK(rows[r].rank == r);
    CHECK(rows[r].device_ordinal == -1);
    CHECK(rows[r].gaussians > 0);
    CHECK(rows[r].step_ms > 0);
    shards += rows[r].gaussians;
  }
  CHECK(held->size() == shards);
  // The PLY gathers too.
  const auto ply = dir / "ranks.ply";
  CHECK(saved([&](auto done) { session.request_save_ply(ply, done); }).empty());
  test::check_same_model(read_ply(ply), held->download());

  // A batch size change applies to every rank at the same boundary: the first step after Resume takes 4.
  session.set_batch_size(4);
  session.resume();
  REQUIRE(eventually([&] { return session.steps_done() >= paused_at + 2; }));
  session.pause();
  REQUIRE(eventually([&] { return session.state() == SessionState::Paused; }));
  CHECK(session.images_done() - images_at == 4 * (session.steps_done() - paused_at));
  CHECK(session.snapshot()->step() == session.steps_done());

  // Finish ends early (Stopped) on every rank; Resume goes on; stop ends the threads.
  session.resume();
  session.finish();
  REQUIRE(eventually([&] { return session.state() == SessionState::Stopped; }));
  const int stopped_at = session.steps_done();
  session.resume();
  REQUIRE(eventually([&] { return session.steps_done() > stopped_at; }));
  const auto metrics = session.metrics_since(0);
  REQUIRE(!metrics.empty());
  CHECK(metrics.back().gaussians == session.snapshot()->size());  // the whole model's count
  session.stop();
  CHECK(session.state() == SessionState::Finished);
  CHECK(session.error().empty());
}

TEST_CASE("training session with 2 ranks: the budget's short last step ends the run", "[session][ranks]") {
  const Scene scene = test::small_demo_scene(40, 30, 200);
  // 7 images at batch 2: three steps, then 1 image left for 2 ranks.
  const TrainerOptions o{.images = 7, .batch_size = 2, .cpu_threads = 1};
  TrainingSession session(scene, init_from_points(scene.points), o, two_rank_options());
  session.start();
  REQUIRE(eventually([&] { return session.state() == SessionState::Finished; }));
  CHECK(session.images_done() == 6);
  CHECK(session.error().empty());
  // A larger budget continues it.
  session.set_total_images(10);
  session.resume();
  REQUIRE(eventually([&] { return session.images_done() == 10 && session.state() == SessionState::Finished; }));
  session.stop();
  CHECK(session.error().empty());
}

TEST_CASE("training session with 2 ranks: a pause longer than the ranks' timeout is no failure", "[session][ranks]") {
  const Scene scene = test::small_demo_scene(40, 30, 200);
  const TrainerOptions o{.images = 100000, .batch_size = 2, .cpu_threads = 1};
  SessionOptions so = two_rank_options();
  so.comm.timeout = 200ms;  // rank 1 waits at most this long for rank 0's next decision
  TrainingSession session(scene, init_from_points(scene.points), o, so);
  session.start();
  REQUIRE(eventually([&] { return session.steps_done() >= 2; }));
  session.pause();
  REQUIRE(eventually([&] { return session.state() == SessionState::Paused; }));
  std::this_thread::sleep_for(1s);  // rank 0 keeps answering with decisions to do nothing
  CHECK(session.state() == SessionState::Paused);
  const int paused_at = session.steps_done();
  session.resume();
  REQUIRE(eventually([&] { return session.steps_done() > paused_at; }));
  session.stop();
  CHECK(session.error().empty());
  CHECK(session.state() == SessionState::Finished);
}

TEST_CASE("training session: a failing rank stops every rank, names itself and keeps the last checkpoint",
          "[session][ranks]") {
  const Scene scene = test::small_demo_scene(40, 30, 200);
  const TrainerOptions o = endless_two_rank_options();
  const auto dir = test::scratch_dir("session_rank_failure");
  const SessionOptions so = checkpointed_two_rank_options(dir);
  TrainingSession session(scene, init_from_points(scene.points), o, so);
  session.start();
  // The first periodic checkpoint (rank 0 writes it) is there; then rank 0 cannot write the next one
  // (its temporary file is taken by a folder), while rank 1 waits for it in the next step's exchange.
  REQUIRE(eventually([&] { return std::filesystem::exists(so.files.checkpoint_file); }));
  session.pause();
  REQUIRE(eventually([&] { return session.state() == SessionState::Paused; }));
  const int kept_step = read_checkpoint(so.files.checkpoint_file).trainer.at("step").get<int>();
  std::filesystem::create_directories(dir / "checkpoint.ckpt.tmp");
  const auto t0 = std::chrono::steady_clock::now();
  session.resume();
  REQUIRE(eventually([&] { return session.state() == SessionState::Failed; }));
  CHECK(std::chrono::steady_clock::now() - t0 < 10s);  // well inside the communicator's timeout
  CHECK_THAT(session.error(), Catch::Contains("rank 0 (CPU)") && Catch::Contains("checkpoint.ckpt"));
  session.stop();  // the rank threads are gone: returns at once
  CHECK(read_checkpoint(so.files.checkpoint_file).trainer.at("step").get<int>() == kept_step);
}

TEST_CASE("training session: a rank out of memory fails the session naming it, the last checkpoint kept",
          "[session][ranks][fault]") {
  const Scene scene = test::small_demo_scene(40, 30, 200);
  const TrainerOptions o = endless_two_rank_options();
  const SessionOptions so = checkpointed_two_rank_options(test::scratch_dir("session_planted_oom"));
  // As a user rehearses it in the GUI: the variable set when the session starts (core/train/planted_fault.h).
  setenv("SPLATLAB_FAULT", "oom:1:10", 1);
  TrainingSession session(scene, init_from_points(scene.points), o, so);
  session.start();
  const bool failed = eventually([&] { return session.state() == SessionState::Failed; });
  unsetenv("SPLATLAB_FAULT");
  REQUIRE(failed);
  CHECK_THAT(session.error(), Catch::Contains("rank 1 (CPU)") && Catch::Contains("out of memory on CPU, planted"));
  session.stop();  // returns at once
  // The checkpoint at 8 images, the last before the fault, is whole.
  CHECK(read_checkpoint(so.files.checkpoint_file).trainer.at("images").get<int>() == 8);
}

TEST_CASE("training session: 2 ranks on one GPU gather the snapshot on the device", "[session][ranks][gpu]") {
  if (!test::gpu_or_skip("CUDA training session with 2 ranks on one GPU")) return;
  const Scene scene = test::small_demo_scene(40, 30, 200);
  const TrainerOptions o{.device = kernels::Device::CUDA, .images = 100000, .batch_size = 2};
  SessionOptions so = two_rank_options();
  so.ranks.cuda_devices = {0};
  TrainingSession session(scene, init_from_points(scene.points), o, so);
  session.start();
  const bool stepped = eventually([&] { return session.steps_done() >= 5; });
  INFO("session state " << int(session.state()) << ", error: " << session.error());
  REQUIRE(stepped);
  session.pause();
  REQUIRE(eventually([&] { return session.state() == SessionState::Paused; }));
  const std::shared_ptr<const ModelSnapshot> held = session.snapshot();
  REQUIRE(held);
  CHECK(held->context().device == kernels::Device::CUDA);
  CHECK(held->context().ordinal == 0);
  const std::vector<sharded::RankStats> rows = session.rank_stats();
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].device_ordinal == 0);
  CHECK(rows[1].device_ordinal == 0);
  CHECK(rows[0].device_memory_mb > 0);
  CHECK(held->size() == rows[0].gaussians + rows[1].gaussians);
  const auto ckpt = test::scratch_dir("session_ranks_gpu") / "ranks.ckpt";
  CHECK(saved([&](auto done) { session.request_save_checkpoint(ckpt, done); }).empty());
  test::check_same_model(held->download(), read_checkpoint(ckpt).gaussians.to_model());
}

// The GUI's AMP checkbox: set_amp while training converts the trainer's columns at a step boundary,
// and the snapshots the viewer renders follow (SH rest in bf16, decoding to the stored values). With
// 2 ranks every rank switches at the same boundary and the snapshot gathers the bf16 shards as they are.
TEST_CASE("training session: set_amp switches mixed precision while training", "[session][amp][ranks]") {
  const int ranks = GENERATE(1, 2);
  INFO(ranks << " rank(s)");
  Scene scene = test::small_demo_scene(40, 30, 200);
  const TrainerOptions o{.images = 100000, .batch_size = 2, .cpu_threads = 1};
  SessionOptions so;
  so.snapshot_interval_ms = 0;
  so.ranks.ranks = ranks;
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
  // The snapshot is the model the ranks hold: what a checkpoint (gathered through the host) holds, bit for bit.
  session.pause();
  REQUIRE(eventually([&] { return session.state() == SessionState::Paused; }));
  const auto ckpt = test::scratch_dir("session_amp") / "amp.ckpt";
  CHECK(saved([&](auto done) { session.request_save_checkpoint(ckpt, done); }).empty());
  const GaussianModel m = session.snapshot()->download();
  test::check_same_model(m, read_checkpoint(ckpt).gaussians.to_model());
  for (float v : m.sh_rest) REQUIRE(v == round_to_storage(v, Precision::BF16));
  session.resume();
  session.set_amp(false);
  REQUIRE(eventually([&] {
    const auto s = session.snapshot();
    return s && s->view().sh_rest != nullptr;
  }));
  session.stop();
  CHECK(session.error().empty());
}

TEST_CASE("training session: snapshots come as often as their measured cost allows", "[session][snapshot_cadence]") {
  Scene scene = test::small_demo_scene(40, 30, 200);
  const TrainerOptions o{.images = 100000, .cpu_threads = 1};
  SessionOptions so;
  so.snapshot_interval_ms = 0;  // no floor: the cost alone sets the interval
  so.snapshot_max_interval_ms = 60000;
  const GaussianModel init = init_from_points(scene.points);
  TrainingSession session(std::move(scene), init, o, so);
  CHECK(session.snapshot_pace().cost_ms == 0);  // nothing measured before the first publication
  session.start();
  REQUIRE(eventually([&] { return session.steps_done() >= 8 && session.snapshot_pace().cost_ms > 0; }));
  session.stop();
  // On the CPU the publication's time is the host's, on the training thread.
  const TrainingSession::SnapshotPace pace = session.snapshot_pace();
  CHECK(pace.cost_ms > 0);
  CHECK(pace.interval_ms == Approx(pace.cost_ms / SnapshotCadence::kTrainingShare).epsilon(1e-3));
}

// The session evaluates as `splatlab train` does: at the eval cadence and at the budget's end, into
// the same metrics.jsonl fields, and keeps the latest evaluation's per-view figures for the GUI.
TEST_CASE("training session: evaluates the test views at the cadence and at the end", "[session][eval]") {
  Scene scene = test::small_demo_scene(28, 21, 90);
  const size_t tests = scene.test_indices().size();
  REQUIRE(tests > 0);
  const auto metrics_file = test::scratch_dir("session_eval") / "metrics.jsonl";
  SessionOptions so;
  so.metrics_every = 3;
  so.eval_every = 4;
  so.files.metrics_file = metrics_file;
  const GaussianModel init = init_from_points(scene.points);
  TrainingSession session(std::move(scene), init, {.images = 10, .cpu_threads = 1}, so);
  CHECK_FALSE(session.latest_evaluation().result);
  session.start();
  REQUIRE(eventually([&] { return session.state() == SessionState::Finished; }));

  std::vector<int> recorded, evaluated;
  std::ifstream in(metrics_file);
  for (std::string line; std::getline(in, line);) {
    const nlohmann::json j = nlohmann::json::parse(line);
    recorded.push_back(j.at("images").get<int>());
    CHECK(j.contains("psnr") == j.contains("ssim"));
    if (j.contains("psnr")) evaluated.push_back(j.at("images").get<int>());
  }
  CHECK(recorded == std::vector<int>{3, 4, 6, 8, 9, 10});
  CHECK(evaluated == std::vector<int>{4, 8, 10});  // the cadence, then the end of the budget
  const std::shared_ptr<const EvalResult> last = session.latest_evaluation().result;
  REQUIRE(last);
  CHECK(session.latest_evaluation().images == 10);
  CHECK(last->views.size() == tests);
  CHECK(session.metrics_since(0).back().psnr == last->psnr);
}
