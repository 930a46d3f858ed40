// Undistortion against hand-computed pixel mappings. Every case uses a 64x48 image, principal
// point (32, 24) and the output pixel (60, 44), whose centre is at (60.5, 44.5). The source image
// is a ramp R = 2 i, G = 2 j (pixel (i, j), centre at (i + 0.5, j + 0.5)), so bilinear sampling at
// a continuous position (u, v) gives exactly R = 2 (u - 0.5), G = 2 (v - 0.5): the colour the
// remap writes tells where it sampled, to a quarter of a pixel.
#include <catch2/catch.hpp>

#include "core/undistort.h"

using splat::CameraModel;
using splat::LensCamera;

namespace {

splat::ImageRGB8 ramp_image() {
  splat::ImageRGB8 img{64, 48, {}};
  for (int j = 0; j < 48; ++j)
    for (int i = 0; i < 64; ++i) img.pixels.insert(img.pixels.end(), {uint8_t(2 * i), uint8_t(2 * j), 9});
  return img;
}

// Checks that output pixel (60, 44) shows the source at (u, v).
void check_remap(const LensCamera& cam, double u, double v) {
  const splat::Vec2<double> d = splat::distorted_pixel(cam, {60.5, 44.5});
  CHECK(d.x == Approx(u).epsilon(1e-12));
  CHECK(d.y == Approx(v).epsilon(1e-12));
  const splat::ImageRGB8 out = splat::undistort_image(ramp_image(), cam);
  REQUIRE(out.width == 64);
  REQUIRE(out.height == 48);
  const uint8_t* px = &out.pixels[(44 * 64 + 60) * 3];
  CHECK(std::abs(px[0] - 2 * (u - 0.5)) <= 0.5);
  CHECK(std::abs(px[1] - 2 * (v - 0.5)) <= 0.5);
  CHECK(px[2] == 9);
}

}  // namespace

TEST_CASE("SIMPLE_RADIAL remap samples the hand-computed distorted pixel", "[undistort]") {
  // f = 50, k = -0.2: x = 28.5/50 = 0.57, y = 20.5/50 = 0.41, r2 = 0.493,
  // scale 1 + k r2 = 0.9014 -> (0.513798, 0.369574) -> pixel (57.6899, 42.4787).
  const LensCamera cam = splat::lens_camera(CameraModel::SimpleRadial, 64, 48, {50, 32, 24, -0.2});
  REQUIRE(splat::has_distortion(cam));
  check_remap(cam, 57.6899, 42.4787);
}

TEST_CASE("RADIAL remap samples the hand-computed distorted pixel", "[undistort]") {
  // f = 50, k1 = -0.15, k2 = 0.03: r2 = 0.493, k1 r2 + k2 r2^2 = -0.07395 + 0.00729147
  // = -0.06665853 -> x 0.57 * 0.93334147 = 0.532005, y 0.41 * 0.93334147 = 0.382670
  // -> pixel (58.600232, 43.133500).
  const LensCamera cam = splat::lens_camera(CameraModel::Radial, 64, 48, {50, 32, 24, -0.15, 0.03});
  check_remap(cam, 58.60023189499999, 43.133500135);
}

TEST_CASE("OPENCV remap samples the hand-computed distorted pixel", "[undistort]") {
  // fx 50, fy 55, k1 -0.1, k2 0.02, p1 0.01, p2 -0.005: x = 0.57, y = 20.5/55 = 0.3727273,
  // r2 = 0.4638256, radial = -0.0420799;
  // dx = x radial + 2 p1 x y + p2 (r2 + 2x^2) = -0.0239855 + 0.0042491 - 0.0055681 = -0.0253045
  // dy = y radial + 2 p2 x y + p1 (r2 + 2y^2) = -0.0156843 - 0.0021245 + 0.0074167 = -0.0103921
  // -> pixel (50 * 0.5446955 + 32, 55 * 0.3623352 + 24) = (59.234772, 43.928435).
  const LensCamera cam =
      splat::lens_camera(CameraModel::OpenCV, 64, 48, {50, 55, 32, 24, -0.1, 0.02, 0.01, -0.005});
  CHECK(cam.fx == 50);
  CHECK(cam.fy == 55);
  CHECK(cam.p1 == 0.01);
  CHECK(cam.p2 == -0.005);
  check_remap(cam, 59.23477162116752, 43.92843477636829);
}

TEST_CASE("pinhole models have no distortion and keep intrinsics", "[undistort]") {
  const LensCamera sp = splat::lens_camera(CameraModel::SimplePinhole, 64, 48, {50, 31, 23});
  CHECK_FALSE(splat::has_distortion(sp));
  CHECK(sp.fx == 50);
  CHECK(sp.fy == 50);
  CHECK(sp.cx == 31);
  CHECK(sp.cy == 23);
  const LensCamera p = splat::lens_camera(CameraModel::Pinhole, 64, 48, {50, 51, 31, 23});
  CHECK_FALSE(splat::has_distortion(p));
  const splat::PinholeIntrinsics k = splat::pinhole_of(p);
  CHECK(k.width == 64);
  CHECK(k.height == 48);
  CHECK(k.fx == 50);
  CHECK(k.fy == 51);
  CHECK(k.cx == 31);
  CHECK(k.cy == 23);
  // A remap with no distortion reproduces the image.
  const splat::ImageRGB8 ramp = ramp_image();
  CHECK(splat::undistort_image(ramp, p).pixels == ramp.pixels);
}

TEST_CASE("undistorted camera keeps size, focal and principal point", "[undistort]") {
  const LensCamera cam =
      splat::lens_camera(CameraModel::OpenCV, 64, 48, {50, 55, 32, 24, -0.1, 0.02, 0.01, -0.005});
  const splat::PinholeIntrinsics k = splat::pinhole_of(cam);
  CHECK(k.width == 64);
  CHECK(k.height == 48);
  CHECK(k.fx == 50);
  CHECK(k.fy == 55);
  CHECK(k.cx == 32);
  CHECK(k.cy == 24);
  // The principal point is a fixed point of every distortion.
  const splat::Vec2<double> c = splat::distorted_pixel(cam, {32, 24});
  CHECK(c.x == 32);
  CHECK(c.y == 24);
}

TEST_CASE("resizing a camera scales focal lengths and principal point per axis", "[undistort]") {
  const LensCamera cam = splat::lens_camera(CameraModel::Radial, 64, 48, {50, 32, 24, -0.15, 0.03});
  const LensCamera half = splat::resized(cam, 32, 12);
  CHECK(half.width == 32);
  CHECK(half.height == 12);
  CHECK(half.fx == 25);
  CHECK(half.fy == 12.5);
  CHECK(half.cx == 16);
  CHECK(half.cy == 6);
  CHECK(half.k1 == -0.15);
  CHECK(half.k2 == 0.03);
}

TEST_CASE("bilinear sampling interpolates inside and is black outside", "[undistort]") {
  const splat::ImageRGB8 ramp = ramp_image();
  // Halfway between pixel centres (3.5, 7.5) and (4.5, 8.5): R = 2 * 3.5, G = 2 * 7.5.
  const auto v = splat::sample_bilinear(ramp, {4.0, 8.0});
  CHECK(v[0] == Approx(7.0));
  CHECK(v[1] == Approx(15.0));
  const auto out = splat::sample_bilinear(ramp, {-0.1, 8.0});
  CHECK(out[0] == 0);
  CHECK(out[2] == 0);
  const auto below = splat::sample_bilinear(ramp, {10.0, 48.2});
  CHECK(below[2] == 0);
}
