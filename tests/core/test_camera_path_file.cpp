// Camera path files (nerfstudio's camera_path.json layout): written and read back to the same
// cameras, in nerfstudio's camera axes, and refused with the file and the problem named.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <random>
#include <string>

#include <nlohmann/json.hpp>

#include "core/render/camera_path_file.h"
#include "tests/support/test_support.h"

namespace fs = std::filesystem;
using splat::kernels::Camera;

namespace {

// A camera at a random pose: R from a random unit quaternion, t random; square pixels, centred.
Camera random_camera(std::mt19937& rng, int width, int height) {
  std::normal_distribution<double> g(0, 1);
  double q[4], n = 0;
  for (double& v : q) v = g(rng), n += v * v;
  for (double& v : q) v /= std::sqrt(n);
  const double w = q[0], x = q[1], y = q[2], z = q[3];
  const double R[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
                       2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                       2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
  Camera c;
  for (int i = 0; i < 9; ++i) c.R[i] = float(R[i]);
  for (float& t : c.t) t = float(3 * g(rng));
  c.width = width, c.height = height;
  c.fx = c.fy = float(0.5 * height / std::tan(0.5 * (20 + 60 * std::abs(g(rng)) / 3) * M_PI / 180));
  c.cx = 0.5f * width, c.cy = 0.5f * height;
  return c;
}

std::string refusal(const fs::path& file, const std::string& text) {
  std::ofstream(file) << text;
  try {
    splat::read_camera_path(file);
  } catch (const splat::CameraPathError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("camera path files: written and read back to the same cameras", "[camera_path_file]") {
  std::mt19937 rng(11);
  std::vector<Camera> path;
  for (int k = 0; k < 20; ++k) path.push_back(random_camera(rng, 640, 360));
  const fs::path file = splat::test::scratch_dir("camera_path_file") / "path.json";
  splat::write_camera_path(file, path, 24);
  const std::vector<Camera> back = splat::read_camera_path(file);
  REQUIRE(back.size() == path.size());
  for (size_t k = 0; k < path.size(); ++k) {
    INFO("camera " << k);
    for (int i = 0; i < 9; ++i) CHECK(back[k].R[i] == Approx(path[k].R[i]).margin(1e-6));
    for (int i = 0; i < 3; ++i) CHECK(back[k].t[i] == Approx(path[k].t[i]).margin(1e-5));
    CHECK(back[k].fx == Approx(path[k].fx).epsilon(1e-6));
    CHECK(back[k].fy == Approx(path[k].fy).epsilon(1e-6));
    CHECK(back[k].cx == path[k].cx);
    CHECK(back[k].cy == path[k].cy);
    CHECK(back[k].width == 640);
    CHECK(back[k].height == 360);
  }
  std::ifstream in(file);
  const nlohmann::json j = nlohmann::json::parse(in);
  CHECK(j.at("fps") == 24);
  CHECK(j.at("seconds").get<double>() == Approx(20.0 / 24));
  CHECK(j.at("camera_path").at(0).at("aspect").get<double>() == Approx(640.0 / 360));
}

TEST_CASE("camera path files: nerfstudio's axes (x right, y up, looking along -z)", "[camera_path_file]") {
  // The identity camera_to_world: at the origin, looking down the world's -z with +y up.
  const fs::path file = splat::test::scratch_dir("camera_path_axes") / "identity.json";
  std::ofstream(file) << R"({"render_width": 100, "render_height": 50, "camera_path": [
      {"camera_to_world": [1,0,0,0, 0,1,0,0, 0,0,1,2, 0,0,0,1], "fov": 90}]})";
  const std::vector<Camera> cams = splat::read_camera_path(file);
  REQUIRE(cams.size() == 1);
  const Camera& c = cams[0];
  // The world point (0, 1, -3) is in front (camera z > 0) and above the centre (image y < cy).
  const double p[3] = {0, 1, -3};
  double cam[3];
  for (int a = 0; a < 3; ++a) cam[a] = c.R[a * 3] * p[0] + c.R[a * 3 + 1] * p[1] + c.R[a * 3 + 2] * p[2] + c.t[a];
  CHECK(cam[2] == Approx(5));  // the camera sits at z = 2
  CHECK(cam[1] == Approx(-1));
  CHECK(cam[0] == Approx(0).margin(1e-6));
  CHECK(c.fy == Approx(25));  // a 90-degree vertical field of view over 50 pixels
  CHECK(c.fx == c.fy);
  CHECK(c.cx == 50);
  CHECK(c.cy == 25);
}

TEST_CASE("camera path files: a bad file is refused naming it and the problem", "[camera_path_file]") {
  const fs::path dir = splat::test::scratch_dir("camera_path_bad");
  const std::string pose = R"("camera_to_world": [1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1])";
  const std::string size = R"("render_width": 64, "render_height": 48, )";
  struct Case {
    const char* name;
    std::string text;
    const char* says;
  } cases[] = {
      {"notjson.json", "{camera_path: [", "not valid JSON"},
      {"array.json", "[]", "expected a JSON object"},
      {"nopath.json", "{" + size + R"("fps": 30})", "'camera_path' is missing"},
      {"empty.json", "{" + size + R"("camera_path": []})", "at least one camera"},
      {"nofov.json", "{" + size + R"("camera_path": [{)" + pose + "}]}", "camera_path[0]: 'fov' is missing"},
      {"badfov.json", "{" + size + R"("camera_path": [{)" + pose + R"(, "fov": 180}]})", "camera_path[0]: 'fov' is 180"},
      {"short.json", "{" + size + R"("camera_path": [{"camera_to_world": [1,0,0], "fov": 50}]})",
       "camera_path[0]: 'camera_to_world' must be 16 finite numbers"},
      {"skew.json", "{" + size + R"("camera_path": [{"camera_to_world": [2,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,0,1], "fov": 50}]})",
       "camera_path[0]: 'camera_to_world' is not a rotation"},
      {"width.json", R"({"render_width": "wide", "render_height": 48, "camera_path": [{)" + pose + R"(, "fov": 50}]})",
       "'render_width' is '\"wide\"', expected a number"},
      {"fisheye.json", "{" + size + R"("camera_type": "fisheye", "camera_path": [{)" + pose + R"(, "fov": 50}]})",
       "only \"perspective\""},
  };
  for (const Case& c : cases) {
    const std::string what = refusal(dir / c.name, c.text);
    INFO(what);
    CHECK(what.find((dir / c.name).string() + ": ") == 0);
    CHECK(what.find(c.says) != std::string::npos);
  }
  CHECK(refusal(dir / "ok.json", "{" + size + R"("camera_path": [{)" + pose + R"(, "fov": 50}]})") == "(no error)");
  CHECK(splat::is_camera_path_file("a/b.JSON"));
  CHECK_FALSE(splat::is_camera_path_file("orbit"));
}
