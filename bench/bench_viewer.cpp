// What watching a run costs, measured the way users watch: the viewport's frames through the GUI's own
// path (ViewRasterizer on its low-priority stream -> ViewportTexture's CUDA-GL interop -> Presenter into a
// headless EGL framebuffer standing in for the window) showing the TRAINING SESSION'S SNAPSHOTS, while a
// TrainingSession trains on the same GPU(s) as the GUI starts it, and the same viewer alone.
//
// Scenarios, each run for --seconds, once while training and once alone (no training; the viewer then
// shows the last snapshot of the headless run):
//   orbit 60 Hz  the user drags the camera: a new camera every 16.7 ms (input events at 60 Hz), frames
//                paced like the GUI's (one per display refresh at --fps-cap, vsync), rendered when
//                ui/frame_gate says so (every frame here, since the view changes), at the scale
//                ui/motion_resolution gives, as the GUI's (--moving-scale while training, full alone);
//   idle         no input; the GUI's loop wakes at the fps cap while training, and the gate renders a new
//                snapshot at most --fps-cap times a second (alone: nothing new, so it renders once);
//   flat out     a new camera every frame, no pacing, no gate: the most the viewer can take.
// Before them, a headless run: the same training for the same time with no viewer and no snapshots
// (`splatlab train`). Every training run is a fresh session from the same initial model, warmed up for
// --warmup-s before its --seconds are measured, so the runs are alike; "vs headless" is a run's images/s
// over the headless run's.
//
// Reported per row: viewer fps (renders per second of wall time), frame time p90 (render + interop +
// present + glFinish, over rendered frames), renders, the Gaussians shown at the end, training images/s,
// its ratio to headless, the session's snapshot cadence at the end (what a publication cost rank 0's
// stream, and the interval that gives: core/train/snapshot_cadence.h) and, with ranks, rank 0's share of
// the Gaussians at the end (the shards follow what the ranks wait on). One table, one row per scenario, for each --ranks value (rank threads over the
// machine's GPUs in blocks, several on GPU 0 where there is one; the viewer renders on GPU 0, with rank 0).
// --counts N,... adds flat-out rows, viewer alone, of a fixed random model of N Gaussians framed on the
// unit cube (the 60 fps at 3M target of docs/ARCHITECTURE.md "Targets").
//
//   bench_viewer [--ranks 1,2] [--batch-size 2] [--seconds 10] [--warmup-s 5] [--fps-cap 60] [--moving-scale 0.5]
//                [--width 1920 --height 1080] [--scene COLMAP_FOLDER | --demo-width 640 --demo-height 480]
//                [--counts 1000000,3000000]
#include "ui/gl.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/model/gaussian_model.h"
#include "core/model/model_snapshot.h"
#include "core/scene/camera_path.h"
#include "core/scene/demo_scene.h"
#include "core/scene/scene_loader.h"
#include "core/train/snapshot_cadence.h"
#include "core/train/training_session.h"
#include "kernels/device.h"
#include "kernels/stream.h"
#include "ui/frame_gate.h"
#include "ui/headless_gl.h"
#include "ui/motion_resolution.h"
#include "ui/viewport_share.h"
#include "ui/orbit_camera.h"
#include "ui/presenter.h"
#include "ui/view_rasterizer.h"
#include "ui/viewport_texture.h"

using namespace splat;
using Clock = std::chrono::steady_clock;

