// Lens models of every supported COLMAP camera: the forward map against hand-computed pixels,
// the Newton inverse, the first fold, the parameter layout, and reading each model from .bin
// and .txt.
#include <catch2/catch.hpp>

#include <cmath>

#include "core/scene/colmap_reader.h"
#include "core/scene/colmap_writer.h"
#include "core/scene/lens_model.h"
#include "core/scene/undistort.h"
#include "tests/support/test_support.h"

using splat::CameraModel;
using splat::LensCamera;
using V2 = splat::Vec2<double>;

namespace {

// Every hand-computed case maps the pinhole pixel (600.5, 400.5) of this pinhole camera, i.e.
// normalised coordinates x = 278.5 / 400 = 0.69625, y = 162.5 / 410 = 0.39634146341463417
// (r^2 = 0.6418506181216539). For the fisheye models u = x atan(r) / r, v = y atan(r) / r and
// t2 = u^2 + v^2 (the squared angle from the axis). Expected values were computed with python3
// from the formulas written next to them.
const splat::PinholeIntrinsics kPinhole{640, 480, 400, 410, 322, 238};

void check_pixel(CameraModel model, const std::vector<double>& params, double want_x, double want_y,
                 V2 pixel = {600.5, 400.5}) {
  const LensCamera lens = splat::lens_camera(model, 640, 480, params);
  const V2 got = splat::distorted_pixel(lens, kPinhole, pixel);
  INFO(splat::camera_model_name(model));
  CHECK(got.x == Approx(want_x).margin(1e-6).epsilon(0));
  CHECK(got.y == Approx(want_y).margin(1e-6).epsilon(0));
}

// Models with realistic (and, for the fisheyes, strong) coefficients on a 1280 x 960 photo.
std::vector<LensCamera> realistic_lenses() {
  const int w = 1280, h = 960;
  return {
      splat::lens_camera(CameraModel::SimplePinhole, w, h, {1000, 640, 480}),
      splat::lens_camera(CameraModel::Pinhole, w, h, {1000, 1010, 642, 478}),
      splat::lens_camera(CameraModel::SimpleRadial, w, h, {1000, 640, 480, -0.08}),
      splat::lens_camera(CameraModel::Radial, w, h, {1000, 640, 480, -0.12, 0.04}),
      splat::lens_camera(CameraModel::OpenCV, w, h, {1000, 1005, 645, 475, -0.25, 0.08, 0.001, -0.0008}),
      splat::lens_camera(CameraModel::OpenCVFisheye, w, h, {420, 421, 640, 480, 0.04, -0.02, 0.008, -0.002}),
      splat::lens_camera(CameraModel::FullOpenCV, w, h,
                         {1000, 1005, 645, 475, -0.3, 0.1, 0.001, -0.0008, -0.01, 0.05, -0.01, 0.002}),
      splat::lens_camera(CameraModel::FOV, w, h, {500, 500, 640, 480, 0.95}),
      splat::lens_camera(CameraModel::SimpleRadialFisheye, w, h, {380, 640, 480, 0.06}),
      splat::lens_camera(CameraModel::RadialFisheye, w, h, {380, 640, 480, 0.05, -0.01}),
      splat::lens_camera(CameraModel::ThinPrismFisheye, w, h,
                         {300, 302, 640, 480, 0.03, -0.01, 0.0005, -0.0004, 0.002, -0.0003, 0.0006, -0.0004}),
  };
}

}  // namespace

TEST_CASE("SIMPLE_PINHOLE and PINHOLE map pixels without distortion", "[lens]") {
  // (500 x + 320, 500 y + 240) = (668.125, 438.1707317...)
  check_pixel(CameraModel::SimplePinhole, {500, 320, 240}, 668.125, 438.1707317073171);
  // (500 x + 320, 520 y + 240)
  check_pixel(CameraModel::Pinhole, {500, 520, 320, 240}, 668.125, 446.0975609756098);
}

