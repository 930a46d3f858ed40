#include "ui/viewport_texture.h"

namespace splat::ui {

ViewportTexture::~ViewportTexture() {
  cuda_.reset();  // unregister before the texture goes
  if (texture_) glDeleteTextures(1, &texture_);
}

void ViewportTexture::allocate(int width, int height, bool for_cuda) {
  cuda_.reset();
  if (texture_) glDeleteTextures(1, &texture_);
  glCreateTextures(GL_TEXTURE_2D, 1, &texture_);
  glTextureStorage2D(texture_, 1, GL_RGBA8, width, height);
  glTextureParameteri(texture_, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  glTextureParameteri(texture_, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  glTextureParameteri(texture_, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTextureParameteri(texture_, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  width_ = width;
  height_ = height;
  if (for_cuda) cuda_ = std::make_unique<CudaGlTexture>(texture_);
}

void ViewportTexture::update(const ViewRasterizer& view, const ColorizeParams& params) {
  const bool cuda = view.device() == kernels::Device::CUDA;
  if (!texture_ || view.width() != width_ || view.height() != height_ || cuda != (cuda_ != nullptr))
    allocate(view.width(), view.height(), cuda);
  if (cuda) {
    // On the viewer's stream: in order after its render, and at its low priority.
    cuda_->write(view.rgb(), view.alpha(), view.depth(), width_, height_, params, view.context().stream);
    return;
  }
  upload(view.colorize(params));
}

void ViewportTexture::upload(const ImageRGBA8& img) {
  if (!texture_ || img.width != width_ || img.height != height_ || cuda_) allocate(img.width, img.height, false);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glTextureSubImage2D(texture_, 0, 0, 0, width_, height_, GL_RGBA, GL_UNSIGNED_BYTE, img.pixels.data());
}

}  // namespace splat::ui
