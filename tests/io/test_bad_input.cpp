// Every kind of bad scene input gives one SceneError naming the file and the problem; nothing
// crashes, hangs or allocates absurd amounts.
#include <catch2/catch.hpp>

#include <filesystem>

#include "core/scene/colmap_reader.h"
#include "core/scene/colmap_writer.h"
#include "core/scene/scene_loader.h"
#include "tests/io/tiny_scene.h"
#include "tests/support/test_support.h"

namespace fs = std::filesystem;
namespace tiny = splat::test::tiny;
using Catch::Matchers::Contains;

namespace {

// A valid tiny scene in a fresh scratch folder.
fs::path good_scene(const std::string& name, bool binary) {
  const fs::path dir = splat::test::scratch_dir(name);
  tiny::write_tiny_scene(dir, tiny::tiny_reconstruction(4), binary);
  return dir;
}

std::string load_error(const fs::path& dir, bool load_images = true) {
  return tiny::scene_error_of([&] {
    splat::SceneLoadOptions o;
    o.load_images = load_images;
    o.show_progress = false;
    splat::load_scene(dir, o);
  });
}

}  // namespace

TEST_CASE("bad input: missing scene folder", "[colmap][bad]") {
  const fs::path dir = splat::test::scratch_dir("bad_missing") / "nope";
  const std::string e = load_error(dir);
  CHECK_THAT(e, Contains(dir.string()) && Contains("does not exist"));
  // A folder without sparse/ is named too.
  const std::string e2 = load_error(dir.parent_path());
  CHECK_THAT(e2, Contains(dir.parent_path().string()) && Contains("no COLMAP model"));
}

TEST_CASE("bad input: truncated .bin", "[colmap][bad]") {
  const fs::path dir = good_scene("bad_truncated", true);
  const fs::path file = dir / "sparse" / "0" / "images.bin";
  const std::string bytes = tiny::read_file(file);
  tiny::write_file(file, bytes.substr(0, bytes.size() - 11));
  CHECK_THAT(load_error(dir), Contains(file.string()) && Contains("truncated"));
  // Cut inside the first record's fixed fields.
  tiny::write_file(file, bytes.substr(0, 20));
  CHECK_THAT(load_error(dir), Contains(file.string()) && Contains("truncated"));
  // An empty file has not even a count.
  tiny::write_file(file, "");
  CHECK_THAT(load_error(dir), Contains(file.string()) && Contains("truncated"));
}

TEST_CASE("bad input: garbage .bin with absurd counts or random bytes", "[colmap][bad]") {
  using tiny::append;
  const fs::path dir = good_scene("bad_garbage", true);
  const fs::path sparse = dir / "sparse" / "0";
  const std::string good_points = tiny::read_file(sparse / "points3D.bin");
  const std::string good_images = tiny::read_file(sparse / "images.bin");

  // A point count of 2^62 in a small file: refused before any allocation.
  std::string points;
  append<uint64_t>(points, uint64_t(1) << 62);
  points += good_points.substr(8);
  tiny::write_file(sparse / "points3D.bin", points);
  CHECK_THAT(load_error(dir), Contains("points3D.bin") && Contains("point count") && Contains("bytes follow"));

  // A track length of 2^60 inside an otherwise valid point.
  points.clear();
  append<uint64_t>(points, 1);
  points += good_points.substr(8, 8 + 24 + 3 + 8);
  append<uint64_t>(points, uint64_t(1) << 60);
  tiny::write_file(sparse / "points3D.bin", points);
  CHECK_THAT(load_error(dir), Contains("points3D.bin") && Contains("track length"));
  tiny::write_file(sparse / "points3D.bin", good_points);

  // A keypoint count of all ones in the first image.
  const size_t name_start = 8 + 4 + 32 + 24 + 4;  // count, id, qvec, tvec, camera id
  const size_t name_end = good_images.find('\0', name_start);
  std::string images = good_images.substr(0, name_end + 1);
  append<uint64_t>(images, ~uint64_t(0));
  images += good_images.substr(name_end + 1 + 8);
  tiny::write_file(sparse / "images.bin", images);
  CHECK_THAT(load_error(dir), Contains("images.bin") && Contains("keypoint count"));
  tiny::write_file(sparse / "images.bin", good_images);

  // Random bytes as cameras.bin: one clear error (count, model or size), never a crash.
  std::string noise;
  uint64_t x = 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < 4096; ++i) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    noise += static_cast<char>(x & 0xff);
  }
  tiny::write_file(sparse / "cameras.bin", noise);
  CHECK_THAT(load_error(dir), Contains("cameras.bin"));

  // A camera with a 2^40-pixel-wide image.
  std::string cams;
  append<uint64_t>(cams, 1);
  append<int32_t>(cams, 1);
  append<int32_t>(cams, 1);
  append<uint64_t>(cams, uint64_t(1) << 40);
  append<uint64_t>(cams, 30);
  for (double p : {50.0, 50.0, 20.0, 15.0}) append(cams, p);
  tiny::write_file(sparse / "cameras.bin", cams);
  CHECK_THAT(load_error(dir), Contains("cameras.bin") && Contains("impossible size"));
}

