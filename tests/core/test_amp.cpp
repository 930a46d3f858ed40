// Mixed precision (TrainerOptions::amp, core/model/param_columns.h kAmpColumns): the device state it
// stores, switching it during a run, training quality against fp32 on the demo scene over seeds, and
// a stress scene (far, huge Gaussians and extreme gradients) on which it stays finite.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "core/model/device_gaussians.h"
#include "core/train/evaluator.h"
#include "core/train/trainer.h"
#include "tests/core/amp_fixture.h"
#include "tests/core/demo_fixture.h"

using namespace splat;
using kernels::Device;

namespace {

double test_psnr(Trainer& t) {
  return evaluate(t.rasterizer(), t.gaussians().view(), t.scene(), t.scene().test_indices(), eval_options_for(t)).psnr;
}

// The first parameter group holding a NaN or an infinity, or "" when every value is finite.
std::string first_non_finite(const GaussianState& s) {
  for (Group g : kAllGroups)
    for (float v : s.col(g).value)
      if (!std::isfinite(v)) return group_name(g);
  return "";
}

}  // namespace

TEST_CASE("amp: the device stores SH rest and moments in bf16 and renders the values it stores", "[amp]") {
  const GaussianModel m = test::busy_model(400, 3);
  const GaussianState amp_state = GaussianState::from_model(m, kAmpColumns);
  DeviceGaussians amp(Device::CPU, amp_state);
  // The same values (already bf16 where AMP stores bf16) in fp32 columns.
  DeviceGaussians f32(Device::CPU, amp_state.with_columns(kParamColumns));
  REQUIRE(amp.view().sh_rest_bf16 != nullptr);
  REQUIRE(amp.view().sh_rest == nullptr);
  CHECK_THROWS_AS(amp.param(Group::ShRest), std::logic_error);  // no fp32 array to hand out
  bool rounded = false;
  for (size_t i = 0; i < m.sh_rest.size(); ++i) rounded |= amp_state.col(Group::ShRest).value[i] != m.sh_rest[i];
  CHECK(rounded);  // the values did change: the comparison below is not between identical inputs

  // Memory per Gaussian: values 14 x 4 + 45 x 2, moments 59 x 2 x 2, gradients 59 x 4 (until a step
  // stores bf16 SH rest gradients: the test below), statistics 16.
  const GaussianMemory mf = f32.memory(), ma = amp.memory();
  CHECK(ma.parameters == size_t(400) * (14 * 4 + 45 * 2));
  CHECK(ma.optimizer == size_t(400) * 59 * 2 * 2);
  CHECK(ma.gradients == mf.gradients);
  CHECK(double(ma.total()) < 0.7 * double(mf.total()));  // 634 vs 960 bytes per Gaussian

  // Rendering and gradients from bf16 storage equal those from fp32 storage of the same values.
  for (bool packed : {false, true}) {
    const std::vector<float> a = test::render_and_backward(amp, packed), b = test::render_and_backward(f32, packed);
    REQUIRE(a.size() == b.size());
    CHECK(a == b);  // bit for bit: bf16 decodes exactly to the fp32 values
  }
}

TEST_CASE("amp: switching during a run converts the columns at the step boundary", "[amp][trainer]") {
  const Scene scene = test::small_demo_scene(32, 24, 200);
  TrainerOptions o = test::short_run_options(60);
  o.cpu_threads = 1;
  Trainer t(scene, init_from_points(scene.points), o);
  for (int i = 0; i < 20; ++i) t.step();
  CHECK(t.columns()[int(Group::ShRest)].storage == Precision::F32);
  const GaussianState before = t.whole_state();
  const std::vector<float> stats_before = t.gaussians().download_stats().grad2d_norm;
  t.set_amp(true);
  CHECK(t.options().amp);
  CHECK(t.columns()[int(Group::ShRest)].storage == Precision::BF16);
  CHECK(t.gaussians().view().sh_rest_bf16 != nullptr);
  const GaussianState after = t.whole_state();
  REQUIRE(after.size() == before.size());
  after.check_consistent();  // every SH rest value is a bf16 value
  for (Group g : {Group::Means, Group::Quats, Group::Opacity}) CHECK(after.col(g).value == before.col(g).value);
  CHECK(t.gaussians().download_stats().grad2d_norm == stats_before);  // densification statistics kept
  for (int i = 0; i < 20; ++i) t.step();
  CHECK(first_non_finite(t.whole_state()).empty());
  t.set_amp(false);
  CHECK(t.gaussians().view().sh_rest != nullptr);
  while (!t.finished()) t.step();
  CHECK(first_non_finite(t.whole_state()).empty());
}

