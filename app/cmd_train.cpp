// `splatlab train <scene>`: headless training on one device (or --ranks R ranks on it, or one rank per process
// under mpirun, srun or a torchrun-style launcher: app/job_launch.h) with a live progress line, JSONL metrics,
// periodic test evaluation, a checkpoint on Ctrl-C, SIGTERM or SIGHUP, and point_cloud.ply at the end.
// `train --resume RUN` continues RUN in its folder with its recorded settings.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <unistd.h>

#include "app/commands.h"
#include "app/path_args.h"
#include "app/cli_checks.h"
#include "app/device_arg.h"
#include "app/job_launch.h"
#include "app/stop_signals.h"
#include "app/train_folder.h"
#include "app/usage_error.h"
#include "app/scene_args.h"
#include "app/up_arg.h"
#include "core/run/run_config.h"
#include "core/transport/rank_plan.h"
#include "core/train/checkpoint.h"
#include "core/model/gaussian_model.h"
#include "core/model/ply_io.h"
#include "core/util/progress.h"
#include "core/util/user_text.h"
#include "kernels/buffer.h"
#include "kernels/device.h"
#include "core/train/rank_driver.h"
#include "core/train/training_run.h"

namespace splat::app {
namespace {

namespace fs = std::filesystem;

struct TrainArgs {
  std::string scene;
  int images = 30000;
  int steps = 0;
  std::string strategy = "default";
  int batch_size = 1;
  bool packed = false;
  bool antialiased = TrainerOptions{}.antialiased;
  bool amp = false;
  int gpus = 1;
  int ranks = 1;
  CLI::Option* ranks_option = nullptr;
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
  float grow_grad2d = DefaultStrategyOptions{}.grad_threshold;
  float ssim_weight = TrainerOptions{}.ssim_weight;
  bool absgrad = false;
  float absgrad_threshold = DefaultStrategyOptions{}.absgrad_threshold;
  float prune_scale2d = DefaultStrategyOptions{}.prune_scale2d;
  bool revised_opacity = DefaultStrategyOptions{}.revised_opacity;
  float opacity_reg = DefaultStrategyOptions{}.opacity_reg;
  float scale_reg = DefaultStrategyOptions{}.scale_reg;
  int64_t max_gaussians = 0;
  std::string photos = kPhotoPlacementNames[int(PhotoPlacement::Auto)];
  bool exposure = false;
  std::string adam = kAdamModeNames[int(TrainerOptions{}.adam)];
  std::string up = up_axis_name(UpAxis::Auto);
  int threads = 0;
  int stop_at = 0;
  bool profile = false;
  bool overwrite = false;
  CLI::App* command = nullptr;  // --resume restores the options the command line leaves out
  // To tell an explicit budget from the default (a resumed run keeps its checkpoint's).
  CLI::Option* images_option = nullptr;
  const CLI::Option* steps_option = nullptr;
};

// The options a run records in config.json (under their names: --data-factor as data_factor) and
// a bare --resume restores; the budget is the checkpoint's own.
const std::vector<std::string> kRecordedOptions = {
    "--strategy",   "--batch-size", "--packed", "--antialiased",    "--data-factor", "--undistort", "--mask-mode",
    "--fisheye-fov", "--eval-every", "--log-every", "--checkpoint-every", "--seed",
    "--sh-degree",  "--background", "--cap-max",   "--ssim-weight", "--grow-grad2d", "--absgrad",     "--absgrad-threshold", "--prune-scale2d", "--revised-opacity", "--opacity-reg", "--scale-reg", "--amp",
    "--max-gaussians", "--photos", "--exposure", "--adam", "--up"};

void add_train_options(CLI::App* sub, TrainArgs& a) {
  sub->add_option("scene", a.scene,
                  "COLMAP scene folder (images/, sparse/0/), or 'demo' for the generated demo scene; with --resume "
                  "RUN, defaults to the run's");
  a.images_option = sub->add_option("--images", a.images,
                                    "Training images in the whole run (the budget: a step trains --batch-size of "
                                    "them). Every schedule counts images, so the same budget gives the same run at "
                                    "any batch size; with --resume, defaults to the checkpoint's")
                        ->capture_default_str()
                        ->check(at_least(1));
  a.steps_option = sub->add_option("--steps", a.steps,
                                   "Instead of --images: this many steps, a budget of steps x --batch-size images "
                                   "(at batch size 1 the same as --images)")
                       ->check(at_least(1))
                       ->excludes(a.images_option);
  sub->add_option("--strategy", a.strategy,
                  "Densification: 'default' (3DGS clone/split/prune/reset) or 'mcmc' (relocation up to --cap-max)")
      ->capture_default_str()->check(CLI::IsMember({"default", "mcmc"}));
  sub->add_option("--batch-size", a.batch_size,
                  "Training views per step; learning rates follow the sqrt(B) rule, schedules count images")
      ->capture_default_str()->check(at_least(1));
  sub->add_flag("--packed", a.packed, "Packed rasterization: keep only visible (camera, Gaussian) pairs (saves memory)");
  sub->add_flag("--antialiased,!--no-antialiased", a.antialiased,
                "Anti-aliased projection (on by default): a Gaussian's screen footprint is widened to at least a "
                "pixel with its opacity scaled to keep its energy; eval, render and the viewer draw the run the same "
                "way. --no-antialiased trains for viewers that draw without it (the original 3DGS renderer)")
      ->capture_default_str();
  sub->add_flag("--amp", a.amp,
                "Mixed precision: SH rest coefficients and Adam moments stored in bf16 (less memory per Gaussian; "
                "with --ranks/--gpus every rank stores its shard so)");
  sub->add_option("--gpus", a.gpus, "Number of GPUs to train on, one rank each unless --ranks asks for more")
      ->capture_default_str()->check(at_least(1));
  a.ranks_option = sub->add_option("--ranks", a.ranks,
                                   "Train with R ranks (threads) on the chosen device, each owning a shard of the "
                                   "Gaussians and rendering a share of each batch (several ranks on one GPU, or CPU "
                                   "ranks with --device cpu); --batch-size must be at least R. Default: --gpus")
                       ->check(at_least(1));
  add_scene_options(sub, a.scene_args);
  sub->add_option("--out", a.out,
                  "Run folder for config, metrics, checkpoints and the PLY (default runs/<scene name>, or the "
                  "--resume run's own folder)");
  sub->add_flag("--overwrite", a.overwrite, "Replace the run in an --out folder that already holds one");
  sub->add_option("--eval-every", a.eval_every,
                  "Evaluate PSNR/SSIM on the test views every N images (0: only at the end)")
      ->capture_default_str()->check(at_least(0));
  sub->add_option("--log-every", a.log_every, "Write a metrics.jsonl line every N images")
      ->capture_default_str()->check(at_least(1));
  sub->add_option("--checkpoint-every", a.checkpoint_every, "Also write checkpoint.ckpt every N images (0: never)")
      ->capture_default_str()->check(at_least(0));
  sub->add_option("--seed", a.seed, "Seed of the camera order and of the strategy's random choices")
      ->capture_default_str();
  sub->add_option("--resume", a.resume,
                  "Continue a run folder (its checkpoint.ckpt) in place, with the settings its config.json records; "
                  "options given as well override them, with a note. Also takes a checkpoint file. Same camera "
                  "order as an uninterrupted run");
  sub->add_option("--device", a.device, "cpu or cuda (default: cuda when a CUDA device exists, else cpu)")
      ->check(CLI::IsMember({"cpu", "cuda"}));
  sub->add_option("--sh-degree", a.sh_degree, "Highest spherical-harmonics degree (grows by 1 every 1000 images)")
      ->capture_default_str()->check(CLI::Range(0, 3));
  sub->add_option("--background", a.background, "Background colour r g b in [0,1]")->expected(3)->capture_default_str();
  sub->add_option("--cap-max", a.cap_max, "mcmc: most Gaussians")->capture_default_str()->check(at_least(1));
  sub->add_option("--grow-grad2d", a.grow_grad2d,
                  "default: the mean 2D position gradient above which a Gaussian is cloned or split (lower: more "
                  "Gaussians)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--ssim-weight", a.ssim_weight,
                  "Weight of (1 - SSIM) in the photometric loss, the rest on the L1 difference")
      ->capture_default_str()
      ->check(CLI::Range(0.0f, 1.0f));
  sub->add_flag("--absgrad", a.absgrad, "default: grow on the absolute 2D gradient (AbsGS) instead of the plain one");
  sub->add_option("--absgrad-threshold", a.absgrad_threshold,
                  "default with --absgrad: the summed absolute 2D gradient above which a Gaussian grows (lower: more "
                  "Gaussians)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--prune-scale2d", a.prune_scale2d,
                  "default: after the first opacity reset, prune a Gaussian whose screen radius passed this fraction "
                  "of the image (0: never, as the reference trainer's default)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  sub->add_flag("--revised-opacity,!--no-revised-opacity", a.revised_opacity,
                "default (on by default): a clone and its parent, or a split's two halves, each get the opacity that "
                "lets through together what the one Gaussian did (1 - (1 - a')^2 = a); --no-revised-opacity gives "
                "each the parent's opacity, as 3DGS does (pair it with --grow-grad2d 0.0002)");
  sub->add_option("--opacity-reg", a.opacity_reg,
                  "default: weight of the mean opacity in the loss (MCMC's regulariser; 0: none), which fades "
                  "Gaussians the photos do not hold up")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--scale-reg", a.scale_reg,
                  "default: weight of the mean world scale in the loss (MCMC's regulariser; 0: none)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--max-gaussians", a.max_gaussians,
                  "default: most Gaussians growth reaches, for a compact model (0: no limit); where there is less "
                  "room, the Gaussians with the largest gradient grow (mcmc: --cap-max)")
      ->capture_default_str()
      ->check(at_least(0));
  sub->add_option("--photos", a.photos,
                  "With ranks: 'every' rank holds every training photo, or each holds its 'own' share (draws its "
                  "images from it; for captures whose photos fill much of a GPU); 'auto': own where every photo "
                  "would take more than a quarter of a GPU's memory")
      ->capture_default_str()
      ->check(CLI::IsMember(std::vector<std::string>(std::begin(kPhotoPlacementNames), std::end(kPhotoPlacementNames))));
  sub->add_flag("--exposure", a.exposure,
                "Learn an affine colour map per training photo (exposure, white balance) beside the scene, for "
                "captures whose photos change exposure; test views and exports are never mapped");
  sub->add_option("--adam", a.adam,
                  "'sparse': a Gaussian no camera of a step saw keeps its parameters and Adam moments that step (its "
                  "optimizer state is not read or written); 'dense': every Gaussian steps on its moments; 'auto': "
                  "sparse while a step trains one image (--batch-size 1), where it pays")
      ->capture_default_str()
      ->check(CLI::IsMember(std::vector<std::string>(std::begin(kAdamModeNames), std::end(kAdamModeNames))));
  add_up_option(sub, a.up, "estimated from the cameras; recorded for the GUI and render --path orbit");
  sub->add_option("--threads", a.threads, "CPU backend threads (0: all cores)")->capture_default_str();
  sub->add_option("--stop-at", a.stop_at,
                  "Stop with the step that reaches this many images of the budget's schedule (evaluates and "
                  "saves a checkpoint there; --resume continues the same schedule); 0: run the whole budget")
      ->capture_default_str()->check(at_least(0));
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
  std::fprintf(stderr, "rasterizations that outgrew their planned room: tile entries %llu, covering pairs %llu\n",
               t.intersection_overflows(), t.covering_overflows());
  std::fprintf(stderr, "evaluation %.2f s, loop wall time %.2f s (the rest: host work between steps)\n", eval_s,
               wall_s);
}

// The image budget the flags ask for: --images, or --steps at a batch size.
int image_budget(const TrainArgs& a, int batch_size) {
  if (a.steps_option->count() == 0) return a.images;
  if (a.steps > std::numeric_limits<int>::max() / batch_size)
    throw UsageError("--steps " + std::to_string(a.steps) + " at batch size " + std::to_string(batch_size) +
                                ": more images than a run can count");
  return a.steps * batch_size;
}

TrainerOptions trainer_options(const TrainArgs& a, kernels::Device dev) {
  TrainerOptions o{.device = dev,
                   .images = image_budget(a, a.batch_size),
                   .batch_size = a.batch_size,
                   .packed = a.packed,
                   .antialiased = a.antialiased,
                   .sh_degree_cap = a.sh_degree,
                   .strategy = a.strategy,
                   .seed = a.seed,
                   .cpu_threads = a.threads,
                   .amp = a.amp,
                   .exposure = a.exposure};
  for (int c = 0; c < 3; ++c) o.background[c] = a.background[c];
  o.mcmc.cap = a.cap_max;
  o.ssim_weight = a.ssim_weight;
  o.default_strategy.grad_threshold = a.grow_grad2d;
  o.default_strategy.absgrad = a.absgrad;
  o.default_strategy.absgrad_threshold = a.absgrad_threshold;
  o.default_strategy.prune_scale2d = a.prune_scale2d;
  o.default_strategy.revised_opacity = a.revised_opacity;
  o.default_strategy.opacity_reg = a.opacity_reg;
  o.default_strategy.scale_reg = a.scale_reg;
  o.default_strategy.max_gaussians = a.max_gaussians;
  o.photos = PhotoPlacement(std::find(std::begin(kPhotoPlacementNames), std::end(kPhotoPlacementNames), a.photos) -
                            std::begin(kPhotoPlacementNames));
  o.adam = AdamMode(std::find(std::begin(kAdamModeNames), std::end(kAdamModeNames), a.adam) - std::begin(kAdamModeNames));
  return o;
}

// One progress line; fields are dropped, least useful first, to fit `columns` (0: no limit).
// `imbalance`: the ranks' Gaussian counts, max / mean (only with ranks).
std::string progress_line(const TrainingRun& training, int start, int total, std::optional<float> loss,
                          int64_t gaussians, std::optional<double> imbalance, int columns) {
  const Trainer& trainer = training.trainer();
  const int done = trainer.images_done();
  const double el = training.seconds();
  // Counted from the run's start, like the image number below; the rate from this command's start.
  std::vector<ProgressPiece> pieces = progress_pieces("train", done, total, el, start);
  char text[64];
  if (loss) std::snprintf(text, sizeof text, "loss %.4f", *loss);
  else std::snprintf(text, sizeof text, "loss -");  // with ranks, none until the first metrics record
  pieces.push_back({text, 1});
  if (training.last_psnr()) std::snprintf(text, sizeof text, "PSNR %.2f", *training.last_psnr());
  else std::snprintf(text, sizeof text, "PSNR -");
  pieces.push_back({text, 1});
  std::snprintf(text, sizeof text, "%lld G", static_cast<long long>(gaussians));
  pieces.push_back({text, 2});
  if (imbalance) {
    std::snprintf(text, sizeof text, "imbalance %.2f", *imbalance);
    pieces.push_back({text, 3});
  }
  std::snprintf(text, sizeof text, "image %d  step %d", done, trainer.steps_done());
  pieces.push_back({text, 5});
  return fit_progress(pieces, columns);
}

// What every rank of a run shares: set up once on the calling thread, before any rank starts.
struct RunSetup {
  const TrainArgs& args;
  const TrainFolderPlan& plan;
  const Scene& scene;
  const RunFolder& run;
  StopSignals& signals;
  const nlohmann::json& config;
};

// The model every rank starts from: the scene's points, with no storage (or optimizer state) for
// coefficients never used.
GaussianModel initial_model(const TrainArgs& a, const Scene& scene) {
  PointInitOptions init;
  init.sh_degree = a.sh_degree;
  return init_from_points(scene.points, init);
}

// `splatlab train`'s part of the rank driver's loop (core/train/rank_driver.h): rank 0's signals decide for
// every rank; rank 0 prints, writes the config, the metrics and (gathered) the checkpoint and the PLY.
// One controller serves every rank thread: what only rank 0 does touches the members below.
class CliController final : public RankController {
 public:
  CliController(const RunSetup& s, int ranks) : s_(s), ranks_(ranks) {}

