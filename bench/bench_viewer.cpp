// Viewport frames per second through the GUI's own path: ViewRasterizer (CUDA rasterizer) ->
// ViewportTexture (CUDA-GL interop) -> Presenter (GL draw into the "window"), here a headless EGL
// context with an offscreen framebuffer standing in for the window. The camera orbits a little
// every frame so every frame renders anew, and every frame ends with glFinish and
// cudaDeviceSynchronize so the measured time is the whole frame, not its enqueueing.
// Then the same again while a TrainingSession trains a scene, with its steps/s and images/s: one rank
// on GPU 0, or --ranks R rank threads over the machine's GPUs (several on GPU 0 where it has one), as
// the GUI trains; the viewport renders on GPU 0, the primary.
//
//   bench_viewer [--width 1920 --height 1080] [--counts 1000000,3000000] [--frames 200]
//                [--scene COLMAP_FOLDER | --demo-width 640 --demo-height 480] [--no-train]
//                [--ranks R --batch-size B]
#include <cuda_runtime.h>

#include "ui/gl.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/scene/demo_scene.h"
#include "core/model/gaussian_model.h"
#include "core/scene/scene_loader.h"
#include "core/train/training_session.h"
#include "kernels/device.h"
#include "ui/headless_gl.h"
#include "ui/orbit_camera.h"
#include "ui/presenter.h"
#include "ui/view_rasterizer.h"
#include "ui/viewport_texture.h"

using namespace splat;
using Clock = std::chrono::steady_clock;

namespace {

struct Args {
  int width = 1920, height = 1080;
  std::vector<int64_t> counts{1000000, 3000000};
  int warmup = 20, frames = 200;
  std::string scene;  // empty: the demo scene
  int demo_width = 640, demo_height = 480;
  bool train = true;
  int ranks = 1, batch_size = 1;
  double train_warmup_s = 5, train_alone_s = 5;
};

void cuda_ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
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

// What one frame of the viewer does for the viewport, minus ImGui and the line overlays.
class ViewportLoop {
 public:
  ViewportLoop(const Args& args, std::shared_ptr<const GaussianModel> model)
      : args_(args), window_(args.width, args.height), raster_(kernels::Device::CUDA) {
    raster_.set_gaussians(std::move(model), 1);
    camera_.frame({0, 0, 0}, 1.0);
  }

  // Median, 10th and 90th percentile frame times (ms) over `frames` frames after `warmup`, and
  // the share of the last frame's pixels that show Gaussians (a blank view would time nothing).
  struct Times {
    double median_ms, p10_ms, p90_ms, wall_s, covered;
  };
  Times run() {
    for (int i = 0; i < args_.warmup; ++i) frame();
    std::vector<double> ms;
    const auto start = Clock::now();
    for (int i = 0; i < args_.frames; ++i) {
      const auto t0 = Clock::now();
      frame();
      ms.push_back(1e3 * seconds_since(t0));
    }
    const double wall = seconds_since(start);
    std::sort(ms.begin(), ms.end());
    auto at = [&](double q) { return ms[static_cast<size_t>(q * (ms.size() - 1))]; };
    return {at(0.5), at(0.1), at(0.9), wall, covered_fraction()};
  }

 private:
  void frame() {
    camera_.orbit(4, 0);  // 0.02 rad per frame: a slow turn, so no two frames are the same view
    raster_.render(camera_.camera(args_.width, args_.height), {});
    texture_.update(raster_, {});
    window_.bind();
    glClear(GL_COLOR_BUFFER_BIT);
    presenter_.draw(texture_.id(), window_.rect());
    glFinish();
    cuda_ok(cudaDeviceSynchronize(), "viewport frame");
  }

  // Pixels of the window that are not the black background.
  double covered_fraction() const {
    std::vector<uint8_t> px(static_cast<size_t>(args_.width) * args_.height * 4);
    window_.bind_for_reading();
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, args_.width, args_.height, GL_RGBA, GL_UNSIGNED_BYTE, px.data());
    size_t covered = 0;
    for (size_t i = 0; i < px.size(); i += 4) covered += px[i] || px[i + 1] || px[i + 2];
    return static_cast<double>(covered) / (px.size() / 4);
  }

