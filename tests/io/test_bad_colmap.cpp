// COLMAP models whose values are out of range: degenerate cameras, poses and points, in both
// formats, each refused with one SceneError naming the file and the problem; and the odd but
// valid values COLMAP does write (far georegistered poses, unnormalised quaternions, any point
// error, unused cameras) still load.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>

#include "core/scene/colmap_reader.h"
#include "core/scene/colmap_writer.h"
#include "core/scene/scene_loader.h"
#include "tests/io/tiny_scene.h"
#include "tests/support/alloc_probe.h"
#include "tests/support/test_support.h"

namespace fs = std::filesystem;
namespace tiny = splat::test::tiny;
namespace colmap = splat::colmap;
using Catch::Matchers::Contains;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

const char* format_name(bool binary) { return binary ? "bin" : "txt"; }

// A tiny scene (4 images) in a fresh folder, after `edit` changed its model.
template <class Edit>
fs::path scene_with(const std::string& name, bool binary, Edit edit) {
  const fs::path dir = splat::test::scratch_dir(name + "_" + format_name(binary));
  tiny::TinyScene rec = tiny::tiny_reconstruction(4);
  edit(rec);
  tiny::write_tiny_scene(dir, rec, binary);
  return dir;
}

fs::path model_file(const fs::path& dir, const char* stem, bool binary) {
  return dir / "sparse" / "0" / (std::string(stem) + "." + format_name(binary));
}

splat::SceneLoadOptions poses_only() {
  splat::SceneLoadOptions o;
  o.load_images = false;
  o.show_progress = false;
  return o;
}

std::string load_error(const fs::path& dir) {
  return tiny::scene_error_of([&] { splat::load_scene(dir, poses_only()); });
}

}  // namespace

TEST_CASE("bad colmap: non-finite or huge camera translations are refused in both formats", "[colmap][bad]") {
  for (bool binary : {true, false}) {
    for (double bad : {kInf, -kInf, kNaN, 1e9, -3e8}) {
      INFO((binary ? "images.bin, " : "images.txt, ") << "tz = " << bad);
      const fs::path dir = scene_with("bad_translation", binary, [&](tiny::TinyScene& r) { r.images[2].tvec.z = bad; });
      const std::string e = load_error(dir);
      CHECK_THAT(e, Contains(model_file(dir, "images", binary).string()) && Contains("image 101 'img_1.png'"));
      if (std::isfinite(bad)) CHECK_THAT(e, Contains("translation") && Contains("beyond 1e+08 scene units"));
      else CHECK_THAT(e, Contains("non-finite translation"));
      if (!binary) CHECK_THAT(e, Contains("line "));
    }
  }
}

TEST_CASE("bad colmap: georegistered (ECEF-sized) poses and points still load", "[colmap][bad]") {
  // model_aligner into earth-centred coordinates puts everything about 6.4e6 m from the origin.
  for (bool binary : {true, false}) {
    const fs::path dir = scene_with("ecef", binary, [](tiny::TinyScene& r) {
      for (auto& im : r.images) im.tvec.x += 6.4e6;
      for (auto& p : r.points) p.xyz.x -= 6.4e6;
    });
    CHECK(load_error(dir).empty());
  }
}

TEST_CASE("bad colmap: rotation quaternions must be finite and normalisable", "[colmap][bad]") {
  using Q = std::array<double, 4>;
  for (bool binary : {true, false}) {
    for (const Q& q : {Q{0, 0, 0, 0}, Q{1e-9, 0, 0, 0}, Q{0, 3e7, 0, 0}}) {
      const fs::path dir = scene_with("bad_quat", binary, [&](tiny::TinyScene& r) { r.images[1].qvec = q; });
      CHECK_THAT(load_error(dir), Contains(model_file(dir, "images", binary).string()) && Contains("image 102 'img_2.png'") &&
                                      Contains("rotation quaternion") && Contains("which is not a rotation"));
    }
    for (double bad : {kNaN, kInf}) {
      const fs::path dir = scene_with("bad_quat_nan", binary, [&](tiny::TinyScene& r) { r.images[0].qvec[2] = bad; });
      CHECK_THAT(load_error(dir), Contains(model_file(dir, "images", binary).string()) &&
                                      Contains("non-finite rotation quaternion"));
    }
  }
}