  // The exit code, once rank 0's run has ended.
  int exit_code() const { return code_; }

  void on_start(TrainingRun& training, const DrivenRank& at) override {
    const TrainArgs& a = s_.args;
    Trainer& trainer = training.trainer();
    if (!a.resume.empty()) {
      restore_trainer_checkpoint(trainer, s_.plan.checkpoint);
      if (budget_given()) trainer.set_total_images(image_budget(a, trainer.options().batch_size));
      const int64_t gaussians = trainer.total_gaussians();
      if (at.root())
        std::fprintf(stderr, "resumed at image %d (step %d) with %lld Gaussians\n", trainer.images_done(),
                     trainer.steps_done(), static_cast<long long>(gaussians));
    }
    if (a.profile) trainer.set_profiling(true);
    // Progress counts images: the schedule spans options().images; this run may end earlier (--stop-at).
    const int start = trainer.images_done();
    const int total = training.end_images();
    if (start >= total) {  // only a resumed run can start at or past its end
      const std::string at_image = "the run is already at image " + std::to_string(start);
      if (a.stop_at > 0 && a.stop_at < trainer.options().images)
        throw UsageError("--stop-at " + std::to_string(a.stop_at) + ": " + at_image);
      if (a.images_option->count() > 0)
        throw UsageError("--images " + std::to_string(a.images) + ": " + at_image);
      if (a.steps_option->count() > 0)
        throw UsageError("--steps " + std::to_string(a.steps) + " (" +
                                    std::to_string(trainer.options().images) + " images): " + at_image);
      throw UsageError(s_.plan.checkpoint.string() + ": the checkpoint is at image " +
                                  std::to_string(start) + ", the end of its " + std::to_string(total) +
                                  "-image budget: nothing left to train (pass a larger --images to continue)");
    }
    if (!at.root()) return;
    nlohmann::json config = s_.config;
    config["images"] = trainer.options().images;          // a resumed run keeps its checkpoint's schedule
    config["batch_size"] = trainer.options().batch_size;  // and its batch size
    s_.run.write_config(config);
    start_ = start;
    total_ = total;
    // The progress line: redrawn in place on a terminal (ProgressCadence: at most 4 times a second,
    // cut to the terminal's width), else a line at each tenth of this command's images (a second apart at least)
    // and at least every 5 s.
    cadence_.emplace(tty_, total - start);
  }

