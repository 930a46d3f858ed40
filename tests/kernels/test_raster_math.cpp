// Finite-difference checks (double) of every VJP in kernels/raster_math.h, and hand computations
// of the forward pieces whose value is easy to state.
#include <bit>
#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "kernels/raster_math.h"
#include "tests/kernels/fd_check.h"
#include "tests/kernels/raster_test_scenes.h"

using namespace splat;
using namespace splat::raster;
using splat::test::check_vjp;
using splat::test::random_vector;
using splat::test::Vector;

namespace {

// Tiles of a grid that the box mean ± half overlaps: what a pair was blended in before its ellipse's
// tiles (raster::TileRows) replaced the box.
int box_tiles(Vec2<double> mean, int hx, int hy, int tiles_x, int tiles_y) {
  const auto first = [](double lo) { return std::max(0, int(std::floor(lo / 16))); };
  const auto end = [](double hi, int tiles) { return std::min(tiles, int(std::floor(hi / 16)) + 1); };
  const int w = end(mean.x + hx, tiles_x) - first(mean.x - hx), h = end(mean.y + hy, tiles_y) - first(mean.y - hy);
  return w > 0 && h > 0 ? w * h : 0;
}

Quat<double> quat_at(const Vector& x, size_t o) { return {x[o], x[o + 1], x[o + 2], x[o + 3]}; }
Vec3d vec3_at(const Vector& x, size_t o) { return {x[o], x[o + 1], x[o + 2]}; }
Mat3d mat3_at(const Vector& x, size_t o) {
  Mat3d m;
  for (int i = 0; i < 9; ++i) m.m[i / 3][i % 3] = x[o + i];
  return m;
}
void push(Vector& v, const Mat3d& m) {
  for (int i = 0; i < 9; ++i) v.push_back(m.m[i / 3][i % 3]);
}
void push(Vector& v, Sym2<double> s) {
  v.push_back(s.xx);
  v.push_back(s.xy);
  v.push_back(s.yy);
}

kernels::Camera test_camera() {
  return splat::test::look_at_camera({0.3, -0.2, -4}, {0, 0, 0}, 24, 20, 22);
}

// A random symmetric positive definite 3x3 matrix.
Mat3d random_spd(std::mt19937& rng) {
  const Vector a = random_vector(9, -1, 1, rng);
  Mat3d A = mat3_at(a, 0);
  Mat3d S = A * transpose(A);
  for (int i = 0; i < 3; ++i) S.m[i][i] += 0.2;
  return S;
}

}  // namespace

TEST_CASE("covariance3d VJP matches finite differences", "[raster_math]") {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 5; ++trial) {
    Vector x = random_vector(7, -1, 1, rng);  // unnormalised quat, log-scales
    x[0] += 1.5;
    auto f = [](const Vector& y) {
      Vector out;
      push(out, covariance3d(quat_at(y, 0), vec3_at(y, 4)));
      return out;
    };
    auto vjp = [](const Vector& y, const Vector& u) {
      Quat<double> dq;
      Vec3d ds;
      covariance3d_vjp(quat_at(y, 0), vec3_at(y, 4), mat3_at(u, 0), dq, ds);
      return Vector{dq.w, dq.x, dq.y, dq.z, ds.x, ds.y, ds.z};
    };
    check_vjp(f, vjp, x, "covariance3d", 100 + trial);
  }
}

TEST_CASE("covariance3d of an axis-aligned Gaussian is diag(exp(2 log_scale))", "[raster_math]") {
  const Mat3d S = covariance3d<double>({2, 0, 0, 0}, {std::log(0.5), 0, std::log(3.0)});
  CHECK(S.m[0][0] == Approx(0.25));
  CHECK(S.m[1][1] == Approx(1.0));
  CHECK(S.m[2][2] == Approx(9.0));
  CHECK(S.m[0][1] == Approx(0).margin(1e-15));
  // A 90 degree turn about z swaps the x and y variances.
  const double h = std::sqrt(0.5);
  const Mat3d R = covariance3d<double>({h, 0, 0, h}, {std::log(0.5), 0, 0});
  CHECK(R.m[0][0] == Approx(1.0));
  CHECK(R.m[1][1] == Approx(0.25));
}

