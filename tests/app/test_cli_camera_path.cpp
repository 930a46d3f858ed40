// `render --path FILE.json`: a camera path file (nerfstudio's camera_path.json layout) rendered on the
// CPU backend; the frame folders of `render --path orbit` hold such a file, which renders the same frames.
#include <catch2/catch.hpp>
#include <stb_image.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/render/camera_path_file.h"
#include "core/render/path_export.h"
#include "tests/app/cli_runner.h"
#include "tests/support/test_support.h"

namespace fs = std::filesystem;
using splat::test::CliResult;
using splat::test::last_line;
using splat::test::run_cli;

namespace {

// The largest difference of one 8-bit channel between two PNGs of one size (-1: sizes differ).
int max_difference(const fs::path& a, const fs::path& b) {
  int wa = 0, ha = 0, wb = 0, hb = 0, c = 0;
  unsigned char* pa = stbi_load(a.c_str(), &wa, &ha, &c, 3);
  unsigned char* pb = stbi_load(b.c_str(), &wb, &hb, &c, 3);
  int worst = (pa && pb && wa == wb && ha == hb) ? 0 : -1;
  for (int i = 0; worst >= 0 && i < wa * ha * 3; ++i) worst = std::max(worst, std::abs(int(pa[i]) - int(pb[i])));
  stbi_image_free(pa);
  stbi_image_free(pb);
  return worst;
}

}  // namespace

TEST_CASE("cli: render --path FILE.json renders the frames of a camera path file", "[cli]") {
  const fs::path dir = splat::test::scratch_dir("cli-camera-path");
  const fs::path scene = dir / "demo", runf = dir / "run";
  REQUIRE(run_cli("demo --out '" + scene.string() + "' --width 32 --height 24").code == 0);
  REQUIRE(run_cli("train '" + scene.string() + "' --device cpu --steps 2 --out '" + runf.string() + "'").code == 0);
  const std::string render = "render '" + runf.string() + "' --device cpu ";

  const CliResult orbit = run_cli(render + "--path orbit --frames 2 --width 32 --out '" + (dir / "orbit").string() + "'");
  INFO(orbit.out);
  REQUIRE(orbit.code == 0);
  const fs::path json = dir / "orbit" / splat::kCameraPathFileName;
  REQUIRE(fs::exists(json));
  REQUIRE(splat::read_camera_path(json).size() == 2);

  const CliResult again = run_cli(render + "--path '" + json.string() + "' --out '" + (dir / "again").string() + "'");
  INFO(again.out);
  REQUIRE(again.code == 0);
  CHECK(again.out.find("rendered 2/2 frames (32x24)") != std::string::npos);
  for (size_t k = 0; k < 2; ++k)  // the same cameras to float precision: the same pixels to a level
    CHECK(max_difference(splat::frame_file(dir / "orbit", k), splat::frame_file(dir / "again", k)) == Approx(0).margin(1));
  CHECK_FALSE(fs::exists(splat::frame_file(dir / "again", 2)));
  if (again.out.find("ffmpeg is not on PATH") != std::string::npos)
    CHECK(again.out.find("(no camera_path.mp4)") != std::string::npos);  // the video is named after the file

  // Refusals: a damaged file names itself and the problem; --frames does not apply to a file.
  const fs::path bad = dir / "bad.json";
  std::ofstream(bad) << R"({"render_width": 32, "render_height": 24, "camera_path": [{"fov": 50}]})";
  const CliResult damaged = run_cli(render + "--path '" + bad.string() + "' --out '" + (dir / "bad").string() + "'");
  CHECK(damaged.code == 1);
  CHECK(last_line(damaged.out) == "error: " + bad.string() + ": camera_path[0]: 'camera_to_world' is missing");
  const CliResult frames = run_cli(render + "--path '" + json.string() + "' --frames 3 --out '" + (dir / "f").string() + "'");
  CHECK(frames.code == 2);  // a usage error: the options contradict each other
  CHECK(last_line(frames.out).find("--frames: a camera path file has its own frames") != std::string::npos);
  const CliResult missing = run_cli(render + "--path '" + (dir / "none.json").string() + "' --out '" + (dir / "m").string() + "'");
  CHECK(missing.code == 1);
  CHECK(last_line(missing.out).find((dir / "none.json").string() + ": cannot open the camera path file") != std::string::npos);
}