  RankDecision decide(const TrainingRun& training, Clock::time_point) override {
    RankDecision d;
    d.stop = s_.signals.stop_signal() != 0 || !can_step(training, ranks_);
    d.publish = !d.stop && s_.signals.take_export_request();  // a stop exports anyway
    d.step = !d.stop;
    return d;
  }

  void serve(TrainingRun& training, const DrivenRank& at, const RankDecision& decision) override {
    if (!decision.publish) return;
    export_ply(training.trainer(), at);
    if (at.root())
      std::fprintf(stderr, "%sexported %s at image %d\n", tty_ ? "\n" : "", s_.run.ply_file().c_str(),
                   training.trainer().images_done());
  }

  void on_step(TrainingRun& training, const DrivenRank& at, const RunStep& step) override {
    if (!at.root()) return;
    const Trainer& trainer = training.trainer();
    const bool draw_now = cadence_->due(trainer.images_done() - start_) || training.done();
    if (step.metrics) loss_ = float(step.metrics->loss), imbalance_ = gaussian_imbalance(*step.metrics);
    // Reading the loss waits for the GPU: only when shown. With ranks it is a collective, so the progress
    // line shows the last record's.
    else if (draw_now && !at.comm) loss_ = trainer.read_loss();
    if (!draw_now) return;
    const std::string line = progress_line(training, start_, total_, loss_, step.result.gaussians, imbalance_,
                                           tty_ ? terminal_columns(stderr) : 0);
    std::fprintf(stderr, tty_ ? "\r%s\033[K" : "%s\n", line.c_str());
  }

