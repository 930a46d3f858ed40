// The CPU reference rasterizer: whole-pipeline finite-difference gradient checks in double, a
// hand-computed single Gaussian, batching, culling, determinism and densification statistics.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/raster_reference.h"
#include "kernels/rasterizer.h"
#include "tests/kernels/fd_check.h"
#include "tests/kernels/raster_test_scenes.h"

using namespace splat;
using splat::kernels::Camera;
using splat::kernels::RasterSettings;
using splat::kernels::cpu::ReferenceRasterizer;
using splat::test::Vector;

namespace {

// A small random scene in double: Gaussians around the origin seen by cameras of 24x20 px (2x2
// tiles, so tile borders cross the images). Opacities stay in [0.12, 0.55] so that the 0.99 clamp
// is never reached and transmittance stays far above 1e-4; special members: one behind every
// camera, two partly off-screen, one very thin.
struct Scene {
  int degree = 0;
  int64_t n = 0;
  Vector means, quats, log_scales, logits, dc, rest;
  std::vector<Camera> cameras;
  RasterSettings settings;

  kernels::BasicGaussiansView<double> view() const {
    return {n, means.data(), quats.data(), log_scales.data(), logits.data(), dc.data(), rest.data(),
            kernels::sh_coeffs_for_degree(degree) - 1};
  }
  int64_t pixels() const { return kernels::image_offsets(cameras).back(); }
};

Scene random_scene(unsigned seed, int n, int degree, bool antialiased, bool mixed_sizes = false) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> U(-1, 1);
  Scene s;
  s.degree = degree;
  s.n = n;
  s.cameras = {splat::test::look_at_camera({0, 0, -4}, {0, 0, 0}, 24, 20, 22),
               splat::test::look_at_camera({2.5, -0.5, -3.2}, {0, 0, 0}, mixed_sizes ? 35 : 24, mixed_sizes ? 13 : 20, 22),
               splat::test::look_at_camera({-1.5, 1, -3.7}, {0.1, 0, 0}, mixed_sizes ? 17 : 24, mixed_sizes ? 29 : 20, 20)};
  s.settings.sh_degree = degree;
  s.settings.antialiased = antialiased;
  s.settings.background[0] = 0.3f;
  s.settings.background[1] = 0.5f;
  s.settings.background[2] = 0.7f;
  const int rest = kernels::sh_coeffs_for_degree(degree) - 1;
  for (int i = 0; i < n; ++i) {
    s.means.insert(s.means.end(), {1.3 * U(rng), 1.0 * U(rng), 1.0 * U(rng)});
    s.quats.insert(s.quats.end(), {1 + 0.5 * U(rng), 0.6 * U(rng), 0.6 * U(rng), 0.6 * U(rng)});
    for (int k = 0; k < 3; ++k) s.log_scales.push_back(std::log(0.12 + 0.1 * (1 + U(rng))));
    const double opacity = 0.335 + 0.215 * U(rng);
    s.logits.push_back(std::log(opacity / (1 - opacity)));
    for (int k = 0; k < 3; ++k) s.dc.push_back(0.45 + 0.75 * U(rng));
    for (int k = 0; k < 3 * rest; ++k) s.rest.push_back(0.25 * U(rng));
  }
  // Behind every camera.
  s.means[0] = 0, s.means[1] = 0, s.means[2] = -8;
  // Partly off-screen on the right and bottom of camera 0.
  s.means[3] = 2.05, s.means[4] = 0.2, s.means[5] = 0.3;
  s.means[6] = -0.2, s.means[7] = 1.75, s.means[8] = 0.1;
  // Very thin: one axis 100x shorter.
  s.log_scales[9] = std::log(0.3), s.log_scales[10] = std::log(0.25), s.log_scales[11] = std::log(0.003);
  return s;
}

