#pragma once
// A desktop GL 4.5 core context with no window or display server: the EGL device platform
// (eglQueryDevicesEXT -> eglGetPlatformDisplayEXT) on the first device that gives one, preferring
// the GPU that is CUDA device 0 (where the viewport's CUDA path registers its textures; on a
// machine with several GPUs EGL may list first one that CUDA_VISIBLE_DEVICES hides). This is how
// the viewport's CUDA-GL path runs on headless GPU machines (GLFW's EGL/null platform does not
// work on a GPU server with no display). The context is current on the constructing thread
// and GL entry points are loaded; it is released on destruction.
#include <string>

namespace splat::ui {

class HeadlessGl {
 public:
  // Throws std::runtime_error when no EGL device gives a desktop GL 4.5 core context.
  HeadlessGl();
  ~HeadlessGl();
  HeadlessGl(const HeadlessGl&) = delete;
  HeadlessGl& operator=(const HeadlessGl&) = delete;

  std::string renderer() const;  // GL_RENDERER

 private:
  // Makes a context on the device current; with `on_cuda_device_0`, only if that GPU is CUDA device 0.
  bool try_device(void* egl_device, bool on_cuda_device_0);
  void release();
  void* display_ = nullptr;  // EGLDisplay
  void* context_ = nullptr;  // EGLContext
};

}  // namespace splat::ui
