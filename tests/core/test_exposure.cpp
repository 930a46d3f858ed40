// Exposure compensation (TrainerOptions::exposure): on a capture whose training photos alternate
// between two exposures, the per-image colour maps take the difference, so the scene (rendered
// without a map for the test views, at the photos' mean exposure) stays consistent; without them the
// scene bends to fit both. The maps are kept in checkpoints (tests/ranks: with ranks).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "core/train/evaluator.h"
#include "core/train/trainer.h"
#include "tests/core/demo_fixture.h"

using namespace splat;

namespace {

double trained_psnr(const Scene& scene, const TrainerOptions& o) {
  Trainer t(scene, init_from_points(scene.points), o);
  while (!t.finished()) t.step();
  auto raster = kernels::make_cpu_rasterizer(o.cpu_threads);
  const GaussianState whole = t.whole_state();
  const DeviceGaussians g(kernels::Device::CPU, whole);
  return evaluate(*raster, g.view(), scene, scene.test_indices(), eval_options_for(o, t.active_sh_degree())).psnr;
}

}  // namespace

TEST_CASE("exposure compensation keeps the scene's colours where the photos' exposure changes", "[exposure][train]") {
  const Scene scene = test::alternating_exposure(test::small_demo_scene(36, 27, 160), 0.5f);
  TrainerOptions o = test::short_run_options(1200);
  o.cpu_threads = 1;
  const double plain = trained_psnr(scene, o);
  o.exposure = true;
  const double compensated = trained_psnr(scene, o);
  INFO("test PSNR without maps " << plain << " dB, with " << compensated << " dB");
  CHECK(compensated > plain + 1.0);
}

TEST_CASE("exposure compensation: the maps resume from a checkpoint", "[exposure][train]") {
  const Scene scene = test::alternating_exposure(test::small_demo_scene(30, 22, 90), 0.6f);
  TrainerOptions o = test::short_run_options(120);
  o.cpu_threads = 1;
  o.exposure = true;
  Trainer a(scene, init_from_points(scene.points), o);
  for (int k = 0; k < 40; ++k) a.step();
  const nlohmann::json state = a.state();
  REQUIRE(state.at("color_maps").is_object());
  const std::vector<float> maps = state.at("color_maps").at("params").get<std::vector<float>>();
  REQUIRE(maps.size() == scene.views.size() * 12);
  // The maps moved away from the identity for the training views, and the dark ones darken more.
  const std::vector<int> train = scene.train_indices();
  double dark = 0, bright = 0;
  for (size_t k = 0; k < train.size(); ++k) {
    const float* m = &maps[size_t(train[k]) * 12];
    (k % 2 == 0 ? dark : bright) += (m[0] + m[4] + m[8]) / 3;
  }
  CHECK(dark / double((train.size() + 1) / 2) < bright / double(train.size() / 2));

  Trainer b(scene, init_from_points(scene.points), o);
  b.load_whole_state(a.whole_state());
  b.load_state(state);
  CHECK(b.state().at("color_maps") == state.at("color_maps"));
}
