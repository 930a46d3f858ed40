// Camera paths and the scene orientation they use: up from the views, the focus point, an orbit
// about it, and the views' own path with interpolation.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "core/scene/camera_path.h"
#include "tests/core/view_ring.h"

using namespace splat;
using splat::test::ring;

namespace {

Vec3d centre_of(const kernels::Camera& c) {
  Mat3d R;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) R.m[i][j] = c.R[3 * i + j];
  return -(transpose(R) * Vec3d{c.t[0], c.t[1], c.t[2]});
}

// Pixel of world point p in camera c.
std::pair<double, double> project(const kernels::Camera& c, Vec3d p) {
  double q[3];
  for (int i = 0; i < 3; ++i) q[i] = c.R[3 * i] * p.x + c.R[3 * i + 1] * p.y + c.R[3 * i + 2] * p.z + c.t[i];
  return {c.fx * q[0] / q[2] + c.cx, c.fy * q[1] / q[2] + c.cy};
}

}  // namespace

TEST_CASE("the up axis and the focus point come from the views", "[camera_path]") {
  const Vec3d target{0.5, -2, 1}, up = Vec3d{0.2, 0.3, -1} / norm(Vec3d{0.2, 0.3, -1});
  const std::vector<SceneView> views = ring(target, up, 24);
  CHECK(dot(estimate_up(views).up, up) > 0.999);  // core/scene/up_axis.h; tests/core/test_up_axis.cpp
  CHECK(norm(focus_point(views) - target) < 0.05);
}

TEST_CASE("an orbit circles the focus point upright, at the views' distance and height", "[camera_path]") {
  const Vec3d target{1, 2, 3}, up{0, 0, 1};
  const std::vector<SceneView> views = ring(target, up, 16);
  const std::vector<kernels::Camera> path = orbit_path(views, 8, 0, 0);
  REQUIRE(path.size() == 8);
  for (const kernels::Camera& c : path) {
    CHECK(c.width == 64);
    CHECK(c.height == 48);
    const auto [x, y] = project(c, target);
    CHECK(x == Approx(32).margin(1e-3));
    CHECK(y == Approx(24).margin(1e-3));
    const Vec3d off = centre_of(c) - target;
    CHECK(dot(off, up) == Approx(1.0).margin(0.02));
    CHECK(norm(off - up * dot(off, up)) == Approx(3.0).margin(0.05));
    CHECK(c.R[3] * up.x + c.R[4] * up.y + c.R[5] * up.z < 0);  // the image's down is the world's down
  }
  CHECK(norm(centre_of(path[0]) - views[0].camera_center()) < 0.05);  // starts where the capture starts
  CHECK(norm(centre_of(path[4]) - (target * 2.0 - centre_of(path[0]) + up * 2.0)) < 0.05);  // half way round
  const std::vector<kernels::Camera> wide = orbit_path(views, 1, 128, 0);
  CHECK(wide[0].height == 96);
  CHECK(wide[0].fx == Approx(100));
  // An up axis given (the viewer's choice) replaces the estimate: the orbit turns about it (one
  // height along it), the image's rows stay level across it, and every camera still looks at the
  // focus point.
  const Vec3d other = Vec3d{1, 0, 1} / std::sqrt(2.0);
  const std::vector<kernels::Camera> tilted = orbit_path(views, 6, 0, 0, other * 3.0);
  for (const kernels::Camera& c : tilted) {
    CHECK(dot(centre_of(c) - centre_of(tilted[0]), other) == Approx(0).margin(1e-5));
    CHECK(c.R[0] * other.x + c.R[1] * other.y + c.R[2] * other.z == Approx(0).margin(1e-6));
    CHECK(c.R[3] * other.x + c.R[4] * other.y + c.R[5] * other.z < 0);
    const auto [x, y] = project(c, target);
    CHECK(x == Approx(32).margin(1e-3));
    CHECK(y == Approx(24).margin(1e-3));
  }
}