TEST_CASE("bad colmap: an unnormalised quaternion is normalised, not refused", "[colmap][bad]") {
  for (bool binary : {true, false}) {
    const fs::path unit_dir = scene_with("quat_unit", binary, [](tiny::TinyScene&) {});
    const fs::path scaled_dir = scene_with("quat_scaled", binary, [](tiny::TinyScene& r) {
      for (double& c : r.images[1].qvec) c *= 3.5;
      for (double& c : r.images[2].qvec) c *= 0.01;
    });
    const splat::Scene unit = splat::load_scene(unit_dir, poses_only());
    const splat::Scene scaled = splat::load_scene(scaled_dir, poses_only());
    REQUIRE(unit.views.size() == scaled.views.size());
    for (size_t v = 0; v < unit.views.size(); ++v)
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) CHECK(scaled.views[v].R.m[i][j] == Approx(unit.views[v].R.m[i][j]).margin(1e-12));
  }
}

namespace {

// A 40x30 camera of `model` with focal lengths 50, principal point (20, 15) and zero distortion
// (FOV's omega 0 is its distortion-free case).
colmap::Camera plain_camera(splat::CameraModel model) {
  colmap::Camera c{7, model, 40, 30, {}};
  for (const std::string& n : colmap::model_param_names(model))
    c.params.push_back(n[0] == 'f' ? 50.0 : n == "cx" ? 20.0 : n == "cy" ? 15.0 : 0.0);
  return c;
}

// The SceneError of reading a cameras file holding just `cam`, written in that format.
std::string camera_error(const fs::path& dir, const colmap::Camera& cam, bool binary) {
  if (binary) colmap::write_colmap_binary(dir, {cam}, {}, {});
  else colmap::write_colmap_text(dir, {cam}, {}, {});
  const fs::path file = dir / (binary ? "cameras.bin" : "cameras.txt");
  return tiny::scene_error_of([&] { binary ? colmap::read_cameras_bin(file) : colmap::read_cameras_txt(file); });
}

}  // namespace

TEST_CASE("bad colmap: every model's focal lengths, principal point and distortion are checked", "[colmap][bad]") {
  const fs::path dir = splat::test::scratch_dir("bad_cameras");
  for (bool binary : {true, false}) {
    const std::string file = (dir / (binary ? "cameras.bin" : "cameras.txt")).string();
    for (int id = 0; id <= static_cast<int>(splat::CameraModel::ThinPrismFisheye); ++id) {
      const auto model = static_cast<splat::CameraModel>(id);
      INFO(file << ", " << splat::camera_model_name(model));
      const colmap::Camera good = plain_camera(model);
      REQUIRE(camera_error(dir, good, binary).empty());
      const std::vector<std::string> names = colmap::model_param_names(model);
      const bool single_focal = names[0] == "f";
      CHECK(single_focal == (std::string(splat::camera_model_name(model)).rfind("SIMPLE_", 0) == 0 ||
                             std::string(splat::camera_model_name(model)).rfind("RADIAL", 0) == 0));
      for (size_t i = 0; i < names.size(); ++i) {
        auto with = [&](double v) {
          colmap::Camera c = good;
          c.params[i] = v;
          return camera_error(dir, c, binary);
        };
        const std::string who = "camera 7 (" + std::string(splat::camera_model_name(model)) + ")";
        for (double bad : {kNaN, kInf, -kInf})
          CHECK_THAT(with(bad), Contains(file) && Contains(who) && Contains("non-finite parameter " + names[i] + " = "));
        if (names[i][0] == 'f') {
          for (double bad : {0.0, -50.0})
            CHECK_THAT(with(bad), Contains(file) && Contains(who) && Contains("focal length " + names[i]) &&
                                      Contains("not positive"));
          for (double bad : {1e-9, 0.03, 4.1e5, 1e300})
            CHECK_THAT(with(bad), Contains(file) && Contains("focal length " + names[i]) && Contains("times the longer side"));
          for (double odd_but_valid : {0.05, 4e5}) CHECK(with(odd_but_valid).empty());
        } else if (names[i] == "cx" || names[i] == "cy") {
          const double side = names[i] == "cx" ? 40 : 30;
          for (double bad : {-side - 1, 2 * side + 1, 1e12})
            CHECK_THAT(with(bad), Contains(file) && Contains(who) && Contains("principal point " + names[i]) &&
                                      Contains("far outside"));
          for (double odd_but_valid : {-side, 0.0, 2 * side}) CHECK(with(odd_but_valid).empty());
        } else {
          // Distortion: any finite value is the lens's business (the undistortion plan judges it).
          CHECK(with(0.3).empty());
        }
      }
    }
  }
}

