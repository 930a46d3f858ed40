#pragma once
// A posed image collection as loaded from a COLMAP folder: what every later stage consumes.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/hd_math.h"
#include "kernels/rasterizer.h"

namespace splat {

// COLMAP's camera models, numbered as COLMAP's model ids (parameters and formulas: core/scene/lens_model.h).
enum class CameraModel {
  SimplePinhole = 0,
  Pinhole = 1,
  SimpleRadial = 2,
  Radial = 3,
  OpenCV = 4,
  OpenCVFisheye = 5,
  FullOpenCV = 6,
  FOV = 7,
  SimpleRadialFisheye = 8,
  RadialFisheye = 9,
  ThinPrismFisheye = 10,
};
const char* camera_model_name(CameraModel m);

// Pinhole intrinsics in pixels, after undistortion and after the data factor.
struct PinholeIntrinsics {
  int width = 0, height = 0;
  double fx = 0, fy = 0, cx = 0, cy = 0;
};

// An 8-bit RGB image, row-major, 3 bytes per pixel.
struct ImageRGB8 {
  int width = 0, height = 0;
  std::vector<uint8_t> pixels;
};

struct SceneView {
  std::string name;        // image name as listed by COLMAP (relative to images/)
  std::string image_path;  // resolved file on disk
  int camera_id = 0;
  CameraModel source_model = CameraModel::Pinhole;  // model before undistortion
  PinholeIntrinsics intrinsics;
  double kept_fraction = 1;     // share of the photo's area the training image shows (undistortion)
  Mat3d R = Mat3d::identity();  // world-to-camera rotation (COLMAP convention)
  Vec3d t{};                    // world-to-camera translation
  bool is_test = false;         // every 8th image sorted by name

  Vec3d camera_center() const { return -(transpose(R) * t); }
  kernels::Camera to_kernel_camera() const;
};

struct ScenePoint {
  Vec3d xyz{};
  std::array<uint8_t, 3> rgb{};
};

// Which pixels of a loaded image take part in the loss and the metrics: 1 = valid, 0 = ignored
// (its source lies outside the photo after undistortion, or the user's mask leaves it out).
// Row-major, the image's size; empty = every pixel valid.
using PixelMask = std::vector<uint8_t>;

struct Scene {
  std::string root;               // the scene folder
  std::vector<SceneView> views;   // sorted by image name
  std::vector<ScenePoint> points; // SfM points
  std::vector<ImageRGB8> images;  // parallel to views; empty until images are loaded
  std::vector<PixelMask> masks;   // parallel to images; empty when no image has ignored pixels
  std::vector<std::string> notes; // what loading changed that a user should hear once (crops, rescales)
  Vec3d center{};                 // mean camera centre
  double extent = 1.0;            // 1.1 x the largest camera distance from center (3DGS convention)

  bool has_masks() const { return !masks.empty(); }
  // The mask of view v, or null when every pixel of it is valid.
  const uint8_t* mask(size_t v) const { return v < masks.size() && !masks[v].empty() ? masks[v].data() : nullptr; }

  std::vector<int> train_indices() const;
  std::vector<int> test_indices() const;
};

}  // namespace splat