namespace {

struct Args {
  std::vector<int> ranks{1};
  int batch_size = 2;
  double seconds = 10, warmup_s = 5;
  int fps_cap = 60;
  float moving_scale = ui::MotionPolicy{}.moving_scale;  // the View panel's default
  int width = 1920, height = 1080;
  std::string scene;  // empty: the demo scene
  int demo_width = 640, demo_height = 480;
  std::vector<int64_t> counts;
  std::optional<kernels::StreamPriority> viewer_priority;  // unset: the GUI's
  double idle_hz = ui::viewport_share(true, kernels::Device::CUDA, 60, false, 0).idle_hz;  // the GUI's
  std::vector<std::string> scenarios{"orbit", "idle", "flat"};
  bool interactive_limit = true;  // the GUI's: one step queued at most while the view moves
  bool packed = ui::ViewRasterizer::kPacked;  // the GUI's: the viewer's pairs dense or packed
  int snapshot_min_ms = static_cast<int>(SnapshotCadence::kMinInterval.count());
};

const char* priority_name(kernels::StreamPriority p) {
  switch (p) {
    case kernels::StreamPriority::Interactive: return "interactive (above training)";
    case kernels::StreamPriority::Training: return "training (equal)";
    case kernels::StreamPriority::Background: return "background (below training)";
  }
  return "?";
}

double p90(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(0.9 * double(v.size() - 1))];
}

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// The window's default framebuffer stand-in: an RGBA8 colour buffer of the window's size.
class OffscreenWindow {
 public:
  OffscreenWindow(int width, int height) : width_(width), height_(height) {
    glCreateRenderbuffers(1, &color_);
    glNamedRenderbufferStorage(color_, GL_RGBA8, width, height);
    glCreateFramebuffers(1, &fbo_);
    glNamedFramebufferRenderbuffer(fbo_, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, color_);
    if (glCheckNamedFramebufferStatus(fbo_, GL_DRAW_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
      throw std::runtime_error("offscreen framebuffer is incomplete");
  }
  ~OffscreenWindow() {
    glDeleteFramebuffers(1, &fbo_);
    glDeleteRenderbuffers(1, &color_);
  }
  void bind() const { glBindFramebuffer(GL_DRAW_FRAMEBUFFER, fbo_); }
  void bind_for_reading() const { glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo_); }
  ui::PixelRect rect() const { return {0, 0, width_, height_}; }

 private:
  int width_, height_;
  GLuint fbo_ = 0, color_ = 0;
};

enum class Scenario { Orbit60, Idle, Flat };

const char* name_of(Scenario s) {
  switch (s) {
    case Scenario::Orbit60: return "orbit 60 Hz";
    case Scenario::Idle: return "idle";
    case Scenario::Flat: return "flat out";
  }
  return "?";
}

const char* scenario_key(Scenario s) {
  switch (s) {
    case Scenario::Orbit60: return "orbit";
    case Scenario::Idle: return "idle";
    case Scenario::Flat: return "flat";
  }
  return "?";
}

using SnapshotSource = std::function<std::shared_ptr<const ModelSnapshot>()>;

// The viewport part of the GUI's frame loop (ui/viewer_app.cpp), minus ImGui and the line overlays.
class Viewport {
 public:
  explicit Viewport(const Args& args) : args_(args), window_(args.width, args.height),
        raster_(kernels::Device::CUDA, args.viewer_priority.value_or(ui::ViewRasterizer::kPriority)) {
    raster_.set_packed(args.packed);
  }

  // As the GUI starts on a scene: the scene's up, at its first training camera, pivoting at the depth of
  // the scene's centre.
  void frame_scene(const Scene& scene) {
    camera_.set_world_up(estimate_up(scene.views).up);
    const std::vector<int> train = scene.train_indices();
    const SceneView& v = scene.views[train.empty() ? 0 : train.front()];
    const Vec3d fwd{v.R.m[2][0], v.R.m[2][1], v.R.m[2][2]};
    camera_.snap_to(v, std::max(0.1 * scene.extent, dot(scene.center - v.camera_center(), fwd)));
  }
  void frame_unit_cube() { camera_.frame({0, 0, 0}, 1.0); }

  struct Result {
    int renders = 0;
    int reduced = 0;  // renders at a reduced scale (the camera moving while training)
    double wall_s = 0, p90_ms = 0;
    // p90 of the host time of a rendered frame's parts: taking the snapshot, enqueueing the render, the
    // texture update (which waits for the render on the viewer's stream), presenting with glFinish.
    std::array<double, 4> split_p90_ms{};
    int64_t gaussians = 0;  // shown at the end
    double fps() const { return wall_s > 0 ? renders / wall_s : 0; }
  };

