// Which way is up (core/scene/up_axis.h): the normal of the camera centres' plane for rings and arcs
// of cameras (photos held sideways included), its sign from the cameras' ups or, when those are
// sideways, from where the cameras look; the cameras' mean up for captures whose centres lie in no
// plane across the views; the named choices; and the real scenes (skipped without ../shared/data).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/scene/scene_loader.h"
#include "core/scene/up_axis.h"
#include "tests/core/view_ring.h"
#include "tests/support/test_support.h"

using namespace splat;
using splat::test::view_at;

namespace {

constexpr double kPi = 3.14159265358979323846;

Vec3d unit(Vec3d v) { return v / norm(v); }
Vec3d row(const Mat3d& R, int i) { return {R.m[i][0], R.m[i][1], R.m[i][2]}; }
double degrees_between(Vec3d a, Vec3d b) { return std::acos(std::clamp(dot(unit(a), unit(b)), -1.0, 1.0)) * 180 / kPi; }

// The view turned about its viewing axis by `quarter_turns` x 90 degrees plus `extra` radians: a
// photo taken with the phone turned (rows right, down, forward; +1 turns the image's up to its left).
SceneView turned(SceneView v, int quarter_turns, double extra = 0) {
  const double a = quarter_turns * kPi / 2 + extra, c = std::cos(a), s = std::sin(a);
  const Vec3d r = row(v.R, 0), d = row(v.R, 1);
  const Vec3d r2 = r * c + d * s, d2 = d * c - r * s;
  for (int j = 0; j < 3; ++j) v.R.m[0][j] = r2[j], v.R.m[1][j] = d2[j];
  return v;
}

// Two unit vectors across `n`.
std::pair<Vec3d, Vec3d> basis_across(Vec3d n) {
  const Vec3d e1 = unit(std::abs(n.x) < 0.9 ? cross(n, Vec3d{1, 0, 0}) : cross(n, Vec3d{0, 1, 0}));
  return {e1, cross(n, e1)};
}

// Views on an arc of `degrees` about `normal` through the origin, radius 3, `lift` above the object
// they look at, each turned by `quarter_turns` with a few degrees of wobble in roll and height.
std::vector<SceneView> arc(Vec3d normal, double degrees, int n, double lift, int quarter_turns) {
  const auto [e1, e2] = basis_across(normal);
  std::vector<SceneView> views;
  for (int k = 0; k < n; ++k) {
    const double a = degrees * kPi / 180 * k / (degrees >= 360 ? n : n - 1);
    const Vec3d eye = normal * (lift + 0.05 * std::sin(5.0 * k)) + (e1 * std::cos(a) + e2 * std::sin(a)) * 3.0;
    views.push_back(turned(view_at(eye, {0, 0, 0}, normal), quarter_turns, 0.08 * std::sin(7.0 * k)));
  }
  return views;
}

Vec3d mean_up(const std::vector<SceneView>& views) {
  Vec3d s{};
  for (const SceneView& v : views) s = s - row(v.R, 1);
  return s / double(views.size());
}

}  // namespace

TEST_CASE("up: a ring of sideways photos stands on its plane's normal, not on the mean camera up", "[up_axis]") {
  const Vec3d normal = unit({0.3, -0.8, 0.5});
  for (int turn : {1, -1}) {  // the phone turned either way
    INFO("quarter turns " << turn);
    const std::vector<SceneView> views = arc(normal, 360, 24, 1.0, turn);
    // Each camera's up lies across the true up: their mean says nothing about it.
    CHECK(std::abs(dot(mean_up(views), normal)) < 0.1);
    const UpEstimate e = estimate_up(views);
    CHECK(e.source == UpSource::CameraPlane);
    CHECK(degrees_between(e.up, normal) < 1.0);  // the cameras look down at the object: up is away from it
    CHECK(e.lambda[0] <= kMaxPlaneFlatness * e.lambda[1]);
  }
}

