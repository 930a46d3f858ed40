#pragma once
// The command-line options that decide how a scene folder is loaded (data factor, undistortion),
// shared by `train` and `info` and stored in a run's config.json so `eval`, `render` and
// `--resume` load the scene exactly as training did.
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "core/scene/scene_loader.h"

namespace splat::app {

struct SceneArgs {
  int data_factor = 1;
  std::string undistort = undistort_mode_name(UndistortOptions{}.mode);
  double fisheye_fov = kDefaultFisheyeFovDeg;
};

void add_scene_options(CLI::App* sub, SceneArgs& a);

// Load options for these arguments; throws std::invalid_argument for a bad mode.
SceneLoadOptions scene_load_options(const SceneArgs& a);

// The arguments as config.json keys, and back (keys a config written before they existed lacks
// take their defaults).
void write_scene_args(nlohmann::json& config, const SceneArgs& a);
SceneArgs read_scene_args(const nlohmann::json& config);

}  // namespace splat::app