  // `seconds` of the scenario, showing what `source` publishes (polled every frame, as
  // TrainingController::poll does); `training` is the gate's policy (a session is running).
  Result run(Scenario scenario, const SnapshotSource& source, bool training, double seconds) {
    ui::FrameGate gate;
    const ui::GatePolicy policy{training, double(args_.fps_cap), false};
    ui::MotionResolution motion;  // flat out renders at full scale: the most the viewer can take
    const ui::MotionPolicy moving{.training = training && scenario != Scenario::Flat, .moving_scale = args_.moving_scale};
    // The GUI's loop wakes at the cap while the camera moves, at its idle rate while training shows no
    // movement, and when not training at the cap (vsync).
    const double wake_hz = scenario == Scenario::Idle && training ? args_.idle_hz : args_.fps_cap;
    const auto frame_period = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / wake_hz));
    const auto input_period = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / 60));
    std::shared_ptr<const ModelSnapshot> latest;
    uint64_t version = 0;
    std::vector<double> ms;
    std::array<std::vector<double>, 4> split;
    int scaled = 0;
    const auto start = Clock::now(), end = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
    auto next_frame = start, next_input = start;
    while (Clock::now() < end) {
      if (scenario != Scenario::Flat) {
        // One frame per display refresh (vsync; glfwWaitEventsTimeout at the cap while training idles).
        std::this_thread::sleep_until(next_frame);
        next_frame = std::max(next_frame + frame_period, Clock::now());
      }
      const auto t0 = Clock::now();
      if (scenario == Scenario::Flat) camera_.orbit(4, 0);
      if (scenario == Scenario::Orbit60)  // every input event that arrived since the last frame
        for (; next_input <= t0; next_input += input_period) camera_.orbit(4, 0);
      if (auto s = source(); s && s != latest) {
        latest = std::move(s);
        ++version;
      }
      if (!latest) continue;
      // As the GUI's draw_viewport: the scale from the camera at full size, then the camera at that scale.
      const kernels::Camera full = camera_.camera(args_.width, args_.height);
      ui::ViewKey pose(full.R, full.R + 9);
      pose.insert(pose.end(), full.t, full.t + 3);
      pose.insert(pose.end(), {full.fx, full.fy, full.cx, full.cy, float(full.width), float(full.height)});
      const float scale = motion.scale(pose, moving, t0);
      const int rw = std::max(1, static_cast<int>(std::lround(args_.width * scale)));
      const int rh = std::max(1, static_cast<int>(std::lround(args_.height * scale)));
      const kernels::Camera cam = camera_.camera(rw, rh);
      ui::ViewKey key = pose;
      key.insert(key.end(), {float(rw), float(rh)});
      const bool render = scenario == Scenario::Flat || gate.due(key, version, policy, t0);
      std::array<Clock::time_point, 4> marks{t0, t0, t0, t0};
      if (render) {
        marks[0] = Clock::now();
        raster_.set_snapshot(latest);
        marks[1] = Clock::now();
        raster_.render(cam, settings_);
        // The split waits for the render here, so that "render" is its device time and "texture" the
        // texture's own (the frame waits for both either way).
        kernels::StreamEvent rendered;
        rendered.record(raster_.context());
        rendered.synchronize("the viewer's render (bench split)");
        marks[2] = Clock::now();
        texture_.update(raster_, {});  // waits for the viewer's stream (the interop's colouring), not the device
        marks[3] = Clock::now();
      }
      window_.bind();
      glClear(GL_COLOR_BUFFER_BIT);
      presenter_.draw(texture_.id(), window_.rect());
      glFinish();
      if (render) {
        const auto done = Clock::now();
        ms.push_back(1e3 * seconds_since(t0));
        for (int k = 0; k < 4; ++k)
          split[k].push_back(1e3 * std::chrono::duration<double>((k < 3 ? marks[k + 1] : done) - marks[k]).count());
        if (scale < 1.f) ++scaled;
      }
    }
    Result r;
    r.wall_s = seconds_since(start);
    r.renders = static_cast<int>(ms.size());
    r.reduced = scaled;
    r.p90_ms = p90(ms);
    for (int k = 0; k < 4; ++k) r.split_p90_ms[k] = p90(split[k]);
    r.gaussians = latest ? latest->size() : 0;
    return r;
  }

 private:
  const Args& args_;
  OffscreenWindow window_;
  ui::ViewRasterizer raster_;
  ui::ViewportTexture texture_;
  ui::Presenter presenter_;
  ui::OrbitCamera camera_;
  kernels::RasterSettings settings_;
};

// Gaussians in the unit cube, sized by their neighbours' spacing exactly as the trainer
// initialises them from SfM points (core's init_random).
std::shared_ptr<const GaussianModel> bench_model(int64_t count) {
  RandomInitOptions opt;
  opt.count = count;
  opt.seed = 1;
  return std::make_shared<GaussianModel>(init_random(opt));
}

