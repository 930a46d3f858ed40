// The viewer's orientation and tools without a window (CPU backend): the up axis and the grid, the
// crop box on what is shown and on the PLY snapshot, the comparison with a photo and the test views'
// PSNR, and the camera path export.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iterator>
#include <span>

#include "core/model/crop_box.h"
#include "core/model/ply_io.h"
#include "core/render/camera_path_file.h"
#include "core/scene/camera_path.h"
#include "tests/support/test_support.h"
#include "tests/ui/tiny_demo_viewer.h"
#include "ui/path_export_job.h"
#include "ui/view_compare.h"
#include "ui/viewer_state.h"

using namespace splat;
using namespace splat::ui;
namespace fs = std::filesystem;

TEST_CASE("the crop box limits what is shown and what the PLY snapshot holds", "[ui][crop]") {
  const fs::path dir = test::scratch_dir("ui_crop");
  ViewerState state(kernels::Device::CPU, dir / "recent.json");
  test::open_random_cube(state, dir, 500);
  REQUIRE(state.has_content());
  // The fitted box holds the bulk of the Gaussians (the 5..95 % range of each axis, and more).
  REQUIRE_FALSE(state.crop_enabled());
  CHECK(norm(state.crop().center - Vec3d{5, -2, 1}) < 0.1);
  CropBox box = state.crop();
  box.half_size = {0.25, 0.25, 0.25};
  const uint64_t before = state.model_version;
  state.set_crop(true, box);
  CHECK(state.model_version != before);  // the viewport renders again
  const std::vector<uint8_t> inside = inside_mask(state.content.model->means, box);
  const int64_t expected = std::count(inside.begin(), inside.end(), uint8_t(1));
  REQUIRE(expected > 0);
  REQUIRE(expected < 500);
  state.update_raster();
  CHECK(state.raster.gaussian_count() == expected);
  CHECK(state.gaussian_count() == 500);  // the model itself is untouched

  state.snapshot.ply_path = (dir / "cropped.ply").string();
  state.save_ply();
  REQUIRE(state.notes.error_count() == 0);
  const GaussianModel saved = read_ply(dir / "cropped.ply");
  REQUIRE(saved.size() == expected);
  for (int64_t i = 0; i < saved.size(); ++i)
    CHECK(contains(box, {saved.means[3 * i], saved.means[3 * i + 1], saved.means[3 * i + 2]}));

  // A training snapshot is cropped where it lives: the same Gaussians as the host model's crop.
  state.show_snapshot(ModelSnapshot::upload(*state.content.model, kernels::Device::CPU));
  state.update_raster();
  CHECK(state.raster.gaussian_count() == expected);
  state.set_crop(false, box);
  state.update_raster();
  CHECK(state.raster.gaussian_count() == 500);
  state.save_ply();
  CHECK(read_ply(dir / "cropped.ply").size() == 500);
}

namespace {
// The camera's image rows lie level across `up` and its image's down points against it (a camera
// looking straight along up has no horizon: only that is checked then).
void check_level(const OrbitCamera& camera, const Vec3d& up) {
  if (norm(cross(camera.forward(), up)) < 1e-3) return;
  CHECK(dot(camera.right(), up) == Approx(0).margin(1e-9));
  CHECK(dot(camera.down(), up) < 0);
}
}  // namespace

TEST_CASE("each up axis choice levels the grid, the crop box, the orbit and the view; R is the upright overview",
          "[ui][crop]") {
  const fs::path dir = test::scratch_dir("ui_up_axis");
  ViewerState state(kernels::Device::CPU, dir / "recent.json");
  test::open_tiny_demo(state, dir);
  const std::span<const SceneView> views = state.content.scene->views;
  CHECK(state.up_axis() == UpAxis::Auto);
  CHECK(norm(state.camera.world_up() - estimate_up(views).up) < 1e-12);
  check_level(state.camera, state.camera.world_up());  // it opens upright
  for (int k = 0; k < int(std::size(kUpAxisNames)); ++k) {
    const UpAxis axis = static_cast<UpAxis>(k);
    INFO("up " << up_axis_name(axis));
    state.camera.orbit(40, 25);  // somewhere else first
    state.set_up_axis(axis);
    const Vec3d up = up_direction(axis, views);
    CHECK(state.up_axis() == axis);
    CHECK(norm(state.camera.world_up() - up) < 1e-12);
    CHECK(norm(state.crop().up - up) < 1e-12);
    // The grid lies under the Gaussians along up: nearly all of them are above it.
    const GaussianModel& m = *state.content.model;
    const double floor = dot(state.grid_center(), up);
    int64_t above = 0;
    double lowest = INFINITY;
    for (int64_t i = 0; i < m.size(); ++i) {
      const double h = dot(Vec3d{m.means[3 * i], m.means[3 * i + 1], m.means[3 * i + 2]}, up);
      above += h >= floor - 1e-6;
      lowest = std::min(lowest, h);
    }
    CHECK(above >= 0.97 * double(m.size()));
    CHECK(floor >= lowest - 1e-6);  // and not below them all: on the lowest few
    // The view is levelled where it is, and orbiting keeps it level.
    check_level(state.camera, up);
    state.camera.orbit(-120, 30);
    check_level(state.camera, up);
    // R: the orbit's first pose (`render --path orbit`'s first frame), whatever was shown before.
    state.snap_to_view(3);
    state.reset_view();
    const CameraPose home = orbit_poses(views, 1, up).front();
    CHECK(norm(state.camera.eye() - home.centre) < 1e-9);
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) CHECK(state.camera.rotation().m[r][c] == Approx(home.R.m[r][c]).margin(1e-9));
    check_level(state.camera, up);
  }
}

