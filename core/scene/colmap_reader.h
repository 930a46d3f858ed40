#pragma once
// Reads a COLMAP sparse reconstruction (cameras, images, points3D) in either the binary (.bin)
// or the text (.txt) format. Only what splatlab uses is kept: 2D keypoints and point tracks are
// validated and skipped. Every problem throws SceneError naming the file (and the line for .txt).
// Both formats check values the same way before anything uses them: camera sizes, focal lengths
// (positive, within a wide ratio of the image), principal points (near the image), finite
// parameters; finite and bounded translations and point positions; normalisable quaternions;
// image names that are relative paths inside the images folder. Counts in .bin files are checked
// against the bytes left before they size anything. User text in messages is quoted and escaped.
#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/scene/scene.h"

namespace splat::colmap {

struct Camera {
  int id = 0;
  CameraModel model = CameraModel::Pinhole;
  int width = 0, height = 0;
  std::vector<double> params;  // in COLMAP's order for the model (see model_param_names)
};

struct Image {
  int id = 0;
  std::array<double, 4> qvec{1, 0, 0, 0};  // world-to-camera rotation (w, x, y, z)
  Vec3d tvec{};                            // world-to-camera translation
  int camera_id = 0;
  std::string name;  // relative to the images folder
};

struct Point {
  uint64_t id = 0;
  Vec3d xyz{};
  std::array<uint8_t, 3> rgb{};
  double error = 0;
};

struct Reconstruction {
  std::filesystem::path sparse_dir;
  std::filesystem::path cameras_file, images_file, points_file;  // the files actually read
  std::vector<Camera> cameras;  // in file order
  std::vector<Image> images;    // in file order
  std::vector<Point> points;
};

// COLMAP's numeric model id and name of a supported model, its parameter count and names.
int model_id(CameraModel m);
int model_param_count(CameraModel m);
std::vector<std::string> model_param_names(CameraModel m);

// sparse/0 when it holds a model, else sparse/; throws SceneError when neither does.
std::filesystem::path find_sparse_dir(const std::filesystem::path& scene_folder);

// Reads the three files from a sparse folder, each as .bin when present, else .txt.
Reconstruction read_reconstruction(const std::filesystem::path& sparse_dir);

std::vector<Camera> read_cameras_bin(const std::filesystem::path& file);
std::vector<Image> read_images_bin(const std::filesystem::path& file);
std::vector<Point> read_points_bin(const std::filesystem::path& file);
std::vector<Camera> read_cameras_txt(const std::filesystem::path& file);
std::vector<Image> read_images_txt(const std::filesystem::path& file);
std::vector<Point> read_points_txt(const std::filesystem::path& file);

}  // namespace splat::colmap