Scene training_scene(const Args& args) {
  SceneLoadOptions load;
  load.show_progress = false;
  if (!args.scene.empty()) return load_scene(args.scene, load);
  demo::DemoOptions demo;
  demo.width = args.demo_width;
  demo.height = args.demo_height;
  const auto folder = std::filesystem::temp_directory_path() /
                      ("splatlab-bench-demo-" + std::to_string(demo.width) + "x" + std::to_string(demo.height));
  return load_scene(demo::ensure_demo_scene(folder, demo).folder, load);
}

// A training session as the GUI starts one (batch size, ranks over the GPUs), from `init`. Without
// snapshots (headless) it publishes none until it stops, as `splatlab train` publishes none.
std::unique_ptr<TrainingSession> start_training(const Args& args, const Scene& scene, const GaussianModel& init,
                                                int ranks, bool snapshots) {
  TrainerOptions opt;
  opt.device = kernels::Device::CUDA;
  opt.images = 100000000;  // never finishes during the benchmark
  opt.batch_size = args.batch_size;
  SessionOptions so;
  so.snapshot_interval_ms = snapshots ? args.snapshot_min_ms : 24 * 3600 * 1000;
  so.ranks.device = kernels::Device::CUDA;
  for (int g = 0, n = kernels::cuda_device_count(); g < std::min(n, ranks); ++g) so.ranks.cuda_devices.push_back(g);
  so.ranks.ranks = ranks;
  auto session = std::make_unique<TrainingSession>(scene, init, opt, so);
  session->start();
  return session;
}

void check_training(const TrainingSession& s) {
  if (s.state() == SessionState::Failed) throw std::runtime_error("training failed: " + s.error());
}

// Images per second of a fresh session over `measure` (which runs for --seconds), after --warmup-s.
struct Trained {
  double images_per_s = 0;
  // Rank 0's share of the Gaussians as the measured time ended (with ranks: the shards follow what the
  // ranks wait on, core/train/sharded/wait_balance.h, so the rank sharing its GPU with the viewer may hold
  // fewer); nullopt with one rank.
  std::optional<double> rank0_share;
  TrainingSession::SnapshotPace pace;  // as the measured time ended
  std::shared_ptr<const ModelSnapshot> last;  // the session's snapshot once stopped
};
Trained train_while(const Args& args, const Scene& scene, const GaussianModel& init, int ranks, bool snapshots,
                    const std::function<void(TrainingSession&)>& measure) {
  auto session = start_training(args, scene, init, ranks, snapshots);
  const auto begun = Clock::now();
  while (session->steps_done() == 0 && seconds_since(begun) < 120) {  // the first step builds the scene's state
    check_training(*session);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(args.warmup_s));
  check_training(*session);
  const int before = session->images_done();
  const auto t0 = Clock::now();
  measure(*session);
  Trained t;
  t.images_per_s = (session->images_done() - before) / seconds_since(t0);
  t.pace = session->snapshot_pace();
  const std::vector<sharded::RankStats> ranks_now = session->rank_stats();
  int64_t all = 0;
  for (const sharded::RankStats& r : ranks_now) all += r.gaussians;
  if (ranks_now.size() > 1 && all > 0) t.rank0_share = double(ranks_now[0].gaussians) / double(all);
  check_training(*session);
  session->stop();
  t.last = session->snapshot();
  return t;
}

struct Row {
  int ranks = 0, gpus = 0;
  std::string scenario;
  bool training = false;
  std::optional<Viewport::Result> view;
  std::optional<double> images_per_s, headless;
  std::optional<TrainingSession::SnapshotPace> pace;
  std::optional<double> rank0_share;
};