TEST_CASE("camera transforms and their VJPs", "[raster_math]") {
  const kernels::Camera cam = test_camera();
  const Vec3d c = camera_centre<double>(cam);
  const Vec3d origin_in_cam = world_to_camera(cam, c);
  CHECK(norm(origin_in_cam) == Approx(0).margin(1e-6));
  CHECK(c.z == Approx(-4).margin(1e-6));
  std::mt19937 rng(3);
  check_vjp(
      [&](const Vector& y) {
        const Vec3d p = world_to_camera(cam, vec3_at(y, 0));
        return Vector{p.x, p.y, p.z};
      },
      [&](const Vector&, const Vector& u) {
        const Vec3d d = world_to_camera_vjp(cam, vec3_at(u, 0));
        return Vector{d.x, d.y, d.z};
      },
      random_vector(3, -1, 1, rng), "world_to_camera");
  check_vjp(
      [&](const Vector& y) {
        Vector out;
        push(out, cov_world_to_camera(cam, mat3_at(y, 0)));
        return out;
      },
      [&](const Vector&, const Vector& u) {
        Vector out;
        push(out, cov_world_to_camera_vjp(cam, mat3_at(u, 0)));
        return out;
      },
      random_vector(9, -1, 1, rng), "cov_world_to_camera");
}

// Σ_cam enters as its 6 distinct entries (it is symmetric wherever it is used), so the off-diagonal
// gradient is dS[i][j] + dS[j][i].
Mat3d sym3_at(const Vector& x, size_t o) {
  Mat3d m;
  const int idx[3][3] = {{0, 1, 2}, {1, 3, 4}, {2, 4, 5}};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) m.m[i][j] = x[o + idx[i][j]];
  return m;
}

TEST_CASE("EWA projection VJP matches finite differences, clamped or not", "[raster_math]") {
  const kernels::Camera cam = test_camera();
  std::mt19937 rng(5);
  // x/z limit is 1.3 * 12 / 22 = 0.709; the second and third points are beyond it in x, y.
  const Vec3d points[] = {{0.4, -0.3, 3.0}, {3.0, 0.2, 2.5}, {-0.1, -2.6, 2.0}};
  for (const Vec3d& p : points) {
    const Mat3d S = random_spd(rng);
    Vector x{p.x, p.y, p.z, S.m[0][0], S.m[0][1], S.m[0][2], S.m[1][1], S.m[1][2], S.m[2][2]};
    auto f = [&](const Vector& y) {
      Vec2<double> m;
      Sym2<double> s;
      project_ewa(cam, vec3_at(y, 0), sym3_at(y, 3), 0.3, m, s);
      Vector out{m.x, m.y};
      push(out, s);
      return out;
    };
    auto vjp = [&](const Vector& y, const Vector& u) {
      Vec3d dp;
      Mat3d dS;
      project_ewa_vjp(cam, vec3_at(y, 0), sym3_at(y, 3), Vec2<double>{u[0], u[1]}, Sym2<double>{u[2], u[3], u[4]}, dp,
                      dS);
      const auto& d = dS.m;
      return Vector{dp.x,    dp.y, dp.z, d[0][0], d[0][1] + d[1][0], d[0][2] + d[2][0], d[1][1], d[1][2] + d[2][1],
                    d[2][2]};
    };
    check_vjp(f, vjp, x, "project_ewa");
  }
}

TEST_CASE("EWA projection of an on-axis isotropic Gaussian", "[raster_math]") {
  kernels::Camera cam;  // identity pose
  cam.fx = 20;
  cam.fy = 30;
  cam.cx = 7;
  cam.cy = 5;
  cam.width = 14;
  cam.height = 10;
  Vec2<double> m;
  Sym2<double> s;
  project_ewa(cam, Vec3d{0, 0, 4}, Mat3d::identity(), 0.3, m, s);
  CHECK(m.x == Approx(7));
  CHECK(m.y == Approx(5));
  CHECK(s.xx == Approx(25.0 + 0.3));  // (fx / z)^2 + eps
  CHECK(s.yy == Approx(56.25 + 0.3));
  CHECK(s.xy == Approx(0).margin(1e-12));
}

TEST_CASE("conic and antialiasing compensation VJPs match finite differences", "[raster_math]") {
  const Vector x{2.0, 0.7, 1.5};
  auto unpack = [](const Vector& y) { return Sym2<double>{y[0], y[1], y[2]}; };
  check_vjp(
      [&](const Vector& y) {
        Vector out;
        push(out, conic_from_cov2d(unpack(y)));
        return out;
      },
      [&](const Vector& y, const Vector& u) {
        Vector out;
        push(out, conic_from_cov2d_vjp(unpack(y), Sym2<double>{u[0], u[1], u[2]}));
        return out;
      },
      x, "conic_from_cov2d");
  check_vjp([&](const Vector& y) { return Vector{aa_opacity_compensation(unpack(y), 0.3)}; },
            [&](const Vector& y, const Vector& u) {
              Vector out;
              push(out, aa_opacity_compensation_vjp(unpack(y), 0.3, u[0]));
              return out;
            },
            x, "aa_opacity_compensation");
  const Sym2<double> q = conic_from_cov2d(unpack(x));
  CHECK(q.xx * x[0] + q.xy * x[1] == Approx(1));  // (Q Σ)[0][0]
  CHECK(q.xx * x[1] + q.xy * x[2] == Approx(0).margin(1e-12));
  // Undilated det = (1.7 * 1.2 - 0.49), dilated det = 2.51.
  CHECK(aa_opacity_compensation(unpack(x), 0.3) == Approx(std::sqrt((1.7 * 1.2 - 0.49) / 2.51)));
}

