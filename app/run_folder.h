#pragma once
// A training run's folder, shared by `train`, `eval` and `render`:
//   config.json       what the run was started with (scene folder, data factor, settings)
//   metrics.jsonl     core/train/metrics_log.h
//   checkpoint.ckpt   core/train/checkpoint.h (on Ctrl-C, on request, at the end)
//   point_cloud.ply   the Gaussians (at the end and on request)
//   renders/          test renders written by `eval --renders`
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "core/scene/scene.h"
#include "kernels/rasterizer.h"

namespace splat::app {

namespace run_files {
inline constexpr const char* kConfig = "config.json";
inline constexpr const char* kMetrics = "metrics.jsonl";
inline constexpr const char* kCheckpoint = "checkpoint.ckpt";
inline constexpr const char* kPly = "point_cloud.ply";
}  // namespace run_files

// "cpu", "cuda", or "" (CUDA when a device exists, else CPU). Throws std::invalid_argument otherwise
// and when "cuda" is asked for on a machine without one.
kernels::Device parse_device(const std::string& name);

// The scene folder for a command-line scene argument: "demo" makes sure the generated demo scene
// exists (in its cache folder) and returns that folder; anything else is returned as given.
std::filesystem::path resolve_scene_folder(const std::string& scene_arg);

void write_run_config(const std::filesystem::path& run, const nlohmann::json& config);
// Throws std::runtime_error naming the file when the run folder or its config is missing or bad.
nlohmann::json read_run_config(const std::filesystem::path& run);

// The run's scene as its config describes it (folder, data factor), images loaded or not.
Scene load_run_scene(const nlohmann::json& config, bool load_images);

}  // namespace splat::app
