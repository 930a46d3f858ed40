// Undistortion to a pinhole: hand-computed remaps, the pinhole chosen for fisheye lenses, the
// validity mask and the largest valid rectangle. The remap cases use a 64x48 image, principal
// point (32, 24) and the output pixel (60, 44), whose centre is at (60.5, 44.5). The source image
// is a ramp R = 2 i, G = 2 j (pixel (i, j), centre at (i + 0.5, j + 0.5)), so bilinear sampling at
// a continuous position (u, v) gives exactly R = 2 (u - 0.5), G = 2 (v - 0.5): the colour the
// remap writes tells where it sampled, to a quarter of a pixel.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "core/scene/undistort.h"

using splat::CameraModel;
using splat::LensCamera;
using splat::PinholeIntrinsics;
using V2 = splat::Vec2<double>;

namespace {

constexpr double kPi = 3.14159265358979323846;

splat::ImageRGB8 ramp_image() {
  splat::ImageRGB8 img{64, 48, {}};
  for (int j = 0; j < 48; ++j)
    for (int i = 0; i < 64; ++i) img.pixels.insert(img.pixels.end(), {uint8_t(2 * i), uint8_t(2 * j), 9});
  return img;
}

// Checks that output pixel (60, 44) shows the source at (u, v).
void check_remap(const LensCamera& cam, double u, double v) {
  const PinholeIntrinsics pin = splat::undistorted_pinhole(cam);
  const V2 d = splat::distorted_pixel(cam, pin, {60.5, 44.5});
  CHECK(d.x == Approx(u).epsilon(1e-12));
  CHECK(d.y == Approx(v).epsilon(1e-12));
  const splat::UndistortedImage out = splat::undistort_image(ramp_image(), cam, pin);
  REQUIRE(out.image.width == 64);
  REQUIRE(out.image.height == 48);
  REQUIRE(out.valid[44 * 64 + 60] == 1);
  const uint8_t* px = &out.image.pixels[(44 * 64 + 60) * 3];
  CHECK(std::abs(px[0] - 2 * (u - 0.5)) <= 0.5);
  CHECK(std::abs(px[1] - 2 * (v - 0.5)) <= 0.5);
  CHECK(px[2] == 9);
}

// Field of view (radians) of a pinhole across its width and its height.
double fov_x(const PinholeIntrinsics& p) { return std::atan(p.cx / p.fx) + std::atan((p.width - p.cx) / p.fx); }
double fov_y(const PinholeIntrinsics& p) { return std::atan(p.cy / p.fy) + std::atan((p.height - p.cy) / p.fy); }

size_t count(const std::vector<uint8_t>& v) {
  size_t n = 0;
  for (uint8_t b : v) n += b != 0;
  return n;
}

// The mask from rows of '#' (valid) and '.' (invalid).
std::vector<uint8_t> mask_of(const std::vector<std::string>& rows) {
  std::vector<uint8_t> m;
  for (const std::string& r : rows)
    for (char c : r) m.push_back(c == '#');
  return m;
}

// Checks size, focal lengths and principal point of a camera (LensCamera or PinholeIntrinsics).
template <class Camera>
void check_intrinsics(const Camera& k, int width, int height, double fx, double fy, double cx, double cy) {
  CHECK(k.width == width);
  CHECK(k.height == height);
  CHECK(k.fx == fx);
  CHECK(k.fy == fy);
  CHECK(k.cx == cx);
  CHECK(k.cy == cy);
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
  CHECK(cam.extra[2] == 0.01);
  CHECK(cam.extra[3] == -0.005);
  check_remap(cam, 59.23477162116752, 43.92843477636829);
}

TEST_CASE("pinhole models have no distortion and keep intrinsics", "[undistort]") {
  const LensCamera sp = splat::lens_camera(CameraModel::SimplePinhole, 64, 48, {50, 31, 23});
  CHECK_FALSE(splat::has_distortion(sp));
  check_intrinsics(sp, 64, 48, 50, 50, 31, 23);
  const LensCamera p = splat::lens_camera(CameraModel::Pinhole, 64, 48, {50, 51, 31, 23});
  CHECK_FALSE(splat::has_distortion(p));
  const PinholeIntrinsics k = splat::undistorted_pinhole(p);
  check_intrinsics(k, 64, 48, 50, 51, 31, 23);
  // A remap with no distortion reproduces the image, every pixel valid.
  const splat::ImageRGB8 ramp = ramp_image();
  const splat::UndistortedImage u = splat::undistort_image(ramp, p, k);
  CHECK(u.image.pixels == ramp.pixels);
  CHECK(count(u.valid) == 64 * 48);
  CHECK(u.valid == splat::valid_pixels(p, k));
}

TEST_CASE("undistorted camera of a non-fisheye lens keeps size, focal and principal point", "[undistort]") {
  const LensCamera cam =
      splat::lens_camera(CameraModel::FullOpenCV, 64, 48, {50, 55, 32, 24, -0.1, 0.02, 0.01, -0.005, 0, 0, 0, 0});
  // The fisheye option does not apply.
  const PinholeIntrinsics k = splat::undistorted_pinhole(cam, 30);
  check_intrinsics(k, 64, 48, 50, 55, 32, 24);
  // The principal point is a fixed point of every distortion.
  const V2 c = splat::distorted_pixel(cam, k, {32, 24});
  CHECK(c.x == 32);
  CHECK(c.y == 24);
  CHECK_THROWS_AS(splat::undistorted_pinhole(cam, 0), std::invalid_argument);
  CHECK_THROWS_AS(splat::undistorted_pinhole(cam, 180), std::invalid_argument);
}

TEST_CASE("fisheye pinhole: the field of view option sets the focal, capped by the photo's own", "[undistort]") {
  // Equidistant fisheye (no coefficients): pixel radius = f * angle, so this photo sees
  // 640 / 400 rad = 91.67 degrees across its width.
  const LensCamera narrow = splat::lens_camera(CameraModel::OpenCVFisheye, 640, 480, {400, 410, 320, 240, 0, 0, 0, 0});
  const PinholeIntrinsics p60 = splat::undistorted_pinhole(narrow, 60);
  CHECK(p60.width == 640);
  CHECK(p60.height == 480);
  CHECK(p60.cx == 320);
  CHECK(p60.cy == 240);
  CHECK(p60.fx == Approx(320 / std::tan(30 * kPi / 180)).epsilon(1e-9));
  CHECK(p60.fy / p60.fx == Approx(410.0 / 400.0).epsilon(1e-12));
  // Asking for 100 degrees gets the photo's 91.67.
  const PinholeIntrinsics p100 = splat::undistorted_pinhole(narrow, 100);
  CHECK(fov_x(p100) == Approx(640.0 / 400.0).epsilon(1e-9));
  CHECK(p100.fx == Approx(320 / std::tan(0.8)).epsilon(1e-9));
  CHECK(p100.fx < p60.fx);
  // A 180+ degree fisheye (radius 90 degrees = 251 px inside the 320 px half-width): capped at
  // the option, which the default sets to 100 degrees.
  const LensCamera wide = splat::lens_camera(CameraModel::OpenCVFisheye, 640, 480, {160, 160, 320, 240, 0, 0, 0, 0});
  const PinholeIntrinsics pd = splat::undistorted_pinhole(wide);
  CHECK(fov_x(pd) == Approx(splat::kDefaultFisheyeFovDeg * kPi / 180).epsilon(1e-9));
  CHECK(splat::undistorted_pinhole(wide, 150).fx == Approx(320 / std::tan(75 * kPi / 180)).epsilon(1e-9));
  // A portrait photo measures its height; an off-centre principal point stays where it is.
  const LensCamera tall = splat::lens_camera(CameraModel::SimpleRadialFisheye, 480, 640, {300, 230, 330, 0.02});
  const PinholeIntrinsics pt = splat::undistorted_pinhole(tall, 80);
  CHECK(pt.cx == 230);
  CHECK(pt.cy == 330);
  CHECK(fov_y(pt) == Approx(80 * kPi / 180).epsilon(1e-9));
  CHECK(pt.fx == Approx(pt.fy).epsilon(1e-12));
}

TEST_CASE("fisheye pinhole never sees more than the photo", "[undistort]") {
  // Each lens's own field of view across its width, from its forward map: the angle at which
  // the ray along the row through the principal point reaches the photo's edge (bisection).
  const std::vector<LensCamera> lenses = {
      splat::lens_camera(CameraModel::OpenCVFisheye, 800, 600, {700, 700, 400, 300, 0.1, 0.02, 0, 0}),
      splat::lens_camera(CameraModel::RadialFisheye, 800, 600, {500, 380, 310, 0.05, -0.01}),
      splat::lens_camera(CameraModel::ThinPrismFisheye, 800, 600,
                         {600, 600, 410, 300, 0.03, -0.01, 0.0005, -0.0004, 0.002, -0.0003, 0.0006, -0.0004}),
      splat::lens_camera(CameraModel::FOV, 800, 600, {700, 700, 400, 300, 0.8}),
  };
  for (const LensCamera& lens : lenses) {
    INFO(splat::camera_model_name(lens.model));
    auto edge_angle = [&](int sign) {
      const double edge = sign > 0 ? lens.width : 0;
      double lo = 0, hi = kPi / 2 - 1e-9;
      for (int k = 0; k < 80; ++k) {
        const double mid = 0.5 * (lo + hi);
        const V2 d = splat::distort_normalized(lens, {sign * std::tan(mid), 0});
        ((lens.fx * d.x + lens.cx - edge) * sign < 0 ? lo : hi) = mid;
      }
      return lo;
    };
    const double photo_fov = edge_angle(-1) + edge_angle(+1);
    REQUIRE(photo_fov < 100 * kPi / 180);  // these photos are narrower than the default
    const PinholeIntrinsics p = splat::undistorted_pinhole(lens);
    CHECK(fov_x(p) <= photo_fov * (1 + 1e-9));
    CHECK(fov_x(p) == Approx(photo_fov).epsilon(1e-7));
    // With the principal point in the middle the row through it is then valid from edge to edge
    // (off the middle, the pinhole's tan-spaced pixels split the same total angle differently
    // from the photo's, and a few pixels at one end see past the photo).
    if (2 * lens.cx == lens.width) {
      const std::vector<uint8_t> valid = splat::valid_pixels(lens, p);
      const int row = static_cast<int>(p.cy);
      CHECK(count({valid.begin() + row * p.width, valid.begin() + (row + 1) * p.width}) >= static_cast<size_t>(p.width - 1));
    }
  }
}

TEST_CASE("valid pixels: a pincushion lens loses the corners, a pinhole loses nothing", "[undistort]") {
  // k = 0.2 pushes the pinhole's corners out of the photo: corner (0.5, 0.5) has x = -31.5 / 50,
  // r2 = 0.63^2 + 0.47^2 = 0.6178 -> scale 1.1236 -> source x = 32 - 35.4 < 0.
  const LensCamera pin = splat::lens_camera(CameraModel::SimpleRadial, 64, 48, {50, 32, 24, 0.2});
  const PinholeIntrinsics k = splat::undistorted_pinhole(pin);
  const std::vector<uint8_t> v = splat::valid_pixels(pin, k);
  REQUIRE(v.size() == 64 * 48);
  for (auto [x, y] : {std::pair{0, 0}, {63, 0}, {0, 47}, {63, 47}}) CHECK(v[y * 64 + x] == 0);
  CHECK(v[24 * 64 + 32] == 1);
  CHECK(v[24 * 64 + 50] == 1);
  // Agreement with the definition, pixel by pixel: valid exactly where the source is inside.
  for (int y = 0; y < 48; ++y)
    for (int x = 0; x < 64; ++x) {
      const V2 s = splat::distorted_pixel(pin, k, {x + 0.5, y + 0.5});
      CHECK((s.x >= 0 && s.x <= 64 && s.y >= 0 && s.y <= 48) == (v[y * 64 + x] == 1));
    }
  const LensCamera plain = splat::lens_camera(CameraModel::Pinhole, 64, 48, {50, 51, 31, 23});
  CHECK(count(splat::valid_pixels(plain, splat::undistorted_pinhole(plain))) == 64 * 48);
}

TEST_CASE("valid pixels: past a fold the photo is not used", "[undistort]") {
  // k = -0.5: r_d = r (1 - 0.5 r^2) folds at r = sqrt(2/3) = 0.8165 (r_d 0.544) and comes back
  // inside the photo beyond it. With f = 30 the fold lies 24.5 px from the principal point,
  // which sits on the centre of pixel (32, 24).
  const LensCamera lens = splat::lens_camera(CameraModel::SimpleRadial, 64, 48, {30, 32.5, 24.5, -0.5});
  const PinholeIntrinsics k = splat::undistorted_pinhole(lens);
  const std::vector<uint8_t> v = splat::valid_pixels(lens, k);
  // Pixel (60, 24): r = 28 / 30 = 0.9333 > 0.8165, past the fold; its source x = 32.5 + 28 *
  // (1 - 0.5 * 0.9333^2) = 48.30 lies inside the photo all the same.
  const V2 s = splat::distorted_pixel(lens, k, {60.5, 24.5});
  CHECK(s.x == Approx(32.5 + 28 * (1 - 0.5 * (28.0 / 30) * (28.0 / 30))).epsilon(1e-12));
  CHECK(s.y == 24.5);
  CHECK(v[24 * 64 + 60] == 0);
  // Pixel (55, 24): r = 22.5 / 30 = 0.75, before the fold.
  CHECK(v[24 * 64 + 55] == 1);
  for (int y = 0; y < 48; ++y)
    for (int x = 0; x < 64; ++x) {
      const double r = std::hypot((x + 0.5 - 32.5) / 30, (y + 0.5 - 24.5) / 30);
      if (std::abs(r - std::sqrt(2.0 / 3.0)) > 1e-3) CHECK((v[y * 64 + x] == 1) == (r < std::sqrt(2.0 / 3.0)));
    }
}

TEST_CASE("undistort_image returns the mask and blackens invalid pixels", "[undistort]") {
  const LensCamera lens = splat::lens_camera(CameraModel::RadialFisheye, 64, 48, {22, 32, 24, 0.02, -0.001});
  // The photo sees 160 degrees across its width but only about 2 x 61 across its height, while a
  // pinhole of 160 x 120 pixels' aspect sees 2 x 77 degrees vertically at 160 across.
  const PinholeIntrinsics k = splat::undistorted_pinhole(lens, 160);
  splat::ImageRGB8 white{64, 48, std::vector<uint8_t>(64 * 48 * 3, 255)};
  const splat::UndistortedImage u = splat::undistort_image(white, lens, k);
  CHECK(u.valid == splat::valid_pixels(lens, k));
  const size_t n = count(u.valid);
  CHECK(n > 0);
  CHECK(n < 64 * 48);
  CHECK(u.valid[32] == 0);            // top edge, 77 degrees up
  CHECK(u.valid[24 * 64 + 32] == 1);  // centre
  for (size_t i = 0; i < u.valid.size(); ++i) CHECK(u.image.pixels[3 * i] == (u.valid[i] ? 255 : 0));
  CHECK_THROWS_AS(splat::undistort_image(ramp_image(), splat::resized(lens, 32, 24), k), std::invalid_argument);
}

TEST_CASE("largest valid rectangle of hand-made masks", "[undistort]") {
  struct Case {
    const char* what;
    std::vector<std::string> rows;  // '#' valid, '.' not
    splat::PixelRect want;
  };
  const std::vector<std::string> blob = {"#.###.", ".####.", "#.####", "..###.", "#....#"};
  const Case cases[] = {
      {"all valid", {"####", "####", "####"}, {0, 0, 4, 3}},
      {"none valid", {"....", "....", "...."}, {0, 0, 0, 0}},
      {"empty", {}, {0, 0, 0, 0}},
      // The tall bar (2 x 5 = 10) beats the foot (6 x 1 = 6) and the corner block (2 x 5).
      {"an L", {"##....", "##....", "##....", "##....", "######"}, {0, 0, 2, 5}},
      {"an L with a wide foot, which wins over the bar", {"#.......", "#.......", "########", "########"}, {0, 2, 8, 2}},
      {"a blob with holes, whose columns 2-4 of rows 0-3 (3 x 4) are the largest", blob, {2, 0, 3, 4}},
  };
  for (const Case& c : cases) {
    INFO(c.what);
    const int w = c.rows.empty() ? 0 : static_cast<int>(c.rows[0].size()), h = static_cast<int>(c.rows.size());
    const splat::PixelRect r = splat::largest_valid_rectangle(mask_of(c.rows), w, h);
    CHECK(r.x0 == c.want.x0);
    CHECK(r.y0 == c.want.y0);
    CHECK(r.width == c.want.width);
    CHECK(r.height == c.want.height);
  }
  // A mask whose size disagrees with the width and height given.
  CHECK_THROWS_AS(splat::largest_valid_rectangle(mask_of(blob), 6, 4), std::invalid_argument);
}

TEST_CASE("largest valid rectangle matches brute force on random masks", "[undistort]") {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const int w = 1 + static_cast<int>(rng() % 9), h = 1 + static_cast<int>(rng() % 7);
    const double density = 0.5 + 0.45 * (rng() % 100) / 100.0;
    std::vector<uint8_t> m(static_cast<size_t>(w) * h);
    for (auto& b : m) b = (rng() % 1000) < density * 1000;
    int best = 0;
    for (int y0 = 0; y0 < h; ++y0)
      for (int x0 = 0; x0 < w; ++x0)
        for (int y1 = y0; y1 < h; ++y1)
          for (int x1 = x0; x1 < w; ++x1) {
            bool all = true;
            for (int y = y0; y <= y1 && all; ++y)
              for (int x = x0; x <= x1 && all; ++x) all = m[y * w + x];
            if (all) best = std::max(best, (x1 - x0 + 1) * (y1 - y0 + 1));
          }
    const splat::PixelRect r = splat::largest_valid_rectangle(m, w, h);
    CHECK(r.width * r.height == best);
    for (int y = r.y0; y < r.y0 + r.height; ++y)
      for (int x = r.x0; x < r.x0 + r.width; ++x) CHECK(m[y * w + x] == 1);
  }
}

TEST_CASE("resizing a camera scales focal lengths and principal point per axis", "[undistort]") {
  const LensCamera cam = splat::lens_camera(CameraModel::Radial, 64, 48, {50, 32, 24, -0.15, 0.03});
  const LensCamera half = splat::resized(cam, 32, 12);
  check_intrinsics(half, 32, 12, 25, 12.5, 16, 6);
  CHECK(half.extra[0] == -0.15);
  CHECK(half.extra[1] == 0.03);
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
