// The splatlab binary as a user drives it: demo -> info -> train -> eval -> render, and the
// command-line errors. Runs the built executable, so what is checked is what ships.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "core/train/checkpoint.h"
#include "core/model/ply_io.h"
#include "core/scene/scene_loader.h"
#include "core/scene/up_axis.h"
#include "tests/app/cli_runner.h"
#include "tests/support/test_support.h"

namespace fs = std::filesystem;

namespace {
using Result = splat::test::CliResult;
Result run(const std::string& args) { return splat::test::run_cli(args); }

// The last JSON object printed (info --json prints exactly one).
nlohmann::json json_of(const std::string& out) {
  const size_t start = out.find('{');
  REQUIRE(start != std::string::npos);
  return nlohmann::json::parse(out.substr(start));
}
}  // namespace

TEST_CASE("cli: demo scene -> info -> train -> eval -> render on the CPU", "[cli]") {
  const fs::path dir = splat::test::scratch_dir("cli-pipeline");
  const fs::path scene = dir / "demo";
  Result demo = run("demo --out '" + scene.string() + "' --width 64 --height 48");
  INFO(demo.out);
  REQUIRE(demo.code == 0);

  Result info = run("info '" + scene.string() + "' --json");
  INFO(info.out);
  REQUIRE(info.code == 0);
  const nlohmann::json j = json_of(info.out);
  CHECK(j["images"].get<int>() == 60);
  CHECK(j["train"].get<int>() + j["test"].get<int>() == 60);
  CHECK(j["test"].get<int>() == 8);  // indices 0, 8, ..., 56
  CHECK(j["points"].get<int>() > 100);
  CHECK(j["extent"].get<double>() > 0);
  // Which way is up: a unit vector in the model frame.
  REQUIRE(j["up"].size() == 3);
  const splat::Vec3d up{j["up"][0].get<double>(), j["up"][1].get<double>(), j["up"][2].get<double>()};
  CHECK(norm(up) == Approx(1.0).margin(1e-9));
  CHECK(j["up_from"].is_string());

  const fs::path runf = dir / "run";
  Result train = run("train '" + scene.string() + "' --device cpu --steps 40 --eval-every 40 --out '" +
                     runf.string() + "'");
  INFO(train.out);
  REQUIRE(train.code == 0);
  REQUIRE(fs::exists(runf / "point_cloud.ply"));
  const splat::GaussianModel m = splat::read_ply(runf / "point_cloud.ply");
  CHECK(m.size() > 0);

  Result eval = run("eval '" + runf.string() + "' --device cpu");
  INFO(eval.out);
  CHECK(eval.code == 0);
  CHECK(eval.out.find("PSNR") != std::string::npos);

  const fs::path png = dir / "view.png";
  Result render = run("render '" + runf.string() + "' --camera 3 --out '" + png.string() + "' --device cpu");
  INFO(render.out);
  CHECK(render.code == 0);
  CHECK(fs::file_size(png) > 100);
}

TEST_CASE("cli: bad input gives one clear error", "[cli]") {
  const std::string missing = (splat::test::scratch_dir("cli-errors") / "no-such-scene").string();
  Result info = run("info '" + missing + "'");
  CHECK(info.code == 2);  // a command line that cannot run as given
  CHECK(info.out.find(missing) != std::string::npos);
  CHECK(info.out.find("no such folder") != std::string::npos);

  Result gpus = run("train demo --device cpu --gpus 2 --steps 1");
  CHECK(gpus.code != 0);
  CHECK(gpus.out.find("--gpus 2: this machine has") != std::string::npos);
}

