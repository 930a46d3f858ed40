// Which pixels reach training: the undistortion plan (mask or crop), the user's masks/ folder and
// photos stored at another size than their camera.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "core/scene/camera_undistortion.h"
#include "core/scene/colmap_writer.h"
#include "core/scene/scene_loader.h"
#include "core/scene/user_masks.h"
#include "tests/io/tiny_scene.h"
#include "tests/support/test_support.h"

namespace fs = std::filesystem;
namespace tiny = splat::test::tiny;
using namespace splat;
using Catch::Matchers::Contains;

namespace {

size_t count_valid(const PixelMask& m) { return static_cast<size_t>(std::count(m.begin(), m.end(), 1)); }

Scene load_quietly(const fs::path& dir) {
  SceneLoadOptions o;
  o.show_progress = false;
  return load_scene(dir, o);
}

}  // namespace

TEST_CASE("undistortion plan: pinhole, pincushion and barrel lenses in both modes", "[undistort][masks]") {
  const LensCamera pinhole = lens_camera(CameraModel::Pinhole, 80, 60, {70, 70, 40, 30});
  const CameraUndistortion p0 = plan_undistortion(pinhole, {});
  CHECK_FALSE(p0.remap);
  CHECK(p0.valid.empty());
  CHECK(p0.kept_fraction == 1.0);
  CHECK(p0.pinhole.width == 80);

  // Pincushion (k > 0): the photo's rays all land inside the pinhole frame, whose corners the
  // photo does not cover.
  const LensCamera pincushion = lens_camera(CameraModel::SimpleRadial, 80, 60, {60, 40, 30, 0.2});
  const CameraUndistortion masked = plan_undistortion(pincushion, {UndistortMode::Mask});
  REQUIRE(masked.valid.size() == 80u * 60u);
  CHECK(masked.valid[0] == 0);                   // corner
  CHECK(masked.valid[30 * 80 + 40] == 1);        // centre
  CHECK(masked.kept_fraction == Approx(1.0).margin(0.005));
  CHECK(masked.pinhole.width == 80);

  const CameraUndistortion cropped = plan_undistortion(pincushion, {UndistortMode::Crop});
  CHECK(cropped.valid.empty());  // every pixel of the crop shows the photo
  CHECK(cropped.pinhole.width < 80);
  CHECK(cropped.pinhole.height < 60);
  CHECK(cropped.pinhole.cx == Approx(40 - cropped.crop.x0));
  CHECK(cropped.kept_fraction < masked.kept_fraction);
  for (int y = 0; y < cropped.crop.height; ++y)
    for (int x = 0; x < cropped.crop.width; ++x)
      REQUIRE(masked.valid[static_cast<size_t>(y + cropped.crop.y0) * 80 + x + cropped.crop.x0] == 1);
  // The kept fraction is the area of the photo the crop shows: the crop's corners map to the photo
  // pixels that bound it, so it is at least the crop's own share of the frame.
  CHECK(cropped.kept_fraction > double(cropped.crop.width * cropped.crop.height) / (80 * 60));

  // Barrel (k < 0): every pinhole pixel is inside the photo, but the photo's corners fall outside the frame.
  const LensCamera barrel = lens_camera(CameraModel::SimpleRadial, 80, 60, {60, 40, 30, -0.1});
  const CameraUndistortion b = plan_undistortion(barrel, {});
  CHECK(b.valid.empty());
  CHECK(b.kept_fraction < 0.98);
  CHECK(b.kept_fraction > 0.5);
}

