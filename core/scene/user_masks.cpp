#include "core/scene/user_masks.h"

#include <stb_image.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/scene/image_loader.h"
#include "core/scene/scene_errors.h"

namespace splat {
namespace fs = std::filesystem;

fs::path masks_dir_for(const fs::path& images_dir) {
  std::string name = images_dir.filename().string();
  if (name.rfind("images", 0) == 0) name.replace(0, 6, "masks");
  else name = "masks";
  return images_dir.parent_path() / name;
}

std::optional<fs::path> find_mask_file(const fs::path& masks_dir, const std::string& image_name) {
  fs::path beside = masks_dir / image_name;
  for (const fs::path& candidate : {fs::path(beside.string() + ".png"), fs::path(beside).replace_extension(".png")}) {
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec)) return candidate;
  }
  return std::nullopt;
}

PixelMask read_mask(const fs::path& file, int width, int height) {
  int w = 0, h = 0, comp = 0;
  stbi_uc* data = stbi_load(file.c_str(), &w, &h, &comp, 1);
  if (!data) {
    const char* why = stbi_failure_reason();
    throw SceneError(file, std::string("not a readable mask image (stb_image: ") + (why ? why : "unknown reason") + ")");
  }
  PixelMask mask(static_cast<size_t>(w) * h);
  for (size_t i = 0; i < mask.size(); ++i) mask[i] = data[i] != 0;
  stbi_image_free(data);
  if (w != width || h != height)
    throw SceneError(file, "mask is " + std::to_string(w) + "x" + std::to_string(h) + " but its photo is " +
                               std::to_string(width) + "x" + std::to_string(height) + " (a mask must match its photo)");
  return mask;
}

PixelMask resize_mask(const PixelMask& mask, int width, int height, int out_width, int out_height) {
  // The area filter of the photos, on a 0/255 image: the same pixels average together.
  ImageRGB8 img{width, height, std::vector<uint8_t>(mask.size() * 3)};
  for (size_t i = 0; i < mask.size(); ++i) img.pixels[3 * i] = mask[i] ? 255 : 0;
  const ImageRGB8 small = resize_area(img, out_width, out_height);
  PixelMask out(static_cast<size_t>(out_width) * out_height);
  for (size_t i = 0; i < out.size(); ++i) out[i] = small.pixels[3 * i] >= 128;
  return out;
}

const char* mask_mode_name(MaskMode m) { return m == MaskMode::Ignore ? "ignore" : "alpha"; }

MaskMode parse_mask_mode(const std::string& name) {
  if (name == "ignore") return MaskMode::Ignore;
  if (name == "alpha") return MaskMode::Alpha;
  throw std::invalid_argument("mask mode must be 'ignore' or 'alpha', got '" + name + "'");
}

void fill_masked_out(ImageRGB8& photo, const PixelMask& mask, const std::array<float, 3>& fill) {
  if (mask.size() != size_t(photo.width) * size_t(photo.height))
    throw std::invalid_argument("fill_masked_out: a mask of " + std::to_string(mask.size()) + " pixels for a " +
                                std::to_string(photo.width) + "x" + std::to_string(photo.height) + " photo");
  uint8_t rgb[3];
  for (int c = 0; c < 3; ++c) rgb[c] = uint8_t(std::lround(std::clamp(fill[size_t(c)], 0.f, 1.f) * 255.f));
  for (size_t i = 0; i < mask.size(); ++i)
    if (!mask[i])
      for (int c = 0; c < 3; ++c) photo.pixels[3 * i + size_t(c)] = rgb[c];
}

}  // namespace splat
