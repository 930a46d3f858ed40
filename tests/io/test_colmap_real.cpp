// The real scenes under ../shared/data (skipped when absent): counts and models from
// /work/shared/data/README.md. Poses only for both; images (data factor 4) for cup only, to keep
// the test fast.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "core/scene/colmap_reader.h"
#include "core/scene/scene_loader.h"
#include "tests/support/test_support.h"

namespace {
splat::SceneLoadOptions poses_only() {
  splat::SceneLoadOptions o;
  o.load_images = false;
  o.show_progress = false;
  return o;
}
}  // namespace

TEST_CASE("real scene cup: counts, split and per-image SIMPLE_PINHOLE cameras", "[colmap][real]") {
  const auto dir = splat::test::shared_scene("cup");
  if (!dir) return;
  const auto rec = splat::colmap::read_reconstruction(splat::colmap::find_sparse_dir(*dir));
  CHECK(rec.cameras.size() == 77);
  for (const auto& c : rec.cameras) {
    CHECK(c.model == splat::CameraModel::SimplePinhole);
    CHECK(c.width == 800);
    CHECK(c.height == 600);
    CHECK(c.params[0] > 529);
    CHECK(c.params[0] < 633);
  }
  const splat::Scene s = splat::build_scene(*dir, rec, poses_only());
  CHECK(s.views.size() == 77);
  CHECK(s.train_indices().size() == 67);
  CHECK(s.test_indices().size() == 10);
  CHECK(s.points.size() == 9262);
  // One camera per image, so focal lengths differ between views.
  CHECK(s.views[0].intrinsics.fx != s.views[1].intrinsics.fx);
  CHECK(s.extent > 0);
}

TEST_CASE("real scene bonsai: counts, split and one shared PINHOLE camera", "[colmap][real]") {
  const auto dir = splat::test::shared_scene("bonsai");
  if (!dir) return;
  const splat::Scene s = splat::load_scene(*dir, poses_only());
  CHECK(s.views.size() == 292);
  CHECK(s.train_indices().size() == 255);
  CHECK(s.test_indices().size() == 37);
  CHECK(s.points.size() == 67045);
  for (const splat::SceneView& v : s.views) {
    CHECK(v.source_model == splat::CameraModel::Pinhole);
    CHECK(v.intrinsics.width == 800);
    CHECK(v.intrinsics.height == 533);
    CHECK(v.intrinsics.fx == Approx(826.86).margin(0.01));
    CHECK(v.intrinsics.fy == Approx(826.61).margin(0.01));
  }
}

TEST_CASE("real scene cup: images decode at data factor 4 with scaled intrinsics", "[colmap][real]") {
  const auto dir = splat::test::shared_scene("cup");
  if (!dir) return;
  splat::SceneLoadOptions o;
  o.data_factor = 4;
  o.show_progress = false;
  const splat::Scene s = splat::load_scene(*dir, o);
  const splat::Scene full = splat::load_scene(*dir, poses_only());
  REQUIRE(s.images.size() == 77);
  for (size_t i = 0; i < s.views.size(); ++i) {
    CHECK(s.images[i].width == 200);
    CHECK(s.images[i].height == 150);
    CHECK(s.views[i].intrinsics.fx == Approx(full.views[i].intrinsics.fx / 4));
    CHECK(s.views[i].intrinsics.cy == Approx(full.views[i].intrinsics.cy / 4));
    // Photos, not blank buffers: the channels vary across the image.
    uint8_t lo = 255, hi = 0;
    for (uint8_t v : s.images[i].pixels) lo = std::min(lo, v), hi = std::max(hi, v);
    CHECK(hi - lo > 100);
  }
  // Poses are world-to-camera and each image is its view's: SfM points land in front of the
  // cameras, inside the frames, and match the pixel colours best at exactly the projected
  // position (better than 2 pixels off in any direction).
  const int shifts[5][2] = {{0, 0}, {2, 0}, {-2, 0}, {0, 2}, {0, -2}};
  double err[5] = {};
  int64_t in_frame = 0;
  for (size_t i = 0; i < s.views.size(); ++i) {
    const splat::SceneView& v = s.views[i];
    const splat::ImageRGB8& img = s.images[i];
    for (const splat::ScenePoint& p : s.points) {
      const splat::Vec3d c = v.R * p.xyz + v.t;
      if (c.z <= 0) continue;
      const double u = v.intrinsics.fx * c.x / c.z + v.intrinsics.cx, w = v.intrinsics.fy * c.y / c.z + v.intrinsics.cy;
      if (u < 2 || w < 2 || u >= img.width - 2 || w >= img.height - 2) continue;
      ++in_frame;
      for (int k = 0; k < 5; ++k) {
        const size_t at = (static_cast<size_t>(w + shifts[k][1]) * img.width + static_cast<size_t>(u + shifts[k][0])) * 3;
        for (int ch = 0; ch < 3; ++ch) err[k] += std::abs(img.pixels[at + ch] - p.rgb[ch]);
      }
    }
  }
  CHECK(in_frame > 0.5 * static_cast<double>(s.points.size()) * s.views.size());
  for (int k = 1; k < 5; ++k) {
    INFO("colour error at the projection " << err[0] << ", shifted by (" << shifts[k][0] << ", " << shifts[k][1] << ") " << err[k]);
    CHECK(err[0] < 0.97 * err[k]);
  }
}
