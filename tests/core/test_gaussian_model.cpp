#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>

#include "core/model/gaussian_model.h"
#include "core/scene/scene_loader.h"
#include "tests/support/test_support.h"

namespace {
// Fills every column with a value that encodes (row, column, slot), so moves are traceable.
void fill_traceable(splat::GaussianModel& m) {
  auto fill = [](std::vector<float>& col, int width, float tag) {
    for (size_t j = 0; j < col.size(); ++j) col[j] = tag + static_cast<float>(j / width) + 0.001f * (j % width);
  };
  fill(m.means, 3, 1000);
  fill(m.log_scales, 3, 2000);
  fill(m.quats, 4, 3000);
  fill(m.opacity_logits, 1, 4000);
  fill(m.sh_dc, 3, 5000);
  fill(m.sh_rest, m.sh_rest_coeffs() * 3, 6000);
}
}  // namespace

TEST_CASE("GaussianModel sizes its columns by degree and views them", "[model]") {
  for (int d = 0; d <= 3; ++d) {
    splat::GaussianModel m(d, 5);
    CHECK(m.size() == 5);
    CHECK(m.sh_rest_coeffs() == (d + 1) * (d + 1) - 1);
    CHECK(m.sh_rest.size() == 5u * m.sh_rest_coeffs() * 3);
    CHECK(m.quats[0] == 1.0f);  // new rows rotate by the identity
    CHECK(m.quats[4 * 4 + 0] == 1.0f);
    CHECK(m.quats[4 * 4 + 1] == 0.0f);
    const auto v = m.view();
    CHECK(v.n == 5);
    CHECK(v.means == m.means.data());
    CHECK(v.opacity_logits == m.opacity_logits.data());
    CHECK(v.sh_rest_coeffs == m.sh_rest_coeffs());
    CHECK((v.sh_rest == nullptr) == (d == 0));
  }
  CHECK_THROWS(splat::GaussianModel(4, 1));
}

TEST_CASE("GaussianModel row operations keep every column consistent", "[model]") {
  splat::GaussianModel m(2, 6);
  fill_traceable(m);
  const splat::GaussianModel orig = m;

  const std::vector<int64_t> rows = {4, 1, 4};
  m.append_rows(rows);
  REQUIRE(m.size() == 9);
  REQUIRE_NOTHROW(m.check_consistent());
  CHECK(m.opacity_logits[6] == orig.opacity_logits[4]);
  CHECK(m.opacity_logits[7] == orig.opacity_logits[1]);
  const int rw = m.sh_rest_coeffs() * 3;
  for (int j = 0; j < rw; ++j) CHECK(m.sh_rest[8 * rw + j] == orig.sh_rest[4 * rw + j]);
  for (int j = 0; j < 4; ++j) CHECK(m.quats[7 * 4 + j] == orig.quats[1 * 4 + j]);
  CHECK_THROWS(m.append_rows(std::vector<int64_t>{9}));

  const std::vector<uint8_t> keep = {0, 1, 0, 0, 1, 1, 1, 0, 0};  // rows 1, 4, 5 and the copy of 4
  m.keep_rows(keep);
  REQUIRE(m.size() == 4);
  REQUIRE_NOTHROW(m.check_consistent());
  const int64_t src[4] = {1, 4, 5, 4};
  for (int i = 0; i < 4; ++i) {
    for (int a = 0; a < 3; ++a) CHECK(m.means[i * 3 + a] == orig.means[src[i] * 3 + a]);
    for (int a = 0; a < 3; ++a) CHECK(m.sh_dc[i * 3 + a] == orig.sh_dc[src[i] * 3 + a]);
    for (int a = 0; a < 3; ++a) CHECK(m.log_scales[i * 3 + a] == orig.log_scales[src[i] * 3 + a]);
    for (int j = 0; j < rw; ++j) CHECK(m.sh_rest[i * rw + j] == orig.sh_rest[src[i] * rw + j]);
  }
  CHECK_THROWS(m.keep_rows(std::vector<uint8_t>{1}));

  m.resize(2);
  CHECK(m.size() == 2);
  REQUIRE_NOTHROW(m.check_consistent());
  m.sh_dc.push_back(0);
  CHECK_THROWS_AS(m.check_consistent(), std::logic_error);
}

TEST_CASE("changing the SH storage degree keeps the shared coefficients", "[model]") {
  splat::GaussianModel m(1, 3);
  fill_traceable(m);
  const splat::GaussianModel orig = m;
  m.set_sh_degree(3);
  REQUIRE(m.sh_rest_coeffs() == 15);
  REQUIRE_NOTHROW(m.check_consistent());
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 15; ++k)
      for (int c = 0; c < 3; ++c) {
        const float got = m.sh_rest[(i * 15 + k) * 3 + c];
        CHECK(got == (k < 3 ? orig.sh_rest[(i * 3 + k) * 3 + c] : 0.0f));
      }
  m.set_sh_degree(0);
  CHECK(m.sh_rest.empty());
  CHECK(m.sh_dc == orig.sh_dc);
}

