// Camera path export, shared by `splatlab render --path` and the GUI: the request's cameras, the
// frames' names, and a sequence written frame by frame with the caller's render.
#include <catch2/catch.hpp>

#include <stb_image.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <vector>

#include "core/render/path_export.h"
#include "core/scene/camera_path.h"
#include "tests/core/view_ring.h"
#include "tests/support/test_support.h"

using namespace splat;
namespace fs = std::filesystem;

TEST_CASE("a path request names its kind, frame count and size", "[path_export]") {
  CHECK(parse_path_kind("orbit") == PathKind::Orbit);
  CHECK(parse_path_kind("cameras") == PathKind::Cameras);
  CHECK_THROWS_WITH(parse_path_kind("spiral"), Catch::Contains("'spiral'") && Catch::Contains("orbit"));
  CHECK(std::string(path_kind_name(PathKind::Cameras)) == "cameras");

  const std::vector<SceneView> views = test::ring({0, 0, 0}, {0, -1, 0}, 7);
  CHECK(path_cameras(views, {PathKind::Orbit, -1, 0, 0}).size() == size_t(kDefaultOrbitFrames));
  CHECK(path_cameras(views, {PathKind::Cameras, -1, 0, 0}).size() == views.size());  // one per view
  const auto orbit = path_cameras(views, {PathKind::Orbit, 9, 40, 0});
  REQUIRE(orbit.size() == 9);
  CHECK(orbit[0].width == 40);
  CHECK(orbit[0].height == 30);  // the views' 64 x 48 aspect ratio
  // The request gives the same cameras as the path functions it stands for.
  const auto direct = views_path(views, 20, 32, 32);
  const auto requested = path_cameras(views, {PathKind::Cameras, 20, 32, 32});
  REQUIRE(requested.size() == direct.size());
  for (size_t k = 0; k < direct.size(); ++k)
    for (int i = 0; i < 9; ++i) CHECK(requested[k].R[i] == direct[k].R[i]);
  CHECK_THROWS_AS(path_cameras({}, {}), std::invalid_argument);
  CHECK(frame_file("out", 7) == fs::path("out") / "frame_0007.png");
  CHECK(frame_file("out", 12345) == fs::path("out") / "frame_12345.png");
}

TEST_CASE("a path export writes one PNG per camera with the caller's render", "[path_export]") {
  const fs::path dir = test::scratch_dir("path_export") / "frames";
  const std::vector<SceneView> views = test::ring({0, 0, 0}, {0, 0, 1}, 5);
  PathExport e(path_cameras(views, {PathKind::Cameras, 4, 24, 16}), dir, PathKind::Cameras);
  REQUIRE(fs::is_directory(dir));
  CHECK(e.frames() == 4);
  int calls = 0;
  // Frame k is a flat grey of k / 4, so that the files' order shows.
  const RenderFn render = [&](const kernels::Camera& c) {
    CHECK(c.width == 24);
    CHECK(c.height == 16);
    return std::vector<float>(size_t(c.width) * c.height * 3, float(calls++) / 4.f);
  };
  while (!e.finished()) e.render_next(render);
  CHECK(e.done() == 4);
  CHECK(calls == 4);
  e.render_next(render);  // past the end: nothing more
  CHECK(calls == 4);
  for (size_t k = 0; k < 4; ++k) {
    int w = 0, h = 0, ch = 0;
    uint8_t* px = stbi_load(frame_file(dir, k).string().c_str(), &w, &h, &ch, 3);
    REQUIRE(px != nullptr);
    CHECK(w == 24);
    CHECK(h == 16);
    CHECK(int(px[3 * 100]) == int(std::lround(255.0 * k / 4.0)));
    stbi_image_free(px);
  }
  CHECK_FALSE(fs::exists(frame_file(dir, 4)));
}

TEST_CASE("a path export into a folder that cannot be made names it", "[path_export]") {
  const fs::path file = test::scratch_dir("path_export_bad") / "a_file";
  { std::ofstream(file) << "x"; }
  const std::vector<SceneView> views = test::ring({0, 0, 0}, {0, 0, 1}, 3);
  CHECK_THROWS_WITH(PathExport(path_cameras(views, {PathKind::Orbit, 2, 0, 0}), file / "frames", PathKind::Orbit),
                    Catch::Contains((file / "frames").string()));
}
