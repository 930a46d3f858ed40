#pragma once
// The GL texture the viewport shows, filled from a ViewRasterizer's last render: through CUDA-GL
// interop when the rasterizer runs on CUDA (no host round trip), by glTexSubImage2D from the CPU
// backend otherwise; or host pixels.
//
// The viewport switches between two render sizes, reduced while the camera moves during training and
// full once it rests (ui/motion_resolution.h), so the texture of each of the last two sizes is kept:
// going back to a size reuses its texture and its CUDA registration instead of registering a new one
// at every move and every rest.
#include <array>
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

  // Copies the rasterizer's last render into the texture (another one of its size, kept or new, when
  // the size changed).
  void update(const ViewRasterizer& view, const ColorizeParams& params);
  // Copies host pixels into the texture (the Compare window's image, the CPU path of update()).
  void upload(const ImageRGBA8& image);
  // The texture last written.
  GLuint id() const { return slots_[current_].texture; }
  int width() const { return slots_[current_].width; }
  int height() const { return slots_[current_].height; }

 private:
  struct Slot {
    GLuint texture = 0;
    int width = 0, height = 0;
    std::unique_ptr<CudaGlTexture> cuda;  // registered while the texture is fed by CUDA
  };
  // Makes current a texture of this size and kind: the current one, the other kept one, or a new one in
  // place of the other.
  void use(int width, int height, bool for_cuda);
  static void release(Slot& slot);

  std::array<Slot, 2> slots_;
  int current_ = 0;
};

}  // namespace splat::ui
