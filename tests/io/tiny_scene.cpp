#include "tests/io/tiny_scene.h"

#include <stb_image_write.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "core/scene/colmap_writer.h"
#include "core/scene/scene_errors.h"

namespace splat::test::tiny {
namespace fs = std::filesystem;

TinyScene tiny_reconstruction(int n) {
  TinyScene s;
  s.cameras.push_back({1, CameraModel::Pinhole, 40, 30, {50, 52, 20, 15}});
  s.cameras.push_back({2, CameraModel::SimplePinhole, 40, 30, {45, 19.5, 15.5}});
  s.cameras.push_back({3, CameraModel::OpenCV, 40, 30, {48, 47, 20, 15, -0.1, 0.01, 0.002, -0.001}});
  for (int k = n - 1; k >= 0; --k) {
    const double a = 0.5 * k;
    colmap::Image im;
    im.id = 100 + k;
    im.qvec = {std::cos(a / 2), 0, std::sin(a / 2), 0};  // rotation by a about y
    im.tvec = {0, 0, 4};
    im.camera_id = 1 + k % 3;
    im.name = "img_" + std::to_string(k) + ".png";
    s.images.push_back(im);
  }
  for (int i = 0; i < 5; ++i) s.points.push_back({static_cast<uint64_t>(7 + i), {0.1 * i, -0.2 * i, 0.3}, {uint8_t(10 * i), 20, 30}, 0.5 + i});
  return s;
}

std::array<uint8_t, 3> tiny_colour(int k) { return {static_cast<uint8_t>(20 * k), static_cast<uint8_t>(200 - 10 * k), 77}; }

ImageRGB8 solid_image(int width, int height, std::array<uint8_t, 3> rgb) {
  ImageRGB8 img{width, height, {}};
  for (int i = 0; i < width * height; ++i) img.pixels.insert(img.pixels.end(), rgb.begin(), rgb.end());
  return img;
}

void write_png(const fs::path& file, const ImageRGB8& img) {
  fs::create_directories(file.parent_path());
  if (!stbi_write_png(file.c_str(), img.width, img.height, 3, img.pixels.data(), img.width * 3))
    throw std::runtime_error("cannot write " + file.string());
}

void write_tiny_scene(const fs::path& folder, const TinyScene& s, bool binary) {
  const fs::path sparse = folder / "sparse" / "0";
  if (binary) colmap::write_colmap_binary(sparse, s.cameras, s.images, s.points);
  else colmap::write_colmap_text(sparse, s.cameras, s.images, s.points);
  for (const colmap::Image& im : s.images) {
    const colmap::Camera* cam = nullptr;
    for (const auto& c : s.cameras)
      if (c.id == im.camera_id) cam = &c;
    if (!cam) continue;  // a test that removed the camera checks that error
    write_png(folder / "images" / im.name, solid_image(cam->width, cam->height, tiny_colour(im.id - 100)));
  }
}

void write_file(const fs::path& file, const std::string& bytes) {
  fs::create_directories(file.parent_path());
  std::ofstream out(file, std::ios::binary);
  out << bytes;
  if (!out) throw std::runtime_error("cannot write " + file.string());
}

std::string read_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string scene_error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const SceneError& e) {
    return e.what();
  }
  return "";
}

}  // namespace splat::test::tiny
