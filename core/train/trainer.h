#pragma once
// The training loop on one device: batches of cameras from seeded shuffled epochs, render,
// photometric loss, backward, the strategy's loss terms, per-group Adam, densification.
//
// A run is a budget of training images, and every schedule counts images
// (core/train/image_schedule.h): the means' learning-rate decay, the SH degree, densification. A
// run at batch B takes budget / B steps and follows the same schedule as at batch 1. Per step the
// loss is the mean over the batch, and Adam follows the square-root scaling rule (kernels/adam.h;
// Malladi et al. 2022, "On the SDEs and Scaling Rules for Adaptive Gradient Algorithms", which
// gsplat's trainer follows too): learning rates x sqrt(B), eps / sqrt(B), beta -> beta^B.
// Averaging rather than summing keeps the gradients, and so Adam's moments and the densification
// statistics, on one scale whatever the batch (it can change mid-run). The mean of B gradients is
// as large as one of them but sqrt(B) times less noisy, and Adam's normalised step barely depends
// on the gradient's size, so lr x sqrt(B) is what keeps both the drift and the noise per image of
// batch 1; lr x B (the SGD rule) would move B times further per image.
//
// The trainer knows no communicator: its Sharding (core/train/sharding.h) says where its rows sit and
// makes its step (core/train/train_step.h), one rank or one of several alike.
//
// On CUDA the per-step path enqueues work and never waits for the GPU, except where a strategy
// decides a refinement on the host and where the caller asks for the loss (read_loss()).
#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/model/device_gaussians.h"
#include "core/train/batch_draw.h"
#include "core/train/metrics_log.h"
#include "core/train/rank_stats.h"
#include "core/train/rng_state.h"
#include "core/scene/scene.h"
#include "core/train/strategy.h"
#include "core/train/strategy_default.h"
#include "core/train/strategy_mcmc.h"
#include "core/train/sharding.h"
#include "core/train/sharded/render_costs.h"
#include "kernels/loss.h"
#include "kernels/phase_timer.h"
#include "kernels/rasterizer.h"


