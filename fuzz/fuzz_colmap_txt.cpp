// libFuzzer target: the COLMAP text readers (core/scene/colmap_reader.h). Input: one byte that picks
// the file (0 cameras.txt, 1 images.txt, 2 points3D.txt, modulo 3), then the file's text.
#include "core/scene/colmap_reader.h"
#include "fuzz/colmap_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace splat::colmap;
  static const std::array<splat::fuzz::ColmapFile, 3> files = {{
      {"cameras.txt", [](const auto& f) { read_cameras_txt(f); }},
      {"images.txt", [](const auto& f) { read_images_txt(f); }},
      {"points3D.txt", [](const auto& f) { read_points_txt(f); }},
  }};
  return splat::fuzz::fuzz_colmap_file(files, data, size);
}
