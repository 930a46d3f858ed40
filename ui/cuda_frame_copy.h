#pragma once
// The viewport's other CUDA path: rasterizer outputs are colourised on the device into RGBA8, copied
// to pinned host memory on the viewer's stream, and the host waits for that stream only. GL then
// uploads the pixels itself (glTexSubImage2D).
//
// Why there are two paths: registering the texture with CUDA (ui/cuda_gl_interop.h) skips the host,
// but mapping and unmapping a registered texture waits for the work of every stream of the CUDA
// context, not only the viewer's. While training shares the device, a frame then waits for the
// training steps already queued (tens of ms); this path waits only for its own render and a copy of
// 2 to 8 MB (bench/VIEWER.md).
// Header free of CUDA includes, like cuda_gl_interop.h.
#include <cstdint>

#include "ui/view_colorize.h"

namespace splat::ui {

class CudaFrameCopy {
 public:
  CudaFrameCopy() = default;
  ~CudaFrameCopy();
  CudaFrameCopy(const CudaFrameCopy&) = delete;
  CudaFrameCopy& operator=(const CudaFrameCopy&) = delete;

  // rgb [h,w,3], alpha [h,w] and depth [h,w] (may be null unless the mode is Depth) are device pointers
  // of the current CUDA device, written by work on `cuda_stream`. Returns width * height RGBA8 pixels in
  // host memory, valid until the next call; waits for `cuda_stream` (a counted host wait).
  const uint8_t* colorize(const float* rgb, const float* alpha, const float* depth, int width, int height,
                          const ColorizeParams& params, void* cuda_stream);

 private:
  void release();
  uint8_t* device_ = nullptr;
  uint8_t* host_ = nullptr;  // pinned
  size_t bytes_ = 0;
  int ordinal_ = -1;
};

}  // namespace splat::ui
