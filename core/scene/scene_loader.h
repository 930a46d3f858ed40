#pragma once
// COLMAP folder -> splat::Scene: poses, pinhole intrinsics (undistorted, scaled for the data
// factor), the train/test split, the scene centre and extent, and optionally the images with
// their masks (pixels outside the undistorted photo, and the user's masks/ folder).
#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>

#include "core/scene/camera_undistortion.h"
#include "core/scene/colmap_reader.h"
#include "core/scene/scene.h"
#include "core/scene/user_masks.h"

namespace splat {

struct SceneLoadOptions {
  int data_factor = 1;        // images_N/ when present, else images/ downsampled by N on load
  bool load_images = true;    // false: poses, intrinsics and points only (image headers are still checked)
  int threads = 0;            // image decoding threads; 0 = all cores
  bool show_progress = true;  // progress bar and the scene's notes on stderr
  UndistortOptions undistort; // distorted lenses: mask or crop, fisheye field of view
  bool use_masks = true;      // read masks_N?/ beside the images folder when it exists
  MaskMode mask_mode = MaskMode::Ignore;  // what the masks' masked-out pixels mean (user_masks.h)
  std::array<float, 3> mask_fill{0, 0, 0};  // MaskMode::Alpha: their colour, the training background
  // Called with (images decoded so far, images to decode): once with done = 0 before decoding
  // starts, then after each image. Calls come from the decoding threads but never overlap, and
  // `done` increases by one per call, so a GUI can show the fraction. Not called when
  // load_images is false.
  std::function<void(int64_t done, int64_t total)> on_progress;
};

Scene load_scene(const std::filesystem::path& folder, const SceneLoadOptions& options = {});

// load_scene after the files are read: for callers that also want the raw COLMAP model.
Scene build_scene(const std::filesystem::path& folder, const colmap::Reconstruction& rec,
                  const SceneLoadOptions& options = {});

}  // namespace splat
