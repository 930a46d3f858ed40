// The command line's small promises: --version, a suggestion for a mistyped command (never a
// window), plain-sentence refusals of bad numbers, `info demo`, a camera summary unless --cameras,
// one view numbering shared by info and render, render's output name and size, and its orbit's up axis.
#include <catch2/catch.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "core/run/run_config.h"
#include "tests/app/cli_runner.h"
#include "tests/support/test_support.h"

namespace fs = std::filesystem;
using splat::test::CliResult;
using splat::test::last_line;
using splat::test::run_cli;

namespace {

// Width and height from a PNG's IHDR chunk (big-endian, bytes 16..23).
std::pair<int, int> png_size(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  unsigned char h[24] = {};
  in.read(reinterpret_cast<char*>(h), sizeof h);
  REQUIRE(in.gcount() == 24);
  auto be32 = [&](int at) { return int(uint32_t(h[at]) << 24 | uint32_t(h[at + 1]) << 16 | uint32_t(h[at + 2]) << 8 | h[at + 3]); };
  return {be32(16), be32(20)};
}

}  // namespace

TEST_CASE("cli: --version prints the version and exits 0", "[cli]") {
  const CliResult r = run_cli("--version");
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK(r.out.rfind("splatlab ", 0) == 0);
  CHECK(r.out.find_first_of("0123456789") != std::string::npos);
}

TEST_CASE("cli: a mistyped command gets a suggestion and exit 2, never a window", "[cli]") {
  const CliResult r = run_cli("trian cup");
  INFO(r.out);
  CHECK(r.code == 2);
  CHECK(last_line(r.out) == "error: unknown command 'trian'; did you mean 'train'?");

  const CliResult far = run_cli("frobnicate");
  INFO(far.out);
  CHECK(far.code == 2);
  CHECK(far.out.find("unknown command 'frobnicate'") != std::string::npos);
  CHECK(far.out.find("did you mean") == std::string::npos);

  const CliResult path = run_cli("no/such/scene");
  INFO(path.out);
  CHECK(path.code == 2);
  CHECK(path.out.find("scene 'no/such/scene': no such file or folder") != std::string::npos);
}

TEST_CASE("cli: out-of-range numbers are refused in a plain sentence with exit 2", "[cli]") {
  const CliResult r = run_cli("train demo --steps 0");
  INFO(r.out);
  CHECK(r.code == 2);
  CHECK(r.out.find("--steps: expected a whole number of at least 1, got '0'") != std::string::npos);
  CHECK(r.out.find("179769") == std::string::npos);
  const CliResult neg = run_cli("train demo --eval-every -3");
  INFO(neg.out);
  CHECK(neg.code == 2);
  CHECK(neg.out.find("expected a whole number of at least 0, got '-3'") != std::string::npos);
}

TEST_CASE("cli: info demo, a camera summary, and --cameras numbering the views as render does", "[cli]") {
  const CliResult demo = run_cli("info demo");
  INFO(demo.out);
  REQUIRE(demo.code == 0);
  CHECK(demo.out.find("cameras    1 (--cameras lists each camera and every view)") != std::string::npos);
  CHECK(demo.out.find("  1 x PINHOLE") != std::string::npos);
  CHECK(demo.out.find("camera id") == std::string::npos);  // summarised, not listed

  const fs::path dir = splat::test::scratch_dir("cli-numbering");
  const fs::path scene = dir / "demo";
  REQUIRE(run_cli("demo --out '" + scene.string() + "' --width 48 --height 32").code == 0);
  const CliResult list = run_cli("info '" + scene.string() + "' --cameras");
  INFO(list.out);
  REQUIRE(list.code == 0);
  CHECK(list.out.find("views      60 (index: image name, COLMAP camera id, split)") != std::string::npos);
  // The name info gives view 3 is the one render --camera 3 renders.
  const size_t at = list.out.find("\n     3  ");
  REQUIRE(at != std::string::npos);
  const std::string name = list.out.substr(at + 9, list.out.find("  camera id", at) - (at + 9));
  const fs::path runf = dir / "run";
  REQUIRE(run_cli("train '" + scene.string() + "' --device cpu --steps 2 --out '" + runf.string() + "'").code == 0);
  const CliResult render = run_cli("render '" + runf.string() + "' --device cpu --camera 3 --out '" +
                                   (dir / "v.png").string() + "'");
  INFO(render.out);
  CHECK(render.code == 0);
  CHECK(render.out.find("rendered view 3 (" + name + ", 48x32)") != std::string::npos);
}