// A fixed random linear loss of all outputs: L = <w_rgb, rgb> + <w_a, alpha> + <w_d, depth>.
struct Loss {
  Vector w_rgb, w_alpha, w_depth;
  explicit Loss(const Scene& s, unsigned seed) {
    std::mt19937 rng(seed);
    w_rgb = splat::test::random_vector(3 * s.pixels(), -1, 1, rng);
    w_alpha = splat::test::random_vector(s.pixels(), -1, 1, rng);
    w_depth = splat::test::random_vector(s.pixels(), -0.1, 0.1, rng);
  }
  double operator()(const Scene& s) const {
    ReferenceRasterizer<double> r(1);
    Vector rgb(3 * s.pixels()), alpha(s.pixels()), depth(s.pixels());
    r.forward(s.view(), s.cameras, s.settings, {rgb.data(), alpha.data(), depth.data()});
    double l = 0;
    for (size_t i = 0; i < rgb.size(); ++i) l += w_rgb[i] * rgb[i];
    for (size_t i = 0; i < alpha.size(); ++i) l += w_alpha[i] * alpha[i] + w_depth[i] * depth[i];
    return l;
  }
};

struct SceneGrads {
  Vector means, quats, log_scales, logits, dc, rest;
  explicit SceneGrads(const Scene& s)
      : means(s.means.size()), quats(s.quats.size()), log_scales(s.log_scales.size()), logits(s.logits.size()),
        dc(s.dc.size()), rest(s.rest.size()) {}
  kernels::BasicGaussiansGrad<double> arrays() {
    return {means.data(), quats.data(), log_scales.data(), logits.data(), dc.data(), rest.data()};
  }
};

// Checks the gradients of every parameter kind of `s` against finite differences of a random
// linear loss of its outputs.
void check_gradients(Scene& s, unsigned seed, const std::string& label) {
  const Loss loss(s, seed + 1000);
  ReferenceRasterizer<double> r(3);
  Vector rgb(3 * s.pixels()), alpha(s.pixels());
  r.forward(s.view(), s.cameras, s.settings, {rgb.data(), alpha.data(), nullptr});
  SceneGrads g(s);
  r.backward({loss.w_rgb.data(), loss.w_alpha.data(), loss.w_depth.data()}, g.arrays(), {});
  struct Kind {
    const char* name;
    Vector* params;
    const Vector* grad;
  };
  const Kind kinds[] = {{"means", &s.means, &g.means},
                        {"quats", &s.quats, &g.quats},
                        {"log_scales", &s.log_scales, &g.log_scales},
                        {"opacity_logits", &s.logits, &g.logits},
                        {"sh_dc", &s.dc, &g.dc},
                        {"sh_rest", &s.rest, &g.rest}};
  for (const Kind& k : kinds) {
    if (k.params->empty()) continue;
    const std::string what = std::string(k.name) + " " + label;
    auto l = [&](const Vector& x) {
      const Vector saved = *k.params;
      *k.params = x;
      const double v = loss(s);
      *k.params = saved;
      return v;
    };
    const auto stats = splat::test::check_gradient(l, *k.params, *k.grad, what, 1e-6, 2e-5, 1e-7, true, 1e-5);
    INFO(what << ": checked " << stats.checked << ", skipped near a threshold " << stats.skipped);
    CHECK(stats.skipped <= 2 + stats.checked / 50);
  }
}

void check_scene_gradients(unsigned seed, int degree, bool antialiased) {
  Scene s = random_scene(seed, 24, degree, antialiased);
  const Loss loss(s, seed + 1000);
  ReferenceRasterizer<double> r(3);
  Vector rgb(3 * s.pixels()), alpha(s.pixels());
  r.forward(s.view(), s.cameras, s.settings, {rgb.data(), alpha.data(), nullptr});
  REQUIRE(r.intersections() > 30);
  SceneGrads g(s);
  r.backward({loss.w_rgb.data(), loss.w_alpha.data(), loss.w_depth.data()}, g.arrays(), {});

  // The Gaussian behind every camera gets nothing; the others are seen (so the checks below
  // compare non-trivial gradients).
  for (int k = 0; k < 3; ++k) CHECK(g.means[k] == 0.0);
  CHECK(g.logits[0] == 0.0);
  int seen = 0;
  for (double d : g.logits) seen += d != 0.0;
  CHECK(seen >= s.n - 3);
  CHECK(g.logits[3] != 0.0);  // the thin one

  check_gradients(s, seed, "degree " + std::to_string(degree) + (antialiased ? " antialiased" : ""));
}

