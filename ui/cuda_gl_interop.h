#pragma once
// The viewport's CUDA path: rasterizer outputs on the CUDA device are colourised straight into a
// GL texture registered with CUDA (cudaGraphicsGLRegisterImage + a surface object), so a frame never
// travels through host memory. The texture must be GL_RGBA8 and as large as the written image.
// Header free of CUDA and GL includes so that GL code can use it (glad and cuda_gl_interop.h's
// <GL/gl.h> cannot share a translation unit).
#include "ui/view_colorize.h"

namespace splat::ui {

// Whether the GL context current on this thread runs on CUDA device `ordinal`, the device whose
// textures CudaGlTexture registers: not where CUDA cannot see that GPU (a CUDA_VISIBLE_DEVICES that
// leaves out the GPU that GL picked) or sees it under another ordinal.
bool current_gl_on_cuda_device(int ordinal);

class CudaGlTexture {
 public:
  // Registers the GL texture (name as GLuint) with the current CUDA device; throws on failure.
  explicit CudaGlTexture(unsigned gl_texture);
  ~CudaGlTexture();
  CudaGlTexture(const CudaGlTexture&) = delete;
  CudaGlTexture& operator=(const CudaGlTexture&) = delete;

  // rgb [h,w,3], alpha [h,w] and depth [h,w] (may be null unless the mode is Depth) are device
  // pointers. Maps the texture, runs colorize_pixel per pixel into it and unmaps (which orders the
  // write before GL's later use of the texture on `stream`).
  void write(const float* rgb, const float* alpha, const float* depth, int width, int height,
             const ColorizeParams& params, void* cuda_stream = nullptr);

 private:
  void* resource_ = nullptr;  // cudaGraphicsResource_t
};

}  // namespace splat::ui
