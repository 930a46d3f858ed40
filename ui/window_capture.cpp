#include "ui/window_capture.h"

#include <algorithm>

#include "ui/gl.h"

namespace splat::ui {

ImageRGBA8 read_back_buffer(int width, int height) {
  ImageRGBA8 img{width, height, std::vector<uint8_t>(static_cast<size_t>(width) * height * 4)};
  glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
  glReadBuffer(GL_BACK);
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, img.pixels.data());
  // GL's rows start at the bottom.
  const size_t row = static_cast<size_t>(width) * 4;
  for (int y = 0; y < height / 2; ++y)
    std::swap_ranges(img.pixels.begin() + y * row, img.pixels.begin() + (y + 1) * row,
                     img.pixels.begin() + (height - 1 - y) * row);
  return img;
}

}  // namespace splat::ui
