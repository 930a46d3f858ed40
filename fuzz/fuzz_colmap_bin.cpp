// libFuzzer target: the COLMAP binary readers (core/scene/colmap_reader.h). Input: one byte that picks
// the file (0 cameras.bin, 1 images.bin, 2 points3D.bin, modulo 3), then the file's bytes.
#include "core/scene/colmap_reader.h"
#include "fuzz/colmap_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace splat::colmap;
  static const std::array<splat::fuzz::ColmapFile, 3> files = {{
      {"cameras.bin", [](const auto& f) { read_cameras_bin(f); }},
      {"images.bin", [](const auto& f) { read_images_bin(f); }},
      {"points3D.bin", [](const auto& f) { read_points_bin(f); }},
  }};
  return splat::fuzz::fuzz_colmap_file(files, data, size);
}