TEST_CASE("cli: render writes PNG only, at the view's size or the one asked for", "[cli]") {
  const fs::path dir = splat::test::scratch_dir("cli-render-size");
  const fs::path scene = dir / "demo";
  REQUIRE(run_cli("demo --out '" + scene.string() + "' --width 48 --height 32").code == 0);
  const fs::path runf = dir / "run";
  REQUIRE(run_cli("train '" + scene.string() + "' --device cpu --steps 2 --out '" + runf.string() + "'").code == 0);
  const std::string render = "render '" + runf.string() + "' --device cpu --camera 0 ";

  const fs::path jpg = dir / "x.jpg";
  const CliResult refused = run_cli(render + "--out '" + jpg.string() + "'");
  INFO(refused.out);
  CHECK(refused.code == 2);
  CHECK(last_line(refused.out).find("--out '" + jpg.string() + "': render writes PNG images") != std::string::npos);
  CHECK(!fs::exists(jpg));

  CHECK(run_cli(render + "--out '" + (dir / "same.png").string() + "'").code == 0);
  CHECK(png_size(dir / "same.png") == std::pair{48, 32});
  CHECK(run_cli(render + "--out '" + (dir / "wide.png").string() + "' --width 96").code == 0);
  CHECK(png_size(dir / "wide.png") == std::pair{96, 64});  // the aspect ratio kept
  CHECK(run_cli(render + "--out '" + (dir / "both.PNG").string() + "' --width 40 --height 40").code == 0);
  CHECK(png_size(dir / "both.PNG") == std::pair{40, 40});
}

