// load_scene on the synthetic tiny scene: order, split, camera ids, centre and extent, the
// data factor (downsampling on load and images_N/), undistortion on load, and the area filter.
#include <catch2/catch.hpp>

#include <cmath>
#include <utility>
#include <vector>

#include "core/scene/image_loader.h"
#include "core/scene/scene_loader.h"
#include "core/scene/undistort.h"
#include "tests/io/tiny_scene.h"
#include "tests/support/test_support.h"

namespace tiny = splat::test::tiny;

namespace {
splat::SceneLoadOptions quiet(int data_factor = 1, bool load_images = true) {
  splat::SceneLoadOptions o;
  o.data_factor = data_factor;
  o.load_images = load_images;
  o.threads = 3;
  o.show_progress = false;
  return o;
}
}  // namespace

TEST_CASE("scene views are sorted by name, every 8th is a test view, each keeps its camera", "[colmap][scene]") {
  const auto dir = splat::test::scratch_dir("scene_order");
  tiny::write_tiny_scene(dir, tiny::tiny_reconstruction(10), false);
  const splat::Scene s = splat::load_scene(dir, quiet(1, false));
  // Byte order of names: img_0, img_1, img_2, ... img_9 (single digits).
  REQUIRE(s.views.size() == 10);
  for (int i = 0; i < 10; ++i) {
    const splat::SceneView& v = s.views[i];
    CHECK(v.name == "img_" + std::to_string(i) + ".png");
    CHECK(v.is_test == (i == 0 || i == 8));
    CHECK(v.camera_id == 1 + i % 3);
  }
  CHECK(s.test_indices() == std::vector<int>{0, 8});
  CHECK(s.images.empty());
  // Camera 1 PINHOLE (50, 52, 20, 15); camera 2 SIMPLE_PINHOLE (45, 19.5, 15.5); camera 3 OPENCV.
  CHECK(s.views[3].intrinsics.fx == 50);
  CHECK(s.views[3].intrinsics.fy == 52);
  CHECK(s.views[4].intrinsics.fx == 45);
  CHECK(s.views[4].intrinsics.fy == 45);
  CHECK(s.views[4].intrinsics.cx == 19.5);
  CHECK(s.views[4].source_model == splat::CameraModel::SimplePinhole);
  CHECK(s.views[5].intrinsics.fx == 48);
  CHECK(s.views[5].intrinsics.fy == 47);
  CHECK(s.views[5].source_model == splat::CameraModel::OpenCV);
  CHECK(s.points.size() == 5);
  CHECK(s.points[2].rgb == std::array<uint8_t, 3>{20, 20, 30});
}

TEST_CASE("scene centre is the mean camera centre and extent 1.1 x the farthest", "[colmap][scene]") {
  const auto dir = splat::test::scratch_dir("scene_extent");
  tiny::write_tiny_scene(dir, tiny::tiny_reconstruction(10), true);
  const splat::Scene s = splat::load_scene(dir, quiet(1, false));
  // Image k sits at (4 sin a, 0, -4 cos a), a = 0.5 k, by construction of its pose.
  splat::Vec3d centre{};
  for (int k = 0; k < 10; ++k) centre += splat::Vec3d{4 * std::sin(0.5 * k), 0, -4 * std::cos(0.5 * k)} / 10.0;
  double far = 0;
  for (int k = 0; k < 10; ++k) {
    const splat::Vec3d c{4 * std::sin(0.5 * k), 0, -4 * std::cos(0.5 * k)};
    CHECK(s.views[k].camera_center().x == Approx(c.x).margin(1e-12));
    CHECK(s.views[k].camera_center().z == Approx(c.z).margin(1e-12));
    far = std::max(far, splat::norm(c - centre));
  }
  CHECK(s.center.x == Approx(centre.x).margin(1e-12));
  CHECK(s.center.y == Approx(0).margin(1e-12));
  CHECK(s.center.z == Approx(centre.z).margin(1e-12));
  CHECK(s.extent == Approx(1.1 * far));
}

TEST_CASE("images load in view order with their own colours", "[colmap][scene]") {
  const auto dir = splat::test::scratch_dir("scene_images");
  tiny::write_tiny_scene(dir, tiny::tiny_reconstruction(10), false);
  const splat::Scene s = splat::load_scene(dir, quiet());
  REQUIRE(s.images.size() == 10);
  for (int i = 0; i < 10; ++i) {
    const splat::ImageRGB8& img = s.images[i];
    REQUIRE(img.width == 40);
    REQUIRE(img.height == 30);
    // Centre pixel; the OPENCV views are undistorted, which keeps the centre colour.
    const uint8_t* px = &img.pixels[(15 * 40 + 20) * 3];
    const auto want = tiny::tiny_colour(i);
    CHECK(px[0] == want[0]);
    CHECK(px[1] == want[1]);
    CHECK(px[2] == want[2]);
  }
}

TEST_CASE("distorted views are undistorted on load", "[colmap][scene][undistort]") {
  const auto dir = splat::test::scratch_dir("scene_undistort");
  tiny::write_tiny_scene(dir, tiny::tiny_reconstruction(3), false);
  // Replace view 2's image (camera 3, OPENCV) by a ramp whose colours encode the position.
  splat::ImageRGB8 ramp{40, 30, {}};
  for (int j = 0; j < 30; ++j)
    for (int i = 0; i < 40; ++i) ramp.pixels.insert(ramp.pixels.end(), {uint8_t(6 * i), uint8_t(8 * j), 0});
  tiny::write_png(dir / "images" / "img_2.png", ramp);
  const splat::Scene s = splat::load_scene(dir, quiet());
  const splat::LensCamera lens = splat::lens_camera(splat::CameraModel::OpenCV, 40, 30, {48, 47, 20, 15, -0.1, 0.01, 0.002, -0.001});
  CHECK(s.images[2].pixels == splat::undistort_image(ramp, lens, splat::undistorted_pinhole(lens)).image.pixels);
  CHECK(s.images[2].pixels != ramp.pixels);
}

