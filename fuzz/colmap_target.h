#pragma once
// The COLMAP fuzz targets (binary and text) share their shape: the input's first byte picks which
// of the model's three files the rest is (cameras, images, points3D), and that file goes through
// its reader.
#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>

#include "fuzz/fuzz_file.h"

namespace splat::fuzz {

struct ColmapFile {
  const char* name;  // as COLMAP names it: cameras.bin, images.txt, ...
  std::function<void(const std::filesystem::path&)> read;
};

inline int fuzz_colmap_file(const std::array<ColmapFile, 3>& files, const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const ColmapFile& f = files[data[0] % files.size()];
  const std::filesystem::path file = scratch_file(f.name);
  write_file(file, {data + 1, size - 1});
  expect_accept_or_refuse(file, [&] { f.read(file); });
  return 0;
}

}  // namespace splat::fuzz
