#pragma once
// Writes a COLMAP sparse model (cameras, images, points3D) that COLMAP and read_reconstruction
// accept: synthetic scenes, tests, exports. Images get no keypoints and points no tracks.
#include <filesystem>
#include <vector>

#include "core/scene/colmap_reader.h"

namespace splat::colmap {

// cameras.txt, images.txt, points3D.txt in folder (created when missing).
void write_colmap_text(const std::filesystem::path& folder, const std::vector<Camera>& cameras,
                       const std::vector<Image>& images, const std::vector<Point>& points);

// cameras.bin, images.bin, points3D.bin in folder (created when missing).
void write_colmap_binary(const std::filesystem::path& folder, const std::vector<Camera>& cameras,
                         const std::vector<Image>& images, const std::vector<Point>& points);

}  // namespace splat::colmap
