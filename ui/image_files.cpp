#include "ui/image_files.h"

#include <stb_image_write.h>

#include <stdexcept>
#include <vector>

namespace splat::ui {

void write_png(const std::filesystem::path& file, const ImageRGBA8& image) {
  const size_t n = static_cast<size_t>(image.width) * image.height;
  if (image.width <= 0 || image.height <= 0 || image.pixels.size() != 4 * n)
    throw std::runtime_error(file.string() + ": no image to write (" + std::to_string(image.width) + "x" +
                             std::to_string(image.height) + ")");
  std::vector<uint8_t> rgb(3 * n);
  for (size_t i = 0; i < n; ++i)
    for (int c = 0; c < 3; ++c) rgb[3 * i + c] = image.pixels[4 * i + c];
  if (file.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(file.parent_path(), ec);
  }
  if (!stbi_write_png(file.string().c_str(), image.width, image.height, 3, rgb.data(), image.width * 3))
    throw std::runtime_error(file.string() + ": cannot write the PNG file (folder missing or not writable?)");
}

}  // namespace splat::ui