TEST_CASE("bad input: .txt with a malformed line names the line", "[colmap][bad]") {
  const fs::path dir = good_scene("bad_txt", false);
  const fs::path file = dir / "sparse" / "0" / "images.txt";
  // Lines 1-3 are comments; line 4 is image 103, line 6 image 102: break its quaternion.
  std::string text = tiny::read_file(file);
  const size_t at = text.find("102 ");
  REQUIRE(at != std::string::npos);
  text.replace(at, 4, "102 x");
  tiny::write_file(file, text);
  CHECK_THAT(load_error(dir), Contains(file.string()) && Contains("line 6") && Contains("found 'x0.877"));

  const fs::path cams = dir / "sparse" / "0" / "cameras.txt";
  tiny::write_file(cams, "# c\n1 PINHOLE 40 30 50 52 20\n");
  CHECK_THAT(load_error(dir), Contains(cams.string()) && Contains("line 2") && Contains("takes 4 parameters, found 3"));
}

TEST_CASE("bad input: image listed but absent", "[colmap][bad]") {
  const fs::path dir = good_scene("bad_absent", true);
  fs::remove(dir / "images" / "img_2.png");
  const std::string e = load_error(dir, false);
  CHECK_THAT(e, Contains((dir / "images" / "img_2.png").string()) && Contains("missing"));
  fs::remove_all(dir / "images");
  CHECK_THAT(load_error(dir), Contains((dir / "images").string()) && Contains("does not exist"));
}

TEST_CASE("bad input: unsupported camera model is named", "[colmap][bad]") {
  using tiny::append;
  const fs::path dir = good_scene("bad_model", true);
  const fs::path file = dir / "sparse" / "0" / "cameras.bin";
  std::string cams;
  append<uint64_t>(cams, 1);
  append<int32_t>(cams, 1);
  append<int32_t>(cams, 11);  // RAD_TAN_THIN_PRISM_FISHEYE
  append<uint64_t>(cams, 40);
  append<uint64_t>(cams, 30);
  for (int i = 0; i < 16; ++i) append(cams, i < 4 ? 20.0 : 0.0);
  tiny::write_file(file, cams);
  CHECK_THAT(load_error(dir), Contains(file.string()) && Contains("RAD_TAN_THIN_PRISM_FISHEYE (id 11)") && Contains("not support"));

  const fs::path tdir = good_scene("bad_model_txt", false);
  const fs::path tfile = tdir / "sparse" / "0" / "cameras.txt";
  tiny::write_file(tfile, "1 RAD_TAN_THIN_PRISM_FISHEYE 40 30 50 50 20 15 0 0 0 0 0 0 0 0 0 0 0 0\n");
  CHECK_THAT(load_error(tdir), Contains(tfile.string()) && Contains("line 1") && Contains("RAD_TAN_THIN_PRISM_FISHEYE"));
  tiny::write_file(tfile, "1 MY_LENS 40 30 50\n");
  CHECK_THAT(load_error(tdir), Contains("unknown camera model 'MY_LENS'"));
}