TEST_CASE("SIMPLE_RADIAL and RADIAL map hand-computed pixels", "[lens]") {
  // s = 1 + k r^2, k = -0.12; (500 x s + 320, 500 y s + 240)
  check_pixel(CameraModel::SimpleRadial, {500, 320, 240, -0.12}, 641.311690427968, 422.90721091052166);
  // s = 1 + k1 r^2 + k2 r^4, k1 = -0.12, k2 = 0.03
  check_pixel(CameraModel::Radial, {500, 320, 240, -0.12, 0.03}, 645.6142252586419, 425.35643597505566);
}

TEST_CASE("OPENCV and FULL_OPENCV map hand-computed pixels", "[lens]") {
  // s = 1 + k1 r2 + k2 r4; xd = x s + 2 p1 x y + p2 (r2 + 2 x^2), yd = y s + 2 p2 x y + p1 (r2 + 2 y^2);
  // k1 -0.1, k2 0.02, p1 0.003, p2 -0.002; (500 xd + 320, 520 yd + 240)
  check_pixel(CameraModel::OpenCV, {500, 520, 320, 240, -0.1, 0.02, 0.003, -0.002}, 647.8654113990083,
              435.48472097362287);
  // as OPENCV with s = (1 + k1 r2 + k2 r4 + k3 r6) / (1 + k4 r2 + k5 r4 + k6 r6),
  // k3 0.001, k4 0.05, k5 -0.01, k6 0.002
  check_pixel(CameraModel::FullOpenCV, {500, 520, 320, 240, -0.1, 0.02, 0.003, -0.002, 0.001, 0.05, -0.01, 0.002},
              638.847451571301, 430.14589289328825);
}

TEST_CASE("fisheye models distort the angle from the axis", "[lens]") {
  // s = 1 + k1 t2 + k2 t2^2 + k3 t2^3 + k4 t2^4 (0.05, -0.01, 0.002, -0.0005); (300 u s + 320, 310 v s + 240)
  check_pixel(CameraModel::OpenCVFisheye, {300, 310, 320, 240, 0.05, -0.01, 0.002, -0.0005}, 499.78029293686825,
              345.75156989907885);
  // s = 1 + k t2, k = 0.04; (300 u s + 320, 300 v s + 240)
  check_pixel(CameraModel::SimpleRadialFisheye, {300, 320, 240, 0.04}, 499.3137865847133, 342.07466942248425);
  // s = 1 + k1 t2 + k2 t2^2, k1 = 0.04, k2 = -0.005
  check_pixel(CameraModel::RadialFisheye, {300, 320, 240, 0.04, -0.005}, 499.1305169932211, 341.9703429045791);
  // k1 0.05 k2 -0.01 p1 0.001 p2 -0.002 k3 0.002 k4 -0.0005 sx1 0.0008 sy1 -0.0006:
  // s = 1 + k1 t2 + k2 t2^2 + k3 t2^3 + k4 t2^4;
  // ud = u s + 2 p1 u v + p2 (t2 + 2 u^2) + sx1 t2, vd = v s + 2 p2 u v + p1 (t2 + 2 v^2) + sy1 t2;
  // (300 ud + 320, 310 vd + 240)
  check_pixel(CameraModel::ThinPrismFisheye,
              {300, 310, 320, 240, 0.05, -0.01, 0.001, -0.002, 0.002, -0.0005, 0.0008, -0.0006}, 499.32025610970055,
              345.634147248651);
}

TEST_CASE("FOV maps hand-computed pixels in all three of COLMAP's cases", "[lens]") {
  // omega = 0.9: s = atan(2 r tan(omega / 2)) / (r omega); (300 x s + 320, 310 y s + 240)
  check_pixel(CameraModel::FOV, {300, 310, 320, 240, 0.9}, 510.8124485294269, 352.24097846675573);
  // omega^2 < 1e-4 (omega = 0.005): COLMAP's series s = omega^2 r^2 / 3 - omega^2 / 12 + 1
  check_pixel(CameraModel::FOV, {300, 310, 320, 240, 0.005}, 528.8756820649821, 362.8662548673758);
  // r^2 < 1e-4: pixel (324.5, 237) -> x = 2.5 / 400, y = -1 / 410, r^2 = 4.5011e-5;
  // s = (2 tan(omega/2) / omega) (1 - 4 r^2 tan^2(omega/2) / 3)
  check_pixel(CameraModel::FOV, {300, 310, 320, 240, 0.9}, 322.0127012536854, 239.18837412859514, {324.5, 237.0});
}

