// Writing a reconstruction as .txt and as .bin and reading it back gives every field exactly;
// both formats load into the same scene; hand-made files with keypoints and tracks are read.
#include <catch2/catch.hpp>

#include <tuple>

#include "core/scene/colmap_reader.h"
#include "core/scene/colmap_writer.h"
#include "core/scene/scene_loader.h"
#include "tests/io/tiny_scene.h"
#include "tests/support/test_support.h"

namespace colmap = splat::colmap;
using splat::test::tiny::TinyScene;

namespace {

// Checks that every record of `got` equals its twin in `want`, in order, comparing the tuples
// `fields` ties of each (every field the reader keeps).
template <class T, class Fields>
void check_same_records(const char* kind, const std::vector<T>& want, const std::vector<T>& got, Fields fields) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    INFO(kind << " " << i);
    CHECK(fields(got[i]) == fields(want[i]));
  }
}

void check_same(const TinyScene& a, const colmap::Reconstruction& b) {
  check_same_records("camera", a.cameras, b.cameras,
                     [](const colmap::Camera& c) { return std::tie(c.id, c.model, c.width, c.height, c.params); });
  check_same_records("image", a.images, b.images, [](const colmap::Image& im) {
    return std::tie(im.id, im.qvec, im.tvec.x, im.tvec.y, im.tvec.z, im.camera_id, im.name);
  });
  check_same_records("point", a.points, b.points, [](const colmap::Point& p) {
    return std::tie(p.id, p.xyz.x, p.xyz.y, p.xyz.z, p.rgb, p.error);
  });
}

using ModelWriter = void (*)(const std::filesystem::path&, const std::vector<colmap::Camera>&,
                             const std::vector<colmap::Image>&, const std::vector<colmap::Point>&);

// Writes a 10-image model with `write` into a fresh folder, reads it back, checks every field and
// returns what was read.
colmap::Reconstruction round_trip(const std::string& scratch_name, ModelWriter write) {
  TinyScene s = splat::test::tiny::tiny_reconstruction(10);
  s.images[0].tvec = {0.1, -1.0 / 3.0, 1e-9};  // digits that only survive a full-precision writer
  const auto dir = splat::test::scratch_dir(scratch_name);
  write(dir, s.cameras, s.images, s.points);
  colmap::Reconstruction r = colmap::read_reconstruction(dir);
  check_same(s, r);
  return r;
}

}  // namespace

TEST_CASE("COLMAP text model round-trips every field exactly", "[colmap]") {
  const colmap::Reconstruction r = round_trip("colmap_roundtrip_txt", colmap::write_colmap_text);
  CHECK(r.cameras_file == r.sparse_dir / "cameras.txt");
}

TEST_CASE("COLMAP binary model round-trips every field exactly", "[colmap]") {
  const colmap::Reconstruction r = round_trip("colmap_roundtrip_bin", colmap::write_colmap_binary);
  CHECK(r.points_file == r.sparse_dir / "points3D.bin");
}

TEST_CASE("text and binary copies of a model load into the same scene", "[colmap]") {
  const TinyScene s = splat::test::tiny::tiny_reconstruction(10);
  const auto txt = splat::test::scratch_dir("colmap_same_txt");
  const auto bin = splat::test::scratch_dir("colmap_same_bin");
  splat::test::tiny::write_tiny_scene(txt, s, false);
  splat::test::tiny::write_tiny_scene(bin, s, true);
  splat::SceneLoadOptions o;
  o.load_images = false;
  const splat::Scene a = splat::load_scene(txt, o);
  const splat::Scene b = splat::load_scene(bin, o);
  REQUIRE(a.views.size() == 10);
  REQUIRE(b.views.size() == 10);
  for (size_t i = 0; i < a.views.size(); ++i) {
    CHECK(a.views[i].name == b.views[i].name);
    CHECK(a.views[i].camera_id == b.views[i].camera_id);
    CHECK(a.views[i].intrinsics.fx == b.views[i].intrinsics.fx);
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) CHECK(a.views[i].R.m[r][c] == b.views[i].R.m[r][c]);
  }
  CHECK(a.points.size() == 5);
  CHECK(a.extent == b.extent);
}