// A step rendered in one dense call sums each Gaussian's SH rest gradients in fp32 and stores them
// once, in bf16 under mixed precision; a packed step (atomics) keeps them fp32. Either way the step
// overwrites the gradients, and Adam reads the array that step wrote.
TEST_CASE("amp: one dense call per step stores the SH rest gradients in bf16, packed steps in fp32", "[amp][trainer]") {
  const Scene scene = test::small_demo_scene(32, 24, 200);
  TrainerOptions o = test::short_run_options(40);
  o.cpu_threads = 1;
  o.amp = true;
  Trainer t(scene, init_from_points(scene.points), o);
  const auto gradient_bytes = [&] { return t.gaussians().memory().gradients; };
  for (int i = 0; i < 10; ++i) t.step();
  const size_t n = size_t(t.gaussians().size());
  CHECK(t.gaussians().rest_grad_narrow());
  CHECK(t.gaussians().adam_group(Group::ShRest).grads.bf16 != nullptr);
  // 14 fp32 values and 45 bf16 ones a row, and the row's flag of whether the step's call reached it.
  CHECK(gradient_bytes() == n * (14 * 4 + 45 * 2 + 1));
  t.set_packed(true);
  for (int i = 0; i < 10; ++i) t.step();
  CHECK_FALSE(t.gaussians().rest_grad_narrow());
  CHECK(t.gaussians().adam_group(Group::ShRest).grads.f32 != nullptr);
  CHECK(gradient_bytes() == size_t(t.gaussians().size()) * (59 * 4 + 1));
  t.set_packed(false);
  for (int i = 0; i < 10; ++i) t.step();
  CHECK(t.gaussians().rest_grad_narrow());
  t.set_amp(false);
  for (int i = 0; i < 10; ++i) t.step();
  CHECK_FALSE(t.gaussians().rest_grad_narrow());  // fp32 values train from fp32 gradients
  CHECK(first_non_finite(t.whole_state()).empty());
}

// The quality target of mixed precision (docs/ARCHITECTURE.md "Precision columns") on the CPU: over 5 seeds,
// AMP ends within 0.3 dB of fp32 (mean), and every AMP run learns the scene.
TEST_CASE("amp: demo training over 5 seeds ends within 0.3 dB of fp32", "[amp][trainer][e2e]") {
  const Scene scene = test::small_demo_scene(64, 48, 800);
  double sum_f32 = 0, sum_amp = 0;
  const int seeds = 5;
  for (int seed = 0; seed < seeds; ++seed) {
    double psnr[2] = {0, 0};
    for (bool amp : {false, true}) {
      TrainerOptions o = test::short_run_options(300);
      o.seed = uint64_t(seed);
      o.amp = amp;
      Trainer t(scene, init_from_points(scene.points), o);
      const double start = test_psnr(t);
      while (!t.finished()) t.step();
      psnr[amp] = test_psnr(t);
      // Learned the scene: fp32 itself ends 2.75-3.5 dB above the start over seeds 0-20.
      CHECK(psnr[amp] > start + 2);
      CHECK(first_non_finite(t.whole_state()).empty());
    }
    std::printf("amp demo seed %d: fp32 %.3f dB, amp %.3f dB\n", seed, psnr[0], psnr[1]);
    sum_f32 += psnr[0];
    sum_amp += psnr[1];
  }
  std::printf("amp demo mean over %d seeds: fp32 %.3f dB, amp %.3f dB (%+.3f)\n", seeds, sum_f32 / seeds,
              sum_amp / seeds, (sum_amp - sum_f32) / seeds);
  CHECK((sum_amp - sum_f32) / seeds > -0.3);
}