TEST_CASE("project_gaussian VJP matches finite differences", "[raster_math]") {
  const kernels::Camera cam = test_camera();
  std::mt19937 rng(9);
  for (bool aa : {false, true}) {
    for (int trial = 0; trial < 4; ++trial) {
      Vector x = random_vector(11, -0.8, 0.8, rng);  // mean, quat, log-scale, logit
      x[3] += 1.2;
      for (int k = 7; k < 10; ++k) x[k] = std::log(0.05 + 0.3 * std::abs(x[k]));
      if (trial == 3) x[9] = std::log(0.01);  // thin
      auto project = [&](const Vector& y) {
        return project_gaussian<double>(cam, vec3_at(y, 0), quat_at(y, 3), vec3_at(y, 7), y[10], 0.01, 100, 0.3, aa);
      };
      REQUIRE(project(x).visible);
      auto f = [&](const Vector& y) {
        const auto p = project(y);
        return Vector{p.mean2d.x, p.mean2d.y, p.conic.xx, p.conic.xy, p.conic.yy, p.opacity, p.depth};
      };
      auto vjp = [&](const Vector& y, const Vector& u) {
        Vec3d dm{}, ds{};
        Quat<double> dq{};
        double dl = 0;
        project_gaussian_vjp<double>(cam, vec3_at(y, 0), quat_at(y, 3), vec3_at(y, 7), y[10], 0.3, aa,
                                     {u[0], u[1]}, {u[2], u[3], u[4]}, u[5], u[6], dm, dq, ds, dl);
        return Vector{dm.x, dm.y, dm.z, dq.w, dq.x, dq.y, dq.z, ds.x, ds.y, ds.z, dl};
      };
      check_vjp(f, vjp, x, aa ? "project_gaussian (antialiased)" : "project_gaussian", 40 + trial);
    }
  }
}

TEST_CASE("project_gaussian culls behind the camera and beyond the far plane", "[raster_math]") {
  const kernels::Camera cam = test_camera();  // looks at the origin from z = -4
  auto visible = [&](Vec3d mean, double far_plane) {
    return project_gaussian<double>(cam, mean, {1, 0, 0, 0}, {-2, -2, -2}, 2.0, 0.01, far_plane, 0.3, false).visible;
  };
  CHECK(visible({0, 0, 0}, 100));
  CHECK_FALSE(visible({0, 0, -6}, 100));  // behind
  CHECK_FALSE(visible({0, 0, 0}, 3));     // beyond far
  CHECK_FALSE(visible({40, 0, 0}, 100));  // far off-screen
}

TEST_CASE("a box in the padding of the last tile column is not visible", "[raster_math]") {
  kernels::Camera cam;  // identity pose; 24 px wide = 2 tiles = 32 px of tile grid
  cam.fx = cam.fy = 20, cam.cx = 12, cam.cy = 10, cam.width = 24, cam.height = 20;
  auto project = [&](double x) {
    return project_gaussian<double>(cam, {x, 0, 5}, {1, 0, 0, 0}, {std::log(0.05), std::log(0.05), std::log(0.05)},
                                    3.0, 0.01, 100, 0.3, false);
  };
  const auto inside = project((25.0 - 12) * 5 / 20);   // mean2d.x = 25, half 2: box [23, 27]
  const auto padding = project((29.0 - 12) * 5 / 20);  // box [27, 31]
  CHECK(inside.mean2d.x == Approx(25));
  CHECK(inside.half_x == 2);
  CHECK(inside.visible);
  CHECK(padding.half_x == 2);
  // Its ellipse reaches tile column 1's pixel centres past the image's edge, yet it shows nowhere.
  CHECK(TileRows<double>(padding.mean2d, padding.conic, alpha_level_k2(padding.opacity), 2, 2).count() > 0);
  CHECK_FALSE(padding.visible);
}

TEST_CASE("screen extent is where alpha reaches 1/255, capped at 3 sigma", "[raster_math]") {
  const Sym2<double> cov{4.0, 1.2, 2.5};
  const Sym2<double> conic = conic_from_cov2d(cov);
  int hx, hy;
  // Faint: k = sqrt(2 ln(255 * 0.05)) < 3, and alpha at the ellipse's rightmost point is 1/255.
  REQUIRE(screen_half_extent(0.05, cov, hx, hy));
  const double k = std::sqrt(2 * std::log(255 * 0.05));
  CHECK(hx == int(std::ceil(k * 2.0)));
  CHECK(hy == int(std::ceil(k * std::sqrt(2.5))));
  const Vec2<double> extreme{k * cov.xx / std::sqrt(cov.xx), k * cov.xy / std::sqrt(cov.xx)};
  double gauss;
  const double a = gaussian_alpha(Vec2<double>{0, 0}, conic, 0.05 * (1 + 1e-9), extreme, gauss);
  CHECK(a == Approx(1.0 / 255));
  // Opaque: sqrt(2 ln 255) > 3, so k = 3.
  REQUIRE(screen_half_extent(0.9, cov, hx, hy));
  CHECK(hx == 6);
  CHECK(hy == int(std::ceil(3 * std::sqrt(2.5))));
  // Below 1/255 it can never be seen.
  CHECK_FALSE(screen_half_extent(0.9 / 255, cov, hx, hy));
}

