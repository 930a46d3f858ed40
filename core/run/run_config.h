#pragma once
// A run's config.json: what the run was started with (the scene folder, how the scene is loaded,
// the training settings). `eval`, `render` and `train --resume` read it back, and so does the GUI
// when it opens a run folder, so that all of them load the scene exactly as training did.
#include <array>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "core/scene/scene.h"
#include "core/scene/camera_undistortion.h"
#include "core/scene/scene_loader.h"
#include "core/scene/up_axis.h"
#include "core/train/trainer.h"

namespace splat {

// A run folder or one of its files that cannot be created, read or written, or that already
// holds a run; the message starts with the folder or file.
class RunFolderError : public std::runtime_error {
 public:
  RunFolderError(const std::filesystem::path& path, const std::string& problem)
      : std::runtime_error(path.string() + ": " + problem) {}
};

namespace run_files {
inline constexpr const char* kConfig = "config.json";
inline constexpr const char* kMetrics = "metrics.jsonl";
inline constexpr const char* kCheckpoint = "checkpoint.ckpt";
inline constexpr const char* kPly = "point_cloud.ply";
inline constexpr const char* kRenders = "renders";  // `eval --renders`
}  // namespace run_files

// The settings a run records in its config.json, typed. `train` and the GUI write one for every run;
// `eval`, `render`, `train --resume` and the GUI's open of a run read it back through
// run_config_from_json, which checks every field and gives keys an older config lacks their
// defaults. An aggregate whose every member is a setting of for_each_setting below: the reader, the
// writer and the tests (tests/core/test_run_config.cpp) all go through that one list.
struct RunConfig {
  // The scene as it was named (a folder, or "demo" for the generated one) and the folder it was
  // loaded from (absolute).
  std::string scene;
  std::string scene_folder;
  std::string started_by = "cli";  // "cli" or "gui": the front end that started it (GUI runs always said so)
  // How the scene is loaded (SceneLoadOptions).
  int data_factor = SceneLoadOptions{}.data_factor;
  UndistortMode undistort = UndistortOptions{}.mode;
  double fisheye_fov = UndistortOptions{}.fisheye_fov_deg;
  MaskMode mask_mode = SceneLoadOptions{}.mask_mode;
  // The training settings (TrainerOptions, whose defaults these are): those `train` or the GUI let
  // a user set. The strategies' thresholds and schedules are not among them: every run uses
  // TrainerOptions' own, so recording them would say nothing.
  kernels::Device device = TrainerOptions{}.device;  // what it was trained on; a reader may train elsewhere
  int images = TrainerOptions{}.images;
  std::string strategy = TrainerOptions{}.strategy;
  int batch_size = TrainerOptions{}.batch_size;
  bool packed = TrainerOptions{}.packed;
  bool amp = TrainerOptions{}.amp;
  bool antialiased = TrainerOptions{}.antialiased;
  uint64_t seed = TrainerOptions{}.seed;
  int sh_degree = TrainerOptions{}.sh_degree_cap;
  std::array<float, 3> background = TrainerOptions{}.background;
  int64_t cap_max = McmcStrategyOptions{}.cap;   // mcmc
  float ssim_weight = TrainerOptions{}.ssim_weight;  // of (1 - SSIM) in the loss
  float grow_grad2d = DefaultStrategyOptions{}.grad_threshold;  // default strategy's growth threshold
  bool absgrad = DefaultStrategyOptions{}.absgrad;  // default strategy
  float absgrad_threshold = DefaultStrategyOptions{}.absgrad_threshold;  // with absgrad
  float prune_scale2d = DefaultStrategyOptions{}.prune_scale2d;  // default strategy's screen-size pruning (0: off)
  bool revised_opacity = DefaultStrategyOptions{}.revised_opacity;  // default strategy's grown copies
  float opacity_reg = DefaultStrategyOptions{}.opacity_reg;      // default strategy's regularisers (0: none)
  float scale_reg = DefaultStrategyOptions{}.scale_reg;
  int64_t max_gaussians = DefaultStrategyOptions{}.max_gaussians;  // default strategy (0: no limit)
  PhotoPlacement photos = TrainerOptions{}.photos;  // with ranks: every photo on every rank, or its own
  bool exposure = TrainerOptions{}.exposure;        // per-image colour maps
  AdamMode adam = TrainerOptions{}.adam;             // dense, sparse, or sparse at batch 1 (auto)
  // Cadences, in images (RunOptions), with `train`'s defaults: test evaluations (0: only at the
  // end), metrics lines, periodic checkpoints (0: none).
  int eval_every = 0;
  int log_every = 100;
  int checkpoint_every = 0;
  // Which way is up when the run is shown (the GUI's Up axis) and rendered (`render --path orbit`):
  // the estimate from the cameras unless a user chose otherwise.
  UpAxis up = UpAxis::Auto;

