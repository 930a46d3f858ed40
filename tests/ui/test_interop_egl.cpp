// The viewport's CUDA-GL interop path, headless: an EGL context on the GPU (EGL device platform,
// desktop GL 4.5 core, no window), the CUDA rasterizer writing into the registered texture, and
// the texture read back with glReadPixels must equal the CUDA outputs colourised on the host.
#include <catch2/catch.hpp>

#include <glad/gl.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <vector>

#include "core/model/gaussian_model.h"
#include "tests/support/test_support.h"
#include "ui/headless_gl.h"
#include "ui/orbit_camera.h"
#include "ui/view_rasterizer.h"
#include "ui/viewport_texture.h"

using namespace splat;
using namespace splat::ui;

namespace {
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
  HeadlessGl gl;  // the viewer's own headless context (EGL device platform)
  INFO("GL_RENDERER " << gl.renderer());

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