TEST_CASE("tiles_along counts the tiles that cover a side, the last one padded", "[raster_math]") {
  CHECK(tiles_along(24) == 2);
  CHECK(tiles_along(32) == 2);
  CHECK(tiles_along(33) == 3);
}

// Random screen ellipses on a 12 x 9 tile grid: every tile holding a pixel centre where the
// Gaussian's alpha reaches 1/255 must be kept; the kept ones beyond those are the few where the
// ellipse passes between centres; and the 3-sigma box's corners are mostly left out.
TEST_CASE("depth keys order as the depths do, to 2^-16 of their value", "[raster_math]") {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> log_depth(-6.f, 6.f);
  for (int i = 0; i < 20000; ++i) {
    const float a = std::exp(log_depth(rng)), b = std::exp(log_depth(rng));
    const uint32_t ka = raster::depth_sort_key(a), kb = raster::depth_sort_key(b);
    CHECK(ka < (1u << raster::kDepthKeyBits) - 1u);  // below the sort's sentinel
    if (a < b) CHECK(ka <= kb);                      // never out of order
    if (b - a > a * std::ldexp(1.f, -16)) CHECK(ka < kb);  // apart by more than 2^-16: told apart
  }
  CHECK(raster::depth_sort_key(std::numeric_limits<float>::max()) < (1u << raster::kDepthKeyBits) - 1u);
  CHECK(raster::depth_sort_key(1.f) == raster::depth_sort_key(std::nextafter(1.f, 2.f)));  // ties within a key
}

TEST_CASE("ellipse tiles keep every tile with a pixel centre inside the ellipse, and little else", "[raster_math]") {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const int tiles_x = 12, tiles_y = 9;
  int64_t needed_total = 0, kept_total = 0, box_total = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const double angle = 3.14159 * u(rng), s1 = 1 + 40 * u(rng), s2 = 1 + 40 * u(rng) * u(rng);
    const double c = std::cos(angle), s = std::sin(angle);
    const Sym2<double> cov{c * c * s1 * s1 + s * s * s2 * s2, c * s * (s1 * s1 - s2 * s2), s * s * s1 * s1 + c * c * s2 * s2};
    const Sym2<double> conic = conic_from_cov2d(cov);
    const double opacity = 0.01 + 0.99 * u(rng);
    const Vec2<double> mean{-20 + 232 * u(rng), -20 + 184 * u(rng)};
    const TileRows<double> rows(mean, conic, alpha_level_k2(opacity), tiles_x, tiles_y);
    REQUIRE(rows.first_row() >= 0);
    REQUIRE(rows.end_row() <= tiles_y);
    int counted = 0;
    for (int ty = 0; ty < tiles_y; ++ty) {
      int x0 = 0, x1 = 0;
      if (ty >= rows.first_row() && ty < rows.end_row()) rows.row(ty, x0, x1);
      REQUIRE(x0 >= 0);
      REQUIRE(x1 <= tiles_x);
      counted += x1 - x0;
      for (int tx = 0; tx < tiles_x; ++tx) {
        bool needed = false;
        for (int py = 16 * ty; py < 16 * ty + 16 && !needed; ++py)
          for (int px = 16 * tx; px < 16 * tx + 16 && !needed; ++px) {
            double gauss;
            needed = gaussian_alpha(mean, conic, opacity, Vec2<double>{px + 0.5, py + 0.5}, gauss) > 0;
          }
        if (needed) CHECK((tx >= x0 && tx < x1));
        needed_total += needed;
      }
    }
    CHECK(counted == rows.count());
    kept_total += counted;
    int hx, hy;
    REQUIRE(screen_half_extent(opacity, cov, hx, hy));
    box_total += box_tiles(mean, hx, hy, tiles_x, tiles_y);
  }
  CHECK(kept_total >= needed_total);
  CHECK(double(kept_total) <= 1.02 * double(needed_total));
  CHECK(double(kept_total) < 0.9 * double(box_total));
}