TEST_CASE("bad input: reconstruction with no registered images", "[colmap][bad]") {
  const fs::path dir = good_scene("bad_no_images", true);
  const auto rec = tiny::tiny_reconstruction(4);
  splat::colmap::write_colmap_binary(dir / "sparse" / "0", rec.cameras, {}, rec.points);
  CHECK_THAT(load_error(dir), Contains("images.bin") && Contains("no registered images"));
}

TEST_CASE("bad input: reconstruction with no points", "[colmap][bad]") {
  const fs::path dir = good_scene("bad_no_points", false);
  const auto rec = tiny::tiny_reconstruction(4);
  splat::colmap::write_colmap_text(dir / "sparse" / "0", rec.cameras, rec.images, {});
  CHECK_THAT(load_error(dir), Contains("points3D.txt") && Contains("no 3D points"));
}

TEST_CASE("bad input: a non-image file in place of an image", "[colmap][bad]") {
  const fs::path dir = good_scene("bad_not_image", true);
  const fs::path file = dir / "images" / "img_1.png";
  tiny::write_file(file, "this is a text file, not a PNG\n");
  CHECK_THAT(load_error(dir, false), Contains(file.string()) && Contains("not a PNG file"));
  // A truncated PNG keeps its header, so it passes the header probe; decoding must still fail
  // cleanly.
  std::string png = tiny::read_file(dir / "images" / "img_0.png");
  tiny::write_file(file, png.substr(0, 40));
  CHECK_THAT(load_error(dir), Contains(file.string()) && Contains("truncated"));
}

TEST_CASE("bad input: image refers to a camera that is not defined", "[colmap][bad]") {
  const fs::path dir = good_scene("bad_camera_id", false);
  auto rec = tiny::tiny_reconstruction(4);
  rec.images[1].camera_id = 99;
  splat::colmap::write_colmap_text(dir / "sparse" / "0", rec.cameras, rec.images, rec.points);
  CHECK_THAT(load_error(dir), Contains("images.txt") && Contains("camera 99"));
}

namespace {

// What a terminal shows intact: one line, no control bytes (escape codes included), and short
// however long the offending token was.
void check_one_short_line(const std::string& e) {
  INFO(e.substr(0, 300));
  CHECK(!e.empty());
  CHECK(e.size() < 400);
  for (char ch : e) CHECK_FALSE((static_cast<unsigned char>(ch) < 0x20 || ch == 0x7F));
}

}  // namespace