TEST_CASE("cup, photographed sideways, opens upright with the grid below the cameras", "[ui][real]") {
  const auto scene = test::shared_scene("cup");
  if (!scene) return;
  const fs::path dir = test::scratch_dir("ui_up_cup");
  ViewerState state(kernels::Device::CPU, dir / "recent.json");
  state.data_factor = 4;
  state.open(*scene);
  state.loader.wait();
  state.poll_loader();
  REQUIRE(state.notes.error_count() == 0);
  const std::span<const SceneView> views = state.content.scene->views;
  const Vec3d up = state.camera.world_up();
  CHECK(norm(up - estimate_up(views).up) < 1e-12);
  CHECK(estimate_up(views).source == UpSource::CameraPlane);
  check_level(state.camera, up);
  // Its first photo is sideways: its image rows run along up, which the view no longer does.
  const SceneView& first = views[state.content.scene->train_indices().front()];
  CHECK(std::abs(dot(Vec3d{first.R.m[0][0], first.R.m[0][1], first.R.m[0][2]}, up)) > 0.5);
  // The grid lies under the scene, below every camera's centre.
  for (const SceneView& v : views) CHECK(dot(v.camera_center() - state.grid_center(), up) > 0);
  CHECK(dot(state.camera.eye() - state.grid_center(), up) > 0);
}

TEST_CASE("comparing a view with its photo, and the test views' PSNR from the evaluator", "[ui][compare]") {
  const fs::path dir = test::scratch_dir("ui_compare");
  ViewerState state(kernels::Device::CPU, dir / "recent.json");
  ViewCompare compare;
  CHECK_FALSE(compare.update(state));  // nothing open
  CHECK_THAT(compare.why(), Catch::Contains("no posed scene"));
  test::open_tiny_demo(state, dir);
  const Scene& scene = *state.content.scene;
  const std::vector<int> tests = scene.test_indices();
  REQUIRE_FALSE(tests.empty());

  compare.evaluate_test_views(state);
  REQUIRE(state.notes.error_count() == 0);
  REQUIRE(compare.evaluation());
  REQUIRE(compare.evaluation()->views.size() == tests.size());
  CHECK(compare.evaluation_current(state));
  for (size_t k = 0; k < tests.size(); ++k) {
    CHECK(compare.evaluation()->views[k].view == tests[k]);
    CHECK(std::isfinite(compare.evaluation()->views[k].psnr));
  }

  // An evaluation measures the model shown when it started, one view a step, whatever is shown meanwhile.
  const EvalResult whole = *compare.evaluation();
  compare.start_evaluation(state);
  CHECK(compare.evaluating());
  CHECK(compare.to_evaluate() == tests.size());
  compare.evaluate_next(state);
  CHECK(compare.evaluated() == 1);
  CropBox tiny = state.crop();
  tiny.half_size = tiny.half_size * 0.1;
  state.set_crop(true, tiny);
  int steps = 1;
  while (compare.evaluating() && ++steps < 100) compare.evaluate_next(state);
  CHECK(steps == int(tests.size()));
  REQUIRE(state.notes.error_count() == 0);
  CHECK(compare.evaluation()->psnr == whole.psnr);
  CHECK_FALSE(compare.evaluation_current(state));
  state.set_crop(false, tiny);

  // The comparison of a test view reports the same PSNR as the evaluation, from the same render.
  compare.show(tests.front());
  REQUIRE(compare.update(state));
  const ImageRGBA8& img = compare.image();
  CHECK(img.width == scene.images[tests.front()].width);
  CHECK(img.height == scene.images[tests.front()].height);
  REQUIRE(compare.view_psnr());
  CHECK(*compare.view_psnr() == Approx(compare.evaluation()->views.front().psnr).epsilon(1e-9));
  // The photo's half of the split is the photo itself.
  const ImageRGB8& photo = scene.images[tests.front()];
  const size_t last = size_t(photo.width) * photo.height - 1;
  for (int c = 0; c < 3; ++c) CHECK(img.pixels[4 * last + c] == photo.pixels[3 * last + c]);
  // Parameters alone recompose without rendering; a changed model renders again.
  const uint64_t v = compare.image_version();
  CHECK(compare.update(state));
  CHECK(compare.image_version() == v);
  compare.params.mode = CompareMode::Error;
  CHECK(compare.update(state));
  CHECK(compare.image_version() == v + 1);
  CropBox box = state.crop();
  box.half_size = box.half_size * 0.2;
  state.set_crop(true, box);
  CHECK_FALSE(compare.evaluation_current(state));
  CHECK(compare.update(state));
  CHECK(compare.image_version() == v + 2);
  compare.show(int(scene.views.size()));
  CHECK_FALSE(compare.update(state));
}

