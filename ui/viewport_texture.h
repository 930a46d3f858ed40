#pragma once
// The GL texture the viewport shows, filled from a ViewRasterizer's last render: through CUDA-GL
// interop when the rasterizer runs on CUDA (no host round trip), by glTexSubImage2D from the CPU
// backend otherwise; or host pixels.
#include <memory>

#include "ui/cuda_gl_interop.h"
#include "ui/gl.h"
#include "ui/view_rasterizer.h"

namespace splat::ui {

class ViewportTexture {
 public:
  ViewportTexture() = default;
  ~ViewportTexture();
  ViewportTexture(const ViewportTexture&) = delete;
  ViewportTexture& operator=(const ViewportTexture&) = delete;

  // Copies the rasterizer's last render into the texture (reallocating it on a size change).
  void update(const ViewRasterizer& view, const ColorizeParams& params);
  // Copies host pixels into the texture (the Compare window's image, the CPU path of update()).
  void upload(const ImageRGBA8& image);
  GLuint id() const { return texture_; }
  int width() const { return width_; }
  int height() const { return height_; }

 private:
  void allocate(int width, int height, bool for_cuda);

  GLuint texture_ = 0;
  int width_ = 0, height_ = 0;
  std::unique_ptr<CudaGlTexture> cuda_;  // registered while the texture is fed by CUDA
};

}  // namespace splat::ui
