#pragma once
// Rendering a camera path to a frame sequence: what `splatlab render --path` writes and what the GUI's
// File > Export camera path writes, with one description of the path (its kind, frame count and size),
// of the frames' names, and of the video. The caller supplies the render (its own rasterizer and
// Gaussians) and renders frame by frame, so that it can report progress between frames.
#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/scene/scene.h"
#include "core/scene/up_axis.h"
#include "kernels/rasterizer.h"

namespace splat {

enum class PathKind { Orbit, Cameras };
inline constexpr const char* kPathKindNames[] = {"orbit", "cameras"};
inline constexpr int kDefaultOrbitFrames = 120;

struct PathRequest {
  PathKind kind = PathKind::Orbit;
  // Frames: -1 takes the kind's default (orbit kDefaultOrbitFrames; cameras one per view); for
  // cameras, N > 0 interpolates N frames along the views (core/scene/camera_path.h).
  int frames = -1;
  int width = 0, height = 0;  // 0: the first view's size (one of them 0: its aspect ratio)
  UpAxis up = UpAxis::Auto;   // orbit: the axis to circle (the run's or the GUI's choice), among the views
};

// "orbit" or "cameras"; throws std::invalid_argument naming anything else.
PathKind parse_path_kind(const std::string& name);
const char* path_kind_name(PathKind kind);

// The request's cameras along the scene's views. Throws std::invalid_argument for no views, a bad
// frame count, or (orbit, up from the cameras) views without a consistent up.
std::vector<kernels::Camera> path_cameras(std::span<const SceneView> views, const PathRequest& request);

// Frame k's file in `dir`: frame_0000.png, frame_0001.png, ...
std::filesystem::path frame_file(const std::filesystem::path& dir, size_t k);

// Renders one camera: float RGB [height, width, 3] on the host.
using RenderFn = std::function<std::vector<float>(const kernels::Camera& camera)>;

// The file beside the frames that holds their cameras (core/render/camera_path_file.h), so that the same
// frames can be rendered again (`render --path dir/camera_path.json`) or by other tools.
inline constexpr const char* kCameraPathFileName = "camera_path.json";

// A frame sequence being written into `dir` (created on construction, with the cameras saved in it as
// kCameraPathFileName). `name` names the video: <name>.mp4.
class PathExport {
 public:
  PathExport(std::vector<kernels::Camera> cameras, std::filesystem::path dir, std::string name);
  PathExport(std::vector<kernels::Camera> cameras, std::filesystem::path dir, PathKind kind)
      : PathExport(std::move(cameras), std::move(dir), std::string(path_kind_name(kind))) {}
  size_t frames() const { return cameras_.size(); }
  size_t done() const { return done_; }
  bool finished() const { return done_ == cameras_.size(); }
  const std::filesystem::path& dir() const { return dir_; }
  const kernels::Camera& camera(size_t k) const { return cameras_[k]; }

  // Renders and writes the next frame; throws std::runtime_error naming a file that cannot be written.
  void render_next(const RenderFn& render);
  // Encodes dir/<kind>.mp4 from the frames when ffmpeg is on PATH and returns its path; nullopt when
  // ffmpeg is not there. Throws std::runtime_error when ffmpeg fails.
  std::optional<std::filesystem::path> encode_video() const;

 private:
  std::vector<kernels::Camera> cameras_;
  std::filesystem::path dir_;
  std::string name_;
  size_t done_ = 0;
};

}  // namespace splat