TEST_CASE("the GUI's camera path export writes the frames render --path writes", "[ui][path_export]") {
  const fs::path dir = test::scratch_dir("ui_path_export");
  PathExportJob job;
  {
    ViewerState empty(kernels::Device::CPU, dir / "recent.json");
    job.start(empty);  // nothing open: an error, no export
    CHECK(empty.notes.error_count() == 1);
    CHECK_FALSE(job.running());
  }
  ViewerState state(kernels::Device::CPU, dir / "recent.json");
  test::open_tiny_demo(state, dir);
  job.settings.request = {PathKind::Orbit, 3, 32, 0};
  job.settings.out_dir = (dir / "orbit").string();
  job.start(state);
  REQUIRE(job.running());
  CHECK(job.frames() == 3);
  int guard = 0;
  while (job.running() && ++guard < 10) job.step(state);
  CHECK(guard == 3);
  CHECK(state.notes.error_count() == 0);
  for (size_t k = 0; k < 3; ++k) CHECK(fs::exists(frame_file(dir / "orbit", k)));
  CHECK_FALSE(fs::exists(frame_file(dir / "orbit", 3)));
  // The path is saved beside its frames, for `render --path` and other tools.
  const std::vector<kernels::Camera> saved = read_camera_path(dir / "orbit" / kCameraPathFileName);
  REQUIRE(saved.size() == 3);
  CHECK(saved[0].width == 32);
}

TEST_CASE("on CUDA the comparison, the test views' PSNR and the cropped render match the CPU backend's",
          "[ui][compare][gpu]") {
  if (!test::gpu_or_skip("viewer comparison on CUDA")) return;
  const fs::path dir = test::scratch_dir("ui_compare_gpu");
  ViewerState cpu(kernels::Device::CPU, dir / "recent_cpu.json"), gpu(kernels::Device::CUDA, dir / "recent_gpu.json");
  test::open_tiny_demo(cpu, dir / "cpu");
  test::open_tiny_demo(gpu, dir / "gpu");
  for (ViewerState* s : {&cpu, &gpu}) {
    CropBox box = s->crop();
    box.half_size = box.half_size * 0.6;
    s->set_crop(true, box);
  }
  ViewCompare on_cpu, on_gpu;
  on_cpu.evaluate_test_views(cpu);
  on_gpu.evaluate_test_views(gpu);
  REQUIRE(on_cpu.evaluation());
  REQUIRE(on_gpu.evaluation());
  CHECK(on_gpu.evaluation()->psnr == Approx(on_cpu.evaluation()->psnr).margin(0.05));
  const int v = cpu.content.scene->train_indices().front();
  on_cpu.show(v);
  on_gpu.show(v);
  on_cpu.params.mode = on_gpu.params.mode = CompareMode::Error;
  REQUIRE(on_cpu.update(cpu));
  REQUIRE(on_gpu.update(gpu));
  REQUIRE(on_gpu.image().pixels.size() == on_cpu.image().pixels.size());
  // The same heat map up to float rounding: colours within a few levels on nearly every pixel.
  size_t close = 0;
  for (size_t i = 0; i < on_cpu.image().pixels.size(); ++i)
    close += std::abs(int(on_cpu.image().pixels[i]) - int(on_gpu.image().pixels[i])) <= 3;
  CHECK(close >= 0.99 * double(on_cpu.image().pixels.size()));
  // A crop that leaves nothing: the background against the photo, on both.
  for (ViewerState* s : {&cpu, &gpu}) {
    CropBox box = s->crop();
    box.center = box.center + Vec3d{1e6, 0, 0};
    s->set_crop(true, box);
  }
  on_cpu.evaluate_test_views(cpu);
  on_gpu.evaluate_test_views(gpu);
  CHECK(gpu.notes.error_count() == 0);
  CHECK(on_gpu.evaluation()->psnr == Approx(on_cpu.evaluation()->psnr).margin(1e-6));
  REQUIRE(on_gpu.update(gpu));
}
