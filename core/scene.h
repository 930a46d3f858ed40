#pragma once
// A posed image collection as loaded from a COLMAP folder: what every later stage consumes.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/hd_math.h"
#include "kernels/rasterizer.h"

namespace splat {

enum class CameraModel { SimplePinhole, Pinhole, SimpleRadial, Radial, OpenCV };
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

struct Scene {
  std::string root;               // the scene folder
  std::vector<SceneView> views;   // sorted by image name
  std::vector<ScenePoint> points; // SfM points
  std::vector<ImageRGB8> images;  // parallel to views; empty until images are loaded
  Vec3d center{};                 // mean camera centre
  double extent = 1.0;            // 1.1 x the largest camera distance from center (3DGS convention)

  std::vector<int> train_indices() const;
  std::vector<int> test_indices() const;
};

}  // namespace splat