TEST_CASE("data factor downsamples images/ on load and scales intrinsics", "[colmap][scene]") {
  const auto dir = splat::test::scratch_dir("scene_factor");
  tiny::write_tiny_scene(dir, tiny::tiny_reconstruction(4), true);
  const splat::Scene s = splat::load_scene(dir, quiet(4));
  REQUIRE(s.images.size() == 4);
  // 40x30 / 4 = 10 x 7.5, rounded to 10x8; intrinsics scale by 10/40 and 8/30.
  const splat::PinholeIntrinsics& k = s.views[1].intrinsics;  // camera 2: f 45, c (19.5, 15.5)
  CHECK(k.width == 10);
  CHECK(k.height == 8);
  CHECK(k.fx == Approx(45.0 / 4));
  CHECK(k.fy == Approx(45.0 * 8 / 30));
  CHECK(k.cx == Approx(19.5 / 4));
  CHECK(k.cy == Approx(15.5 * 8 / 30));
  CHECK(s.images[1].width == 10);
  CHECK(s.images[1].height == 8);
  CHECK(s.images[1].pixels[0] == tiny::tiny_colour(1)[0]);
}

TEST_CASE("data factor uses images_N/ when it exists", "[colmap][scene]") {
  const auto dir = splat::test::scratch_dir("scene_images_n");
  const auto rec = tiny::tiny_reconstruction(4);
  tiny::write_tiny_scene(dir, rec, false);
  for (const auto& im : rec.images) tiny::write_png(dir / "images_2" / im.name, tiny::solid_image(20, 15, {1, 2, 3}));
  const splat::Scene s = splat::load_scene(dir, quiet(2));
  REQUIRE(s.images.size() == 4);
  CHECK(s.views[0].image_path == (dir / "images_2" / "img_0.png").string());
  CHECK(s.images[0].width == 20);
  CHECK(s.images[0].pixels[0] == 1);  // from images_2/, not downsampled from images/
  CHECK(s.views[0].intrinsics.fx == Approx(25));
  CHECK(s.views[0].intrinsics.cy == Approx(7.5));
}

TEST_CASE("a model directly in sparse/ is found", "[colmap][scene]") {
  const auto dir = splat::test::scratch_dir("scene_flat_sparse");
  tiny::write_tiny_scene(dir, tiny::tiny_reconstruction(2), true);
  std::filesystem::rename(dir / "sparse" / "0", dir / "sparse0");
  std::filesystem::remove_all(dir / "sparse");
  std::filesystem::rename(dir / "sparse0", dir / "sparse");
  CHECK(splat::colmap::find_sparse_dir(dir) == dir / "sparse");
  CHECK(splat::load_scene(dir, quiet(1, false)).views.size() == 2);
}

TEST_CASE("area filter averages each output pixel over the source area it covers", "[colmap][image]") {
  // 3 px -> 2 px: output 0 covers source [0, 1.5): (2 a + b) / 3; output 1 covers [1.5, 3): (b + 2 c) / 3.
  splat::ImageRGB8 src{3, 1, {30, 0, 255, 60, 3, 255, 120, 9, 0}};
  const splat::ImageRGB8 out = splat::resize_area(src, 2, 1);
  REQUIRE(out.pixels.size() == 6);
  CHECK(out.pixels[0] == 40);   // (2*30 + 60) / 3
  CHECK(out.pixels[1] == 1);    // (0 + 3) / 3
  CHECK(out.pixels[2] == 255);
  CHECK(out.pixels[3] == 100);  // (60 + 240) / 3
  CHECK(out.pixels[4] == 7);    // (3 + 18) / 3
  CHECK(out.pixels[5] == 85);   // (255 + 0) / 3
  // 2x2 -> 1x1 is the plain mean.
  splat::ImageRGB8 sq{2, 2, {0, 0, 0, 100, 0, 0, 0, 200, 0, 100, 0, 8}};
  CHECK(splat::resize_area(sq, 1, 1).pixels == std::vector<uint8_t>{50, 50, 2});
  CHECK(splat::downsampled_size({800, 533}, 4).width == 200);
  CHECK(splat::downsampled_size({800, 533}, 4).height == 133);
}

TEST_CASE("image loading reports its progress in order, from 0 to the image count", "[colmap][scene]") {
  const auto dir = splat::test::scratch_dir("scene_progress");
  tiny::write_tiny_scene(dir, tiny::tiny_reconstruction(12), false);
  std::vector<std::pair<int64_t, int64_t>> calls;  // the loader serialises the calls: no lock here
  splat::SceneLoadOptions opt = quiet();
  opt.on_progress = [&](int64_t done, int64_t total) { calls.emplace_back(done, total); };
  const splat::Scene s = splat::load_scene(dir, opt);
  REQUIRE(s.images.size() == 12);
  REQUIRE(calls.size() == 13);
  for (size_t k = 0; k < calls.size(); ++k) {
    CHECK(calls[k].first == static_cast<int64_t>(k));
    CHECK(calls[k].second == 12);
  }

  SECTION("nothing to report without images") {
    calls.clear();
    opt.load_images = false;
    splat::load_scene(dir, opt);
    CHECK(calls.empty());
  }
}
