// The orbit camera's guarantees, checked on arbitrary (non axis-aligned) poses.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "ui/orbit_camera.h"

using namespace splat;
using namespace splat::ui;

namespace {
double dist(const Vec3d& a, const Vec3d& b) { return norm(a - b); }

// A camera looking from a tilted position at a point, built from a rotation about an odd axis.
SceneView make_view(const Vec3d& axis, double angle, const Vec3d& center, double fy = 500, int h = 400) {
  SceneView v;
  v.R = axis_angle(axis / norm(axis), angle);
  v.t = -(v.R * center);
  v.intrinsics = {600, h, fy, fy, 300, 0.5 * h};
  return v;
}

OrbitCamera tilted_camera() {
  OrbitCamera cam;
  cam.snap_to(make_view({0.3, 1.0, -0.2}, 0.7, {1.0, -2.0, 0.5}), 3.5);
  cam.set_world_up({0.1, -1.0, 0.2});
  return cam;
}

void require_rotation(const Mat3d& R) {
  const Mat3d I = R * transpose(R);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) REQUIRE(I.m[r][c] == Approx(r == c ? 1.0 : 0.0).margin(1e-12));
  REQUIRE(determinant(R) == Approx(1.0).margin(1e-12));
}
}  // namespace

TEST_CASE("orbit keeps the pivot and the distance to it", "[ui][camera]") {
  OrbitCamera cam = tilted_camera();
  const Vec3d pivot = cam.pivot(), eye0 = cam.eye();
  cam.orbit(137.0, -58.0);
  cam.orbit(-20.0, 300.0);
  REQUIRE(dist(cam.pivot(), pivot) < 1e-12);
  REQUIRE(dist(cam.eye(), pivot) == Approx(3.5).epsilon(1e-12));
  REQUIRE(dist(cam.eye(), eye0) > 0.1);  // it did move
  require_rotation(cam.rotation());
  // The camera still looks at the pivot.
  const Vec3d to_pivot = (pivot - cam.eye()) / norm(pivot - cam.eye());
  REQUIRE(dot(to_pivot, cam.forward()) == Approx(1.0).epsilon(1e-12));
}

TEST_CASE("a horizontal orbit turns about the world up axis", "[ui][camera]") {
  OrbitCamera cam = tilted_camera();
  const Vec3d up = cam.world_up(), pivot = cam.pivot(), eye0 = cam.eye();
  cam.orbit(250.0, 0.0);
  // The height of the eye along up is unchanged; the scene follows the mouse, so the eye moves
  // to the camera's left.
  REQUIRE(dot(cam.eye() - pivot, up) == Approx(dot(eye0 - pivot, up)).margin(1e-12));
  OrbitCamera small = tilted_camera();
  const Vec3d right0 = small.right();
  small.orbit(1.0, 0.0);
  REQUIRE(dot(small.eye() - eye0, right0) < 0);
}

TEST_CASE("pan moves pivot and eye by the same vector in the image plane", "[ui][camera]") {
  OrbitCamera cam = tilted_camera();
  const Vec3d pivot0 = cam.pivot(), eye0 = cam.eye(), fwd0 = cam.forward();
  const Mat3d R0 = cam.rotation();
  cam.pan(40.0, -25.0, 800);
  const Vec3d dp = cam.pivot() - pivot0, de = cam.eye() - eye0;
  REQUIRE(dist(dp, de) < 1e-12);
  REQUIRE(norm(dp) > 0);
  REQUIRE(dot(dp, fwd0) == Approx(0.0).margin(1e-12));
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) REQUIRE(cam.rotation().m[r][c] == R0.m[r][c]);
  // The point at the pivot stays under the cursor: 40 px right of the centre after the pan.
  const kernels::Camera k = cam.camera(600, 800);
  Vec3d p_cam{};
  for (int r = 0; r < 3; ++r)
    p_cam[r] = k.R[r * 3] * pivot0.x + k.R[r * 3 + 1] * pivot0.y + k.R[r * 3 + 2] * pivot0.z + k.t[r];
  REQUIRE(k.fx * p_cam.x / p_cam.z + k.cx == Approx(300.0 + 40.0).epsilon(1e-5));
  REQUIRE(k.fy * p_cam.y / p_cam.z + k.cy == Approx(400.0 - 25.0).epsilon(1e-5));
}

TEST_CASE("zoom changes only the distance", "[ui][camera]") {
  OrbitCamera cam = tilted_camera();
  const Vec3d pivot0 = cam.pivot(), fwd0 = cam.forward();
  cam.zoom(3.0);
  REQUIRE(cam.distance() == Approx(3.5 * std::pow(0.9, 3.0)).epsilon(1e-12));
  REQUIRE(dist(cam.pivot(), pivot0) < 1e-12);
  REQUIRE(dist(cam.forward(), fwd0) < 1e-12);
  cam.zoom(-1000.0);  // far out, then far in: the distance stays positive
  cam.zoom(1e6);
  REQUIRE(cam.distance() > 0);
}