void print_row(const Row& r) {
  auto num = [](std::optional<double> v, const char* fmt) {
    if (!v) return std::string("-");
    char b[64];
    std::snprintf(b, sizeof b, fmt, *v);
    return std::string(b);
  };
  const bool viewed = r.view.has_value();
  const std::string split =
      viewed && r.view->renders
          ? num(r.view->split_p90_ms[0], "%.2f") + " / " + num(r.view->split_p90_ms[1], "%.2f") + " / " +
                num(r.view->split_p90_ms[2], "%.2f") + " / " + num(r.view->split_p90_ms[3], "%.2f")
          : "-";
  std::printf("| %d | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.ranks, r.gpus, r.scenario.c_str(),
              r.training ? "yes" : "no", viewed ? num(r.view->fps(), "%.1f").c_str() : "-",
              viewed && r.view->renders ? num(r.view->p90_ms, "%.2f").c_str() : "-",
              viewed ? (std::to_string(r.view->renders) + " (" + std::to_string(r.view->reduced) + ")").c_str() : "-",
              viewed ? std::to_string(r.view->gaussians).c_str() : "-", num(r.images_per_s, "%.0f").c_str(),
              r.images_per_s && r.headless && *r.headless > 0 ? num(100 * *r.images_per_s / *r.headless, "%.1f %%").c_str()
                                                              : "-",
              r.pace ? num(r.pace->cost_ms, "%.2f").c_str() : "-", r.pace ? num(r.pace->interval_ms, "%.0f").c_str() : "-", split.c_str(),
              r.rank0_share ? num(100 * *r.rank0_share, "%.1f %%").c_str() : "-");
  std::fflush(stdout);
}

