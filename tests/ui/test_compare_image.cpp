// The render-versus-photo comparison's pixels: the heat map's colours, the per-pixel error, the
// split between render and photo, and masked pixels.
#include <catch2/catch.hpp>

#include <vector>

#include "ui/compare_image.h"

using namespace splat;
using namespace splat::ui;

namespace {
int brightness(const std::array<uint8_t, 3>& c) { return c[0] + c[1] + c[2]; }

// A photo of w x h with pixel value v(x, y) in every channel.
template <class F>
ImageRGB8 photo_of(int w, int h, F v) {
  ImageRGB8 p{w, h, std::vector<uint8_t>(size_t(w) * h * 3)};
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < 3; ++c) p.pixels[3 * (size_t(y) * w + x) + c] = v(x, y);
  return p;
}
}  // namespace

TEST_CASE("the heat map runs from black to pale yellow, brighter with the error", "[ui][compare]") {
  CHECK(heat_color(0.f) == std::array<uint8_t, 3>{0, 0, 0});
  const auto hot = heat_color(1.f);
  CHECK(hot[0] == 255);
  CHECK(hot[1] == 255);
  CHECK(hot[2] > 150);
  CHECK(heat_color(-1.f) == heat_color(0.f));  // clamped
  CHECK(heat_color(7.f) == hot);
  int last = -1;
  for (int i = 0; i <= 100; ++i) {
    const int b = brightness(heat_color(i / 100.f));
    INFO("t = " << i / 100.f);
    CHECK(b >= last);
    last = b;
  }
  // Mid errors are coloured, not grey: the ramp reads as heat.
  const auto mid = heat_color(0.5f);
  CHECK(mid[0] > mid[2]);
}

TEST_CASE("the per-pixel error is the mean absolute difference, render clamped", "[ui][compare]") {
  const float render[3] = {1.5f, 0.5f, -1.f};
  const uint8_t photo[3] = {255, 0, 51};
  CHECK(pixel_error(render, photo) == Approx((0.0 + 0.5 + 0.2) / 3.0).epsilon(1e-6));
}

TEST_CASE("the split shows the render left of the line and the photo right of it", "[ui][compare]") {
  const int w = 10, h = 4;
  const ImageRGB8 photo = photo_of(w, h, [](int x, int) { return uint8_t(20 * x); });
  std::vector<float> render(size_t(w) * h * 3, 0.8f);
  CompareParams p;
  p.split = 0.3f;  // column 3
  const ImageRGBA8 img = compare_image(render, photo, nullptr, p);
  REQUIRE(img.width == w);
  REQUIRE(img.height == h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const uint8_t* o = &img.pixels[4 * (size_t(y) * w + x)];
      INFO("x " << x << " y " << y);
      const int expected = x < 3 ? 204 : x == 3 ? 255 : 20 * x;
      CHECK(int(o[0]) == expected);
      CHECK(int(o[3]) == 255);
    }
  p.split = 1.f;  // all render, no line
  CHECK(int(compare_image(render, photo, nullptr, p).pixels[4 * (w - 1)]) == 204);
  CHECK_THROWS_AS(compare_image(std::vector<float>(3), photo, nullptr, p), std::invalid_argument);
}

TEST_CASE("the error map colours each pixel's error; masked pixels are grey", "[ui][compare]") {
  const int w = 3, h = 1;
  const ImageRGB8 photo = photo_of(w, h, [](int, int) { return uint8_t(0); });
  // Errors 0, 0.1 and 0.2 with error_max 0.2: cold, half, hottest.
  const std::vector<float> render = {0, 0, 0, 0.1f, 0.1f, 0.1f, 0.2f, 0.2f, 0.2f};
  CompareParams p;
  p.mode = CompareMode::Error;
  p.error_max = 0.2f;
  const ImageRGBA8 img = compare_image(render, photo, nullptr, p);
  for (int x = 0; x < w; ++x) {
    const auto c = heat_color(pixel_error(&render[3 * x], &photo.pixels[3 * x]) / 0.2f);
    for (int k = 0; k < 3; ++k) CHECK(img.pixels[4 * x + k] == c[k]);
  }
  CHECK(brightness({img.pixels[0], img.pixels[1], img.pixels[2]}) == 0);
  CHECK(img.pixels[8] == heat_color(1.f)[0]);
  const uint8_t mask[3] = {1, 0, 1};
  const ImageRGBA8 masked = compare_image(render, photo, mask, p);
  CHECK(masked.pixels[4] == masked.pixels[5]);
  CHECK(masked.pixels[4] == masked.pixels[6]);
  CHECK(masked.pixels[4] != img.pixels[4]);
}