TEST_CASE("cli: info on every real scene under ../shared/data", "[cli]") {
  const struct {
    const char* name;
    int images, train, test, points;
  } expected[] = {{"cup", 77, 67, 10, 9262}, {"bonsai", 292, 255, 37, 67045}};
  for (const auto& e : expected) {
    auto scene = splat::test::shared_scene(e.name);
    if (!scene) continue;
    Result r = run("info '" + scene->string() + "' --json");
    INFO(r.out);
    REQUIRE(r.code == 0);
    const nlohmann::json j = json_of(r.out);
    CHECK(j["images"].get<int>() == e.images);
    CHECK(j["train"].get<int>() == e.train);
    CHECK(j["test"].get<int>() == e.test);
    CHECK(j["points"].get<int>() == e.points);
    // The up vector is the scene's estimate (core/scene/up_axis.h), in the model frame, in text too.
    splat::SceneLoadOptions poses;
    poses.load_images = false;
    poses.show_progress = false;
    const splat::UpEstimate want = splat::estimate_up(splat::load_scene(*scene, poses).views);
    REQUIRE(j["up"].size() == 3);
    for (int k = 0; k < 3; ++k) CHECK(j["up"][k].get<double>() == Approx(want.up[k]).margin(1e-12));
    CHECK(j["up_from"] == splat::up_source_text(want.source));
    const Result text = run("info '" + scene->string() + "'");
    char line[128];
    std::snprintf(line, sizeof line, "up         %.4f %.4f %.4f (%s)", want.up.x, want.up.y, want.up.z,
                  splat::up_source_text(want.source));
    CHECK(text.out.find(line) != std::string::npos);
  }
}

TEST_CASE("cli: train --stop-at ends early on the longer schedule, evaluates there, resumes", "[cli]") {
  const fs::path dir = splat::test::scratch_dir("cli-stop-at");
  const fs::path scene = dir / "demo";
  REQUIRE(run("demo --out '" + scene.string() + "' --width 32 --height 24").code == 0);
  const fs::path runf = dir / "run";
  Result first = run("train '" + scene.string() + "' --device cpu --steps 30 --stop-at 12 --eval-every 100 --profile " +
                     "--log-every 5 --out '" + runf.string() + "'");
  INFO(first.out);
  REQUIRE(first.code == 0);
  CHECK(first.out.find("12 images (12 steps) of a 30-image budget") != std::string::npos);
  CHECK(first.out.find("render forward") != std::string::npos);  // the --profile table
  // The last metrics line is step 12 and carries the evaluation (--eval-every alone would not).
  std::ifstream metrics(runf / "metrics.jsonl");
  std::string line, last;
  while (std::getline(metrics, line))
    if (!line.empty()) last = line;
  const nlohmann::json m = nlohmann::json::parse(last);
  CHECK(m["step"].get<int>() == 12);
  CHECK(m.contains("psnr"));

  Result rest = run("train '" + scene.string() + "' --device cpu --resume '" + runf.string() + "' --out '" +
                    runf.string() + "'");
  INFO(rest.out);
  REQUIRE(rest.code == 0);
  CHECK(rest.out.find("resumed at image 12 (step 12)") != std::string::npos);
  CHECK(rest.out.find("done: 30 images (30 steps) in") != std::string::npos);
}

namespace {
using splat::test::last_line;

// A refusal: exit code 1..127 and a last line "error: ..." holding every piece of `wanted`.
void check_refused(const Result& r, std::initializer_list<std::string> wanted) {
  INFO(r.out);
  CHECK(r.code >= 1);
  CHECK(r.code <= 127);
  const std::string line = last_line(r.out);
  CHECK(line.rfind("error: ", 0) == 0);
  for (const std::string& w : wanted) CHECK(line.find(w) != std::string::npos);
}
}  // namespace

