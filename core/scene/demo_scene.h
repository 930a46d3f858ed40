#pragma once
// The built-in demo scene: the procedural world of demo_raytracer.h photographed by ~60 cameras
// on a hemisphere and written as a COLMAP folder (images/*.png, sparse/0/*.txt), so every later
// stage (loader, trainer, viewer) runs on it exactly as on a real capture, with no download.
#include <filesystem>
#include <string>
#include <vector>

#include "core/scene/scene.h"

namespace splat::demo {

struct DemoOptions {
  int width = 320, height = 240;
  int points = 4000;          // SfM-like points sampled on visible surfaces
  int samples_per_axis = 2;   // anti-aliasing: samples_per_axis^2 rays per pixel
  int threads = 0;            // 0 = all cores; does not change the output
  bool show_progress = false; // progress bar on stderr while rendering
  // The lens the photos are taken through (written to cameras.txt as this COLMAP model): its
  // parameters after the focal length(s) and principal point, in COLMAP's order. The default
  // pinhole gives the classic demo; a distorted lens tests undistortion end to end.
  CameraModel lens_model = CameraModel::Pinhole;
  std::vector<double> lens_distortion;
};

// The COLMAP parameter list of the demo camera for these options and size (focal length(s),
// principal point, distortion); throws std::invalid_argument when the distortion has the wrong
// number of parameters for the model.
std::vector<double> demo_camera_params(const DemoOptions& options);

// Where a demo point was sampled: a view and a pixel position in it (pixel centres at +0.5).
struct PointSource {
  int view = 0;
  double x = 0, y = 0;
};

struct DemoScene {
  CameraModel lens_model = CameraModel::Pinhole;
  std::vector<double> camera_params;  // COLMAP's parameter list of the one camera, for lens_model
  std::vector<SceneView> views;  // names, focal/principal point, world-to-camera poses (COLMAP convention)
  std::vector<ImageRGB8> images; // parallel to views
  std::vector<ScenePoint> points;
  std::vector<PointSource> point_sources;  // parallel to points; not written to disk (tests use it)
};

// Number of views the generator places (fixed: it is part of the scene, not an option).
int demo_view_count();

// Renders the views and samples the points in memory. Same options, same scene, bit for bit.
DemoScene generate_demo_scene(const DemoOptions& options = {});

// Writes images/<name>.png and sparse/0/{cameras,images,points3D}.txt under folder.
void write_demo_scene(const DemoScene& scene, const std::filesystem::path& folder);

struct DemoSceneInfo {
  std::filesystem::path folder;
  bool regenerated = false;  // false: the cached copy was up to date
  int views = 0, points = 0, width = 0, height = 0;
};

// Makes sure `folder` holds the demo scene for these options, regenerating only when its stamp
// file (generator version + options) differs or `force` is set. Refuses a non-empty folder that
// has no stamp, so it never writes over someone's data. The scene is written beside the folder and
// renamed into place, so processes opening it at once each find a whole scene.
DemoSceneInfo ensure_demo_scene(const std::filesystem::path& folder, const DemoOptions& options = {},
                                bool force = false);

// $XDG_CACHE_HOME/splatlab/demo, else ~/.cache/splatlab/demo (else ./splatlab-demo).
std::filesystem::path default_demo_folder();

}  // namespace splat::demo