TEST_CASE("the orbit's first pose is the upright overview its first frame shows", "[camera_path]") {
  const Vec3d target{1, 2, 3}, up{0, 0, 1};
  const std::vector<SceneView> views = ring(target, up, 16);
  const Vec3d other = Vec3d{0, 1, 1} / std::sqrt(2.0);
  for (const Vec3d axis : {up, other}) {
    const std::vector<CameraPose> poses = orbit_poses(views, 3, axis);
    const std::vector<kernels::Camera> path = orbit_path(views, 3, 0, 0, axis);
    REQUIRE(poses.size() == 3);
    for (size_t k = 0; k < 3; ++k) {
      CHECK(norm(poses[k].centre - centre_of(path[k])) < 1e-5);
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) CHECK(poses[k].R.m[i][j] == Approx(path[k].R[3 * i + j]).margin(1e-6));
      // Upright: the rows level across up, the image's down against it, looking at the focus.
      const Vec3d right{poses[k].R.m[0][0], poses[k].R.m[0][1], poses[k].R.m[0][2]};
      const Vec3d down{poses[k].R.m[1][0], poses[k].R.m[1][1], poses[k].R.m[1][2]};
      const Vec3d fwd{poses[k].R.m[2][0], poses[k].R.m[2][1], poses[k].R.m[2][2]};
      CHECK(dot(right, axis) == Approx(0).margin(1e-9));
      CHECK(dot(down, axis) < 0);
      const Vec3d to_focus = focus_point(views) - poses[k].centre;
      CHECK(dot(fwd, to_focus / norm(to_focus)) == Approx(1).margin(1e-9));
    }
  }
  // look_at alone: a rotation, upright.
  const Mat3d R = look_at({3, 0, 1}, {0, 0, 0}, up);
  CHECK(determinant(R) == Approx(1).margin(1e-12));
  CHECK(R.m[0][2] == Approx(0).margin(1e-12));
  CHECK(R.m[1][2] < 0);
}

TEST_CASE("the views' path gives each view, or frames interpolated between them", "[camera_path]") {
  const std::vector<SceneView> views = ring({0, 0, 0}, {0, 1, 0}, 5);
  const std::vector<kernels::Camera> each = views_path(views, 0, 0, 0);
  REQUIRE(each.size() == 5);
  for (size_t i = 0; i < 5; ++i) {
    const kernels::Camera want = views[i].to_kernel_camera();
    for (int k = 0; k < 9; ++k) CHECK(each[i].R[k] == Approx(want.R[k]).margin(1e-6));
    for (int k = 0; k < 3; ++k) CHECK(each[i].t[k] == Approx(want.t[k]).margin(1e-5));
  }
  const std::vector<kernels::Camera> fine = views_path(views, 9, 0, 0);  // a frame at every half view
  REQUIRE(fine.size() == 9);
  CHECK(norm(centre_of(fine[0]) - views[0].camera_center()) < 1e-5);
  CHECK(norm(centre_of(fine[8]) - views[4].camera_center()) < 1e-5);
  CHECK(norm(centre_of(fine[3]) - (views[1].camera_center() + views[2].camera_center()) * 0.5) < 1e-5);
  // Interpolated rotations stay rotations, between their neighbours.
  const kernels::Camera& mid = fine[3];
  for (int i = 0; i < 3; ++i) {
    const double len = std::sqrt(mid.R[3 * i] * mid.R[3 * i] + mid.R[3 * i + 1] * mid.R[3 * i + 1] +
                                 mid.R[3 * i + 2] * mid.R[3 * i + 2]);
    CHECK(len == Approx(1).margin(1e-5));
  }
  const Vec3d f1{views[1].R.m[2][0], views[1].R.m[2][1], views[1].R.m[2][2]};
  const Vec3d f2{views[2].R.m[2][0], views[2].R.m[2][1], views[2].R.m[2][2]};
  const Vec3d fm{mid.R[6], mid.R[7], mid.R[8]};
  CHECK(dot(fm, f1) == Approx(dot(fm, f2)).margin(1e-4));  // half way between, by angle
  CHECK(dot(fm, f1) > dot(f1, f2));
}