TEST_CASE("undistortion: the user's mask follows its photo through the lens", "[undistort][masks]") {
  const LensCamera lens = lens_camera(CameraModel::SimpleRadial, 80, 60, {60, 40, 30, 0.1});
  const CameraUndistortion plan = plan_undistortion(lens, {});
  const ImageRGB8 photo = tiny::solid_image(80, 60, {200, 100, 50});
  PixelMask user(80 * 60, 1);
  for (int y = 0; y < 60; ++y)
    for (int x = 0; x < 40; ++x) user[y * 80 + x] = 0;  // left half ignored
  const TrainingImage t = to_training_image(plan, photo, &user);
  REQUIRE(t.mask.size() == 80u * 60u);
  // The lens is symmetric about the principal point: the left half of the pinhole comes from the
  // left half of the photo.
  for (int y = 0; y < 60; ++y)
    for (int x = 0; x < 80; ++x) {
      const uint8_t m = t.mask[y * 80 + x];
      if (x < 40) REQUIRE(m == 0);
      else REQUIRE(m == plan.valid[y * 80 + x]);
    }
  // Without a user mask only the lens decides; a pinhole with an all-ones user mask has none.
  CHECK(to_training_image(plan, photo, nullptr).mask == plan.valid);
  const PixelMask ones(80 * 60, 1);
  CHECK(to_training_image(plan_undistortion(lens_camera(CameraModel::Pinhole, 80, 60, {60, 60, 40, 30}), {}), photo, &ones)
            .mask.empty());
}

TEST_CASE("masks folder: masks are found by name, must match their photo, and reach the scene", "[masks]") {
  const fs::path dir = splat::test::scratch_dir("masks_folder");
  tiny::write_tiny_scene(dir, tiny::tiny_reconstruction(4), true);
  CHECK(masks_dir_for(dir / "images") == dir / "masks");
  CHECK(masks_dir_for(dir / "images_4") == dir / "masks_4");

  // img_1.png uses camera 2 (SIMPLE_PINHOLE 40x30): the left 10 columns are ignored.
  ImageRGB8 m = tiny::solid_image(40, 30, {255, 255, 255});
  for (int y = 0; y < 30; ++y)
    for (int x = 0; x < 10; ++x)
      for (int c = 0; c < 3; ++c) m.pixels[(y * 40 + x) * 3 + c] = 0;
  tiny::write_png(dir / "masks" / "img_1.png.png", m);  // COLMAP's naming
  tiny::write_png(dir / "masks" / "img_0.png", tiny::solid_image(40, 30, {255, 255, 255}));  // same-name naming
  CHECK(find_mask_file(dir / "masks", "img_1.png") == dir / "masks" / "img_1.png.png");
  CHECK(find_mask_file(dir / "masks", "img_0.png") == dir / "masks" / "img_0.png");
  CHECK_FALSE(find_mask_file(dir / "masks", "img_2.png"));

  const Scene s = load_quietly(dir);
  REQUIRE(s.has_masks());
  const auto it = std::find_if(s.views.begin(), s.views.end(), [](const SceneView& v) { return v.name == "img_1.png"; });
  const size_t v1 = static_cast<size_t>(it - s.views.begin());
  REQUIRE(s.mask(v1) != nullptr);
  CHECK(count_valid(s.masks[v1]) == 30u * 30u);
  CHECK(std::any_of(s.notes.begin(), s.notes.end(), [](const std::string& n) { return n.find("masks for 2 of 4") != std::string::npos; }));

  // A mask of another size names the mask file and both sizes.
  tiny::write_png(dir / "masks" / "img_1.png.png", tiny::solid_image(20, 15, {255, 255, 255}));
  const std::string e = tiny::scene_error_of([&] { load_quietly(dir); });
  CHECK_THAT(e, Contains("img_1.png.png") && Contains("20x15") && Contains("40x30"));
}