// Random ellipses from a pixel across to several tiles, in and around one tile: every warp cell holding
// a pixel centre where the Gaussian's alpha reaches 1/255 must be found (the blending kernels walk a
// Gaussian only in the cells found), in double and in float (as the kernels compute it); and the cells
// found beyond those are few.
TEST_CASE("warp cells: every 8 x 4 cell of a tile with a pixel the ellipse reaches, and little else", "[raster_math]") {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  int64_t needed_total = 0, found_total = 0, found_float_total = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const double angle = 3.14159 * u(rng), s1 = 0.3 + 12 * u(rng) * u(rng), s2 = 0.3 + 12 * u(rng) * u(rng);
    const double c = std::cos(angle), s = std::sin(angle);
    const Sym2<double> cov{c * c * s1 * s1 + s * s * s2 * s2, c * s * (s1 * s1 - s2 * s2), s * s * s1 * s1 + c * c * s2 * s2};
    const Sym2<double> conic = conic_from_cov2d(cov);
    const double opacity = 0.005 + 0.995 * u(rng);
    const Vec2<double> mean{-24 + 64 * u(rng), -24 + 64 * u(rng)};  // relative to the tile's corner
    const unsigned found = warp_cells_reached(mean, conic, alpha_level_k2(opacity));
    const Sym2<float> conic_f{float(conic.xx), float(conic.xy), float(conic.yy)};
    const unsigned found_float = warp_cells_reached(Vec2<float>{float(mean.x), float(mean.y)}, conic_f,
                                                    alpha_level_k2(float(opacity)) * 1.001f);
    REQUIRE(found < (1u << (kWarpCellsX * kWarpCellsY)));
    for (int cell = 0; cell < kWarpCellsX * kWarpCellsY; ++cell) {
      const int x0 = (cell % kWarpCellsX) * kWarpCellW, y0 = (cell / kWarpCellsX) * kWarpCellH;
      bool needed = false, needed_float = false;
      for (int py = y0; py < y0 + kWarpCellH; ++py)
        for (int px = x0; px < x0 + kWarpCellW; ++px) {
          double gauss;
          float gauss_f;
          needed = needed || gaussian_alpha(mean, conic, opacity, Vec2<double>{px + 0.5, py + 0.5}, gauss) > 0;
          needed_float = needed_float || gaussian_alpha(Vec2<float>{float(mean.x), float(mean.y)}, conic_f,
                                                        float(opacity), Vec2<float>{px + 0.5f, py + 0.5f}, gauss_f) > 0;
        }
      if (needed) CHECK((found >> cell & 1u));
      if (needed_float) CHECK((found_float >> cell & 1u));
      needed_total += needed;
    }
    found_total += std::popcount(found);
    found_float_total += std::popcount(found_float);
  }
  CHECK(needed_total > 2000);
  CHECK(found_total >= needed_total);
  CHECK(double(found_total) <= 1.05 * double(needed_total));
  CHECK(double(found_float_total) <= 1.06 * double(needed_total));
}

TEST_CASE("a projected pair counts the tiles its ellipse reaches, and is visible only with one", "[raster_math]") {
  kernels::Camera cam;  // identity pose, 4 x 3 tiles
  cam.fx = cam.fy = 50, cam.cx = 32, cam.cy = 24, cam.width = 64, cam.height = 48;
  // A thin Gaussian along the image's diagonal: its box holds every tile, its ellipse a band of them.
  const double diag = std::atan2(48.0, 64.0);
  const Quat<double> q{std::cos(diag / 2), 0, 0, std::sin(diag / 2)};
  const ProjectedGaussian<double> p =
      project_gaussian<double>(cam, Vec3d{0, 0, 5}, q, Vec3d{std::log(1.2), std::log(0.02), std::log(0.02)}, 3.0,
                               0.01, 100.0, 0.3, false);
  REQUIRE(p.visible);
  const int box = box_tiles(p.mean2d, p.half_x, p.half_y, 4, 3);
  CHECK(box == 12);
  CHECK(p.tile_count == TileRows<double>(p.mean2d, p.conic, alpha_level_k2(p.opacity), 4, 3).count());
  CHECK(p.tile_count < box);
  CHECK(p.tile_count >= 4);  // the diagonal crosses at least one tile per column
}

TEST_CASE("SH colour VJP matches finite differences for degrees 0..3", "[raster_math]") {
  std::mt19937 rng(21);
  for (int degree = 0; degree <= 3; ++degree) {
    const int rest = kernels::sh_coeffs_for_degree(degree) - 1;
    Vector x = random_vector(3 + 3 + 3 * rest, -0.3, 0.3, rng);  // dir, dc, rest
    x[2] += 2.0;
    auto f = [&](const Vector& y) {
      const Vec3d c = sh_color<double, double>(degree, vec3_at(y, 0), y.data() + 3, y.data() + 6);
      return Vector{c.x, c.y, c.z};
    };
    auto vjp = [&](const Vector& y, const Vector& u) {
      Vector g(y.size(), 0.0);
      Vec3d ddir{};
      sh_color_vjp<double, double>(degree, vec3_at(y, 0), y.data() + 3, y.data() + 6, vec3_at(u, 0), g.data() + 3,
                                   g.data() + 6, ddir);
      g[0] = ddir.x;
      g[1] = ddir.y;
      g[2] = ddir.z;
      return g;
    };
    check_vjp(f, vjp, x, "sh_color degree " + std::to_string(degree), 60 + degree);
  }
}