TEST_CASE("cli: render --path writes a frame sequence along an orbit or the views", "[cli]") {
  const fs::path dir = splat::test::scratch_dir("cli-render-path");
  const fs::path scene = dir / "demo";
  REQUIRE(run_cli("demo --out '" + scene.string() + "' --width 48 --height 32").code == 0);
  const fs::path runf = dir / "run";
  REQUIRE(run_cli("train '" + scene.string() + "' --device cpu --steps 2 --out '" + runf.string() + "'").code == 0);
  const std::string render = "render '" + runf.string() + "' --device cpu ";

  const CliResult orbit = run_cli(render + "--path orbit --frames 4 --width 40 --out '" + (dir / "orbit").string() + "'");
  INFO(orbit.out);
  REQUIRE(orbit.code == 0);
  CHECK(orbit.out.find("rendered 4/4 frames (40x27)") != std::string::npos);
  for (int k = 0; k < 4; ++k) CHECK(png_size(dir / "orbit" / ("frame_000" + std::to_string(k) + ".png")) == std::pair{40, 27});
  CHECK_FALSE(fs::exists(dir / "orbit" / "frame_0004.png"));
  auto bytes = [](const fs::path& f) {
    std::ifstream in(f, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  CHECK(bytes(dir / "orbit" / "frame_0000.png") != bytes(dir / "orbit" / "frame_0002.png"));  // it moves

  // The views in order: one frame per view by default, view 5's frame as `render --camera 5` draws it.
  const CliResult views = run_cli(render + "--path cameras --out '" + (dir / "views").string() + "'");
  INFO(views.out);
  REQUIRE(views.code == 0);
  CHECK(views.out.find("rendered 60/60 frames (48x32)") != std::string::npos);
  REQUIRE(run_cli(render + "--camera 5 --out '" + (dir / "five.png").string() + "'").code == 0);
  CHECK(bytes(dir / "views" / "frame_0005.png") == bytes(dir / "five.png"));

  const CliResult no_path = run_cli(render + "--frames 3 --out '" + (dir / "x.png").string() + "'");
  CHECK(no_path.code == 2);
  CHECK(no_path.out.find("--frames requires --path") != std::string::npos);
  const CliResult both = run_cli(render + "--camera 0 --path orbit --out '" + (dir / "y").string() + "'");
  CHECK(both.code == 2);
  const CliResult bad = run_cli(render + "--path spiral --out '" + (dir / "z").string() + "'");
  CHECK(bad.code == 2);
  CHECK(bad.out.find("spiral") != std::string::npos);
}

TEST_CASE("cli: render --up turns the orbit about the axis given, by default the run's recorded one", "[cli]") {
  const fs::path dir = splat::test::scratch_dir("cli-render-up");
  const fs::path scene = dir / "demo";
  REQUIRE(run_cli("demo --out '" + scene.string() + "' --width 48 --height 32").code == 0);
  const fs::path runf = dir / "run";
  REQUIRE(run_cli("train '" + scene.string() + "' --device cpu --steps 2 --out '" + runf.string() + "'").code == 0);
  CHECK(splat::read_run_config(runf).up == splat::UpAxis::Auto);
  const std::string orbit = "render '" + runf.string() + "' --device cpu --path orbit --frames 2 --width 40 ";
  auto bytes = [](const fs::path& f) {
    std::ifstream in(f, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };

  const CliResult estimated = run_cli(orbit + "--out '" + (dir / "auto").string() + "'");
  INFO(estimated.out);
  REQUIRE(estimated.code == 0);
  CHECK(estimated.out.find("orbit about up ") != std::string::npos);
  CHECK(estimated.out.find("(the run's up: auto, the normal of the camera centres' plane)") != std::string::npos);
  const CliResult x = run_cli(orbit + "--up +x --out '" + (dir / "x").string() + "'");
  INFO(x.out);
  REQUIRE(x.code == 0);
  CHECK(x.out.find("orbit about up 1.000 0.000 0.000 (--up +x)") != std::string::npos);
  CHECK(bytes(dir / "x" / "frame_0001.png") != bytes(dir / "auto" / "frame_0001.png"));

  // The run's recorded choice is the default (as the GUI records it).
  splat::RunConfig config = splat::read_run_config(runf);
  config.up = splat::UpAxis::PlusX;
  splat::write_run_config(runf, splat::to_json(config));
  const CliResult recorded = run_cli(orbit + "--out '" + (dir / "recorded").string() + "'");
  INFO(recorded.out);
  REQUIRE(recorded.code == 0);
  CHECK(recorded.out.find("(the run's up: +x)") != std::string::npos);
  CHECK(bytes(dir / "recorded" / "frame_0001.png") == bytes(dir / "x" / "frame_0001.png"));
  const CliResult flipped = run_cli(orbit + "--up flipped --out '" + (dir / "flipped").string() + "'");
  INFO(flipped.out);
  CHECK(flipped.code == 0);
  CHECK(flipped.out.find("(--up flipped, the opposite of the normal of the camera centres' plane)") != std::string::npos);

  // train --up records the choice, and a resumed run keeps it.
  const fs::path second = dir / "second";
  REQUIRE(run_cli("train '" + scene.string() + "' --device cpu --steps 2 --up -y --out '" + second.string() + "'").code == 0);
  CHECK(splat::read_run_config(second).up == splat::UpAxis::MinusY);
  REQUIRE(run_cli("train --resume '" + second.string() + "' --device cpu --steps 4").code == 0);
  CHECK(splat::read_run_config(second).up == splat::UpAxis::MinusY);

  const CliResult unknown = run_cli(orbit + "--up sideways --out '" + (dir / "z").string() + "'");
  CHECK(unknown.code == 2);
  CHECK(unknown.out.find("sideways") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "z"));
  const CliResult one_view = run_cli("render '" + runf.string() + "' --device cpu --camera 0 --up +x --out '" +
                                     (dir / "v.png").string() + "'");
  CHECK(one_view.code == 2);
  CHECK(one_view.out.find("--up requires --path") != std::string::npos);
}

namespace {
// A usage error as the user sees it: exactly one line, starting with "error: ", and exit code 2.
void check_one_line_usage_error(const CliResult& r, const std::string& says) {
  INFO(r.out);
  CHECK(r.code == 2);
  CHECK(r.out.rfind("error: ", 0) == 0);
  std::string text = r.out;
  while (!text.empty() && text.back() == '\n') text.pop_back();
  CHECK(text.find('\n') == std::string::npos);
  CHECK(text.find(says) != std::string::npos);
}
}  // namespace

TEST_CASE("cli: every usage error is one line starting with error:, with exit code 2", "[cli]") {
  // CLI11's parse errors, which it would print as two lines (with "Run with --help ...").
  check_one_line_usage_error(run_cli("train cup --images 0"), "--images: expected a whole number of at least 1, got '0'");
  check_one_line_usage_error(run_cli("train demo --no-such-option"), "--no-such-option");
  check_one_line_usage_error(run_cli("render"), "splatlab render --help");
  // The commands' own checks of their arguments.
  check_one_line_usage_error(run_cli("train"), "no scene");
  check_one_line_usage_error(run_cli("train demo --device cpu --gpus 2"), "--gpus 2: this machine has");
  check_one_line_usage_error(run_cli("train demo --device cpu --ranks 2 --batch-size 1"), "--batch-size");
  // --help is no error.
  const CliResult help = run_cli("train --help");
  CHECK(help.code == 0);
  CHECK(help.out.find("error:") == std::string::npos);
}

TEST_CASE("cli: --resume of a folder that is not there names it", "[cli]") {
  const fs::path missing = splat::test::scratch_dir("cli-resume-missing") / "runs" / "nothere";
  const CliResult r = run_cli("train --resume '" + missing.string() + "'");
  check_one_line_usage_error(r, "--resume '" + missing.string() + "': no such run folder");
  CHECK(r.out.find("no scene") == std::string::npos);
  // A scene that is not there is refused alike, before anything is made.
  check_one_line_usage_error(run_cli("train '" + missing.string() + "' --device cpu"),
                             "scene '" + missing.string() + "': no such folder");
  // And the other commands that name a scene or a run.
  check_one_line_usage_error(run_cli("info '" + missing.string() + "'"), "scene '" + missing.string() + "': no such folder");
  check_one_line_usage_error(run_cli("eval '" + missing.string() + "'"), "run '" + missing.string() + "': no such folder");
  check_one_line_usage_error(run_cli("render '" + missing.string() + "' --camera 0 --out x.png"),
                             "run '" + missing.string() + "': no such folder");
}

TEST_CASE("cli: --resume before any command points to train --resume and the window", "[cli]") {
  const std::string says = "--resume is an option of train: splatlab train --resume 'runs/cup' continues the run";
  check_one_line_usage_error(run_cli("--resume runs/cup"), says);
  check_one_line_usage_error(run_cli("--resume=runs/cup"), says);
  // Also where runs/cup exists: no "argument was not expected", no window opened on it.
  const fs::path dir = splat::test::scratch_dir("cli-resume-top-level");
  fs::create_directories(dir / "runs" / "cup");
  const CliResult there = run_cli("--resume runs/cup", dir.string());
  check_one_line_usage_error(there, says);
  if (run_cli("--version").out.find("with the GUI") != std::string::npos)
    CHECK(there.out.find("splatlab 'runs/cup' opens it in the window") != std::string::npos);
}