namespace splat {

// Base learning rates per parameter group, for batch size 1 (the sqrt(B) rule scales them).
struct LearningRates {
  double means = 1.6e-4;             // x scene extent; decays exponentially to means * means_final_ratio
  double means_final_ratio = 0.01;
  double log_scales = 5e-3;
  double quats = 1e-3;
  double opacity = 5e-2;
  double sh_dc = 2.5e-3;
  double sh_rest = 2.5e-3 / 20;      // higher-order SH move slower: they overfit view dependence
  // The per-image colour maps (TrainerOptions::exposure). A map's gradient comes only when its image is
  // drawn, once an epoch; on a demo capture of two exposures 1e-3 closed a fifth of the gap in 1,200
  // images, 3e-3 to 1e-2 most of it (bench/QUALITY.md).
  double color_maps = 5e-3;
  // Their Adam epsilon, large on purpose: a map's gradient is the mean over its image of the loss's
  // slope times the colour, about 0.1 where the photo's exposure is off and far smaller where the
  // residual only changes sign across the image. Plain Adam steps both at the full rate, so on photos
  // of one exposure the maps wandered and the scene with them (bonsai 31.36 -> 26.06 dB on an H100);
  // at 0.1 the small gradients take small steps (30.44 dB) and an exposure change is still followed
  // (cup with every other photo darkened: 26.79 dB at 1e-15, 28.42 at 0.1; bench/QUALITY.md).
  double color_maps_eps = 0.1;
};

// Sparse Adam (kernels::AdamGroup::skip_zero_grads): a Gaussian no camera of the step saw keeps its
// parameters and moments, rather than dense Adam moving it on its moments; the step reads and writes
// only the seen rows' optimizer state. Measured on H100s (bench/TRAINING.md "Sparse Adam"): at batch 1
// it trains 1.08-1.13x faster; its PSNR matched dense Adam's on bonsai over 3 seeds with the host-planned
// refinement but ended 0.15 dB lower over 2 seeds with the device-planned one, and it was better on cup;
// at batch 4 it gains 0-3 % and cost bonsai 0.13 dB over 4 seeds. A later study at batch 1 over 4 seeds
// of each scene: 1.09-1.10x, 0.09 dB lower on bonsai and 0.11 on cup. `Auto` is sparse exactly while a
// step trains one image (the GUI may change the batch size as a run goes); dense stays the default.
enum class AdamMode { Auto, Dense, Sparse };
inline constexpr const char* kAdamModeNames[] = {"auto", "dense", "sparse"};
// Whether a step of `batch_size` images under `mode` skips the zero gradients.
constexpr bool sparse_adam(AdamMode mode, int batch_size) {
  return mode == AdamMode::Sparse || (mode == AdamMode::Auto && batch_size == 1);
}

struct TrainerOptions {
  kernels::Device device = kernels::Device::CPU;
  int images = 30000;             // the run's budget of training images; batch_size of them per step
  int batch_size = 1;
  bool packed = false;
  // The anti-aliased projection (raster::project: the 2D dilation with its opacity compensation) trains
  // better and faster on every scene measured (bench/QUALITY.md), so it is the default.
  bool antialiased = true;
  int sh_degree_cap = 3;          // active degree grows by 1 every sh_degree_interval images up to this
  int sh_degree_interval = 1000;
  std::string strategy = "default";  // "default" or "mcmc"
  DefaultStrategyOptions default_strategy{};
  McmcStrategyOptions mcmc{};
  uint64_t seed = 0;
  std::array<float, 3> background{0, 0, 0};
  float ssim_weight = kernels::kDefaultSsimWeight;
  LearningRates lr{};
  int cpu_threads = 0;            // CPU backend threads; 0 = all
  // Mixed precision (docs/ARCHITECTURE.md "Precision columns"): the parameter columns are stored as
  // kAmpColumns says (SH rest in bf16, Adam moments in bf16) instead of kParamColumns; the
  // arithmetic stays fp32. The CPU backend stores the same, so CPU training
  // with amp emulates the GPU's. With ranks every rank stores its shard so; the exchange still sends
  // fp32 projected pairs.
  bool amp = false;
  // With ranks: right after a refinement, and every rebalance_every images where no refinement
  // statistics are being gathered, shards whose row counts are more than this (relative) off their
  // targets are rebalanced (core/train/sharded/rebalance.h: on GPUs the targets follow what the ranks
  // wait on, on the CPU they are an equal split); 0 never rebalances.
  // 2.5 %: with wait-balanced targets a move happens once the shard parts differ by 2 x 2.5 % / kWaitGain
  // = 2 % of the step.
  double rebalance_threshold = 0.025;
  int rebalance_every = 1000;
  // With ranks: whether each rank holds every training photo or only its own share (core/train/batch_draw.h).
  PhotoPlacement photos = PhotoPlacement::Auto;
  // Per-image exposure and white-balance compensation: each training image's render goes through an
  // affine colour map of its own before the loss (kernels/color_affine.h), learned with the scene, so
  // that photos of changing exposure do not bend the scene's colours. Never applied to test views or
  // exports. With ranks every rank keeps every map and their gradients are summed over the ranks.
  bool exposure = false;
  // Dense or sparse Adam (AdamMode); auto: sparse while a step trains one image.
  AdamMode adam = AdamMode::Dense;
};

struct StepResult {
  int step = 0;              // index of the step just taken (0-based)
  int first_image = 0;       // it trained images [first_image, first_image + batch_size)
  int batch_size = 0;
  int64_t gaussians = 0;     // count after the step, of the whole model
  bool structure_changed = false;
  bool rebalanced = false;   // with ranks: rows moved between the shards after the refinement
  double host_ms = 0;        // host time of step() (on CUDA: enqueue time plus any host edits)
};

class Trainer {
 public:
  // The scene's images must be loaded. `init` is the starting model (SfM or random points). `sharding`:
  // this trainer's place among ranks (sharded::over(comm)); null for one rank on options.device. With
  // ranks, every rank passes the same options (the same seed: every rank draws the same batch), and
  // the calls marked "collective" below are made by every rank at the same step.
  Trainer(const Scene& scene, const GaussianModel& init, const TrainerOptions& options,
          std::unique_ptr<Sharding> sharding = nullptr);
  ~Trainer();

