#pragma once
// The command-line options that decide how a scene folder is loaded (data factor, undistortion, masks),
// shared by `train` and `info`; a run stores them in its config.json (core/run/run_config.h) so
// that `eval`, `render` and `--resume` load the scene exactly as training did.
#include <filesystem>
#include <string>

#include <CLI/CLI.hpp>

#include "core/scene/scene_loader.h"

namespace splat::app {

struct SceneArgs {
  int data_factor = 1;
  std::string undistort = undistort_mode_name(UndistortOptions{}.mode);
  double fisheye_fov = kDefaultFisheyeFovDeg;
  std::string mask_mode = mask_mode_name(SceneLoadOptions{}.mask_mode);
};

void add_scene_options(CLI::App* sub, SceneArgs& a);

// Load options for these arguments; throws std::invalid_argument for a bad mode.
SceneLoadOptions scene_load_options(const SceneArgs& a);

// The scene folder for a command-line scene argument: "demo" makes sure the generated demo scene
// exists (in its cache folder) and returns that folder; anything else is returned as given.
std::filesystem::path resolve_scene_folder(const std::string& scene_arg);

}  // namespace splat::app