TEST_CASE("text reader skips comments and keypoint lines and keeps names with spaces", "[colmap]") {
  const auto dir = splat::test::scratch_dir("colmap_txt_details");
  splat::test::tiny::write_file(dir / "cameras.txt", "# a comment\n\n1 SIMPLE_RADIAL 640 480 500 320 240 0.01\r\n");
  splat::test::tiny::write_file(dir / "images.txt",
                          "# header\n"
                          "5 1 0 0 0 0.5 0 2 1 my photo 01.jpg\n"
                          "10.5 20.25 -1 11.0 12.0 7\n"
                          "6 0 1 0 0 0 0 3 1 b.jpg\n"
                          "\n");
  splat::test::tiny::write_file(dir / "points3D.txt", "7 1 2 3 255 0 128 0.25 5 0 6 1\n8 -1 -2 -3 1 2 3 1.5\n");
  const colmap::Reconstruction r = colmap::read_reconstruction(dir);
  REQUIRE(r.cameras.size() == 1);
  CHECK(r.cameras[0].model == splat::CameraModel::SimpleRadial);
  CHECK(r.cameras[0].params == std::vector<double>{500, 320, 240, 0.01});
  REQUIRE(r.images.size() == 2);
  CHECK(r.images[0].name == "my photo 01.jpg");
  CHECK(r.images[0].tvec.x == 0.5);
  CHECK(r.images[0].tvec.z == 2);
  CHECK(r.images[1].id == 6);
  CHECK(r.images[1].qvec == std::array<double, 4>{0, 1, 0, 0});
  REQUIRE(r.points.size() == 2);
  CHECK(r.points[0].rgb == std::array<uint8_t, 3>{255, 0, 128});
  CHECK(r.points[1].xyz.z == -3);
  CHECK(r.points[1].error == 1.5);
}

TEST_CASE("binary reader skips keypoints and tracks", "[colmap]") {
  using splat::test::tiny::append;
  const auto dir = splat::test::scratch_dir("colmap_bin_details");
  const TinyScene s = splat::test::tiny::tiny_reconstruction(3);
  colmap::write_colmap_binary(dir, s.cameras, {}, {});
  std::string images;
  append<uint64_t>(images, 2);
  for (int id : {4, 9}) {
    append<int32_t>(images, id);
    for (double q : {1.0, 0.0, 0.0, 0.0}) append(images, q);
    for (double t : {0.0, 0.0, double(id)}) append(images, t);
    append<int32_t>(images, 2);
    images += "im" + std::to_string(id) + ".png";
    images += '\0';
    append<uint64_t>(images, 2);  // two keypoints
    for (int k = 0; k < 2; ++k) {
      append(images, 1.5);
      append(images, 2.5);
      append<int64_t>(images, -1);
    }
  }
  splat::test::tiny::write_file(dir / "images.bin", images);
  std::string points;
  append<uint64_t>(points, 1);
  append<uint64_t>(points, 42);
  for (double v : {1.0, 2.0, 3.0}) append(points, v);
  points += "\x01\x02\x03";
  append(points, 0.75);
  append<uint64_t>(points, 3);  // track of three observations
  for (int k = 0; k < 3; ++k) {
    append<int32_t>(points, 4);
    append<int32_t>(points, k);
  }
  splat::test::tiny::write_file(dir / "points3D.bin", points);
  const colmap::Reconstruction r = colmap::read_reconstruction(dir);
  REQUIRE(r.images.size() == 2);
  CHECK(r.images[1].id == 9);
  CHECK(r.images[1].name == "im9.png");
  CHECK(r.images[1].tvec.z == 9);
  REQUIRE(r.points.size() == 1);
  CHECK(r.points[0].id == 42);
  CHECK(r.points[0].rgb == std::array<uint8_t, 3>{1, 2, 3});
  CHECK(r.points[0].error == 0.75);
}
