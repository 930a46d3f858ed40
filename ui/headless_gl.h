#pragma once
// A desktop GL 4.5 core context with no window or display server: the EGL device platform
// (eglQueryDevicesEXT -> eglGetPlatformDisplayEXT) on the first device that gives one. This is how
// the viewport's CUDA-GL path runs on the headless GPU machines (GLFW's EGL/null platform does
// not work there, see /work/shared/GPU.md). The context is current on the constructing thread
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
  bool try_device(void* egl_device);
  void* display_ = nullptr;  // EGLDisplay
  void* context_ = nullptr;  // EGLContext
};

}  // namespace splat::ui
