#pragma once
// A run's config.json: what the run was started with (the scene folder, how the scene is loaded,
// the training settings). `eval`, `render` and `train --resume` read it back, and so does the GUI
// when it opens a run folder, so that all of them load the scene exactly as training did.
#include <filesystem>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "core/scene/scene.h"
#include "core/scene/scene_loader.h"
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

// Writes <run>/config.json whole or not at all (a temporary file renamed over it).
void write_run_config(const std::filesystem::path& run, const nlohmann::json& config);

// Reads <run>/config.json and checks the fields every reader relies on (scene_folder, data_factor,
// and undistort, fisheye_fov, sh_degree, background when present), so that a damaged config is
// refused naming the file and the field instead of surfacing as a JSON library error.
nlohmann::json read_run_config(const std::filesystem::path& run);

// The scene-loading settings as config.json keys (data_factor, undistort, fisheye_fov), and back;
// keys a config written before they existed lacks take their defaults.
void write_scene_settings(nlohmann::json& config, const SceneLoadOptions& options);
SceneLoadOptions read_scene_settings(const nlohmann::json& config);

// The training settings as config.json keys (device, images, strategy, batch_size, packed, amp,
// antialiased, seed, sh_degree, background, cap_max, absgrad): one writer for `train` and the GUI.
void write_trainer_settings(nlohmann::json& config, const TrainerOptions& options);

// The run's scene as its (checked) config describes it, images loaded or not; with the loader's
// progress bar and notes on stderr unless `quiet` (the other processes of an MPI job).
Scene load_run_scene(const nlohmann::json& config, bool load_images, bool quiet = false);

}  // namespace splat