TEST_CASE("SH colour: DC term, +0.5 offset and the clamp at zero", "[raster_math]") {
  const double dc[3] = {1.0, 0.0, -3.0};
  const Vec3d c = sh_color<double, double>(0, Vec3d{0, 0, 1}, dc, static_cast<const double*>(nullptr));
  CHECK(c.x == Approx(0.28209479177387814 + 0.5));
  CHECK(c.y == Approx(0.5));
  CHECK(c.z == 0.0);  // clamped
  double ddc[3] = {0, 0, 0};
  Vec3d ddir{};
  sh_color_vjp<double, double>(0, Vec3d{0, 0, 1}, dc, static_cast<const double*>(nullptr), Vec3d{1, 1, 1}, ddc, nullptr, ddir);
  CHECK(ddc[0] == Approx(0.28209479177387814));
  CHECK(ddc[2] == 0.0);  // no gradient through the clamp
}

TEST_CASE("per-pixel alpha VJP matches finite differences", "[raster_math]") {
  const Vector x{3.2, 4.1, 0.6, 0.15, 0.4, 0.7};  // mean2d, conic, opacity
  const Vec2<double> pixel{4.5, 5.5};
  auto f = [&](const Vector& y) {
    double g;
    return Vector{gaussian_alpha(Vec2<double>{y[0], y[1]}, Sym2<double>{y[2], y[3], y[4]}, y[5], pixel, g)};
  };
  REQUIRE(f(x)[0] > 1.0 / 255);
  auto vjp = [&](const Vector& y, const Vector& u) {
    Vec2<double> dm{};
    Sym2<double> dc{};
    double dop = 0;
    double gauss;
    gaussian_alpha(Vec2<double>{y[0], y[1]}, Sym2<double>{y[2], y[3], y[4]}, y[5], pixel, gauss);
    gaussian_alpha_vjp(Vec2<double>{y[0], y[1]}, Sym2<double>{y[2], y[3], y[4]}, y[5], pixel, gauss, u[0], dm, dc,
                       dop);
    return Vector{dm.x, dm.y, dc.xx, dc.xy, dc.yy, dop};
  };
  check_vjp(f, vjp, x, "gaussian_alpha");
  // Hand value: d = (1.3, 1.4), dᵀQd = 0.6*1.69 + 2*0.15*1.82 + 0.4*1.96.
  const double q = 0.6 * 1.69 + 2 * 0.15 * 1.82 + 0.4 * 1.96;
  CHECK(f(x)[0] == Approx(0.7 * std::exp(-0.5 * q)));
  double g;
  CHECK(gaussian_alpha(Vec2<double>{0, 0}, Sym2<double>{1, 0, 1}, 1.0, Vec2<double>{0.1, 0}, g) == Approx(0.99));
  CHECK(gaussian_alpha(Vec2<double>{0, 0}, Sym2<double>{1, 0, 1}, 0.5, Vec2<double>{3.5, 0}, g) == 0.0);
}

TEST_CASE("compositing replay gives the gradients of rgb, alpha and depth", "[raster_math]") {
  // Five Gaussians at one pixel: x = [alpha, r, g, b, z] each.
  const Vector x{0.3, 0.2, 0.5, 0.9, 2.0, 0.6, 0.7, 0.1, 0.4, 2.5, 0.05, 1.0, 1.0, 0.3, 3.0,
                 0.8, 0.3, 0.3, 0.6, 3.2, 0.45, 0.9, 0.2, 0.5, 4.0};
  const float bg[3] = {0.2f, 0.4f, 0.6f};
  auto f = [&](const Vector& y) {
    PixelCompositor<double> comp;
    for (int i = 0; i < 5; ++i) REQUIRE(comp.add(y[5 * i], vec3_at(y, 5 * i + 1), y[5 * i + 4]));
    double rgb[3], a, d;
    comp.finish(bg, rgb, a, d);
    return Vector{rgb[0], rgb[1], rgb[2], a, d};
  };
  auto vjp = [&](const Vector& y, const Vector& u) {
    PixelCompositor<double> comp;
    for (int i = 0; i < 5; ++i) comp.add(y[5 * i], vec3_at(y, 5 * i + 1), y[5 * i + 4]);
    double rgb[3], a, d;
    comp.finish(bg, rgb, a, d);
    PixelReplay<double> replay(bg, comp.transmittance, d, u.data(), u[3], u[4]);
    Vector g(y.size());
    for (int i = 4; i >= 0; --i) {
      double da, dz;
      Vec3d dc;
      replay.step(y[5 * i], vec3_at(y, 5 * i + 1), y[5 * i + 4], da, dc, dz);
      g[5 * i] = da;
      g[5 * i + 1] = dc.x;
      g[5 * i + 2] = dc.y;
      g[5 * i + 3] = dc.z;
      g[5 * i + 4] = dz;
    }
    return g;
  };
  check_vjp(f, vjp, x, "compositing");
  // Hand value for the first two: rgb.r = 0.3*0.2 + 0.7*0.6*0.7 + ...
  PixelCompositor<double> two;
  two.add(0.3, {0.2, 0.5, 0.9}, 2.0);
  two.add(0.6, {0.7, 0.1, 0.4}, 2.5);
  double rgb[3], a, d;
  two.finish(bg, rgb, a, d);
  CHECK(a == Approx(1 - 0.7 * 0.4));
  CHECK(rgb[0] == Approx(0.3 * 0.2 + 0.7 * 0.6 * 0.7 + 0.28 * 0.2));
  CHECK(d == Approx((0.3 * 2.0 + 0.42 * 2.5) / 0.72));
}

