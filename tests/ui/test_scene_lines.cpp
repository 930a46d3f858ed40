// Overlay geometry: the GL projection must put a world point on the pixel where the rasterizer's
// pinhole projection puts it, or frustums and grid would drift off the splats.
#include <catch2/catch.hpp>

#include "ui/orbit_camera.h"
#include "ui/scene_lines.h"

using namespace splat;
using namespace splat::ui;

namespace {
// Pixel (top-left origin) and NDC depth of p through a column-major clip matrix.
Vec3d through_clip(const std::array<float, 16>& M, const Vec3d& p, int w, int h) {
  double clip[4];
  for (int r = 0; r < 4; ++r) clip[r] = M[r] * p.x + M[4 + r] * p.y + M[8 + r] * p.z + M[12 + r];
  const double nx = clip[0] / clip[3], ny = clip[1] / clip[3], nz = clip[2] / clip[3];
  return {(nx + 1) * 0.5 * w, (1 - ny) * 0.5 * h, nz};
}
}  // namespace

TEST_CASE("clip matrix agrees with the pinhole projection", "[ui][lines]") {
  OrbitCamera cam;
  cam.orbit(120, -40);
  cam.pan(15, 30, 400);
  kernels::Camera k = cam.camera(640, 400);
  k.cx = 300;  // an off-centre principal point and unequal focal lengths must be honoured too
  k.fx *= 1.1f;
  const auto M = clip_matrix(k, 0.1f, 100.f);
  for (const Vec3d p : {Vec3d{0.2, -0.1, 0.3}, Vec3d{-0.4, 0.25, -0.2}, Vec3d{0.0, 0.0, 0.0}}) {
    double c[3];
    for (int r = 0; r < 3; ++r) c[r] = k.R[r * 3] * p.x + k.R[r * 3 + 1] * p.y + k.R[r * 3 + 2] * p.z + k.t[r];
    const Vec3d px = through_clip(M, p, 640, 400);
    REQUIRE(px.x == Approx(k.fx * c[0] / c[2] + k.cx).margin(1e-3));
    REQUIRE(px.y == Approx(k.fy * c[1] / c[2] + k.cy).margin(1e-3));
  }
  // Depth: the near plane maps to -1, the far plane to +1.
  const Vec3d eye = cam.eye(), fwd = cam.forward();
  REQUIRE(through_clip(M, eye + 0.1 * fwd, 640, 400).z == Approx(-1.0).margin(1e-4));
  REQUIRE(through_clip(M, eye + 100.0 * fwd, 640, 400).z == Approx(1.0).margin(1e-3));
}

TEST_CASE("a frustum's far corners project to the training image's corners", "[ui][lines]") {
  SceneView v;
  v.R = axis_angle(Vec3d{0.6, 0.8, 0.0}, 0.9);
  v.t = {0.3, -0.2, 1.5};
  v.intrinsics = {320, 240, 280, 260, 150, 125};
  std::vector<LineVertex> lines;
  append_frustum(lines, v, 2.0, {1, 1, 1, 1});
  REQUIRE(lines.size() == 16);  // 4 edges from the centre + 4 around the image, 2 vertices each
  const kernels::Camera k = v.to_kernel_camera();
  const auto M = clip_matrix(k, 0.01f, 10.f);
  // Vertices 1, 5, 9, 13 are the corners (the far ends of the centre edges), in order
  // top-left, top-right, bottom-right, bottom-left.
  const double want[4][2] = {{0, 0}, {320, 0}, {320, 240}, {0, 240}};
  for (int i = 0; i < 4; ++i) {
    const float* p = lines[4 * i + 1].pos;
    const Vec3d px = through_clip(M, {p[0], p[1], p[2]}, 320, 240);
    REQUIRE(px.x == Approx(want[i][0]).margin(1e-2));
    REQUIRE(px.y == Approx(want[i][1]).margin(1e-2));
  }
}

TEST_CASE("grid lies in the plane perpendicular to up", "[ui][lines]") {
  std::vector<LineVertex> lines;
  const Vec3d center{1, 2, 3}, up = Vec3d{0.2, -1.0, 0.1} / norm(Vec3d{0.2, -1.0, 0.1});
  append_grid(lines, center, up, 5.0, 4, {1, 1, 1, 1});
  REQUIRE(lines.size() == 2 * 2 * 5);
  for (const LineVertex& v : lines) {
    const Vec3d p{v.pos[0], v.pos[1], v.pos[2]};
    REQUIRE(dot(p - center, up) == Approx(0.0).margin(1e-5));
    REQUIRE(norm(p - center) <= 5.0 * std::sqrt(2.0) + 1e-4);
  }
}