namespace {

// The demo's Gaussians plus the cases that break narrow formats: thousands overlapping in one spot,
// tiny and huge scales, flat disks (some seen edge-on from the cameras: grazing views), Gaussians
// 1e5 scene units away in front of the cameras, and large SH coefficients.
GaussianModel stress_model(const Scene& scene) {
  GaussianModel base = init_from_points(scene.points);
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> U(-1, 1);
  Vec3d c{};
  for (const ScenePoint& p : scene.points) c = c + p.xyz;
  c = c / double(scene.points.size());
  const float e = float(scene.extent);
  const int overlapping = 3000, special = 600;
  GaussianModel s(3, overlapping + special);
  for (int64_t i = 0; i < s.size(); ++i) {
    Vec3d p = c + Vec3d{0.01 * e * U(rng), 0.01 * e * U(rng), 0.01 * e * U(rng)};
    float ls[3];
    for (float& l : ls) l = std::log(0.05f * e);
    float logit = 4.6f;  // opacity 0.99
    const int kind = i < overlapping ? -1 : int(i % 4);
    if (kind == 0) {  // tiny
      for (float& l : ls) l = std::log(1e-7f * e);
    } else if (kind == 1) {  // huge, faint
      for (float& l : ls) l = std::log(100.f * e);
      logit = -3.f;
    } else if (kind == 2) {  // flat disks, random orientation: some edge-on to each camera
      ls[0] = ls[1] = std::log(0.2f * e);
      ls[2] = std::log(1e-6f * e);
      p = c + Vec3d{0.5 * e * U(rng), 0.5 * e * U(rng), 0.5 * e * U(rng)};
    } else if (kind == 3) {  // far away in front of a camera, large enough to cover pixels
      const auto& v = scene.views[size_t(i) % scene.views.size()];
      const Vec3d fwd{v.R.m[2][0], v.R.m[2][1], v.R.m[2][2]};
      p = v.camera_center() + fwd * 1e5 + Vec3d{1e3 * U(rng), 1e3 * U(rng), 0};
      for (float& l : ls) l = std::log(2e3f);
    }
    for (int k = 0; k < 3; ++k) {
      s.means[3 * i + k] = float(p[k]);
      s.log_scales[3 * i + k] = ls[k];
      s.sh_dc[3 * i + k] = 2 * U(rng);
    }
    s.quats[4 * i] = U(rng);
    for (int k = 1; k < 4; ++k) s.quats[4 * i + k] = U(rng);
    s.opacity_logits[i] = logit;
  }
  for (float& v : s.sh_rest) v = 1.5f * U(rng);
  for (Group g : kAllGroups) base.column(g).insert(base.column(g).end(), s.column(g).begin(), s.column(g).end());
  base.check_consistent();
  return base;
}

// Trains the stress scene under AMP; returns the first group that turned non-finite and when
// (checked every few steps, and before the first), or "" when the run stayed finite to the end.
std::string train_stress(const Scene& scene, int images) {
  TrainerOptions o = test::short_run_options(images);
  o.amp = true;
  Trainer t(scene, stress_model(scene), o);
  while (true) {
    const std::string bad = first_non_finite(t.whole_state());
    if (!bad.empty()) return bad + " at image " + std::to_string(t.images_done());
    if (t.finished()) return "";
    for (int k = 0; k < 10 && !t.finished(); ++k) t.step();
  }
}

}  // namespace

// The far Gaussians' coordinates (1e5) would overflow fp16's 65504 at once, and the squares of
// the gradients would leave its range; AMP keeps the means in fp32 and its moments in bf16, which has
// fp32's range.
TEST_CASE("amp: the stress scene stays finite under AMP", "[amp][trainer]") {
  const Scene scene = test::small_demo_scene(48, 36, 300);
  const int images = 200;  // through densification (from image 100, every 50) and SH growth to degree 1
  const std::string amp = train_stress(scene, images);
  INFO("stress scene under AMP: " << (amp.empty() ? std::string("finite") : "non-finite " + amp));
  CHECK(amp.empty());
}
