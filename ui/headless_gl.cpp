#include "ui/headless_gl.h"

#include "ui/gl.h"  // glad's GL header before EGL's

#include <glad/egl.h>

#include <stdexcept>

#include "ui/cuda_gl_interop.h"

namespace splat::ui {

HeadlessGl::HeadlessGl() {
  // Without a display glad loads the client extensions, which include device enumeration.
  if (!gladLoaderLoadEGL(EGL_NO_DISPLAY) || !eglQueryDevicesEXT || !eglGetPlatformDisplayEXT)
    throw std::runtime_error("headless GL: libEGL with EGL_EXT_device_enumeration and EGL_EXT_platform_device is missing");
  EGLDeviceEXT devices[16];
  EGLint count = 0;
  if (!eglQueryDevicesEXT(16, devices, &count) || count == 0)
    throw std::runtime_error("headless GL: EGL lists no devices");
  for (EGLint i = 0; i < count && !context_; ++i) try_device(devices[i], true);
  for (EGLint i = 0; i < count && !context_; ++i) try_device(devices[i], false);
  if (!context_) throw std::runtime_error("headless GL: no EGL device gives a desktop OpenGL 4.5 core context");
  if (!gladLoadGL(reinterpret_cast<GLADloadfunc>(eglGetProcAddress)))
    throw std::runtime_error("headless GL: cannot load the OpenGL 4.5 functions");
}

HeadlessGl::~HeadlessGl() { release(); }

void HeadlessGl::release() {
  const auto d = static_cast<EGLDisplay>(display_);
  eglMakeCurrent(d, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglDestroyContext(d, static_cast<EGLContext>(context_));
  eglTerminate(d);
  display_ = context_ = nullptr;
}

std::string HeadlessGl::renderer() const { return reinterpret_cast<const char*>(glGetString(GL_RENDERER)); }

bool HeadlessGl::try_device(void* egl_device, bool on_cuda_device_0) {
  EGLDisplay d = eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, egl_device, nullptr);
  if (d == EGL_NO_DISPLAY || !eglInitialize(d, nullptr, nullptr)) return false;
  gladLoaderLoadEGL(d);  // the display's extensions and EGL 1.5 entry points
  // No surface is ever drawn to (callers render into framebuffer objects); the config only has to
  // allow a desktop GL context.
  const EGLint config_attribs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
  EGLConfig config;
  EGLint n = 0;
  if (!eglBindAPI(EGL_OPENGL_API) || !eglChooseConfig(d, config_attribs, &config, 1, &n) || n < 1) {
    eglTerminate(d);
    return false;
  }
  const EGLint context_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, 5,
                                    EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
  EGLContext c = eglCreateContext(d, config, EGL_NO_CONTEXT, context_attribs);
  if (c == EGL_NO_CONTEXT || !eglMakeCurrent(d, EGL_NO_SURFACE, EGL_NO_SURFACE, c)) {
    if (c != EGL_NO_CONTEXT) eglDestroyContext(d, c);
    eglTerminate(d);
    return false;
  }
  display_ = d;
  context_ = c;
  if (on_cuda_device_0 && !current_gl_on_cuda_device(0)) {
    release();
    return false;
  }
  return true;
}

}  // namespace splat::ui