TEST_CASE("lens_camera reads COLMAP's parameter order", "[lens]") {
  const LensCamera one = splat::lens_camera(CameraModel::RadialFisheye, 64, 48, {50, 31, 23, 0.1, -0.2});
  CHECK(one.fx == 50);
  CHECK(one.fy == 50);
  CHECK(one.cx == 31);
  CHECK(one.cy == 23);
  CHECK(one.extra[0] == 0.1);
  CHECK(one.extra[1] == -0.2);
  CHECK(one.extra[2] == 0);
  std::vector<double> p;
  for (int i = 1; i <= 12; ++i) p.push_back(i);
  const LensCamera two = splat::lens_camera(CameraModel::ThinPrismFisheye, 64, 48, p);
  CHECK(two.fx == 1);
  CHECK(two.fy == 2);
  CHECK(two.cx == 3);
  CHECK(two.cy == 4);
  for (int i = 0; i < 8; ++i) CHECK(two.extra[i] == 5 + i);
  CHECK_THROWS_AS(splat::lens_camera(CameraModel::FOV, 64, 48, {50, 50, 32, 24}), std::invalid_argument);
}

TEST_CASE("which models are fisheye and which need remapping", "[lens]") {
  using M = CameraModel;
  for (M m : {M::OpenCVFisheye, M::SimpleRadialFisheye, M::RadialFisheye, M::ThinPrismFisheye, M::FOV})
    CHECK(splat::is_fisheye(m));
  for (M m : {M::SimplePinhole, M::Pinhole, M::SimpleRadial, M::Radial, M::OpenCV, M::FullOpenCV})
    CHECK_FALSE(splat::is_fisheye(m));
  CHECK_FALSE(splat::has_distortion(splat::lens_camera(M::Pinhole, 64, 48, {50, 51, 32, 24})));
  CHECK_FALSE(splat::has_distortion(splat::lens_camera(M::FullOpenCV, 64, 48, {50, 51, 32, 24, 0, 0, 0, 0, 0, 0, 0, 0})));
  CHECK(splat::has_distortion(splat::lens_camera(M::FullOpenCV, 64, 48, {50, 51, 32, 24, 0, 0, 0, 0, 0, 0, 0, 1e-3})));
  // A fisheye lens is never a pinhole, whatever its coefficients.
  CHECK(splat::has_distortion(splat::lens_camera(M::OpenCVFisheye, 64, 48, {50, 51, 32, 24, 0, 0, 0, 0})));
}

TEST_CASE("undistorting then distorting returns to the pixel for every model", "[lens]") {
  for (const LensCamera& lens : realistic_lenses()) {
    INFO(splat::camera_model_name(lens.model));
    const splat::PinholeIntrinsics pin = splat::undistorted_pinhole(lens);
    const std::vector<uint8_t> valid = splat::valid_pixels(lens, pin);
    int checked = 0;
    for (int j = 0; j < 24; ++j)
      for (int i = 0; i < 32; ++i) {
        const int x = (i * pin.width) / 32 + 7, y = (j * pin.height) / 24 + 5;
        if (!valid[static_cast<size_t>(y) * pin.width + x]) continue;
        const V2 p{x + 0.5, y + 0.5};
        const V2 src = splat::distorted_pixel(lens, pin, p);
        const auto n = splat::undistort_normalized(lens, {(src.x - lens.cx) / lens.fx, (src.y - lens.cy) / lens.fy});
        REQUIRE(n.has_value());
        const V2 back{pin.fx * n->x + pin.cx, pin.fy * n->y + pin.cy};
        CHECK(std::abs(back.x - p.x) < 0.01);
        CHECK(std::abs(back.y - p.y) < 0.01);
        ++checked;
      }
    // The grid reaches well into the image (most of it for most lenses).
    CHECK(checked > 300);
  }
}