  // Trains one step of batch_size images, fewer when less of the budget is left. Collective.
  StepResult step();
  int steps_done() const { return step_; }
  int images_done() const { return images_done_; }
  // Where its buffers live and its kernels run (device and stream).
  const kernels::ComputeContext& context() const { return where_; }
  bool finished() const { return images_done_ >= opt_.images; }

  // Loss of the last step (mean over its batch); on CUDA this waits for that step. Collective.
  float read_loss() const;
  // The SH degree of the next step's renders.
  int active_sh_degree() const;
  // Learning rate of the means after `images` images of the run, for batch size 1.
  double means_lr(double images) const;

  // Settings that may change between steps.
  void set_batch_size(int b);
  void set_packed(bool packed) { opt_.packed = packed; }
  void set_sh_degree_cap(int cap);
  void set_total_images(int images);
  // Switches mixed precision between steps: the columns are converted in place (values rounded to
  // the new storage, moments kept), densification statistics kept.
  void set_amp(bool on);
  // The column table the Gaussians are stored with now.
  const ColumnTable& columns() const { return g_->columns(); }
  const TrainerOptions& options() const { return opt_; }

  const Scene& scene() const { return scene_; }
  DeviceGaussians& gaussians() { return *g_; }
  const DeviceGaussians& gaussians() const { return *g_; }
  kernels::Rasterizer& rasterizer() { return step_path_->rasterizer(); }
  // Rasterizations whose tile entries outgrew the room planned for them (kernels/capacity_plan.h).
  unsigned long long intersection_overflows() const { return step_path_->rasterizer().intersection_overflows(); }
  // Rasterizations whose pairs that cover a tile outgrew the room planned for them.
  unsigned long long covering_overflows() const { return step_path_->rasterizer().covering_overflows(); }
  const Strategy& strategy() const { return *strategy_; }

  // Whether this is rank 0 (which writes files and evaluates; true with one rank), and the rank count.
  bool is_root() const { return sharding_->rank() == 0; }
  int ranks() const { return sharding_->ranks(); }
  // The whole model with its Adam moments: on rank 0 the shards gathered in rank order, an empty state on
  // the other ranks. Collective. gaussians() is this rank's shard only.
  GaussianState whole_state() const;
  // The whole model's parameters on rank 0's device (null on the other ranks): the viewer's snapshots,
  // evaluation and the PLY. With one rank a copy. Collective.
  std::shared_ptr<const ModelSnapshot> whole_snapshot(uint64_t version) const;
  // Replaces the model with a whole one (a checkpoint's): each rank takes its block of the rows as they
  // are (core/model/shard_layout.h), so a resume may use another rank count. Every rank passes the same.
  void load_whole_state(const GaussianState& whole);
  // The number of Gaussians of the whole model. Collective.
  int64_t total_gaussians() const;
  // The memory this trainer (rank) holds by role, from its buffers' sizes.
  TrainingMemory memory() const;
  // Whether this run's ranks each hold only their own share of the photos (TrainerOptions::photos).
  bool own_photos() const { return draw_.own(); }
  // This rank's own figures of the last step (no collective; with one rank, the whole model's). On
  // CUDA the render and exchange times are those of the newest step the device has finished (usually
  // the one before), read without waiting; device memory is refreshed at most twice a second.
  const sharded::RankStats& rank_stats() const { return rank_stats_; }
  // Every rank's rank_stats(), in rank order, on every rank. Collective.
  std::vector<sharded::RankStats> gather_rank_stats() const;
  // The views' render costs this rank orders its batches by (empty off the GPU or at one rank).
  const sharded::RenderCosts& render_costs() const { return render_costs_; }

  // Training target of a train view: its photo's 8-bit RGB on the device (uploaded once; empty for test views).
  const kernels::Buffer<uint8_t>& image(int view) const { return images_[view]; }