  void on_end(TrainingRun& training, const DrivenRank& at) override {
    Trainer& trainer = training.trainer();
    if (at.root() && tty_) std::fprintf(stderr, "\n");
    const double loop_s = training.seconds();
    // A second signal while saving ends the process (the checkpoint is written atomically).
    if (at.root()) s_.signals.restore_defaults();
    s_.run.save_checkpoint(trainer);
    export_ply(trainer, at);
    const int64_t gaussians = trainer.total_gaussians();
    if (!at.root()) return;
    if (const int sig = s_.signals.stop_signal()) {
      std::fprintf(stderr, "%s at image %d (step %d): saved %s and %s; continue with: splatlab train --resume %s\n",
                   StopSignals::name(sig), trainer.images_done(), trainer.steps_done(),
                   s_.run.checkpoint_file().c_str(), s_.run.ply_file().c_str(), s_.run.dir().c_str());
      code_ = StopSignals::exit_code(sig);
      return;
    }
    const bool stops_early = total_ < trainer.options().images;
    char psnr[48] = "";
    if (training.last_psnr()) std::snprintf(psnr, sizeof psnr, ", test PSNR %.3f dB", *training.last_psnr());
    std::fprintf(stderr, "done: %d images (%d steps)%s in %.1f s, %lld Gaussians%s; wrote %s\n",
                 trainer.images_done(), trainer.steps_done(),
                 stops_early ? (" of a " + std::to_string(trainer.options().images) + "-image budget").c_str() : "",
                 loop_s, static_cast<long long>(gaussians), psnr, s_.run.ply_file().c_str());
    print_profile(trainer, training.eval_seconds(), loop_s);
    code_ = 0;
  }