TEST_CASE("up: an arc of cameras has a plane too, its sign from the cameras' ups", "[up_axis]") {
  const Vec3d normal = unit({-0.2, 0.1, 1.0});
  const std::vector<SceneView> sideways = arc(normal, 120, 15, 0.8, 1);
  CHECK(norm(mean_up(sideways) - normal * dot(mean_up(sideways), normal)) > 0.5);  // the mean is sideways
  const UpEstimate e = estimate_up(sideways);
  CHECK(e.source == UpSource::CameraPlane);
  CHECK(degrees_between(e.up, normal) < 2.0);
  // Upright photos looking straight across the plane: only the ups can tell the sign, and do.
  const std::vector<SceneView> level = arc(normal, 120, 15, 0.0, 0);
  CHECK(degrees_between(estimate_up(level).up, normal) < 2.0);
  // Upright photos looking up at the object from below: the ups, which agree, outvote where they look.
  const std::vector<SceneView> below = arc(normal, 120, 15, -1.0, 0);
  CHECK(degrees_between(estimate_up(below).up, normal) < 2.0);
  // Every photo upside down: the plane is the same, the cameras' ups turn it over (the Up axis
  // choice "flipped" is the way back).
  const std::vector<SceneView> upside_down = arc(normal, 120, 15, 0.0, 2);
  const UpEstimate flipped = estimate_up(upside_down);
  CHECK(flipped.source == UpSource::CameraPlane);
  CHECK(degrees_between(flipped.up, -normal) < 2.0);
  CHECK(degrees_between(up_direction(UpAxis::Flipped, upside_down), normal) < 2.0);
}

TEST_CASE("up: captures whose centres lie in no plane across the views fall back to the mean camera up", "[up_axis]") {
  const Vec3d up = unit({0.05, 1.0, 0.0});  // across the views' forward (+z), as upright photos hold it
  // A forward-facing line: cameras side by side, all looking ahead (their two small spreads are noise).
  std::vector<SceneView> line;
  for (int k = 0; k < 12; ++k) {
    const Vec3d eye{-2.0 + 4.0 * k / 11, 0.01 * std::sin(3.0 * k), 0.01 * std::cos(5.0 * k)};
    line.push_back(view_at(eye, eye + Vec3d{0.05 * std::sin(2.0 * k), 0, 10}, up));
  }
  UpEstimate e = estimate_up(line);
  CHECK(e.source == UpSource::CameraUp);
  CHECK(degrees_between(e.up, mean_up(line)) < 1e-6);
  CHECK(degrees_between(e.up, up) < 1.0);
  CHECK(e.lambda[1] < kMinPlaneSpread * e.lambda[2]);
  // A forward-facing grid: flat and two-dimensional, but the views look along its normal (the
  // horizon's direction, not up).
  std::vector<SceneView> grid;
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 3; ++j) {
      const Vec3d eye{-1.0 + 0.5 * i, -0.3 + 0.3 * j, 0.02 * std::sin(1.0 * i + 2.0 * j)};
      grid.push_back(view_at(eye, {0, 0, 8}, up));
    }
  e = estimate_up(grid);
  CHECK(e.source == UpSource::CameraUp);
  CHECK(degrees_between(e.up, up) < 1.0);
  // Cameras all round a sphere (latitudes -60..60): no plane is flat enough.
  std::vector<SceneView> sphere;
  const Vec3d z{0, 0, 1};
  for (int k = 0; k < 40; ++k) {
    const double h = -0.85 + 1.7 * (k + 0.5) / 40, a = 2.399963 * k, r = std::sqrt(1 - h * h);
    sphere.push_back(view_at(Vec3d{r * std::cos(a), r * std::sin(a), h} * 4.0, {0, 0, 0}, z));
  }
  e = estimate_up(sphere);
  CHECK(e.source == UpSource::CameraUp);
  CHECK(e.lambda[0] > kMaxPlaneFlatness * e.lambda[1]);
  CHECK(degrees_between(e.up, z) < 10.0);
  // Three views always lie in a plane, which then says nothing.
  const std::vector<SceneView> three(line.begin(), line.begin() + 3);
  CHECK(estimate_up(three).source == UpSource::CameraUp);
  // Without a plane, ups that cancel out give no up at all.
  const std::vector<SceneView> opposed = {view_at({0, 0, -3}, {0, 0, 0}, {0, 1, 0}), view_at({0, 0, -3}, {0, 0, 0}, {0, -1, 0})};
  CHECK_THROWS_WITH(estimate_up(opposed), Catch::Contains("no consistent up"));
  CHECK_THROWS_WITH(estimate_up({}), Catch::Contains("no views"));
}