// The CUDA backward replays a long list in chunks, each started by replay_resume from the compositor
// states forward kept at the chunk boundaries. Chunked as the kernel does it (a chunk [b, e) starts at
// the end state where the pixel stopped compositing before e, else at the state kept at e), every
// composited Gaussian's dα, dcolour and dz equal the whole replay's, in double and in float.
template <class T>
void check_chunked_replay(int gaussians, int chunk, bool stops, double tol) {
  std::mt19937 rng(7 + gaussians + chunk);
  std::uniform_real_distribution<double> U(0, 1);
  std::vector<T> alpha, z;
  std::vector<Vec3<T>> colour;
  for (int i = 0; i < gaussians; ++i) {
    alpha.push_back(T(0.02 + 0.3 * U(rng)));
    colour.push_back({T(U(rng)), T(U(rng)), T(U(rng))});
    z.push_back(T(1 + 3 * U(rng)));
  }
  const float bg[3] = {0.3f, 0.1f, 0.8f};
  const T drgb[3] = {T(0.7), T(-0.4), T(0.25)};
  const T dalpha = T(-0.3), ddepth = T(0.6);
  // Forward, keeping the compositor's state where each chunk starts.
  PixelCompositor<T> comp;
  std::vector<PixelCompositor<T>> at;
  int contributors = 0;
  for (int i = 0; i < gaussians; ++i) {
    if (i % chunk == 0) at.push_back(comp);
    if (!comp.add(alpha[i], colour[i], z[i])) break;
    contributors = i + 1;
  }
  T rgb[3], a, depth;
  comp.finish(bg, rgb, a, depth);
  auto fresh = [&] { return PixelReplay<T>(bg, comp.transmittance, depth, drgb, dalpha, ddepth); };
  struct Grad {
    T da, dz;
    Vec3<T> dc;
  };
  std::vector<Grad> whole(static_cast<size_t>(contributors)), chunked(static_cast<size_t>(contributors));
  PixelReplay<T> replay = fresh();
  for (int i = contributors - 1; i >= 0; --i) replay.step(alpha[i], colour[i], z[i], whole[i].da, whole[i].dc, whole[i].dz);
  int resumed = 0;
  for (int b = 0; b < gaussians; b += chunk) {
    const int e = std::min(gaussians, b + chunk);
    if (contributors <= b) continue;
    PixelReplay<T> part = fresh();
    if (contributors > e) {
      part.resume(replay_resume(at[size_t(e / chunk)], comp, bg));
      ++resumed;
    }
    for (int i = std::min(contributors, e) - 1; i >= b; --i)
      part.step(alpha[i], colour[i], z[i], chunked[i].da, chunked[i].dc, chunked[i].dz);
  }
  REQUIRE(resumed >= 2);  // the list is long enough to be split
  REQUIRE((contributors < gaussians) == stops);
  for (int i = 0; i < contributors; ++i) {
    INFO("Gaussian " << i << " of " << contributors);
    const T scale = std::abs(whole[i].da) + T(1e-3);
    CHECK(std::abs(chunked[i].da - whole[i].da) <= tol * scale);
    CHECK(std::abs(chunked[i].dz - whole[i].dz) <= tol * (std::abs(whole[i].dz) + T(1e-3)));
    CHECK(std::abs(chunked[i].dc.x - whole[i].dc.x) <= tol * (std::abs(whole[i].dc.x) + T(1e-3)));
  }
}