TEST_CASE("initialisation from SfM points follows the 3DGS recipe", "[model]") {
  // Points on a line with spacing 1 (and one isolated pair with spacing 0.1): the kNN scale is
  // sqrt(mean of the three smallest squared distances to other points).
  std::vector<splat::ScenePoint> pts;
  for (int i = 0; i < 5; ++i) pts.push_back({{double(i), 0, 0}, {255, 0, 128}});
  pts.push_back({{100, 0, 0}, {0, 0, 0}});
  pts.push_back({{100.1, 0, 0}, {0, 0, 0}});
  splat::PointInitOptions opt;
  opt.sh_degree = 1;
  const auto m = splat::init_from_points(pts, opt);
  REQUIRE(m.size() == 7);
  CHECK(m.sh_degree() == 1);
  // Point 0: neighbours at 1, 2, 3 -> mean sq 14/3. Point 2: 1, 1, 2 -> mean sq 2.
  CHECK(std::exp(m.log_scales[0]) == Approx(std::sqrt(14.0 / 3.0)).epsilon(1e-6));
  CHECK(std::exp(m.log_scales[2 * 3 + 1]) == Approx(std::sqrt(2.0)).epsilon(1e-6));
  // Point 5: neighbours at 0.1, 96, 97.
  CHECK(std::exp(m.log_scales[5 * 3 + 2]) == Approx(std::sqrt((0.01 + 96.0 * 96.0 + 97.0 * 97.0) / 3)).epsilon(1e-5));
  CHECK(m.means[3 * 3] == 3.0f);
  CHECK(splat::sh_dc_to_rgb(m.sh_dc[0]) == Approx(1.0).epsilon(1e-6));
  CHECK(splat::sh_dc_to_rgb(m.sh_dc[1]) == Approx(0.0).margin(1e-6));
  CHECK(splat::sh_dc_to_rgb(m.sh_dc[2]) == Approx(128.0 / 255.0).epsilon(1e-6));
  CHECK(1.0 / (1.0 + std::exp(-m.opacity_logits[4])) == Approx(0.1).epsilon(1e-6));
  CHECK(m.quats[4 * 4] == 1.0f);
  CHECK(m.quats[4 * 4 + 3] == 0.0f);
  for (float v : m.sh_rest) CHECK(v == 0.0f);

  // Duplicates: the distance floor keeps the log scale finite.
  std::vector<splat::ScenePoint> dup(4, splat::ScenePoint{{1, 1, 1}, {0, 0, 0}});
  const auto d = splat::init_from_points(dup);
  CHECK(d.log_scales[0] == Approx(0.5 * std::log(1e-7)));
}

TEST_CASE("random initialisation fills the cube, is seeded and sized by neighbours", "[model]") {
  splat::RandomInitOptions opt;
  opt.count = 2000;
  opt.center = {1, -2, 3};
  opt.half_extent = 0.5;
  opt.seed = 42;
  const auto a = splat::init_random(opt);
  const auto b = splat::init_random(opt);
  opt.seed = 43;
  const auto c = splat::init_random(opt);
  REQUIRE(a.size() == 2000);
  CHECK(a.means == b.means);
  CHECK(a.sh_dc == b.sh_dc);
  CHECK(a.means != c.means);
  double mean[3] = {0, 0, 0};
  for (int64_t i = 0; i < a.size(); ++i)
    for (int k = 0; k < 3; ++k) {
      const float v = a.means[i * 3 + k];
      CHECK(std::abs(v - opt.center[k]) <= 0.5);
      mean[k] += v / a.size();
    }
  for (int k = 0; k < 3; ++k) CHECK(mean[k] == Approx(opt.center[k]).margin(0.03));
  // 2000 points in a unit cube: neighbour spacing around (1/2000)^(1/3) ~ 0.08.
  double s = 0;
  for (int64_t i = 0; i < a.size(); ++i) s += std::exp(a.log_scales[i * 3]) / a.size();
  CHECK(s > 0.03);
  CHECK(s < 0.12);
  // Colours spread over [0, 1].
  float lo = 1e9f, hi = -1e9f;
  for (float v : a.sh_dc) lo = std::min(lo, v), hi = std::max(hi, v);
  CHECK(splat::sh_dc_to_rgb(lo) < 0.05);
  CHECK(splat::sh_dc_to_rgb(hi) > 0.95);
}

TEST_CASE("initialisation from the real bonsai SfM points gives finite, scene-sized Gaussians", "[model][real]") {
  const auto dir = splat::test::shared_scene("bonsai");
  if (!dir) return;
  splat::SceneLoadOptions lo;
  lo.load_images = false;
  lo.show_progress = false;
  const splat::Scene scene = splat::load_scene(*dir, lo);
  const auto m = splat::init_from_points(scene.points);
  REQUIRE(m.size() == static_cast<int64_t>(scene.points.size()));
  std::vector<float> s;
  int64_t non_finite = 0;
  for (int64_t i = 0; i < m.size(); ++i) {
    non_finite += !std::isfinite(m.log_scales[i * 3]);
    s.push_back(std::exp(m.log_scales[i * 3]));
  }
  CHECK(non_finite == 0);
  std::nth_element(s.begin(), s.begin() + s.size() / 2, s.end());
  // SfM points are dense on the surfaces: typical spacing is a small fraction of the scene.
  INFO("median scale " << s[s.size() / 2] << " extent " << scene.extent);
  CHECK(s[s.size() / 2] > 1e-5 * scene.extent);
  CHECK(s[s.size() / 2] < 0.05 * scene.extent);
}