TEST_CASE("snapping gives exactly the training camera's pose and field of view", "[ui][camera]") {
  const SceneView v = make_view({-0.5, 0.2, 0.9}, 2.1, {4.0, 1.0, -3.0}, 350.0, 480);
  OrbitCamera cam;
  cam.orbit(10, 20);
  cam.snap_to(v, 2.0);
  const kernels::Camera k = cam.camera(640, 480);
  const kernels::Camera ref = v.to_kernel_camera();
  for (int i = 0; i < 9; ++i) REQUIRE(k.R[i] == ref.R[i]);
  for (int i = 0; i < 3; ++i) REQUIRE(k.t[i] == Approx(ref.t[i]).margin(1e-6));
  REQUIRE(k.fy == Approx(350.0).epsilon(1e-9));
  REQUIRE(dist(cam.eye(), v.camera_center()) < 1e-12);
}

TEST_CASE("fly translates eye and pivot along the camera axes", "[ui][camera]") {
  OrbitCamera cam = tilted_camera();
  const Vec3d eye0 = cam.eye(), pivot0 = cam.pivot(), fwd = cam.forward(), right = cam.right();
  cam.fly({0.5, 0.0, 2.0});
  const Vec3d expected = 0.5 * right + 2.0 * fwd;
  REQUIRE(dist(cam.eye() - eye0, expected) < 1e-12);
  REQUIRE(dist(cam.pivot() - pivot0, expected) < 1e-12);
}

TEST_CASE("frame fits a sphere in the vertical field of view, reset returns home", "[ui][camera]") {
  OrbitCamera cam = tilted_camera();
  cam.set_fov_y(0.9);
  cam.frame({1, 2, 3}, 2.0);
  REQUIRE(dist(cam.pivot(), Vec3d{1, 2, 3}) < 1e-12);
  // The sphere's silhouette touches the frustum: sin(fov/2) = radius / distance.
  REQUIRE(std::sin(0.45) == Approx(2.0 / cam.distance()).epsilon(1e-12));
  cam.set_home();
  const Vec3d eye_home = cam.eye();
  cam.orbit(100, 50);
  cam.pan(10, 10, 100);
  cam.zoom(2);
  REQUIRE(dist(cam.eye(), eye_home) > 1e-3);
  cam.reset();
  REQUIRE(dist(cam.eye(), eye_home) < 1e-12);
}

TEST_CASE("the kernel camera projects the pivot to the image centre", "[ui][camera]") {
  OrbitCamera cam = tilted_camera();
  cam.orbit(33, 44);
  const kernels::Camera k = cam.camera(320, 200);
  const Vec3d p = cam.pivot();
  Vec3d pc{};
  for (int r = 0; r < 3; ++r) pc[r] = k.R[r * 3] * p.x + k.R[r * 3 + 1] * p.y + k.R[r * 3 + 2] * p.z + k.t[r];
  REQUIRE(pc.z == Approx(cam.distance()).epsilon(1e-5));
  REQUIRE(k.fx * pc.x / pc.z + k.cx == Approx(160.0).margin(1e-3));
  REQUIRE(k.fy * pc.y / pc.z + k.cy == Approx(100.0).margin(1e-3));
  REQUIRE(k.fy == Approx(100.0 / std::tan(cam.fov_y() / 2)).epsilon(1e-6));
}

TEST_CASE("nearest and stepping through training cameras", "[ui][camera]") {
  std::vector<SceneView> views;
  for (int i = 0; i < 5; ++i) views.push_back(make_view({0, 1, 0}, 0.3 * i, {double(i), 0, 0}));
  const std::vector<int> train = {0, 2, 3, 4};
  REQUIRE(nearest_view(views, train, {2.9, 0.1, 0}) == 3);
  REQUIRE(nearest_view(views, train, {0.9, 0, 0}) == 0);  // view 1 is nearer but not a candidate
  REQUIRE(nearest_view(views, {}, {0, 0, 0}) == -1);
  REQUIRE(step_view(train, 3, 1) == 4);
  REQUIRE(step_view(train, 4, 1) == 0);
  REQUIRE(step_view(train, 0, -1) == 4);
  REQUIRE(step_view(train, 1, 1) == 0);
  REQUIRE(step_view(train, 1, -1) == 4);
  REQUIRE(step_view({}, 1, 1) == -1);
}
