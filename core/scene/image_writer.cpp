#include "core/scene/image_writer.h"

#include <stb_image_write.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>

namespace splat {

void write_png(const std::filesystem::path& file, const std::vector<float>& rgb, int width, int height) {
  std::vector<uint8_t> px(rgb.size());
  for (size_t i = 0; i < rgb.size(); ++i) px[i] = uint8_t(std::lround(std::clamp(rgb[i], 0.f, 1.f) * 255.f));
  if (!stbi_write_png(file.string().c_str(), width, height, 3, px.data(), width * 3))
    throw std::runtime_error(file.string() + ": cannot write PNG");
}

}  // namespace splat