  // The trainer's options for these settings on `device` (the recorded device is where the run was
  // trained, not necessarily where it continues); options a run does not record keep their defaults.
  TrainerOptions trainer_options(kernels::Device device) const;
  // Takes every recorded setting from `options` (device included); the scene and cadences stay.
  void set_trainer_options(const TrainerOptions& options);
  // How to load the scene: the recorded settings (masked-out pixels of MaskMode::Alpha take the
  // training background), the rest (images, progress) the loader's defaults.
  SceneLoadOptions scene_load_options() const;
  void set_scene_load_options(const SceneLoadOptions& options);

  bool operator==(const RunConfig&) const = default;
};

inline constexpr const char* kStrategyNames[] = {"default", "mcmc"};

// What the reader accepts for a setting beyond its type, and whether a config may lack it.
struct SettingRule {
  // Every config ever written has it: a missing key is a damaged config, not an older one.
  bool required = false;
  // Numbers: the accepted range (integers are also held to their member's type).
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  // Strings: the accepted values (empty: any).
  std::span<const char* const> names = {};
  // The refusal's "expected ..." where the type's own words would say less.
  const char* expected = nullptr;
};

// Calls visit(key, member, rule) for every setting of `config` (a RunConfig, const or not), in the
// order config.json lists them. The one list of what a run records: the JSON reader and writer and
// the round-trip test all use it, so that a setting added here is written, read and tested.
template <class Config, class Visit>
void for_each_setting(Config& c, Visit&& visit) {
  visit("scene", c.scene, SettingRule{});
  visit("scene_folder", c.scene_folder, SettingRule{.required = true, .expected = "the scene folder's path"});
  visit("started_by", c.started_by, SettingRule{});
  visit("data_factor", c.data_factor, SettingRule{.required = true, .lo = 1, .hi = 64});
  visit("undistort", c.undistort, SettingRule{});
  visit("fisheye_fov", c.fisheye_fov, SettingRule{.lo = 10, .hi = 170, .expected = "degrees in 10..170"});
  visit("mask_mode", c.mask_mode, SettingRule{});
  visit("device", c.device, SettingRule{});
  visit("images", c.images, SettingRule{.lo = 1});
  visit("strategy", c.strategy, SettingRule{.names = kStrategyNames});
  visit("batch_size", c.batch_size, SettingRule{.lo = 1});
  visit("packed", c.packed, SettingRule{});
  visit("amp", c.amp, SettingRule{});
  visit("antialiased", c.antialiased, SettingRule{});
  visit("seed", c.seed, SettingRule{});
  visit("sh_degree", c.sh_degree, SettingRule{.lo = 0, .hi = 3});
  visit("background", c.background, SettingRule{});
  visit("cap_max", c.cap_max, SettingRule{.lo = 1});
  visit("ssim_weight", c.ssim_weight, SettingRule{.lo = 0, .hi = 1});
  visit("grow_grad2d", c.grow_grad2d, SettingRule{.lo = 0});
  visit("absgrad", c.absgrad, SettingRule{});
  visit("absgrad_threshold", c.absgrad_threshold, SettingRule{.lo = 0});
  visit("prune_scale2d", c.prune_scale2d, SettingRule{.lo = 0});
  visit("revised_opacity", c.revised_opacity, SettingRule{});
  visit("opacity_reg", c.opacity_reg, SettingRule{.lo = 0});
  visit("scale_reg", c.scale_reg, SettingRule{.lo = 0});
  visit("max_gaussians", c.max_gaussians, SettingRule{.lo = 0});
  visit("photos", c.photos, SettingRule{});
  visit("exposure", c.exposure, SettingRule{});
  visit("adam", c.adam, SettingRule{});
  visit("eval_every", c.eval_every, SettingRule{.lo = 0});
  visit("log_every", c.log_every, SettingRule{.lo = 1});
  visit("checkpoint_every", c.checkpoint_every, SettingRule{.lo = 0});
  visit("up", c.up, SettingRule{});
}

// The config as config.json holds it: every setting under its key.
nlohmann::json to_json(const RunConfig& config);

// The config `json` (read from `file`, which errors name) holds. Throws RunFolderError naming the
// file and the field for a field of the wrong type or out of range, or a required one missing
// (scene_folder, data_factor); keys a config written before they existed lacks take their
// defaults, and keys it does not know are ignored.
RunConfig run_config_from_json(const nlohmann::json& json, const std::filesystem::path& file);

// Writes <run>/config.json whole or not at all (a temporary file renamed over it).
void write_run_config(const std::filesystem::path& run, const nlohmann::json& config);

// Reads and checks <run>/config.json (run_config_from_json); a missing file or one that is not
// JSON is refused naming the file.
RunConfig read_run_config(const std::filesystem::path& run);

// The run's scene as its config describes it, images loaded or not; with the loader's progress
// bar and notes on stderr unless `quiet` (the other processes of an MPI job).
Scene load_run_scene(const RunConfig& config, bool load_images, bool quiet = false);

}  // namespace splat
