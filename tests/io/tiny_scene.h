#pragma once
// A small synthetic COLMAP scene for the io tests: a ring of cameras looking at the origin,
// written as .txt or .bin with solid-colour PNG images, plus helpers to corrupt files.
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/scene/colmap_reader.h"

namespace splat::test::tiny {

struct TinyScene {
  std::vector<colmap::Camera> cameras;
  std::vector<colmap::Image> images;
  std::vector<colmap::Point> points;
};

// Image k (k = 0..n-1) is named img_<k>.png, uses camera 1 + k % 3, sits at angle 0.5 k about
// the y axis at distance 4 from the origin (centre (4 sin a, 0, -4 cos a)), and is listed in
// reverse name order so that loaders must sort. Camera 1 PINHOLE, 2 SIMPLE_PINHOLE, 3 OPENCV.
TinyScene tiny_reconstruction(int n_images = 10);

// The solid colour of image k.
std::array<uint8_t, 3> tiny_colour(int k);

// Writes sparse/0 (.txt or .bin) and images/ (one PNG per image at its camera's size).
void write_tiny_scene(const std::filesystem::path& folder, const TinyScene& s, bool binary);

void write_png(const std::filesystem::path& file, const ImageRGB8& img);
ImageRGB8 solid_image(int width, int height, std::array<uint8_t, 3> rgb);

void write_file(const std::filesystem::path& file, const std::string& bytes);
std::string read_file(const std::filesystem::path& file);

// Appends the raw bytes of a value (for hand-made binary files).
template <class T>
void append(std::string& bytes, T v) {
  bytes.append(reinterpret_cast<const char*>(&v), sizeof v);
}

// The message of the SceneError fn throws, or "" when it throws none (other exceptions pass).
std::string scene_error_of(const std::function<void()>& fn);

}  // namespace splat::test::tiny