TEST_CASE("undistort_normalized inverts the forward map of every model at the photo's pixels", "[lens]") {
  for (const LensCamera& lens : realistic_lenses()) {
    INFO(splat::camera_model_name(lens.model));
    // Photo points on the way to its top-right corner, up to 90 % of it; for a fisheye only those
    // inside the image of the rays below 89 degrees (the corners of a wide fisheye photo show
    // nothing).
    const V2 corner{(lens.width - lens.cx) / lens.fx, -lens.cy / lens.fy};
    const double len = std::hypot(corner.x, corner.y);
    const double t89 = std::tan(89.0 * 3.14159265358979 / 180);
    const V2 rim = splat::distort_normalized(lens, {t89 * corner.x / len, t89 * corner.y / len});
    const double reach = splat::is_fisheye(lens.model) ? 0.95 * std::hypot(rim.x, rim.y) : len;
    int checked = 0;
    for (int k = 0; k <= 9; ++k) {
      const V2 d{corner.x * 0.1 * k, corner.y * 0.1 * k};
      if (std::hypot(d.x, d.y) > reach) continue;
      const auto n = splat::undistort_normalized(lens, d);
      REQUIRE(n.has_value());
      const V2 again = splat::distort_normalized(lens, *n);
      CHECK(lens.fx * std::abs(again.x - d.x) < 1e-6);
      CHECK(lens.fy * std::abs(again.y - d.y) < 1e-6);
      ++checked;
    }
    CHECK(checked >= 6);
  }
}

TEST_CASE("undistort_normalized fails past a fold and at 90 degrees", "[lens]") {
  // r_d = r (1 - 0.5 r^2) peaks at r = sqrt(2/3) with r_d = 0.5443: no ray lands beyond it.
  const LensCamera barrel = splat::lens_camera(CameraModel::SimpleRadial, 64, 48, {50, 32, 24, -0.5});
  CHECK(splat::undistort_normalized(barrel, {0.5, 0}).has_value());
  CHECK_FALSE(splat::undistort_normalized(barrel, {0.56, 0}).has_value());
  // k1 = -0.5, k2 = 0.1: r_d falls after r = 1 (0.6) to 0.5657 at r = sqrt(2), then rises
  // again; 0.58 is reached before the fold (r ~ 0.82), and 0.62 only past it.
  const LensCamera wavy = splat::lens_camera(CameraModel::Radial, 64, 48, {50, 32, 24, -0.5, 0.1});
  const auto before = splat::undistort_normalized(wavy, {0.58, 0});
  REQUIRE(before.has_value());
  CHECK(before->x < 1);
  CHECK_FALSE(splat::undistort_normalized(wavy, {0.62, 0}).has_value());
  // Equidistant fisheye (no coefficients): the distorted radius is the angle itself.
  const LensCamera fish = splat::lens_camera(CameraModel::OpenCVFisheye, 64, 48, {50, 50, 32, 24, 0, 0, 0, 0});
  const auto at60 = splat::undistort_normalized(fish, {1.0471975511965976, 0});
  REQUIRE(at60.has_value());
  CHECK(at60->x == Approx(std::sqrt(3.0)).epsilon(1e-12));
  CHECK_FALSE(splat::undistort_normalized(fish, {0, 1.5708}).has_value());
  CHECK_FALSE(splat::undistort_normalized(fish, {2.0, 0}).has_value());
}

