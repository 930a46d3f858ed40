// `splatlab train <scene>`: headless training on one device with a live progress line, JSONL
// metrics, periodic test evaluation, a checkpoint on Ctrl-C, and point_cloud.ply at the end.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <unistd.h>

#include "app/commands.h"
#include "app/path_args.h"
#include "app/run_folder.h"
#include "app/scene_args.h"
#include "core/train/checkpoint.h"
#include "core/model/gaussian_model.h"
#include "core/model/ply_io.h"
#include "core/util/progress.h"
#include "core/train/training_run.h"

namespace splat::app {
namespace {

namespace fs = std::filesystem;

struct TrainArgs {
  std::string scene;
  int steps = 30000;
  std::string strategy = "default";
  int batch_size = 1;
  bool packed = false;
  bool amp = false;
  int gpus = 1;
  SceneArgs scene_args;
  std::string out;
  int eval_every = 0;
  int log_every = 100;
  int checkpoint_every = 0;
  uint64_t seed = 0;
  std::string resume;
  std::string device;
  int sh_degree = 3;
  std::vector<float> background{0, 0, 0};
  int64_t cap_max = 1000000;
  bool absgrad = false;
  int threads = 0;
  int stop_at = 0;
  bool profile = false;
  const CLI::Option* steps_option = nullptr;  // to tell an explicit --steps from the default
};

// Set by the signal handlers, read at step boundaries: the handler itself only flips a flag.
std::atomic<bool> g_interrupted{false};
std::atomic<bool> g_export_requested{false};
extern "C" void on_sigint(int) { g_interrupted = true; }
extern "C" void on_sigusr1(int) { g_export_requested = true; }

void add_train_options(CLI::App* sub, TrainArgs& a) {
  sub->add_option("scene", a.scene, "COLMAP scene folder (images/, sparse/0/), or 'demo' for the generated demo scene")
      ->required();
  a.steps_option = sub->add_option("--steps", a.steps,
                                   "Optimisation steps in the whole run (each renders --batch-size training views); "
                                   "with --resume, defaults to the checkpoint's")
                       ->capture_default_str()
                       ->check(CLI::PositiveNumber);
  sub->add_option("--strategy", a.strategy,
                  "Densification: 'default' (3DGS clone/split/prune/reset) or 'mcmc' (relocation up to --cap-max)")
      ->capture_default_str()->check(CLI::IsMember({"default", "mcmc"}));
  sub->add_option("--batch-size", a.batch_size,
                  "Training views per step; learning rates follow the sqrt(B) rule")
      ->capture_default_str()->check(CLI::PositiveNumber);
  sub->add_flag("--packed", a.packed, "Packed rasterization: keep only visible (camera, Gaussian) pairs (saves memory)");
  sub->add_flag("--amp", a.amp, "Mixed precision (not implemented yet: rejected)");
  sub->add_option("--gpus", a.gpus, "Number of GPUs (only 1 is implemented yet; more is rejected)")
      ->capture_default_str()->check(CLI::PositiveNumber);
  add_scene_options(sub, a.scene_args);
  sub->add_option("--out", a.out, "Run folder for config, metrics, checkpoints and the PLY (default runs/<scene name>)");
  sub->add_option("--eval-every", a.eval_every,
                  "Evaluate PSNR/SSIM on the test views every N steps (0: only at the end)")
      ->capture_default_str()->check(CLI::NonNegativeNumber);
  sub->add_option("--log-every", a.log_every, "Write a metrics.jsonl line every N steps")
      ->capture_default_str()->check(CLI::PositiveNumber);
  sub->add_option("--checkpoint-every", a.checkpoint_every, "Also write checkpoint.ckpt every N steps (0: never)")
      ->capture_default_str()->check(CLI::NonNegativeNumber);
  sub->add_option("--seed", a.seed, "Seed of the camera order and of the strategy's random choices")
      ->capture_default_str();
  sub->add_option("--resume", a.resume,
                  "Continue from a checkpoint file or a run folder (its checkpoint.ckpt); same camera order as an "
                  "uninterrupted run");
  sub->add_option("--device", a.device, "cpu or cuda (default: cuda when a CUDA device exists, else cpu)")
      ->check(CLI::IsMember({"cpu", "cuda"}));
  sub->add_option("--sh-degree", a.sh_degree, "Highest spherical-harmonics degree (grows by 1 every 1000 steps)")
      ->capture_default_str()->check(CLI::Range(0, 3));
  sub->add_option("--background", a.background, "Background colour r g b in [0,1]")->expected(3)->capture_default_str();
  sub->add_option("--cap-max", a.cap_max, "mcmc: most Gaussians")->capture_default_str()->check(CLI::PositiveNumber);
  sub->add_flag("--absgrad", a.absgrad, "default: grow on the absolute 2D gradient (AbsGS) instead of the plain one");
  sub->add_option("--threads", a.threads, "CPU backend threads (0: all cores)")->capture_default_str();
  sub->add_option("--stop-at", a.stop_at,
                  "Stop after this step of the --steps schedule (evaluates and saves a checkpoint there; "
                  "--resume continues the same schedule); 0: run all steps")
      ->capture_default_str()->check(CLI::NonNegativeNumber);
  sub->add_flag("--profile", a.profile,
                "Time the phases of each step with device events and print a table at the end (waits for every "
                "step: a little slower)");
}

// The --profile table: where the step time went, per phase of Trainer::step and per rasterizer stage.
void print_profile(const Trainer& t, double eval_s, double wall_s) {
  const kernels::PhaseTotals* phases = t.step_phases();
  if (!phases || t.profiled_steps() == 0) return;
  const int steps = t.profiled_steps();
  auto table = [&](const char* title, const kernels::PhaseTotals& totals) {
    std::fprintf(stderr, "%-36s %10s %9s %9s %9s %7s\n", title, "total s", "ms/step", "ms/call", "max ms", "share");
    const double all = phases->total_ms();
    for (const auto& p : totals.phases())
      std::fprintf(stderr, "  %-34s %10.2f %9.3f %9.3f %9.2f %6.1f%%\n", p.name.c_str(), p.total_ms / 1000,
                   p.total_ms / steps, p.total_ms / double(p.count), p.max_ms, 100 * p.total_ms / all);
  };
  std::fprintf(stderr, "\nprofile over %d steps (device timeline; shares of the summed step phases)\n", steps);
  table("step phase", *phases);
  std::fprintf(stderr, "  %-34s %10.2f %9.3f\n", "sum of step phases", phases->total_ms() / 1000,
               phases->total_ms() / steps);
  if (!t.raster_stages().phases().empty()) table("rasterizer stage (inside render)", t.raster_stages());
  std::fprintf(stderr, "evaluation %.2f s, loop wall time %.2f s (the rest: host work between steps)\n", eval_s,
               wall_s);
}

TrainerOptions trainer_options(const TrainArgs& a, kernels::Device dev) {
  TrainerOptions o{.device = dev,
                   .steps = a.steps,
                   .batch_size = a.batch_size,
                   .packed = a.packed,
                   .sh_degree_cap = a.sh_degree,
                   .strategy = a.strategy,
                   .seed = a.seed,
                   .cpu_threads = a.threads};
  for (int c = 0; c < 3; ++c) o.background[c] = a.background[c];
  o.mcmc.cap = a.cap_max;
  o.default_strategy.absgrad = a.absgrad;
  return o;
}

fs::path checkpoint_path(const std::string& resume) {
  const fs::path p = resume;
  return fs::is_directory(p) ? p / run_files::kCheckpoint : p;
}

int run_train(const TrainArgs& a) {
  if (a.amp) throw std::invalid_argument("--amp: not implemented yet: comes with mixed precision");
  if (a.gpus > 1) throw std::invalid_argument("--gpus " + std::to_string(a.gpus) + ": not implemented yet: comes with multi-GPU");
  const kernels::Device dev = parse_device(a.device);
  if (a.scene != "demo") check_path_argument("scene", a.scene);
  if (!a.resume.empty()) check_path_argument("--resume", a.resume);
  if (!a.out.empty()) check_path_argument("--out", a.out);
  const fs::path scene_folder = resolve_scene_folder(a.scene);
  const fs::path run = a.out.empty() ? fs::path("runs") / fs::absolute(scene_folder).lexically_normal().filename() : fs::path(a.out);
  fs::create_directories(run);

  const TrainerOptions options = trainer_options(a, dev);
  nlohmann::json config{{"scene", a.scene},
                        {"scene_folder", fs::absolute(scene_folder).string()},
                        {"device", dev == kernels::Device::CUDA ? "cuda" : "cpu"},
                        {"steps", a.steps},
                        {"strategy", a.strategy},
                        {"batch_size", a.batch_size},
                        {"packed", a.packed},
                        {"antialiased", options.antialiased},
                        {"seed", a.seed},
                        {"sh_degree", a.sh_degree},
                        {"background", a.background}};
  write_scene_args(config, a.scene_args);
  const Scene scene = load_run_scene(config, true);
  std::fprintf(stderr, "scene %s: %zu views (%zu train, %zu test), %zu points, extent %.3f; device %s\n",
               scene.root.c_str(), scene.views.size(), scene.train_indices().size(), scene.test_indices().size(),
               scene.points.size(), scene.extent, dev == kernels::Device::CUDA ? "cuda" : "cpu");

  // A batch draws distinct training views (a larger one would repeat views within a step).
  if (const size_t views = scene.train_indices().size(); static_cast<size_t>(a.batch_size) > views)
    throw std::invalid_argument("--batch-size " + std::to_string(a.batch_size) + ": the scene has " + std::to_string(views) +
                                " training views, the most a batch can hold");

  RunOptions ro;
  ro.metrics_every = a.log_every;
  ro.eval_every = a.eval_every;
  ro.eval_at_end = true;
  ro.stop_at = a.stop_at;
  ro.metrics_file = run / run_files::kMetrics;
  ro.append_metrics = !a.resume.empty();
  ro.checkpoint_every = a.checkpoint_every;
  ro.checkpoint_file = run / run_files::kCheckpoint;
  PointInitOptions init;
  init.sh_degree = a.sh_degree;  // no storage (or optimizer state) for coefficients never used
  TrainingRun training(scene, init_from_points(scene.points, init), options, ro);
  Trainer& trainer = training.trainer();
  if (!a.resume.empty()) {
    restore_trainer_checkpoint(trainer, checkpoint_path(a.resume));
    if (a.steps_option->count() > 0) trainer.set_total_steps(a.steps);
    std::fprintf(stderr, "resumed at step %d with %lld Gaussians\n", trainer.steps_done(),
                 static_cast<long long>(trainer.gaussians().size()));
  }
  if (a.profile) trainer.set_profiling(true);
  auto export_ply = [&]() { write_ply(run / run_files::kPly, trainer.gaussians().to_model()); };

  config["steps"] = trainer.options().steps;  // a resumed run keeps its checkpoint's schedule
  write_run_config(run, config);
  std::signal(SIGINT, on_sigint);
  std::signal(SIGUSR1, on_sigusr1);
  const bool tty = isatty(fileno(stderr));
  const int start_step = trainer.steps_done();
  // The schedule spans options().steps; this run may end earlier (--stop-at).
  const int total = training.end_step();
  const bool stops_early = total < trainer.options().steps;
  if (start_step >= total) {  // only a resumed run can start at or past its end
    const std::string at = "the run is already at step " + std::to_string(start_step);
    if (a.stop_at > 0 && a.stop_at < trainer.options().steps)
      throw std::invalid_argument("--stop-at " + std::to_string(a.stop_at) + ": " + at);
    if (a.steps_option->count() > 0) throw std::invalid_argument("--steps " + std::to_string(a.steps) + ": " + at);
    throw std::invalid_argument(checkpoint_path(a.resume).string() + ": the checkpoint is at step " +
                                std::to_string(start_step) + ", the end of its " + std::to_string(total) +
                                "-step schedule: nothing left to train (pass a larger --steps to continue)");
  }
  // The progress line: redrawn at most 4 times a second on a terminal, else once per tenth of the run.
  float loss = 0;
  auto last_draw = std::chrono::steady_clock::now();
  int last_decile = 0;
  while (!training.done() && !g_interrupted) {
    const RunStep step = training.step();
    const int done = trainer.steps_done();
    const bool draw_now =
        tty ? std::chrono::duration<double>(std::chrono::steady_clock::now() - last_draw).count() > 0.25
            : (done - start_step) * 10 / std::max(1, total - start_step) > last_decile;
    if (step.metrics) loss = float(step.metrics->loss);
    else if (draw_now) loss = trainer.read_loss();  // waits for the GPU: only when shown
    if (draw_now || training.done()) {
      const double el = training.seconds();
      std::string line = format_progress("train", done - start_step, total - start_step, el);
      char psnr[32] = "PSNR -";
      if (training.last_psnr()) std::snprintf(psnr, sizeof psnr, "PSNR %.2f", *training.last_psnr());
      char extra[200];
      std::snprintf(extra, sizeof extra, "  step %d  %.1f img/s  loss %.4f  %s  %lld G", done,
                    el > 0 ? (done - start_step) * double(trainer.options().batch_size) / el : 0.0, loss, psnr,
                    static_cast<long long>(step.result.gaussians));
      line += extra;
      std::fprintf(stderr, tty ? "\r%s\033[K" : "%s\n", line.c_str());
      last_draw = std::chrono::steady_clock::now();
      last_decile = (done - start_step) * 10 / std::max(1, total - start_step);
    }
    if (g_export_requested.exchange(false)) {
      export_ply();
      std::fprintf(stderr, "%sexported %s at step %d\n", tty ? "\n" : "", (run / run_files::kPly).c_str(), done);
    }
  }
  if (tty) std::fprintf(stderr, "\n");
  const double loop_s = training.seconds();
  std::signal(SIGINT, SIG_DFL);
  save_trainer_checkpoint(trainer, run / run_files::kCheckpoint);
  export_ply();
  if (g_interrupted) {
    std::fprintf(stderr, "interrupted at step %d: saved %s and %s (continue with --resume %s)\n",
                 trainer.steps_done(), (run / run_files::kCheckpoint).c_str(), (run / run_files::kPly).c_str(),
                 run.c_str());
    return 0;
  }
  char psnr[48] = "";
  if (training.last_psnr()) std::snprintf(psnr, sizeof psnr, ", test PSNR %.3f dB", *training.last_psnr());
  std::fprintf(stderr, "done: %d steps%s in %.1f s, %lld Gaussians%s; wrote %s\n", trainer.steps_done(),
               stops_early ? (" of a " + std::to_string(trainer.options().steps) + "-step schedule").c_str() : "",
               loop_s, static_cast<long long>(trainer.gaussians().size()), psnr, (run / run_files::kPly).c_str());
  print_profile(trainer, training.eval_seconds(), loop_s);
  return 0;
}

}  // namespace

CommandRun add_train_command(CLI::App& app) {
  auto* sub = app.add_subcommand("train", "Train a scene headless on one device (CPU backend or one GPU)");
  auto args = std::make_shared<TrainArgs>();
  add_train_options(sub, *args);
  sub->footer(
      "Run folder: config.json, metrics.jsonl (JSON lines), checkpoint.ckpt, point_cloud.ply.\n"
      "Ctrl-C saves a checkpoint and the PLY, then exits; `kill -USR1 <pid>` exports the PLY without stopping.");
  return [args]() { return run_train(*args); };
}

}  // namespace splat::app