TEST_CASE("bad colmap: a camera that no image uses still loads", "[colmap][bad]") {
  for (bool binary : {true, false}) {
    const fs::path dir = scene_with("unused_camera", binary, [](tiny::TinyScene& r) {
      r.cameras.push_back({42, splat::CameraModel::OpenCVFisheye, 64, 48, {30, 30, 32, 24, 0.1, 0, 0, 0}});
    });
    CHECK(load_error(dir).empty());
  }
}

TEST_CASE("bad colmap: point positions must be finite and bounded; any point error loads", "[colmap][bad]") {
  for (bool binary : {true, false}) {
    for (double bad : {kNaN, kInf, 2e8}) {
      const fs::path dir = scene_with("bad_point", binary, [&](tiny::TinyScene& r) { r.points[3].xyz.y = bad; });
      const std::string e = load_error(dir);
      CHECK_THAT(e, Contains(model_file(dir, "points3D", binary).string()) && Contains("point 10 "));
      CHECK_THAT(e, Contains(std::isfinite(bad) ? "beyond 1e+08 scene units" : "non-finite position"));
    }
    // COLMAP writes -1 for a point whose error it never computed; the error is not used.
    const fs::path dir = scene_with("point_errors", binary, [](tiny::TinyScene& r) {
      r.points[0].error = -1;
      r.points[1].error = 1e30;
      r.points[2].error = kNaN;
      r.points[3].error = kInf;
    });
    CHECK(load_error(dir).empty());
  }
}

TEST_CASE("bad colmap: no count in a .bin sizes an allocation beyond the file", "[colmap][bad]") {
  using tiny::append;
  if (!splat::test::AllocationProbe::enabled()) {
    WARN("SKIPPED (allocation probe off under AddressSanitizer, which refuses absurd sizes itself)");
    return;
  }
  const fs::path dir = splat::test::scratch_dir("bad_counts");
  tiny::write_tiny_scene(dir, tiny::tiny_reconstruction(4), true);
  const fs::path sparse = dir / "sparse" / "0";
  const std::string cams = tiny::read_file(sparse / "cameras.bin");
  const std::string images = tiny::read_file(sparse / "images.bin");
  const std::string points = tiny::read_file(sparse / "points3D.bin");
  // Offsets of the counts: each file's record count, the first image's keypoint count (after its
  // name) and the first point's track length (after id, xyz, rgb and error).
  const size_t keypoints_at = images.find('\0', 8 + 4 + 32 + 24 + 4) + 1;
  const size_t track_at = 8 + 8 + 24 + 3 + 8;
  struct Case {
    fs::path file;
    const std::string* bytes;
    size_t at;
    const char* what;
  };
  const Case cases[] = {{sparse / "cameras.bin", &cams, 0, "camera count"},
                        {sparse / "images.bin", &images, 0, "image count"},
                        {sparse / "images.bin", &images, keypoints_at, "keypoint count"},
                        {sparse / "points3D.bin", &points, 0, "point count"},
                        {sparse / "points3D.bin", &points, track_at, "track length"}};
  for (const Case& c : cases) {
    for (uint64_t count : {uint64_t(1) << 24, uint64_t(1) << 40, ~uint64_t(0)}) {
      INFO(c.what << " = " << count);
      std::string bytes = *c.bytes;
      std::string field;
      append<uint64_t>(field, count);
      bytes.replace(c.at, 8, field);
      tiny::write_file(c.file, bytes);
      splat::test::AllocationProbe probe;
      const std::string e = load_error(dir);
      CHECK_THAT(e, Contains(c.file.string()) && Contains(c.what) && Contains("bytes follow"));
      // The file itself is read whole (a few hundred bytes); nothing may be sized by the count.
      CHECK(probe.largest() < 64 * 1024);
      tiny::write_file(c.file, *c.bytes);
    }
  }
  CHECK(load_error(dir).empty());
}