  const Args& args_;
  OffscreenWindow window_;
  ui::ViewRasterizer raster_;
  ui::ViewportTexture texture_;
  ui::Presenter presenter_;
  ui::OrbitCamera camera_;
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

std::unique_ptr<TrainingSession> start_training(const Args& args) {
  Scene scene = training_scene(args);
  GaussianModel init = init_from_points(scene.points);
  TrainerOptions opt;
  opt.device = kernels::Device::CUDA;
  opt.images = 1000000;  // never finishes during the benchmark
  opt.batch_size = args.batch_size;
  SessionOptions session_options;
  session_options.ranks.device = kernels::Device::CUDA;
  for (int g = 0, n = kernels::cuda_device_count(); g < std::min(n, args.ranks); ++g)
    session_options.ranks.cuda_devices.push_back(g);
  session_options.ranks.ranks = args.ranks;
  auto session = std::make_unique<TrainingSession>(std::move(scene), std::move(init), opt, session_options);
  session->start();
  return session;
}

// Training steps per second over `seconds`, measured on the session's own step counter.
double steps_per_s(const TrainingSession& s, double seconds) {
  const int before = s.steps_done();
  const auto t0 = Clock::now();
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  return (s.steps_done() - before) / seconds_since(t0);
}

void check_training(const TrainingSession& s) {
  if (s.state() == SessionState::Failed) throw std::runtime_error("training failed: " + s.error());
}

struct Row {
  int64_t gaussians;
  bool training;
  ViewportLoop::Times t;
  std::optional<double> steps_per_s;
};

void print_row(const Args& a, const Row& r) {
  std::printf("| %lld | %dx%d | %.0f %% | %s | %.2f | %.1f | %.2f - %.2f | %s |\n", static_cast<long long>(r.gaussians),
              a.width, a.height, 100 * r.t.covered, r.training ? "yes" : "no", r.t.median_ms, 1e3 / r.t.median_ms,
              r.t.p10_ms, r.t.p90_ms,
              r.steps_per_s ? std::to_string(static_cast<int>(*r.steps_per_s + 0.5)).c_str() : "-");
  std::fflush(stdout);
}

int run(const Args& args) {
  ui::HeadlessGl gl;
  cudaDeviceProp prop{};
  cuda_ok(cudaGetDeviceProperties(&prop, 0), "reading the device properties");
  std::printf("device: %s\nGL renderer: %s\n", prop.name, gl.renderer().c_str());
  std::printf("frames: %d after %d warm-up, glFinish + cudaDeviceSynchronize per frame\n\n", args.frames, args.warmup);

  std::vector<std::shared_ptr<const GaussianModel>> models;
  for (int64_t n : args.counts) models.push_back(bench_model(n));

  std::printf("| Gaussians | viewport | pixels covered | training | median ms | fps | p10 - p90 ms | train steps/s |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  for (const auto& m : models) {
    ViewportLoop loop(args, m);
    print_row(args, {m->size(), false, loop.run(), std::nullopt});
  }
  if (!args.train) return 0;

  auto session = start_training(args);
  std::this_thread::sleep_for(std::chrono::duration<double>(args.train_warmup_s));
  check_training(*session);
  const double alone = steps_per_s(*session, args.train_alone_s);
  for (const auto& m : models) {
    ViewportLoop loop(args, m);
    const int before = session->steps_done();
    const ViewportLoop::Times t = loop.run();
    check_training(*session);
    print_row(args, {m->size(), true, t, (session->steps_done() - before) / t.wall_s});
  }
  check_training(*session);
  const std::vector<SessionMetrics> last = session->metrics_since(session->steps_done() - 100);
  std::printf("\ntraining alone (before the viewport rows): %.0f steps/s = %.0f images/s at batch %d, %d rank(s); %s, "
              "%d steps done, %lld Gaussians at the end\n",
              alone, alone * args.batch_size, args.batch_size, args.ranks,
              args.scene.empty() ? "demo scene" : args.scene.c_str(), session->steps_done(),
              last.empty() ? -1LL : static_cast<long long>(last.back().gaussians));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  CLI::App app{"Viewport frames per second through the viewer's CUDA-GL path, with and without training"};
  app.add_option("--width", args.width, "Viewport width")->capture_default_str()->check(CLI::Range(16, 8192));
  app.add_option("--height", args.height, "Viewport height")->capture_default_str()->check(CLI::Range(16, 8192));
  app.add_option("--counts", args.counts, "Gaussian counts to show")->delimiter(',')->capture_default_str();
  app.add_option("--warmup", args.warmup, "Frames before timing")->capture_default_str()->check(CLI::NonNegativeNumber);
  app.add_option("--frames", args.frames, "Timed frames")->capture_default_str()->check(CLI::Range(1, 1000000));
  app.add_option("--scene", args.scene, "COLMAP folder to train (default: the demo scene)")->check(CLI::ExistingDirectory);
  app.add_option("--demo-width", args.demo_width, "Demo scene image width")->capture_default_str();
  app.add_option("--demo-height", args.demo_height, "Demo scene image height")->capture_default_str();
  app.add_flag("!--no-train", args.train, "Skip the measurement while training");
  app.add_option("--ranks", args.ranks, "Rank threads training (over the GPUs; several on GPU 0 where there is one)")
      ->capture_default_str()->check(CLI::Range(1, 64));
  app.add_option("--batch-size", args.batch_size, "Training batch size (at least --ranks)")
      ->capture_default_str()->check(CLI::Range(1, 64));
  CLI11_PARSE(app, argc, argv);
  try {
    return run(args);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_viewer: %s\n", e.what());
    return 1;
  }
}