std::vector<float> to_float(const Vector& v) { return {v.begin(), v.end()}; }

// The float scene of a double one, and a float rasterizer call on it.
struct FloatScene {
  std::vector<float> means, quats, log_scales, logits, dc, rest;
  int rest_coeffs;
  explicit FloatScene(const Scene& s)
      : means(to_float(s.means)), quats(to_float(s.quats)), log_scales(to_float(s.log_scales)),
        logits(to_float(s.logits)), dc(to_float(s.dc)), rest(to_float(s.rest)),
        rest_coeffs(kernels::sh_coeffs_for_degree(s.degree) - 1) {}
  kernels::GaussiansView view() const {
    return {int64_t(logits.size()), means.data(), quats.data(), log_scales.data(), logits.data(),
            dc.data(),              rest.data(),  rest_coeffs};
  }
};

struct FloatRender {
  std::vector<float> rgb, alpha, depth;
  std::vector<float> d_means, d_quats, d_scales, d_logits, d_dc, d_rest;
  std::vector<float> grad2d, grad2d_abs, max_radius;
  std::vector<int32_t> visible;
};

// Renders `cameras` with the float CPU rasterizer; backward with upstream rgb gradient w_rgb
// (one value per rgb output, indexed from `pixel_offset` in a larger batch).
FloatRender render_float(const FloatScene& fs, std::span<const Camera> cameras, const RasterSettings& settings,
                         const std::vector<float>& w_rgb, size_t pixel_offset, int threads) {
  auto r = kernels::make_cpu_rasterizer(threads);
  FloatRender out;
  const size_t px = cameras.size() * cameras[0].width * cameras[0].height;
  out.rgb.resize(3 * px);
  out.alpha.resize(px);
  out.depth.resize(px);
  r->forward(fs.view(), cameras, settings, {out.rgb.data(), out.alpha.data(), out.depth.data()});
  const size_t n = fs.logits.size();
  out.d_means.assign(3 * n, 0);
  out.d_quats.assign(4 * n, 0);
  out.d_scales.assign(3 * n, 0);
  out.d_logits.assign(n, 0);
  out.d_dc.assign(3 * n, 0);
  out.d_rest.assign(fs.rest.size(), 0);
  out.grad2d.assign(n, 0);
  out.grad2d_abs.assign(n, 0);
  out.max_radius.assign(n, 0);
  out.visible.assign(n, 0);
  r->backward({w_rgb.data() + 3 * pixel_offset, nullptr, nullptr},
              {out.d_means.data(), out.d_quats.data(), out.d_scales.data(), out.d_logits.data(), out.d_dc.data(),
               out.d_rest.data()},
              {out.grad2d.data(), out.grad2d_abs.data(), out.visible.data(), out.max_radius.data()});
  return out;
}

}  // namespace

TEST_CASE("reference rasterizer gradients match finite differences, SH degree 0 and 1", "[raster_cpu]") {
  for (bool aa : {false, true}) {
    check_scene_gradients(7, 0, aa);
    check_scene_gradients(8, 1, aa);
  }
}

TEST_CASE("reference rasterizer gradients match finite differences, SH degree 2", "[raster_cpu]") {
  for (bool aa : {false, true}) check_scene_gradients(9, 2, aa);
}

TEST_CASE("reference rasterizer gradients match finite differences, SH degree 3", "[raster_cpu]") {
  for (bool aa : {false, true}) check_scene_gradients(10, 3, aa);
}

TEST_CASE("gradients match finite differences for cameras of different sizes in one call", "[raster_cpu]") {
  // 24x20, 35x13 and 17x29: tile grids of 2x2, 3x1 and 2x2 whose last tiles are cut differently.
  Scene s = random_scene(23, 22, 1, false, /*mixed_sizes=*/true);
  check_gradients(s, 23, "mixed sizes");
}

