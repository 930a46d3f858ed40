#include "ui/viewport_texture.h"

namespace splat::ui {

ViewportTexture::~ViewportTexture() {
  for (Slot& s : slots_) release(s);
}

void ViewportTexture::release(Slot& s) {
  s.cuda.reset();  // unregister before the texture goes
  if (s.texture) glDeleteTextures(1, &s.texture);
  s = Slot{};
}

void ViewportTexture::use(int width, int height, bool for_cuda) {
  const auto fits = [&](const Slot& s) {
    return s.texture && s.width == width && s.height == height && for_cuda == (s.cuda != nullptr);
  };
  if (fits(slots_[current_])) return;
  current_ = 1 - current_;
  Slot& s = slots_[current_];
  if (fits(s)) return;
  release(s);
  glCreateTextures(GL_TEXTURE_2D, 1, &s.texture);
  glTextureStorage2D(s.texture, 1, GL_RGBA8, width, height);
  glTextureParameteri(s.texture, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  glTextureParameteri(s.texture, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  glTextureParameteri(s.texture, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTextureParameteri(s.texture, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  s.width = width;
  s.height = height;
  if (for_cuda) s.cuda = std::make_unique<CudaGlTexture>(s.texture);
}

void ViewportTexture::update(const ViewRasterizer& view, const ColorizeParams& params) {
  const bool cuda = view.device() == kernels::Device::CUDA;
  if (!cuda) return upload(view.colorize(params));
  use(view.width(), view.height(), true);
  // On the viewer's stream: in order after its render, and at its low priority.
  slots_[current_].cuda->write(view.rgb(), view.alpha(), view.depth(), width(), height(), params, view.context().stream);
}

void ViewportTexture::upload(const ImageRGBA8& img) {
  use(img.width, img.height, false);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glTextureSubImage2D(id(), 0, 0, 0, width(), height(), GL_RGBA, GL_UNSIGNED_BYTE, img.pixels.data());
}

}  // namespace splat::ui