TEST_CASE("bad input: user text in COLMAP messages is quoted short and escaped", "[colmap][bad]") {
  const fs::path dir = good_scene("bad_quoting", false);
  const fs::path sparse = dir / "sparse" / "0";
  const std::string huge(2'000'000, '9');
  const std::string escape = "\x1b[2J\x1b]0;owned\x07";

  // A 2 MB token where a number belongs.
  tiny::write_file(sparse / "cameras.txt", "1 PINHOLE " + huge + " 30 50 52 20 15\n");
  std::string e = load_error(dir);
  CHECK_THAT(e, Contains((sparse / "cameras.txt").string()) && Contains("line 1") &&
                    Contains("expected a width, found '9999") && Contains("(2000000 bytes)"));
  check_one_short_line(e);

  // Terminal escape codes as a camera model and inside a number.
  tiny::write_file(sparse / "cameras.txt", "1 " + escape + " 40 30 50 52 20 15\n");
  e = load_error(dir);
  CHECK_THAT(e, Contains("unknown camera model '\\x1B[2J\\x1B]0;owned\\x07'"));
  check_one_short_line(e);
  tiny::write_file(sparse / "cameras.txt", "1 PINHOLE 40 30 50" + escape + " 52 20 15\n");
  e = load_error(dir);
  CHECK_THAT(e, Contains("expected a camera parameter, found '50\\x1B[2J"));
  check_one_short_line(e);
  const auto rec = tiny::tiny_reconstruction(4);
  splat::colmap::write_colmap_text(sparse, rec.cameras, rec.images, rec.points);

  // Image names: a 2 MB name (longer than any path) and one with escape codes, in both formats.
  for (bool binary : {false, true}) {
    for (const std::string& name : {std::string(2'000'000, 'n'), "img" + escape + ".png"}) {
      auto bad = rec;
      bad.images[1].name = name;
      const fs::path bdir = splat::test::scratch_dir(binary ? "bad_names_bin" : "bad_names_txt");
      const fs::path bsparse = bdir / "sparse" / "0";
      if (binary) splat::colmap::write_colmap_binary(bsparse, bad.cameras, bad.images, bad.points);
      else splat::colmap::write_colmap_text(bsparse, bad.cameras, bad.images, bad.points);
      fs::create_directories(bdir / "images");
      e = load_error(bdir, false);
      CHECK_THAT(e, Contains((bsparse / (binary ? "images.bin" : "images.txt")).string()) && Contains("image 102 '"));
      if (name.size() > 4096)
        CHECK_THAT(e, Contains("'nnnn") && Contains("...' (2000000 bytes) has a name longer than any path"));
      else CHECK_THAT(e, Contains("'img\\x1B[2J") && Contains("control characters in its name"));
      check_one_short_line(e);
    }
  }
}

TEST_CASE("bad input: an image name that leaves the images folder is refused", "[colmap][bad]") {
  for (const std::string name : {"../outside.png", "/etc/hostname", "sub/../../outside.png"}) {
    const fs::path dir = good_scene("bad_name_escape", true);
    auto rec = tiny::tiny_reconstruction(4);
    rec.images[0].name = name;
    splat::colmap::write_colmap_binary(dir / "sparse" / "0", rec.cameras, rec.images, rec.points);
    CHECK_THAT(load_error(dir, false), Contains("images.bin") && Contains("leaves the images folder"));
  }
  // Sub-folders are fine: COLMAP names photos by their path under the images folder.
  const fs::path dir = splat::test::scratch_dir("name_subfolder");
  auto rec = tiny::tiny_reconstruction(4);
  rec.images[0].name = "cam_a/" + rec.images[0].name;
  tiny::write_tiny_scene(dir, rec, false);
  CHECK(load_error(dir, false).empty());
}

TEST_CASE("bad input: filesystem faults name the path instead of escaping as library errors", "[colmap][bad]") {
  const fs::path root = splat::test::scratch_dir("bad_fs");
  // A symlink loop as the scene folder.
  const fs::path loop = root / "loop";
  fs::create_symlink(loop, loop);
  std::string e = load_error(loop);
  CHECK_THAT(e, Contains(loop.string()) && Contains("cannot access"));
  check_one_short_line(e);

  // A symlink loop as the images folder (found while the scene is built).
  const fs::path dir = good_scene("bad_fs_images", true);
  fs::remove_all(dir / "images");
  fs::create_symlink(dir / "images", dir / "images");
  e = load_error(dir, false);
  CHECK_THAT(e, Contains((dir / "images").string()) && Contains("cannot access"));
  // ... and as images_2 asked for by the data factor.
  fs::create_symlink(dir / "images_2", dir / "images_2");
  e = tiny::scene_error_of([&] {
    splat::SceneLoadOptions o;
    o.data_factor = 2;
    o.load_images = false;
    o.show_progress = false;
    splat::load_scene(dir, o);
  });
  CHECK_THAT(e, Contains((dir / "images_2").string()) && Contains("cannot access"));

  // A folder where a model file belongs.
  const fs::path dir2 = good_scene("bad_fs_folder", true);
  const fs::path points = dir2 / "sparse" / "0" / "points3D.bin";
  fs::remove(points);
  fs::create_directory(points);
  CHECK_THAT(load_error(dir2, false), Contains(points.string()) && Contains("not a regular file"));
}