int run(const Args& args) {
  for (int r : args.ranks)
    if (args.batch_size < r)
      throw std::invalid_argument("--batch-size " + std::to_string(args.batch_size) + " is smaller than --ranks " +
                                  std::to_string(r) + ": every rank renders at least one image of a batch");
  ui::HeadlessGl gl;
  const int gpus = kernels::cuda_device_count();

  if (gpus == 0) throw std::runtime_error("no CUDA device");
  std::printf("GL renderer: %s; %d CUDA device(s)\n", gl.renderer().c_str(), gpus);
  std::printf("viewport %dx%d, fps cap %d, resolution while moving (training) %.2fx; every run: %.0f s warm-up, "
              "%.0f s measured; batch %d; %s; viewer stream priority %s; idle wake %.0f Hz; one step queued while moving: %s; viewer pairs %s\n\n",
              args.width, args.height, args.fps_cap, args.moving_scale, args.warmup_s, args.seconds, args.batch_size,
              args.scene.empty() ? "demo scene" : args.scene.c_str(), priority_name(args.viewer_priority.value_or(ui::ViewRasterizer::kPriority)),
              args.idle_hz, args.interactive_limit ? "yes" : "no", args.packed ? "packed" : "dense");
  const Scene scene = training_scene(args);
  const GaussianModel init = init_from_points(scene.points);

  std::printf("| ranks | GPUs | scenario | training | viewer fps | frame p90 ms | renders (reduced) | Gaussians shown | "
              "train images/s | vs headless | snapshot ms | snapshot every ms | p90 ms: snapshot / render / texture / present | "
              "rank 0's Gaussians |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const int ranks : args.ranks) {
    const int used = std::min(gpus, ranks);
    const Trained headless = train_while(args, scene, init, ranks, false, [&](TrainingSession&) {
      std::this_thread::sleep_for(std::chrono::duration<double>(args.seconds));
    });
    if (!headless.last) throw std::runtime_error("the headless run published no snapshot when it stopped");
    print_row({.ranks = ranks, .gpus = used, .scenario = "headless", .training = true, .view = std::nullopt,
               .images_per_s = headless.images_per_s, .headless = headless.images_per_s, .pace = std::nullopt,
               .rank0_share = headless.rank0_share});
    for (const Scenario s : {Scenario::Orbit60, Scenario::Idle, Scenario::Flat}) {
      if (std::find(args.scenarios.begin(), args.scenarios.end(), scenario_key(s)) == args.scenarios.end()) continue;
      Viewport::Result seen;
      const Trained watched = train_while(args, scene, init, ranks, true, [&](TrainingSession& session) {
        // As the GUI does while the camera moves (TrainingSession::set_interactive).
        session.set_interactive(args.interactive_limit && s != Scenario::Idle);
        Viewport view(args);
        view.frame_scene(scene);
        seen = view.run(s, [&] { return session.snapshot(); }, true, args.seconds);
      });
      print_row({.ranks = ranks, .gpus = used, .scenario = name_of(s), .training = true, .view = seen,
                 .images_per_s = watched.images_per_s, .headless = headless.images_per_s, .pace = watched.pace,
                 .rank0_share = watched.rank0_share});
      Viewport alone(args);
      alone.frame_scene(scene);
      const Viewport::Result r = alone.run(s, [&] { return headless.last; }, false, args.seconds);
      print_row({.ranks = ranks, .gpus = used, .scenario = name_of(s), .training = false, .view = r,
                 .images_per_s = std::nullopt, .headless = std::nullopt, .pace = std::nullopt, .rank0_share = std::nullopt});
    }
  }
  for (const int64_t n : args.counts) {
    const std::shared_ptr<const ModelSnapshot> fixed = ModelSnapshot::upload(*bench_model(n), kernels::Device::CUDA);
    Viewport alone(args);
    alone.frame_unit_cube();
    const Viewport::Result r = alone.run(Scenario::Flat, [&] { return fixed; }, false, args.seconds);
    print_row({.ranks = 0, .gpus = 0, .scenario = "flat out, random " + std::to_string(n), .training = false,
               .view = r, .images_per_s = std::nullopt, .headless = std::nullopt, .pace = std::nullopt,
               .rank0_share = std::nullopt});
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  CLI::App app{"What watching a training run costs: viewer fps and training images/s, per scenario"};
  app.add_option("--ranks", args.ranks, "Rank counts to train with, each a set of rows (threads over the GPUs)")
      ->delimiter(',')->capture_default_str()->check(CLI::Range(1, 64));
  app.add_option("--batch-size", args.batch_size, "Training batch size (at least every --ranks)")
      ->capture_default_str()->check(CLI::Range(1, 64));
  app.add_option("--seconds", args.seconds, "Measured time of every run")->capture_default_str()->check(CLI::Range(0.5, 3600.0));
  app.add_option("--warmup-s", args.warmup_s, "Training before a run is measured")->capture_default_str()->check(CLI::Range(0.0, 3600.0));
  app.add_option("--fps-cap", args.fps_cap, "The GUI's fps cap (display refresh)")->capture_default_str()->check(CLI::Range(1, 1000));
  app.add_option("--moving-scale", args.moving_scale,
                 "Render scale while the camera moves during training (the View panel's Resolution while moving)")
      ->capture_default_str()->check(CLI::Range(0.05, 1.0));
  const std::map<std::string, kernels::StreamPriority> priorities{{"interactive", kernels::StreamPriority::Interactive},
                                                                   {"training", kernels::StreamPriority::Training},
                                                                   {"background", kernels::StreamPriority::Background}};
  app.add_option("--viewer-priority", args.viewer_priority,
                 "The viewer's stream priority, to compare with the GUI's: above training (interactive), equal "
                 "(training) or below (background)")
      ->transform(CLI::CheckedTransformer(priorities, CLI::ignore_case));
  app.add_option("--snapshot-min-ms", args.snapshot_min_ms,
                 "The sessions' shortest snapshot interval (the cadence spaces snapshots at least this far)")
      ->capture_default_str()->check(CLI::Range(10, 60000));
  app.add_option("--idle-hz", args.idle_hz, "The loop's wake rate in the idle scenario while training (the GUI's)")
      ->capture_default_str()->check(CLI::Range(1.0, 1000.0));
  app.add_option("--scenarios", args.scenarios, "Scenarios to run: orbit, idle, flat")
      ->delimiter(',')->capture_default_str()->check(CLI::IsMember({"orbit", "idle", "flat"}));
  app.add_option("--interactive-limit", args.interactive_limit,
                 "While the view moves, training queues one step at most (the GUI's; 0 to compare without)")
      ->capture_default_str();
  app.add_option("--viewer-packed", args.packed, "The viewer's renders project into packed pairs (1) or dense (0)")
      ->capture_default_str();
  app.add_option("--width", args.width, "Viewport width")->capture_default_str()->check(CLI::Range(16, 8192));
  app.add_option("--height", args.height, "Viewport height")->capture_default_str()->check(CLI::Range(16, 8192));
  app.add_option("--scene", args.scene, "COLMAP folder to train (default: the demo scene)")->check(CLI::ExistingDirectory);
  app.add_option("--demo-width", args.demo_width, "Demo scene image width")->capture_default_str();
  app.add_option("--demo-height", args.demo_height, "Demo scene image height")->capture_default_str();
  app.add_option("--counts", args.counts, "Fixed random models to render flat out, viewer alone")->delimiter(',');
  CLI11_PARSE(app, argc, argv);
  try {
    return run(args);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_viewer: %s\n", e.what());
    return 1;
  }
}