TEST_CASE("the unfolded region ends where a finite-difference Jacobian turns", "[lens]") {
  // An independent check of the fold: march along rays, with the Jacobian of
  // distort_normalized by central differences, to the first point where its determinant is
  // not positive.
  auto fd_fold = [](const LensCamera& lens, V2 dir, double max_r) {
    const double h = 1e-6;
    for (double r = 1e-3; r < max_r; r += 1e-4) {
      const V2 p{r * dir.x, r * dir.y};
      const V2 ax = splat::distort_normalized(lens, {p.x + h, p.y}) - splat::distort_normalized(lens, {p.x - h, p.y});
      const V2 ay = splat::distort_normalized(lens, {p.x, p.y + h}) - splat::distort_normalized(lens, {p.x, p.y - h});
      if (ax.x * ay.y - ax.y * ay.x <= 0) return r;
    }
    return max_r;
  };
  const std::vector<LensCamera> lenses = {
      splat::lens_camera(CameraModel::SimpleRadial, 64, 48, {50, 32, 24, -0.5}),
      splat::lens_camera(CameraModel::OpenCV, 64, 48, {50, 50, 32, 24, -0.4, 0.05, 0.02, -0.03}),
      splat::lens_camera(CameraModel::FullOpenCV, 64, 48, {50, 50, 32, 24, -0.3, 0.01, 0.01, 0.01, 0, 0.2, 0, 0}),
      splat::lens_camera(CameraModel::RadialFisheye, 64, 48, {50, 32, 24, -0.3, 0.01}),
      splat::lens_camera(CameraModel::ThinPrismFisheye, 64, 48,
                         {50, 50, 32, 24, -0.3, 0.01, 0.01, -0.01, 0, 0, 0.01, -0.005}),
  };
  for (const LensCamera& lens : lenses) {
    INFO(splat::camera_model_name(lens.model));
    const splat::UnfoldedRegion region(lens, 3.0);
    for (double a : {0.3, 1.9, 2.8, 4.4, 5.9}) {
      const V2 dir{std::cos(a), std::sin(a)};
      const double fold = fd_fold(lens, dir, 3.0);
      REQUIRE(fold < 3.0);  // every lens here folds within the searched radius
      INFO("direction " << a << " fold " << fold);
      CHECK(region.contains({0.98 * fold * dir.x, 0.98 * fold * dir.y}));
      CHECK_FALSE(region.contains({1.02 * fold * dir.x, 1.02 * fold * dir.y}));
      CHECK_FALSE(region.contains({1.5 * fold * dir.x, 1.5 * fold * dir.y}));
    }
  }
  // A lens that does not fold is unfolded up to the searched radius.
  const LensCamera pincushion = splat::lens_camera(CameraModel::SimpleRadial, 64, 48, {50, 32, 24, 0.2});
  const splat::UnfoldedRegion open(pincushion, 2.0);
  CHECK(open.contains({1.4, 1.4}));
}

TEST_CASE("COLMAP readers accept every supported model from .bin and .txt", "[lens][colmap]") {
  namespace colmap = splat::colmap;
  std::vector<colmap::Camera> cams;
  for (int id = 0; id <= 10; ++id) {
    const auto model = static_cast<CameraModel>(id);
    colmap::Camera c{id + 1, model, 640 + id, 480, {}};
    REQUIRE(static_cast<int>(colmap::model_param_names(model).size()) == colmap::model_param_count(model));
    for (int k = 0; k < colmap::model_param_count(model); ++k) c.params.push_back(100.0 / (k + 1) + id * 1e-3);
    cams.push_back(c);
  }
  CHECK(std::string(splat::camera_model_name(CameraModel::ThinPrismFisheye)) == "THIN_PRISM_FISHEYE");
  CHECK(colmap::model_id(CameraModel::FOV) == 7);
  CHECK(colmap::model_param_count(CameraModel::FullOpenCV) == 12);
  const auto dir = splat::test::scratch_dir("lens_models_io");
  colmap::write_colmap_binary(dir / "bin", cams, {}, {});
  colmap::write_colmap_text(dir / "txt", cams, {}, {});
  for (const auto& back : {colmap::read_cameras_bin(dir / "bin" / "cameras.bin"),
                           colmap::read_cameras_txt(dir / "txt" / "cameras.txt")}) {
    REQUIRE(back.size() == cams.size());
    for (size_t i = 0; i < cams.size(); ++i) {
      INFO(splat::camera_model_name(cams[i].model));
      CHECK(back[i].id == cams[i].id);
      CHECK(back[i].model == cams[i].model);
      CHECK(back[i].width == cams[i].width);
      CHECK(back[i].params == cams[i].params);
    }
  }
}