TEST_CASE("gradients match finite differences where alpha clamps and pixels saturate", "[raster_cpu]") {
  // 16 large, nearly opaque Gaussians around the origin: every one covers the centre of camera 0,
  // so its pixels stop early (T would drop below 1e-4); the three nearest are opaque enough for
  // the 0.99 clamp to act near their centres.
  Scene s = random_scene(61, 16, 1, false);
  std::mt19937 rng(62);
  std::uniform_real_distribution<double> U(-1, 1);
  for (int i = 0; i < 16; ++i) {
    s.means[3 * i] = 0.25 * U(rng), s.means[3 * i + 1] = 0.25 * U(rng);
    s.means[3 * i + 2] = i < 3 ? -0.5 - 0.1 * i : 0.25 * U(rng);
    for (int k = 0; k < 3; ++k) s.log_scales[3 * i + k] = std::log(0.5 + 0.1 * U(rng));
    s.logits[i] = i < 3 ? 8.0 : 2.5 + U(rng);
  }
  ReferenceRasterizer<double> r(2);
  Vector rgb(3 * s.pixels()), alpha(s.pixels());
  r.forward(s.view(), s.cameras, s.settings, {rgb.data(), alpha.data(), nullptr});
  const int centre = 10 * 24 + 12;
  CHECK(r.contributors()[centre] < 8);  // stopped long before the 16th
  CHECK(alpha[centre] > 0.999);
  // The nearest Gaussian's alpha is clamped at some pixel of camera 0.
  int clamped = 0;
  for (int i = 0; i < 3; ++i) {
    const auto p = raster::project_gaussian<double>(s.cameras[0], {s.means[3 * i], s.means[3 * i + 1], s.means[3 * i + 2]},
                                                    {s.quats[4 * i], s.quats[4 * i + 1], s.quats[4 * i + 2], s.quats[4 * i + 3]},
                                                    {s.log_scales[3 * i], s.log_scales[3 * i + 1], s.log_scales[3 * i + 2]},
                                                    s.logits[i], 0.01, 1e10, 0.3, false);
    for (int y = 0; y < 20; ++y)
      for (int x = 0; x < 24; ++x) {
        double gauss;
        clamped += raster::gaussian_alpha(p.mean2d, p.conic, p.opacity, Vec2<double>{x + 0.5, y + 0.5}, gauss) ==
                   raster::kMaxAlpha;
      }
  }
  CHECK(clamped > 0);
  check_gradients(s, 63, "opaque scene");
}

TEST_CASE("a single Gaussian renders as computed by hand", "[raster_cpu]") {
  Camera cam;  // identity pose, looking down +z
  cam.fx = cam.fy = 40;
  cam.cx = 16.3f;
  cam.cy = 11.7f;
  cam.width = 32;
  cam.height = 24;
  const float mean[3] = {0, 0, 5}, quat[4] = {1, 0, 0, 0}, log_scale[3] = {std::log(0.25f), std::log(0.25f),
                                                                          std::log(0.25f)};
  const float logit = 0, dc[3] = {1.0f, 0.0f, -0.5f};
  RasterSettings settings;
  settings.sh_degree = 0;
  settings.background[0] = 0.1f, settings.background[1] = 0.2f, settings.background[2] = 0.3f;
  std::vector<float> rgb(32 * 24 * 3), alpha(32 * 24), depth(32 * 24);
  auto r = kernels::make_cpu_rasterizer(2);
  r->forward({1, mean, quat, log_scale, &logit, dc, nullptr, 0}, std::span<const Camera>(&cam, 1), settings,
             {rgb.data(), alpha.data(), depth.data()});
  // Σ2d = (f s / z)^2 I + 0.3 I = 4.3 I; opacity 0.5; colour = C0 dc + 0.5.
  const double var = 4.3, c0 = 0.28209479177387814;
  const double colour[3] = {c0 * 1.0 + 0.5, 0.5, c0 * -0.5 + 0.5};
  int covered = 0;
  for (int y = 0; y < 24; ++y)
    for (int x = 0; x < 32; ++x) {
      const double dx = x + 0.5 - 16.3, dy = y + 0.5 - 11.7;
      double a = 0.5 * std::exp(-0.5 * (dx * dx + dy * dy) / var);
      if (a < 1.0 / 255) a = 0;
      covered += a > 0;
      const int o = y * 32 + x;
      INFO("pixel " << x << "," << y);
      CHECK(alpha[o] == Approx(a).margin(1e-6));
      for (int c = 0; c < 3; ++c)
        CHECK(rgb[3 * o + c] == Approx(colour[c] * a + (1 - a) * settings.background[c]).margin(1e-6));
      CHECK(depth[o] == Approx(a > 0 ? 5.0 : 0.0).margin(1e-5));
    }
  CHECK(covered > 100);
}