TEST_CASE("up: the named choices and the directions they stand for", "[up_axis]") {
  const std::vector<SceneView> views = arc(unit({0, 1, 1}), 360, 12, 1.0, 1);
  for (int i = 0; i < int(std::size(kUpAxisNames)); ++i) {
    const UpAxis axis = static_cast<UpAxis>(i);
    CHECK(parse_up_axis(up_axis_name(axis)) == axis);
    CHECK(norm(up_direction(axis, views)) == Approx(1.0));
  }
  CHECK_FALSE(parse_up_axis("sideways"));
  CHECK_FALSE(parse_up_axis("+X"));
  CHECK(norm(up_direction(UpAxis::Auto, views) - estimate_up(views).up) < 1e-12);
  CHECK(norm(up_direction(UpAxis::Flipped, views) + estimate_up(views).up) < 1e-12);
  CHECK(norm(up_direction(UpAxis::PlusX, views) - Vec3d{1, 0, 0}) == 0);
  CHECK(norm(up_direction(UpAxis::MinusY, views) - Vec3d{0, -1, 0}) == 0);
  CHECK(norm(up_direction(UpAxis::PlusZ, {}) - Vec3d{0, 0, 1}) == 0);  // a world axis needs no views
}

namespace {
Scene real_poses(const std::filesystem::path& dir) {
  SceneLoadOptions o;
  o.load_images = false;
  o.show_progress = false;
  return load_scene(dir, o);
}
}  // namespace

TEST_CASE("up: bonsai stands on its ring's normal, within 3 degrees of its upright cameras' mean up",
          "[up_axis][real]") {
  const auto dir = splat::test::shared_scene("bonsai");
  if (!dir) return;
  const Scene scene = real_poses(*dir);
  const UpEstimate e = estimate_up(scene.views);
  CHECK(e.source == UpSource::CameraPlane);
  // Bonsai's photos are upright: their mean up is the known good up.
  CHECK(degrees_between(e.up, mean_up(scene.views)) < 3.0);
}

TEST_CASE("up: cup, photographed sideways, stands on its ring's normal with the table below the cameras",
          "[up_axis][real]") {
  const auto dir = splat::test::shared_scene("cup");
  if (!dir) return;
  const Scene scene = real_poses(*dir);
  const UpEstimate e = estimate_up(scene.views);
  CHECK(e.source == UpSource::CameraPlane);
  // The photos are sideways: their mean up lies nearly across the true up.
  CHECK(degrees_between(mean_up(scene.views), e.up) > 75.0);
  // Perpendicular to the ring: no direction of a fine spread over the sphere has the camera centres
  // spread less along it than up does (so up is within a few degrees of the thinnest direction).
  Vec3d mean{};
  for (const SceneView& v : scene.views) mean = mean + v.camera_center();
  mean = mean / double(scene.views.size());
  auto spread = [&](Vec3d d) {
    double s = 0;
    for (const SceneView& v : scene.views) s += std::pow(dot(v.camera_center() - mean, d), 2);
    return s;
  };
  const double along_up = spread(e.up);
  Vec3d thinnest = e.up;
  for (int k = 0; k < 20000; ++k) {
    const double h = -1 + 2 * (k + 0.5) / 20000, a = 2.399963 * k, r = std::sqrt(1 - h * h);
    const Vec3d d{r * std::cos(a), r * std::sin(a), h};
    if (spread(d) < spread(thinnest)) thinnest = d;
  }
  CHECK(along_up <= spread(thinnest) * 1.01);
  CHECK(std::min(degrees_between(thinnest, e.up), degrees_between(thinnest, -e.up)) < 3.0);
  // Up, not down: the table and the cup (the SfM points) lie below the cameras' mean height.
  const double camera_height = dot(mean, e.up);
  size_t below = 0;
  for (const ScenePoint& p : scene.points) below += dot(p.xyz, e.up) < camera_height;
  CHECK(double(below) > 0.95 * double(scene.points.size()));
}
