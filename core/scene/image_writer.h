#pragma once
// Writing a rendered image to a file: the one image format the engine writes (renders, evaluation
// images, camera-path frames).
#include <filesystem>
#include <vector>

namespace splat {

// Writes float RGB [H,W,3] (clamped to [0,1]) as an 8-bit PNG; throws std::runtime_error naming the file.
void write_png(const std::filesystem::path& file, const std::vector<float>& rgb, int width, int height);

}  // namespace splat
