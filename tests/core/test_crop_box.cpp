// The crop box: which points are inside (upright on any up axis, turned about it), the cropped
// model's rows and columns, and the corners drawn.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "core/model/crop_box.h"

using namespace splat;

namespace {
Vec3d row(const Mat3d& m, int i) { return {m.m[i][0], m.m[i][1], m.m[i][2]}; }

// A model whose Gaussian i sits at means[i] and carries i in every other column, so that a row's
// columns can be told apart after cropping.
GaussianModel numbered(const std::vector<Vec3d>& means) {
  GaussianModel m(1, int64_t(means.size()));
  for (size_t i = 0; i < means.size(); ++i) {
    for (int a = 0; a < 3; ++a) m.means[3 * i + a] = float(means[i][a]);
    for (Group g : {Group::LogScales, Group::Quats, Group::Opacity, Group::ShDc, Group::ShRest}) {
      auto& col = m.column(g);
      const size_t w = col.size() / means.size();
      for (size_t k = 0; k < w; ++k) col[w * i + k] = float(i) + 0.01f * float(k);
    }
  }
  return m;
}
}  // namespace

TEST_CASE("the crop box's axes stand on its up direction, right-handed, turned by yaw", "[crop]") {
  for (const Vec3d up : {Vec3d{0, -1, 0}, Vec3d{0, 0, 1}, Vec3d{1, 0, 0}, Vec3d{0.3, -0.8, 0.52}}) {
    for (double yaw : {0.0, 0.7, -2.5}) {
      CropBox box;
      box.up = up * 2.0;  // any length: the box normalises it
      box.yaw = yaw;
      const Mat3d a = box_axes(box);
      INFO("up " << up.x << "," << up.y << "," << up.z << " yaw " << yaw);
      CHECK(norm(row(a, 1) - up / norm(up)) < 1e-12);
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) CHECK(std::abs(dot(row(a, i), row(a, j)) - (i == j ? 1.0 : 0.0)) < 1e-12);
      CHECK(determinant(a) == Approx(1.0));
      // Turning by yaw turns the side axis about up by that angle.
      CropBox straight = box;
      straight.yaw = 0;
      CHECK(dot(row(a, 0), row(box_axes(straight), 0)) == Approx(std::cos(yaw)));
    }
  }
}

TEST_CASE("points inside the crop box, faces included; the mask agrees with contains", "[crop]") {
  CropBox box;
  box.center = {1, 2, 3};
  box.up = {0, 0, 1};
  box.half_size = {0.5, 2.0, 1.0};  // side, up, front
  const Mat3d a = box_axes(box);
  const Vec3d side = row(a, 0), up = row(a, 1), front = row(a, 2);
  CHECK(contains(box, box.center));
  CHECK(contains(box, box.center + up * 1.99));
  CHECK_FALSE(contains(box, box.center + up * 2.01));
  CHECK(contains(box, box.center - side * 0.49 + front * 0.99));
  CHECK_FALSE(contains(box, box.center + side * 0.51));
  CHECK_FALSE(contains(box, box.center - front * 1.01));
  CHECK(contains(box, box.center + side * 0.5));  // on a face

  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-3, 3);
  std::vector<Vec3d> points;
  for (int i = 0; i < 500; ++i) points.push_back(box.center + Vec3d{u(rng), u(rng), u(rng)});
  box.yaw = 0.6;
  const GaussianModel m = numbered(points);
  const std::vector<uint8_t> mask = inside_mask(m.means, box);
  int inside = 0;
  for (size_t i = 0; i < points.size(); ++i) {
    const Vec3d p{m.means[3 * i], m.means[3 * i + 1], m.means[3 * i + 2]};  // as stored (float)
    CHECK(bool(mask[i]) == contains(box, p));
    inside += mask[i];
  }
  // The box holds 2 x 4 x 2 = 16 of the cube's 216 units: about 37 of 500 points.
  CHECK(inside > 15);
  CHECK(inside < 70);
}

TEST_CASE("cropping keeps the rows inside, in order, with every column", "[crop]") {
  const std::vector<Vec3d> means = {{0, 0, 0}, {5, 0, 0}, {0.2, 0.1, -0.3}, {0, -9, 0}, {-0.4, 0.4, 0.4}};
  const GaussianModel m = numbered(means);
  CropBox box;
  box.half_size = {0.5, 0.5, 0.5};
  const GaussianModel c = cropped(m, box);
  c.check_consistent();
  REQUIRE(c.size() == 3);
  CHECK(c.sh_degree() == m.sh_degree());
  const int kept[] = {0, 2, 4};
  for (int r = 0; r < 3; ++r) {
    for (int a = 0; a < 3; ++a) CHECK(c.means[3 * r + a] == m.means[3 * kept[r] + a]);
    CHECK(c.opacity_logits[r] == float(kept[r]));
    CHECK(c.quats[4 * r + 3] == m.quats[4 * kept[r] + 3]);
    const size_t w = m.sh_rest.size() / means.size();
    for (size_t k = 0; k < w; ++k) CHECK(c.sh_rest[w * r + k] == m.sh_rest[w * kept[r] + k]);
  }
  box.center = {100, 0, 0};
  CHECK(cropped(m, box).size() == 0);
}

TEST_CASE("the crop box's corners lie on it, one per sign pattern", "[crop]") {
  CropBox box;
  box.center = {1, -1, 2};
  box.up = {0.2, -1, 0.1};
  box.half_size = {1, 2, 3};
  box.yaw = 1.1;
  const std::vector<Vec3d> corners = box_corners(box);
  REQUIRE(corners.size() == 8);
  const Mat3d a = box_axes(box);
  for (int bits = 0; bits < 8; ++bits) {
    const Vec3d local = a * (corners[bits] - box.center);
    for (int k = 0; k < 3; ++k) CHECK(local[k] == Approx((bits >> k & 1 ? 1 : -1) * box.half_size[k]));
  }
}