TEST_CASE("Gaussians are composited nearest first, ties in index order", "[raster_cpu]") {
  Camera cam;  // identity pose
  cam.fx = cam.fy = 40, cam.cx = 16.3f, cam.cy = 11.7f, cam.width = 32, cam.height = 24;
  // On the axis; scale proportional to depth so that all footprints are equal: σ² = (40 s / z)² + 0.3.
  // Gaussian 0 far (z = 6, blue), 1 near (z = 3, red), 2 and 3 at z = 4 (green, then white).
  const float means[12] = {0, 0, 6, 0, 0, 3, 0, 0, 4, 0, 0, 4};
  const float quats[16] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
  float log_scales[12];
  for (int i = 0; i < 4; ++i)
    for (int k = 0; k < 3; ++k) log_scales[3 * i + k] = std::log(means[3 * i + 2] / 12.0f);
  const float logits[4] = {1.0f, 1.0f, 1.0f, 1.0f};
  const double c0 = 0.28209479177387814, push = 1.5 / c0;  // dc giving colour 0.5 ± 1.5 -> clamped to 0 or 2
  const float dc[12] = {-float(push), -float(push), float(push), float(push), -float(push), -float(push),
                        -float(push), float(push), -float(push), float(push), float(push), float(push)};
  RasterSettings settings;
  settings.sh_degree = 0;
  std::vector<float> rgb(32 * 24 * 3), alpha(32 * 24);
  auto r = kernels::make_cpu_rasterizer(2);
  r->forward({4, means, quats, log_scales, logits, dc, nullptr, 0}, std::span<const Camera>(&cam, 1), settings,
             {rgb.data(), alpha.data(), nullptr});
  const double var = (40.0 / 12) * (40.0 / 12) + 0.3, d2 = 0.2 * 0.2 + 0.2 * 0.2;  // pixel (16, 11)
  const double a = (1 / (1 + std::exp(-1.0))) * std::exp(-0.5 * d2 / var);
  // Order: red (near), green, white (tie at z = 4, index order), blue (far); background black.
  const double w[4] = {a, a * (1 - a), a * (1 - a) * (1 - a), a * std::pow(1 - a, 3)};
  const int o = 3 * (11 * 32 + 16);
  CHECK(rgb[o + 0] == Approx(2 * w[0] + 2 * w[2]).epsilon(1e-5));
  CHECK(rgb[o + 1] == Approx(2 * w[1] + 2 * w[2]).epsilon(1e-5));
  CHECK(rgb[o + 2] == Approx(2 * w[2] + 2 * w[3]).epsilon(1e-5));
}

// A random scene in float and the upstream rgb gradient of a random linear loss of its images.
struct FloatCase {
  Scene s;
  FloatScene fs;
  std::vector<float> w;
  FloatCase(unsigned seed, int n, int degree, bool antialiased, unsigned loss_seed)
      : s(random_scene(seed, n, degree, antialiased)), fs(s) {
    std::mt19937 rng(loss_seed);
    w = to_float(splat::test::random_vector(3 * s.pixels(), -1, 1, rng));
  }
};

