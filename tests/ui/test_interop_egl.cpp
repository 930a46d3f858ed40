// The viewport's CUDA-GL interop path, headless: an EGL context on the GPU (EGL device platform,
// desktop GL 4.5 core, no window), the CUDA rasterizer writing into the registered texture, and
// the texture read back with glReadPixels must equal the CUDA outputs colourised on the host.
#include <catch2/catch.hpp>

#include <glad/egl.h>
#include <glad/gl.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <vector>

#include "core/gaussian_model.h"
#include "tests/support/test_support.h"
#include "ui/orbit_camera.h"
#include "ui/view_rasterizer.h"
#include "ui/viewport_texture.h"

using namespace splat;
using namespace splat::ui;

namespace {
// A current desktop GL context on the first EGL device that gives one; released on destruction.
class HeadlessGl {
 public:
  HeadlessGl() {
    REQUIRE(gladLoaderLoadEGL(EGL_NO_DISPLAY) != 0);  // client extensions: device enumeration
    REQUIRE(eglQueryDevicesEXT != nullptr);
    REQUIRE(eglGetPlatformDisplayEXT != nullptr);
    EGLDeviceEXT devices[16];
    EGLint count = 0;
    REQUIRE(eglQueryDevicesEXT(16, devices, &count));
    for (EGLint i = 0; i < count && context_ == EGL_NO_CONTEXT; ++i) try_device(devices[i]);
    REQUIRE(context_ != EGL_NO_CONTEXT);
    REQUIRE(gladLoadGL(reinterpret_cast<GLADloadfunc>(eglGetProcAddress)) != 0);
  }
  ~HeadlessGl() {
    eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(display_, context_);
    eglTerminate(display_);
  }

 private:
  void try_device(EGLDeviceEXT device) {
    EGLDisplay d = eglGetPlatformDisplayEXT(EGL_PLATFORM_DEVICE_EXT, device, nullptr);
    if (d == EGL_NO_DISPLAY || !eglInitialize(d, nullptr, nullptr)) return;
    gladLoaderLoadEGL(d);  // display extensions
    const EGLint config_attribs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
    EGLConfig config;
    EGLint n = 0;
    if (!eglBindAPI(EGL_OPENGL_API) || !eglChooseConfig(d, config_attribs, &config, 1, &n) || n < 1) {
      eglTerminate(d);
      return;
    }
    const EGLint context_attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, 5,
                                      EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
    EGLContext c = eglCreateContext(d, config, EGL_NO_CONTEXT, context_attribs);
    if (c == EGL_NO_CONTEXT || !eglMakeCurrent(d, EGL_NO_SURFACE, EGL_NO_SURFACE, c)) {
      if (c != EGL_NO_CONTEXT) eglDestroyContext(d, c);
      eglTerminate(d);
      return;
    }
    display_ = d;
    context_ = c;
  }
  EGLDisplay display_ = EGL_NO_DISPLAY;
  EGLContext context_ = EGL_NO_CONTEXT;
};

// The texture's pixels through a framebuffer and glReadPixels, rows in texture order.
std::vector<uint8_t> read_texture(GLuint texture, int width, int height) {
  GLuint fbo = 0;
  glCreateFramebuffers(1, &fbo);
  glNamedFramebufferTexture(fbo, GL_COLOR_ATTACHMENT0, texture, 0);
  REQUIRE(glCheckNamedFramebufferStatus(fbo, GL_READ_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo);
  std::vector<uint8_t> px(static_cast<size_t>(width) * height * 4);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, px.data());
  glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
  glDeleteFramebuffers(1, &fbo);
  REQUIRE(glGetError() == GL_NO_ERROR);
  return px;
}
}  // namespace

TEST_CASE("CUDA-GL interop writes the CUDA render into the GL texture", "[gpu][ui][interop]") {
  if (!splat::test::gpu_or_skip("CUDA-GL interop through EGL")) return;
  HeadlessGl gl;
  INFO("GL_RENDERER " << reinterpret_cast<const char*>(glGetString(GL_RENDERER)));

  RandomInitOptions init;
  init.count = 3000;
  init.seed = 7;
  auto model = std::make_shared<GaussianModel>(init_random(init));
  OrbitCamera cam;
  cam.frame({0, 0, 0}, 1.2);
  cam.orbit(60, 25);

  ViewRasterizer raster(kernels::Device::CUDA);
  raster.set_gaussians(model, 1);
  raster.render(cam.camera(333, 211), {});  // odd sizes: no accidental alignment
  ViewportTexture texture;
  for (RenderMode mode : {RenderMode::RGB, RenderMode::Depth, RenderMode::Alpha}) {
    const ColorizeParams params{mode, 0.f, static_cast<float>(2 * cam.distance())};
    texture.update(raster, params);
    const std::vector<uint8_t> got = read_texture(texture.id(), 333, 211);
    const ImageRGBA8 want = raster.colorize(params);
    REQUIRE(got.size() == want.pixels.size());
    // Same function on both sides; the device may fuse v * 255 + 0.5 into one rounding, so a
    // channel may differ by one step, rarely.
    size_t off_by_one = 0, distinct = 0;
    int max_diff = 0;
    for (size_t i = 0; i < got.size(); ++i) {
      const int d = std::abs(int(got[i]) - int(want.pixels[i]));
      max_diff = std::max(max_diff, d);
      off_by_one += d != 0;
      distinct += got[i] != got[i % 4];
    }
    REQUIRE(max_diff <= 1);
    CHECK(off_by_one <= got.size() / 1000);
    REQUIRE(distinct > got.size() / 10);  // not a blank image
  }
}