TEST_CASE("cli: bad arguments and damaged run files are refused in one line naming them", "[cli]") {
  const fs::path dir = splat::test::scratch_dir("cli-bad-args");
  const fs::path scene = dir / "demo";
  REQUIRE(run("demo --out '" + scene.string() + "' --width 32 --height 24").code == 0);
  const fs::path runf = dir / "run";
  fs::create_directories(runf);
  auto write_config = [&](const nlohmann::json& config) { std::ofstream(runf / "config.json") << config.dump(); };
  write_config({{"scene_folder", scene.string()}, {"data_factor", 1}});
  const std::string render = "render '" + runf.string() + "' --device cpu --out '" + (dir / "x.png").string() + "' ";

  // --camera out of range, by far and by one, and a name that is not there (60 demo views).
  check_refused(run(render + "--camera 99999999999999999999"),
                {"--camera '99999999999999999999': no such view; expected a view index in 0..59 or an image name"});
  check_refused(run(render + "--camera 60"), {"--camera '60'", "0..59"});
  check_refused(run(render + "--camera nope.png"), {"no image of that name", "0..59"});

  // Damaged run configs name the file and the field.
  write_config({{"scene_folder", 3}, {"data_factor", 1}});
  check_refused(run(render + "--camera 0"), {(runf / "config.json").string(), "field 'scene_folder' is '3'"});
  write_config({{"scene_folder", scene.string()}, {"data_factor", 1}, {"background", nullptr}});
  check_refused(run(render + "--camera 0"), {"field 'background' is 'null', expected three numbers"});
  std::ofstream(runf / "config.json") << "{\"scene_folder\": \x1B[2J";
  const Result garbled = run(render + "--camera 0");
  check_refused(garbled, {"config.json: bad run config: not valid JSON"});
  CHECK(garbled.out.find('\x1B') == std::string::npos);
  write_config({{"scene_folder", scene.string()}, {"data_factor", 1}});

  // A symbolic link loop in a path argument: one line naming the option, the path and the loop.
  const fs::path loop = dir / "loop";
  fs::create_symlink(loop, loop);
  check_refused(run("info '" + loop.string() + "'"), {"scene '" + loop.string() + "'", "symbolic link loop"});
  check_refused(run("eval '" + (loop / "run").string() + "' --device cpu"), {"run folder '" + (loop / "run").string() + "'", "symbolic link loop"});
  check_refused(run(render + "--camera 0 --ply '" + loop.string() + "'"), {"--ply '" + loop.string() + "'", "symbolic link loop"});
  check_refused(run("train '" + scene.string() + "' --device cpu --steps 1 --resume '" + loop.string() + "'"),
                {"--resume '" + loop.string() + "'", "symbolic link loop"});

  // A batch larger than the scene's training views (52 of the 60).
  check_refused(run("train '" + scene.string() + "' --device cpu --steps 1 --batch-size 2147483647 --out '" +
                    (dir / "run-b").string() + "'"),
                {"--batch-size 2147483647: the scene has 52 training views"});
}

TEST_CASE("cli: resuming a checkpoint whose step is damaged names the checkpoint and the field", "[cli]") {
  const fs::path dir = splat::test::scratch_dir("cli-bad-resume");
  const fs::path scene = dir / "demo";
  REQUIRE(run("demo --out '" + scene.string() + "' --width 32 --height 24").code == 0);
  const fs::path runf = dir / "run";
  const std::string train = "train '" + scene.string() + "' --device cpu --out '" + runf.string() + "' ";
  REQUIRE(run(train + "--steps 3").code == 0);
  const fs::path ckpt = runf / "checkpoint.ckpt";

  // The finished run: nothing left to train, said as such (not as a --stop-at problem).
  check_refused(run(train + "--resume '" + runf.string() + "'"),
                {ckpt.string(), "the checkpoint is at image 3, the end of its 3-image budget"});
  check_refused(run(train + "--resume '" + runf.string() + "' --steps 2"), {"--steps 2 (2 images): the run is already at image 3"});

  // The step field damaged, the checksum made to match (write_checkpoint computes it).
  splat::Checkpoint ck = splat::read_checkpoint(ckpt);
  ck.trainer["step"] = 20;
  splat::write_checkpoint(ckpt, ck);
  check_refused(run(train + "--resume '" + runf.string() + "'"),
                {ckpt.string(), "checkpoint trainer state field 'step' is '20', expected an integer in 0..3"});
  ck.trainer["step"] = nullptr;
  splat::write_checkpoint(ckpt, ck);
  check_refused(run(train + "--resume '" + runf.string() + "'"), {ckpt.string(), "field 'step' is 'null'"});
}