  // Opt-in per-phase timing of step() (kernels/phase_timer.h): off by default, because reading the
  // times back waits for each step to finish, which the normal path never does. Turning it on
  // clears earlier totals.
  void set_profiling(bool on);
  // Totals over the steps profiled so far (null while off): the phases of step() and, on CUDA,
  // the rasterizer's own stages inside "render forward" and "render backward".
  const kernels::PhaseTotals* step_phases() const { return timer_ ? &timer_->totals() : nullptr; }
  const kernels::PhaseTotals& raster_stages() const { return raster_stages_; }
  int profiled_steps() const { return profiled_steps_; }

  // Everything a checkpoint stores besides the parameters and moments (steps and images done, the
  // image budget, RNGs, strategy, settings), and its restoration. Checkpoints written before the
  // image budget existed record steps only; their images are steps x their batch size (exact for
  // runs that kept one batch size).
  nlohmann::json state() const;
  void load_state(const nlohmann::json& s);

 private:
  void run_batch(const std::vector<int>& views);
  void refresh_shard_sizes(bool changed);  // collective when `changed` or none known
  int64_t known_total() const;             // the sum of shard_sizes_
  void optimizer_step(int batch);
  void mark(const char* phase) {
    if (timer_) timer_->mark(phase);
  }
  void collect_raster_stages();
  void measure_rank_stats(double step_ms);
  // The table the options ask for: kAmpColumns with amp, else kParamColumns.
  const ColumnTable& wanted_columns() const;

  const Scene& scene_;
  TrainerOptions opt_;
  std::unique_ptr<Sharding> sharding_;
  kernels::ComputeContext where_;  // where every buffer and kernel of this trainer lives
  int step_ = 0;
  int images_done_ = 0;  // training images of the steps taken
  std::unique_ptr<DeviceGaussians> g_;
  std::unique_ptr<Strategy> strategy_;
  std::unique_ptr<TrainStep> step_path_;
  int64_t first_id_ = 0;              // global id of this rank's row 0
  int largest_width_ = 0, largest_height_ = 0;  // of the training views (StepBatch::largest_width)
  std::vector<int64_t> shard_sizes_;  // every rank's row count, in rank order; empty: unknown
  BatchDraw draw_;
  // With ranks on GPUs, each view's learned render cost, by which every batch is split over the ranks
  // (core/train/sharded/render_costs.h); the same on every rank.
  sharded::RenderCosts render_costs_;
  bool learns_render_costs() const;  // with ranks on GPUs
  // With exposure compensation: every view's colour map [V, 12], its gradient and Adam moments.
  kernels::Buffer<float> color_maps_, color_grads_, color_m_, color_v_;
  kernels::Buffer<int32_t> color_train_views_;  // the maps held at their mean (the training views')
  void color_maps_step(int batch);  // Adam on the maps
  void hold_photos();  // uploads the photos (and masks) draw_ gives this rank, frees the others
  std::vector<kernels::Buffer<uint8_t>> images_;  // per view, the photo's bytes (a quarter of fp32); empty for views not used
  std::vector<kernels::Buffer<uint8_t>> masks_;  // per view when the scene has masks, else none
  std::unique_ptr<kernels::PhaseTimer> timer_;  // set while profiling
  kernels::PhaseTotals raster_stages_;
  int profiled_steps_ = 0;
  sharded::RankStats rank_stats_;
  std::chrono::steady_clock::time_point memory_read_{};  // when rank_stats_'s device memory was read
  // This rank's time outside its shard's work (waits at the exchanges plus render) since its window
  // began, for the rebalance checks (core/train/sharded/wait_balance.h).
  struct WaitWindow {
    double outside_ms = 0;  // summed over the measured steps
    int measured = 0;    // steps whose times the device has given (StepMarks), each counted once
    int steps = 0;       // steps run
    std::chrono::steady_clock::time_point since = std::chrono::steady_clock::now();
  } wait_window_;
  // The window's means; empty off the GPU (core/train/sharded/wait_balance.h).
  sharded::RankWindow wait_window() const;
};

// The strategy named by options.strategy; throws std::invalid_argument for an unknown name.
std::unique_ptr<Strategy> make_strategy(const TrainerOptions& options);

// The rasterizer settings of the trainer's renders at an SH degree: packing, antialiasing and
// background from `options` (evaluation renders with the same, core/train/evaluator.h).
kernels::RasterSettings render_settings(const TrainerOptions& options, int sh_degree);

}  // namespace splat