TEST_CASE("a batch of cameras renders like one call per camera", "[raster_cpu]") {
  const FloatCase fc(31, 30, 2, true, 5);
  const Scene& s = fc.s;
  const FloatScene& fs = fc.fs;
  const std::vector<float>& w = fc.w;
  const FloatRender batch = render_float(fs, s.cameras, s.settings, w, 0, 3);
  std::vector<float> d_means(batch.d_means.size(), 0), grad2d(batch.grad2d.size(), 0);
  const size_t px = size_t(s.cameras[0].width) * s.cameras[0].height;
  for (size_t c = 0; c < s.cameras.size(); ++c) {
    const FloatRender one =
        render_float(fs, std::span<const Camera>(&s.cameras[c], 1), s.settings, w, c * px, 2);
    for (size_t i = 0; i < 3 * px; ++i) REQUIRE(one.rgb[i] == batch.rgb[c * 3 * px + i]);
    for (size_t i = 0; i < px; ++i) REQUIRE(one.depth[i] == batch.depth[c * px + i]);
    for (size_t i = 0; i < d_means.size(); ++i) d_means[i] += one.d_means[i];
    for (size_t i = 0; i < grad2d.size(); ++i) grad2d[i] += one.grad2d[i];
  }
  for (size_t i = 0; i < d_means.size(); ++i) CHECK(d_means[i] == Approx(batch.d_means[i]).margin(1e-6));
  for (size_t i = 0; i < grad2d.size(); ++i) CHECK(grad2d[i] == Approx(batch.grad2d[i]).margin(1e-6));
}

TEST_CASE("results do not depend on the number of threads", "[raster_cpu]") {
  const FloatCase fc(41, 40, 3, false, 6);
  const FloatRender a = render_float(fc.fs, fc.s.cameras, fc.s.settings, fc.w, 0, 1);
  const FloatRender b = render_float(fc.fs, fc.s.cameras, fc.s.settings, fc.w, 0, 5);
  CHECK(a.rgb == b.rgb);
  CHECK(a.d_means == b.d_means);
  CHECK(a.d_quats == b.d_quats);
  CHECK(a.d_rest == b.d_rest);
  CHECK(a.grad2d_abs == b.grad2d_abs);
}

TEST_CASE("a Gaussian behind the camera contributes nothing", "[raster_cpu]") {
  Scene s = random_scene(51, 12, 1, false);
  const std::vector<Camera> cam0{s.cameras[0]};
  std::mt19937 rng(7);
  const std::vector<float> w = to_float(splat::test::random_vector(3 * 24 * 20, -1, 1, rng));
  const FloatRender without = render_float(FloatScene(s), cam0, s.settings, w, 0, 2);
  // Gaussian 5 moves behind camera 0 (at z = -4, looking at +z), big and opaque.
  Scene with = s;
  with.means[15] = 0.1, with.means[16] = 0.0, with.means[17] = -4.5;
  with.log_scales[15] = with.log_scales[16] = with.log_scales[17] = 0.0;
  with.logits[5] = 3.0;
  Scene gone = s;  // the same scene without any contribution of Gaussian 5
  gone.logits[5] = -50.0;
  const FloatRender behind = render_float(FloatScene(with), cam0, s.settings, w, 0, 2);
  const FloatRender reference = render_float(FloatScene(gone), cam0, s.settings, w, 0, 2);
  CHECK(behind.rgb == reference.rgb);
  CHECK(behind.alpha == reference.alpha);
  CHECK(behind.visible[5] == 0);
  for (int k = 0; k < 3; ++k) CHECK(behind.d_means[15 + k] == 0.0f);
  CHECK(behind.d_logits[5] == 0.0f);
  CHECK(without.rgb != behind.rgb);  // Gaussian 5 was visible where it started
}

