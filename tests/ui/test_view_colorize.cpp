// The pixels each render mode shows (shared by the CPU upload and the CUDA-GL interop paths).
#include <catch2/catch.hpp>

#include "ui/view_rasterizer.h"

using namespace splat::ui;

TEST_CASE("render modes map rasterizer outputs to RGBA8", "[ui][colorize]") {
  // Two pixels: a covered one at depth 1 and an empty one.
  const float rgb[6] = {0.2f, 1.5f, -0.1f, 0.5f, 0.5f, 0.5f};
  const float alpha[2] = {0.8f, 0.f};
  const float depth[2] = {1.f, 0.f};
  ImageRGBA8 img = colorize_image(rgb, alpha, depth, 2, 1, {RenderMode::RGB, 0.f, 4.f});
  REQUIRE(img.pixels == std::vector<uint8_t>{51, 255, 0, 255, 128, 128, 128, 255});  // clamped, rounded
  img = colorize_image(rgb, alpha, depth, 2, 1, {RenderMode::Alpha, 0.f, 4.f});
  REQUIRE(img.pixels == std::vector<uint8_t>{204, 204, 204, 255, 0, 0, 0, 255});
  img = colorize_image(rgb, alpha, depth, 2, 1, {RenderMode::Depth, 0.f, 4.f});
  // Nearer is brighter: depth 1 of [0, 4] -> 0.75; no coverage -> black.
  REQUIRE(img.pixels == std::vector<uint8_t>{191, 191, 191, 255, 0, 0, 0, 255});
}