 private:
  bool budget_given() const { return s_.args.images_option->count() > 0 || s_.args.steps_option->count() > 0; }
  // Every rank sends its shard; rank 0 writes the whole model.
  void export_ply(const Trainer& trainer, const DrivenRank& at) const {
    const std::shared_ptr<const ModelSnapshot> whole = trainer.whole_snapshot(0);
    if (at.root()) s_.run.save_ply(whole->download());
  }

  const RunSetup& s_;
  const int ranks_;
  const bool tty_ = isatty(fileno(stderr));
  // Rank 0's alone:
  int start_ = 0, total_ = 0;  // the images the progress line counts from and to
  std::optional<ProgressCadence> cadence_;
  std::optional<float> loss_;
  std::optional<double> imbalance_;  // from the last metrics record, which gathers every rank's figures
  int code_ = 0;  // the other ranks' code, and rank 0's until it ends
};

// The rank count --ranks/--gpus ask for (or, under a launcher, the job's processes), checked against the batch
// and the budget before anything is made.
int rank_count(const TrainArgs& a, kernels::Device dev, int images, const transport::JobPlace* processes) {
  int ranks = 0;
  if (processes) {
    if (a.gpus != 1 || a.ranks_option->count() > 0)
      throw UsageError(std::string("--gpus/--ranks: under ") + transport::launcher_name(processes->launcher) +
                                  " every process is one rank (on the GPU its rank on the node numbers): start one "
                                  "process per rank instead");
    ranks = processes->size;
  } else {
    ranks = a.ranks_option->count() > 0 ? a.ranks : a.gpus;
    if (a.gpus > 1 && (dev != kernels::Device::CUDA || kernels::cuda_device_count() < a.gpus))
      throw UsageError("--gpus " + std::to_string(a.gpus) + ": this machine has " +
                                  std::to_string(kernels::cuda_device_count()) + " CUDA device(s)" +
                                  (dev == kernels::Device::CUDA ? "" : " (and --device is cpu)") +
                                  "; --ranks R runs R ranks on one device");
    if (ranks < a.gpus)
      throw UsageError("--ranks " + std::to_string(ranks) + " is fewer than --gpus " +
                                  std::to_string(a.gpus) + ": every GPU runs at least one rank");
    if (ranks > 1 && dev == kernels::Device::CUDA && kernels::cuda_device_count() < 1)
      throw UsageError("--ranks " + std::to_string(ranks) + " on cuda: no CUDA device");
  }
  try {
    check_batch_covers_ranks(a.batch_size, ranks, "--batch-size");
  } catch (const std::invalid_argument& e) {  // the trainer's own check, here about the command line
    throw UsageError(e.what());
  }
  if (const int last = images % a.batch_size; ranks > 1 && a.resume.empty() && last != 0 && last < ranks)
    throw UsageError("a budget of " + std::to_string(images) + " images at batch size " +
                                std::to_string(a.batch_size) + " ends with a step of " + std::to_string(last) +
                                " image(s), fewer than the " + std::to_string(ranks) +
                                " ranks: choose a budget that is a multiple of the batch size");
  return ranks;
}

// What every rank of a run shares, made before any rank starts and before the run folder exists: in one
// process for rank threads, on every process of a job alike.
struct RunPlan {
  kernels::Device dev = kernels::Device::CPU;
  TrainFolderPlan folder;
  fs::path scene_folder;
  TrainerOptions options;
  int ranks = 1;
  nlohmann::json config;
  std::optional<Scene> scene;
  RunOptions run_options;
};

// The run's device and folder, from the command line (and a resumed run's config.json).
void plan_run(TrainArgs& a, RunPlan& p) {
  p.dev = parse_device(a.device);
  p.folder = plan_train_folder(*a.command, a.scene, a.resume, a.out, a.overwrite, kRecordedOptions);
  if (a.scene != "demo") {
    check_path_argument("scene", a.scene);
    std::error_code ec;
    if (!fs::exists(a.scene, ec))
      throw UsageError("scene " + quote_user_text(a.scene, 400) + ": no such folder (name a COLMAP scene folder, or 'demo')");
  }
}

// The rest: the trainer's options, the rank count, the config and the scene (loaded from p.scene_folder).
// `processes`: this process's place in the job it is one rank of (null for rank threads); `speak`: print the
// notes and the scene line (only rank 0 of a job does).
void prepare_run(const TrainArgs& a, RunPlan& p, const transport::JobPlace* processes, bool speak) {
  if (speak)
    for (const std::string& note : p.folder.notes) std::fprintf(stderr, "note: %s\n", note.c_str());
  p.options = trainer_options(a, p.dev);
  p.ranks = rank_count(a, p.dev, p.options.images, processes);
  RunConfig config{.scene = a.scene,
                   .scene_folder = fs::absolute(p.scene_folder).string(),
                   .eval_every = a.eval_every,
                   .log_every = a.log_every,
                   .checkpoint_every = a.checkpoint_every,
                   .up = up_axis_arg(a.up)};
  config.set_trainer_options(p.options);
  config.set_scene_load_options(scene_load_options(a.scene_args));
  p.config = to_json(config);
  const Scene& scene = p.scene.emplace(load_run_scene(config, true, !speak));
  if (speak)
    std::fprintf(stderr, "scene %s: %zu views (%zu train, %zu test), %zu points, extent %.3f; device %s%s\n",
                 scene.root.c_str(), scene.views.size(), scene.train_indices().size(), scene.test_indices().size(),
                 scene.points.size(), scene.extent, p.dev == kernels::Device::CUDA ? "cuda" : "cpu",
                 p.ranks > 1 || processes ? (", " + std::to_string(p.ranks) + (p.ranks > 1 ? " ranks" : " rank") +
                                             (processes ? std::string(" (") + transport::launcher_name(processes->launcher) +
                                                              " processes)"
                                                        : "")).c_str()
                                          : "");

  // A batch draws distinct training views (a larger one would repeat views within a step).
  if (const size_t views = scene.train_indices().size(); static_cast<size_t>(a.batch_size) > views)
    throw UsageError("--batch-size " + std::to_string(a.batch_size) + ": the scene has " + std::to_string(views) +
                                " training views, the most a batch can hold");

  p.run_options.metrics_every = a.log_every;
  p.run_options.eval_every = a.eval_every;
  p.run_options.eval_at_end = true;
  p.run_options.stop_at = a.stop_at;
  p.run_options.checkpoint_every = a.checkpoint_every;
}

// What a run that failed leaves behind, for the failure's message.
std::string what_remains(const RunFolder& run) {
  return run.has_results()
             ? "the run keeps its last checkpoint: continue with splatlab train --resume " + run.dir().string()
             : std::string("nothing was saved");
}

// `splatlab train` as one rank of a job of processes (app/job_launch.h): every process prepares the same run
// and they agree that all did before rank 0 makes the run folder; then this process trains its rank.
int train_job_rank(TrainArgs& a, const transport::JobPlace& place) {
  Job job(place);
  RunPlan p;
  job.setup([&] {
    plan_run(a, p);
    job.choose_device(p.dev);
  });
  job.setup_in_turn([&] { p.scene_folder = resolve_scene_folder(a.scene); });  // the demo scene made once
  job.setup([&] { prepare_run(a, p, &place, job.is_root()); });
  if (!job.agree_setup()) return 1;
  return job.run([&] {
    StopSignals signals;  // on every process: launchers pass their signals on, and rank 0's decide for all
    if (job.is_root())
      std::fprintf(stderr, "rank 0 is process %d: `kill -INT %d` stops every rank after a step, with a checkpoint\n",
                   int(getpid()), int(getpid()));
    const RunFolder run = job.is_root() ? open_train_folder(p.folder, a.overwrite)
                                        : RunFolder::written_elsewhere(p.folder.dir);
    run.attach(p.run_options);
    std::unique_ptr<transport::Communicator> comm = job.make_communicator();
    std::unique_ptr<transport::ControlChannel> control = job.make_control_channel();
    const RunSetup setup{a, p.folder, *p.scene, run, signals, p.config};
    CliController controller(setup, p.ranks);
    const GaussianModel init = initial_model(a, *p.scene);
    try {
      drive_rank({.scene = *p.scene, .init = init, .trainer = p.options, .run = p.run_options,
                  .ranks_on_host = place.local_size},
                 comm.get(), *control, controller);
      return controller.exit_code();
    } catch (const std::exception& e) {
      // Closing the communicator would wait for peers that may sit in a collective (NCCL's finalize), and so
      // may the control channel's: both go with the job, which job.run ends at once. The run folder closes
      // first (a failed start is removed).
      (void)comm.release();
      (void)control.release();
      if (!job.is_root()) throw;
      throw std::runtime_error(std::string(e.what()) + "; " + what_remains(run));
    }
  });
}

int run_train(TrainArgs& a) {
  if (const std::optional<transport::JobPlace> place = transport::job_place_from_environment())
    return train_job_rank(a, *place);
  RunPlan p;
  plan_run(a, p);
  p.scene_folder = resolve_scene_folder(a.scene);
  prepare_run(a, p, nullptr, true);
  // Stop signals save from here on; earlier ones end the command before it has made anything.
  StopSignals signals;
  const RunFolder run = open_train_folder(p.folder, a.overwrite);  // removed again if this fails before saving
  run.attach(p.run_options);
  const RunSetup setup{a, p.folder, *p.scene, run, signals, p.config};
  CliController controller(setup, p.ranks);
  const GaussianModel init = initial_model(a, *p.scene);
  // More ranks are threads of this process: over --gpus GPUs in blocks (one rank per GPU talks through
  // NCCL), several on one device each on a stream of its own (training priority). A rank that fails stops them all; the first
  // failure names its rank and device.
  transport::RankPlan plan{p.dev, {}, p.ranks};
  for (int g = 0; g < a.gpus; ++g) plan.cuda_devices.push_back(g);
  try {
    drive_ranks({.scene = *p.scene, .init = init, .trainer = p.options, .run = p.run_options}, plan, controller);
  } catch (const transport::CommError& e) {
    throw std::runtime_error(std::string(e.what()) + "; every rank stopped, " + what_remains(run));
  } catch (const kernels::OutOfMemory& e) {  // the only rank's
    throw std::runtime_error(std::string(e.what()) + "; " + what_remains(run));
  }
  return controller.exit_code();
}

}  // namespace

CommandRun add_train_command(CLI::App& app) {
  auto* sub = app.add_subcommand("train", "Train a scene headless on the CPU backend, one GPU or several (--gpus, --ranks)");
  auto args = std::make_shared<TrainArgs>();
  add_train_options(sub, *args);
  args->command = sub;
  sub->footer(
      "Run folder: config.json, metrics.jsonl (JSON lines), checkpoint.ckpt, point_cloud.ply.\n"
      "Ctrl-C, SIGTERM and SIGHUP save a checkpoint and the PLY, then exit (130, 143, 129); `kill -USR1 <pid>` "
      "exports the PLY without stopping.");
  return [args]() { return run_train(*args); };
}

}  // namespace splat::app