TEST_CASE("densification statistics of an on-axis Gaussian", "[raster_cpu]") {
  Camera cam;
  cam.fx = 40, cam.fy = 30, cam.cx = 16, cam.cy = 12, cam.width = 32, cam.height = 24;
  const float mean[3] = {0, 0, 4}, quat[4] = {1, 0, 0, 0};
  const float log_scale[3] = {std::log(0.2f), std::log(0.2f), std::log(0.2f)}, logit = 1.0f, dc[3] = {0.5f, 0, 0};
  RasterSettings settings;
  settings.sh_degree = 0;
  auto r = kernels::make_cpu_rasterizer(2);
  std::vector<float> rgb(32 * 24 * 3), alpha(32 * 24);
  r->forward({1, mean, quat, log_scale, &logit, dc, nullptr, 0}, std::span<const Camera>(&cam, 1), settings,
             {rgb.data(), alpha.data(), nullptr});
  // A loss that pulls the Gaussian right and down: weights grow with x and y.
  std::vector<float> w(32 * 24 * 3);
  for (int y = 0; y < 24; ++y)
    for (int x = 0; x < 32; ++x)
      for (int c = 0; c < 3; ++c) w[3 * (y * 32 + x) + c] = 0.01f * x + 0.02f * y;
  float d_means[3] = {0, 0, 0}, d_quats[4] = {}, d_scales[3] = {}, d_logit = 0, d_dc[3] = {};
  float grad2d = 0, grad2d_abs = 0, max_radius = 0;
  int32_t visible = 0;
  r->backward({w.data(), nullptr, nullptr}, {d_means, d_quats, d_scales, &d_logit, d_dc, nullptr},
              {&grad2d, &grad2d_abs, &visible, &max_radius});
  // On the axis with an isotropic Σ, x and y move only mean2d (J's third column is 0 there):
  // dL/dmean2d = dL/dmean * z / f.
  const double gx = d_means[0] * 4.0 / 40, gy = d_means[1] * 4.0 / 30;
  CHECK(std::abs(gx) > 1e-3);
  CHECK(grad2d == Approx(std::hypot(gx * 16, gy * 12)).epsilon(1e-4));
  CHECK(grad2d_abs >= grad2d * (1 - 1e-5));
  CHECK(visible == 1);
  // Σ2d.xx = (40 * 0.2 / 4)^2 + 0.3 = 4.3, .yy = (30 * 0.2 / 4)^2 + 0.3 = 2.55; opacity sigmoid(1) -> k = 3.
  CHECK(max_radius == Approx(std::ceil(3 * std::sqrt(4.3)) / 32));
}

TEST_CASE("bad rasterizer input is rejected with a clear error", "[raster_cpu]") {
  auto r = kernels::make_cpu_rasterizer(1);
  Camera a, b;
  a.width = 8, a.height = 8, b.width = 16, b.height = 8;
  float rgb[16 * 8 * 3 * 2], alpha[16 * 8 * 2];
  RasterSettings settings;
  settings.sh_degree = 0;
  Camera empty = b;
  empty.height = 0;
  CHECK_THROWS_WITH(r->forward({}, std::vector<Camera>{a, empty}, settings, {rgb, alpha, nullptr}),
                    Catch::Contains("a camera has an empty image (16x0)"));
  settings.sh_degree = 2;
  CHECK_THROWS_WITH(r->forward({}, std::span<const Camera>(&a, 1), settings, {rgb, alpha, nullptr}),
                    Catch::Contains("needs 8 SH coefficients"));
}

TEST_CASE("an empty scene renders the background", "[raster_cpu]") {
  auto r = kernels::make_cpu_rasterizer(2);
  Camera cam;
  cam.width = 20, cam.height = 18, cam.fx = cam.fy = 10, cam.cx = 10, cam.cy = 9;
  RasterSettings settings;
  settings.sh_degree = 0;
  settings.background[0] = 0.25f, settings.background[1] = 0.5f, settings.background[2] = 1.0f;
  std::vector<float> rgb(20 * 18 * 3, -1.0f), alpha(20 * 18, -1.0f);
  r->forward({}, std::span<const Camera>(&cam, 1), settings, {rgb.data(), alpha.data(), nullptr});
  for (size_t i = 0; i < alpha.size(); ++i) {
    REQUIRE(alpha[i] == 0.0f);
    for (int c = 0; c < 3; ++c) REQUIRE(rgb[3 * i + c] == settings.background[c]);
  }
  std::vector<float> drgb(rgb.size(), 1.0f);
  r->backward({drgb.data(), nullptr, nullptr}, {}, {});  // nothing to propagate, must not fail
}