TEST_CASE("a replay split into chunks gives the whole replay's gradients", "[raster_math]") {
  check_chunked_replay<double>(120, 8, true, 1e-9);  // stops compositing inside the list (T < 1e-4)
  check_chunked_replay<double>(24, 5, false, 1e-9);  // a short last chunk
  check_chunked_replay<float>(300, 8, true, 2e-3);   // float, as the kernels run it
}

// A pixel's list composited in segments side by side and joined in order (SegmentSums, as the CUDA
// forward's lanes do) against one walk: the same sums, transmittance and last composited Gaussian.
template <class T>
void check_segments(int gaussians, int segment, double max_alpha, T tol, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> U(0, 1);
  std::vector<T> alpha, z;
  std::vector<Vec3<T>> colour;
  for (int i = 0; i < gaussians; ++i) {
    const double a = U(rng) < 0.2 ? 0.0 : 0.004 + max_alpha * U(rng);  // some skipped (α = 0)
    alpha.push_back(T(a));
    colour.push_back({T(U(rng)), T(U(rng)), T(U(rng))});
    z.push_back(T(1 + 3 * U(rng)));
  }
  PixelCompositor<T> walk;
  int walked = 0;
  for (int i = 0; i < gaussians; ++i) {
    if (alpha[i] == T(0)) continue;
    if (!walk.add(alpha[i], colour[i], z[i])) break;
    walked = i + 1;
  }
  PixelCompositor<T> joined;
  int last = 0;
  bool stopped = false;
  for (int b = 0; b < gaussians && !stopped; b += segment) {
    const int e = std::min(gaussians, b + segment);
    SegmentSums<T> seg;
    int seg_last = 0;
    for (int i = b; i < e; ++i)
      if (alpha[i] != T(0)) seg.add(alpha[i], colour[i], z[i]), seg_last = i + 1;
    const T before = joined.transmittance;
    if (!seg.stops_after(before)) {
      seg.scale(before);
      seg.add_to(joined, before * seg.kept);
      if (seg_last) last = seg_last;
      continue;
    }
    for (int i = b; i < e; ++i) {  // the segment the pixel stops in, one by one
      if (alpha[i] == T(0)) continue;
      if (!joined.add(alpha[i], colour[i], z[i])) break;
      last = i + 1;
    }
    stopped = true;
  }
  INFO("segments of " << segment << ", walk composited " << walked << " of " << gaussians);
  CHECK(last == walked);
  CHECK(std::abs(joined.transmittance - walk.transmittance) <= tol * walk.transmittance);
  for (int c = 0; c < 3; ++c) CHECK(std::abs(joined.rgb[c] - walk.rgb[c]) <= tol);
  CHECK(std::abs(joined.depth_sum - walk.depth_sum) <= tol * 4);
}

TEST_CASE("a list composited in segments and joined in order is the one walk", "[raster_math]") {
  for (unsigned seed : {1u, 2u, 3u}) {
    check_segments<double>(400, 64, 0.3, 1e-12, seed);   // stops inside the list
    check_segments<double>(400, 64, 0.01, 1e-12, seed);  // faint: composites the whole list
    check_segments<double>(37, 8, 0.5, 1e-12, seed);     // a short last segment
    check_segments<float>(1024, 64, 0.3, 1e-5f, seed);   // float, as the kernel runs it
    check_segments<float>(1024, 64, 0.01, 1e-5f, seed);
  }
  // The floor test: three Gaussians of 0.95 leave T = 1.25e-4 (the walk composites them), a fourth
  // would leave 6.25e-6; an empty segment never stops a pixel that has not stopped.
  SegmentSums<double> seg;
  for (int i = 0; i < 3; ++i) seg.add(0.95, {1, 1, 1}, 1.0);
  CHECK_FALSE(seg.stops_after(1.0));
  seg.add(0.95, {1, 1, 1}, 1.0);
  CHECK(seg.stops_after(1.0));
  CHECK_FALSE(SegmentSums<double>{}.stops_after(1e-4));
}

TEST_CASE("compositing stops before the Gaussian that would push T below 1e-4", "[raster_math]") {
  PixelCompositor<double> comp;
  for (int i = 0; i < 3; ++i) REQUIRE(comp.add(0.95, {1, 1, 1}, 1.0));  // T = 1.25e-4
  CHECK(comp.transmittance == Approx(1.25e-4));
  const double before = comp.rgb[0];
  CHECK_FALSE(comp.add(0.5, {1, 1, 1}, 1.0));  // would give 6.25e-5
  CHECK(comp.rgb[0] == before);
  CHECK(comp.transmittance == Approx(1.25e-4));
}

TEST_CASE("densification statistics helpers", "[raster_math]") {
  CHECK(ndc_grad_norm(Vec2<double>{0.3, -0.4}, 20, 10) == Approx(std::sqrt(9.0 + 4.0)));
  CHECK(screen_radius_fraction<double>(3, 7, 40, 20) == Approx(7.0 / 40));
}
