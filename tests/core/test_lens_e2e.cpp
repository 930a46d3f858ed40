// End to end through distorted lenses: the demo world photographed through SIMPLE_RADIAL and
// OPENCV_FISHEYE lenses must train as well as through the pinhole, and white photos behind a
// distorted lens must train to white (a black undistortion border would cap PSNR near 10 dB).
#include <catch2/catch.hpp>
#include <stb_image_write.h>

#include <cstdio>
#include <vector>

#include "core/train/evaluator.h"
#include "core/train/trainer.h"
#include "tests/core/demo_fixture.h"

using namespace splat;

namespace {

EvalResult train_and_evaluate(const Scene& scene, const TrainerOptions& o) {
  Trainer t(scene, init_from_points(scene.points), o);
  while (!t.finished()) t.step();
  return evaluate(t.rasterizer(), t.gaussians().view(), scene, scene.test_indices(), eval_options_for(t));
}

Scene load_quietly(const std::filesystem::path& folder) {
  SceneLoadOptions lo;
  lo.show_progress = false;
  return load_scene(folder, lo);
}

}  // namespace

TEST_CASE("lens e2e: distorted demo captures train like the pinhole one", "[trainer][e2e][lens]") {
  const auto pinhole_opts = test::small_demo_options(96, 72, 1500);
  auto radial_opts = pinhole_opts;
  radial_opts.lens_model = CameraModel::SimpleRadial;
  radial_opts.lens_distortion = {0.2};
  auto fisheye_opts = pinhole_opts;
  fisheye_opts.lens_model = CameraModel::OpenCVFisheye;
  fisheye_opts.lens_distortion = {0.08, 0.02, -0.01, 0.002};

  const Scene pinhole = load_quietly(test::small_demo_folder(pinhole_opts));
  const Scene radial = load_quietly(test::small_demo_folder(radial_opts, "simple-radial"));
  const Scene fisheye = load_quietly(test::small_demo_folder(fisheye_opts, "opencv-fisheye"));
  // The distorted photos do reach training with ignored pixels: the radial lens's pinhole has
  // corners the photo does not cover.
  REQUIRE(radial.has_masks());
  REQUIRE(radial.views[0].kept_fraction == Approx(1.0).margin(0.01));

  const TrainerOptions o = test::short_run_options(600);
  const double p0 = train_and_evaluate(pinhole, o).psnr;
  const double p1 = train_and_evaluate(radial, o).psnr;
  const double p2 = train_and_evaluate(fisheye, o).psnr;
  std::printf("lens e2e: test PSNR pinhole %.2f, SIMPLE_RADIAL %.2f, OPENCV_FISHEYE %.2f dB\n", p0, p1, p2);
  CHECK(p1 > p0 - 0.5);
  CHECK(p2 > p0 - 0.5);
}

TEST_CASE("lens e2e: white photos behind a distorted lens train to white", "[trainer][e2e][lens]") {
  auto opts = test::small_demo_options(64, 48, 400);
  opts.lens_model = CameraModel::SimpleRadial;
  opts.lens_distortion = {0.2};
  const auto demo_folder = test::small_demo_folder(opts, "white-source");
  // Same cameras and points, every photo white.
  const auto folder = std::filesystem::path(SPLATLAB_BINARY_DIR) / "test-cache" / "white-behind-lens";
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder / "images");
  std::filesystem::copy(demo_folder / "sparse", folder / "sparse", std::filesystem::copy_options::recursive);
  const std::vector<uint8_t> white(64 * 48 * 3, 255);
  for (const auto& e : std::filesystem::directory_iterator(demo_folder / "images"))
    REQUIRE(stbi_write_png((folder / "images" / e.path().filename()).c_str(), 64, 48, 3, white.data(), 64 * 3));

  const Scene scene = load_quietly(folder);
  REQUIRE(scene.has_masks());
  TrainerOptions o = test::short_run_options(200);
  o.background = {1.f, 1.f, 1.f};
  const EvalResult r = train_and_evaluate(scene, o);
  std::printf("white behind SIMPLE_RADIAL k=0.2: test PSNR %.2f dB\n", r.psnr);
  CHECK(r.psnr > 35);
}
