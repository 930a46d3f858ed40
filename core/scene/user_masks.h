#pragma once
// Optional per-image masks supplied with a capture: a masks/ folder beside images/ (masks_N/ beside
// images_N/), one PNG per photo, 0 = masked out. Masks cover what a user does not want learned
// (people walking by, the capture rig, a sky with no parallax), or everything but the object of an
// object capture. What masked-out pixels then mean is the MaskMode.
#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "core/scene/scene.h"

namespace splat {

// Ignore: masked-out pixels are left out of the loss and the metrics (nothing there is learned, so
// whatever the other views put there stays, floaters included). Alpha: they show the background
// colour and are trained like any other pixel, so that nothing opaque grows where the mask says
// there is nothing: an object captured with masks exports without the surroundings.
enum class MaskMode { Ignore, Alpha };
const char* mask_mode_name(MaskMode m);
// "ignore" or "alpha"; throws std::invalid_argument naming the accepted values.
MaskMode parse_mask_mode(const std::string& name);

// Paints the pixels `mask` leaves out (0) with `fill` (0..1 per channel, rounded to 8 bits); the
// mask is the photo's size.
void fill_masked_out(ImageRGB8& photo, const PixelMask& mask, const std::array<float, 3>& fill);

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