TEST_CASE("mask modes: 'alpha' trains masked-out pixels as the background colour, 'ignore' leaves them out",
          "[masks]") {
  CHECK(parse_mask_mode("ignore") == MaskMode::Ignore);
  CHECK(parse_mask_mode(mask_mode_name(MaskMode::Alpha)) == MaskMode::Alpha);
  CHECK_THROWS_WITH(parse_mask_mode("transparent"), Contains("'ignore' or 'alpha'") && Contains("transparent"));

  ImageRGB8 photo = tiny::solid_image(3, 2, {10, 20, 30});
  fill_masked_out(photo, {1, 0, 1, 1, 1, 0}, {1.f, 0.5f, 0.f});
  CHECK(std::vector<uint8_t>(photo.pixels.begin() + 3, photo.pixels.begin() + 6) == std::vector<uint8_t>{255, 128, 0});
  CHECK(std::vector<uint8_t>(photo.pixels.begin(), photo.pixels.begin() + 3) == std::vector<uint8_t>{10, 20, 30});
  CHECK(std::vector<uint8_t>(photo.pixels.begin() + 15, photo.pixels.end()) == std::vector<uint8_t>{255, 128, 0});
  CHECK_THROWS(fill_masked_out(photo, {1, 1}, {0.f, 0.f, 0.f}));

  // img_1.png (camera 2, 40x30, white) with its left 10 columns masked out.
  const fs::path dir = splat::test::scratch_dir("mask_modes");
  tiny::write_tiny_scene(dir, tiny::tiny_reconstruction(4), true);
  ImageRGB8 m = tiny::solid_image(40, 30, {255, 255, 255});
  for (int y = 0; y < 30; ++y)
    for (int x = 0; x < 10; ++x)
      for (int c = 0; c < 3; ++c) m.pixels[(y * 40 + x) * 3 + c] = 0;
  tiny::write_png(dir / "masks" / "img_1.png.png", m);
  SceneLoadOptions o;
  o.show_progress = false;
  const Scene ignored = load_scene(dir, o);
  o.mask_mode = MaskMode::Alpha;
  o.mask_fill = {0.f, 1.f, 0.f};
  const Scene alpha = load_scene(dir, o);
  const auto it = std::find_if(alpha.views.begin(), alpha.views.end(), [](const SceneView& v) { return v.name == "img_1.png"; });
  const size_t v1 = static_cast<size_t>(it - alpha.views.begin());
  CHECK(ignored.mask(v1) != nullptr);
  CHECK_FALSE(alpha.has_masks());  // every pixel is trained
  const ImageRGB8& a = alpha.images[v1];
  const ImageRGB8& i = ignored.images[v1];
  REQUIRE(a.width == 40);
  for (int y = 0; y < 30; y += 7) {
    INFO("row " << y);
    CHECK(std::vector<uint8_t>(a.pixels.begin() + (y * 40 + 3) * 3, a.pixels.begin() + (y * 40 + 4) * 3) ==
          std::vector<uint8_t>{0, 255, 0});  // masked out: the fill
    CHECK(std::equal(a.pixels.begin() + (y * 40 + 20) * 3, a.pixels.begin() + (y * 40 + 21) * 3,
                     i.pixels.begin() + (y * 40 + 20) * 3));  // kept: the photo
  }
}

TEST_CASE("photo sizes: an integer downscale of the camera is accepted, anything else refused", "[masks][bad]") {
  const fs::path dir = splat::test::scratch_dir("photo_sizes");
  tiny::TinyScene ts = tiny::tiny_reconstruction(4);
  for (auto& c : ts.cameras) {  // every camera twice the stored size: the photos are a 1/2 downscale
    c.width *= 2;
    c.height *= 2;
    const size_t focal_and_centre = c.model == CameraModel::SimplePinhole ? 3 : 4;  // distortion stays
    for (size_t i = 0; i < focal_and_centre; ++i) c.params[i] *= 2;
  }
  colmap::write_colmap_binary(dir / "sparse" / "0", ts.cameras, ts.images, ts.points);
  for (const auto& im : ts.images) tiny::write_png(dir / "images" / im.name, tiny::solid_image(40, 30, {9, 9, 9}));
  const Scene s = load_quietly(dir);
  CHECK(s.views[0].intrinsics.width == 40);
  CHECK(std::any_of(s.notes.begin(), s.notes.end(), [](const std::string& n) { return n.find("1/2 of the camera") != std::string::npos; }));

  tiny::write_png(dir / "images" / "img_2.png", tiny::solid_image(60, 45, {9, 9, 9}));  // 3/4: same aspect, not integer
  const std::string e = tiny::scene_error_of([&] { load_quietly(dir); });
  CHECK_THAT(e, Contains("img_2.png") && Contains("60x45") && Contains("80x60"));
}
