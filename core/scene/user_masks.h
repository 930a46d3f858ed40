#pragma once
// Optional per-image masks supplied with a capture: a masks/ folder beside images/ (masks_N/ beside
// images_N/), one PNG per photo, 0 = leave the pixel out of the loss and the metrics. Masks cover
// what a user does not want learned (people walking by, the capture rig, a sky with no parallax).
#include <filesystem>
#include <optional>
#include <string>

#include "core/scene/scene.h"

namespace splat {

// The masks folder that belongs to an images folder: its name with "images" replaced by "masks".
std::filesystem::path masks_dir_for(const std::filesystem::path& images_dir);

// The mask file of an image when the folder has one: <name>.png (COLMAP's convention, e.g.
// a.jpg.png) or <name> with its extension replaced by .png (a.png).
std::optional<std::filesystem::path> find_mask_file(const std::filesystem::path& masks_dir, const std::string& image_name);

// Reads a mask (any stb-readable image, colour converted to grey; nonzero = valid). Throws
// SceneError naming the file when it cannot be read or when its size is not width x height.
PixelMask read_mask(const std::filesystem::path& file, int width, int height);

// Downsamples a mask (area filter): an output pixel stays valid when most of its area is valid.
PixelMask resize_mask(const PixelMask& mask, int width, int height, int out_width, int out_height);

}  // namespace splat
