// Run folders as users live with them: a stop signal saves the run, a bare --resume continues it
// where and as it was, an existing run is not overwritten by accident, and a failed command
// leaves no folder behind. Runs the built binary on a small demo scene on the CPU.
#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>

#include "core/train/checkpoint.h"
#include "tests/app/cli_runner.h"
#include "tests/support/test_support.h"

namespace fs = std::filesystem;
using splat::test::CliProcess;
using splat::test::CliResult;
using splat::test::run_cli;

namespace {

fs::path small_demo(const fs::path& dir) {
  const fs::path scene = dir / "demo";
  const CliResult r = run_cli("demo --out '" + scene.string() + "' --width 48 --height 32");
  INFO(r.out);
  REQUIRE(r.code == 0);
  return scene;
}

int count_lines(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) n += !line.empty();
  return n;
}

// Waits (up to a minute) until a training run has written `lines` metrics lines: it is in its loop.
bool wait_for_metrics(const fs::path& run, int lines) {
  for (int i = 0; i < 600; ++i) {
    if (count_lines(run / "metrics.jsonl") >= lines) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

nlohmann::json read_json(const fs::path& file) {
  std::ifstream in(file);
  return nlohmann::json::parse(in);
}

}  // namespace

TEST_CASE("cli: SIGTERM, SIGINT and SIGHUP save the run and exit with 128 + the signal", "[cli]") {
  const fs::path dir = splat::test::scratch_dir("cli-signals");
  const fs::path scene = small_demo(dir);
  const struct {
    int sig;
    const char* name;
    int code;
  } cases[] = {{SIGTERM, "SIGTERM", 143}, {SIGINT, "SIGINT", 130}, {SIGHUP, "SIGHUP", 129}};
  for (const auto& c : cases) {
    const fs::path runf = dir / (std::string("run-") + c.name);
    CliProcess train("train '" + scene.string() + "' --device cpu --steps 1000000 --log-every 1 --out '" +
                     runf.string() + "'");
    REQUIRE(wait_for_metrics(runf, 2));
    REQUIRE(kill(train.pid(), c.sig) == 0);
    const CliResult r = train.wait();
    INFO(c.name << "\n" << r.out);
    CHECK(r.code == c.code);
    CHECK(r.out.find(std::string(c.name) + " at image") != std::string::npos);
    CHECK(r.out.find("--resume " + runf.string()) != std::string::npos);
    REQUIRE(fs::exists(runf / "checkpoint.ckpt"));
    CHECK(fs::exists(runf / "point_cloud.ply"));
    const splat::Checkpoint ck = splat::read_checkpoint(runf / "checkpoint.ckpt");
    // The checkpoint holds the steps trained before the signal (at least the two logged ones).
    CHECK(ck.trainer.at("step").get<int>() >= 2);
  }
}

TEST_CASE("cli: a bare --resume continues in the run's folder with its recorded settings", "[cli]") {
  const fs::path dir = splat::test::scratch_dir("cli-resume-bare");
  const fs::path scene = small_demo(dir);
  const fs::path runf = dir / "run";
  const CliResult first = run_cli("train '" + scene.string() + "' --device cpu --steps 20 --stop-at 8 --data-factor 2 " +
                                  "--log-every 4 --seed 7 --sh-degree 1 --max-gaussians 90000 --absgrad --absgrad-threshold 0.0005 --grow-grad2d 0.0003 --ssim-weight 0.25 " +
                                  "--prune-scale2d 0 --no-antialiased --opacity-reg 0.01 --scale-reg 0.02 --photos own --out '" + runf.string() +
                                  "'");
  INFO(first.out);
  REQUIRE(first.code == 0);
  const int lines_before = count_lines(runf / "metrics.jsonl");

  // Run from another folder, naming only the run: no scene, no settings, no --out.
  const fs::path elsewhere = dir / "elsewhere";
  fs::create_directories(elsewhere);
  const CliResult rest = run_cli("train --device cpu --resume '" + runf.string() + "'", elsewhere.string());
  INFO(rest.out);
  REQUIRE(rest.code == 0);
  CHECK(rest.out.find("resumed at") != std::string::npos);
  CHECK(rest.out.find("note:") == std::string::npos);  // nothing was overridden
  CHECK(!fs::exists(elsewhere / "runs"));               // it wrote into the run's own folder
  const nlohmann::json config = read_json(runf / "config.json");
  CHECK(config["data_factor"] == 2);
  CHECK(config["seed"] == 7);
  CHECK(config["sh_degree"] == 1);
  CHECK(config["log_every"] == 4);
  CHECK(config["max_gaussians"] == 90000);
  CHECK(config["absgrad"] == true);
  CHECK(config["absgrad_threshold"].get<float>() == 0.0005f);
  CHECK(config["prune_scale2d"].get<float>() == 0.0f);
  CHECK(config["grow_grad2d"].get<float>() == 0.0003f);
  CHECK(config["ssim_weight"].get<float>() == 0.25f);
  CHECK(config["antialiased"] == false);
  CHECK(config["opacity_reg"].get<float>() == 0.01f);
  CHECK(config["scale_reg"].get<float>() == 0.02f);
  CHECK(config["photos"] == "own");
  CHECK(count_lines(runf / "metrics.jsonl") > lines_before);  // appended, not restarted
  const splat::Checkpoint ck = splat::read_checkpoint(runf / "checkpoint.ckpt");
  CHECK(ck.trainer.at("step").get<int>() == 20);

  // An explicit option overrides the record, with a note naming both values.
  const CliResult more = run_cli("train --device cpu --resume '" + runf.string() + "' --steps 24 --log-every 2");
  INFO(more.out);
  REQUIRE(more.code == 0);
  CHECK(more.out.find("note: --log-every 2 overrides the run's recorded 4") != std::string::npos);
  CHECK(read_json(runf / "config.json")["log_every"] == 2);
  CHECK(read_json(runf / "config.json")["data_factor"] == 2);
}

TEST_CASE("cli: --amp trains in mixed precision, is recorded, and a bare --resume keeps it", "[cli][amp]") {
  const fs::path dir = splat::test::scratch_dir("cli-amp");
  const fs::path scene = small_demo(dir);
  const fs::path runf = dir / "run";
  const CliResult first = run_cli("train '" + scene.string() + "' --device cpu --steps 16 --stop-at 8 --data-factor 2 " +
                                  "--log-every 4 --amp --out '" + runf.string() + "'");
  INFO(first.out);
  REQUIRE(first.code == 0);
  CHECK(read_json(runf / "config.json")["amp"] == true);
  CHECK(splat::read_checkpoint(runf / "checkpoint.ckpt").gaussians.spec(splat::Group::ShRest).storage ==
        splat::Precision::BF16);
  const CliResult rest = run_cli("train --device cpu --resume '" + runf.string() + "'");
  INFO(rest.out);
  REQUIRE(rest.code == 0);
  const splat::Checkpoint ck = splat::read_checkpoint(runf / "checkpoint.ckpt");
  CHECK(ck.trainer.at("step").get<int>() == 16);
  CHECK(ck.gaussians.spec(splat::Group::ShRest).storage == splat::Precision::BF16);  // still mixed precision
  // Every record carries the memory by role and the training state per Gaussian: 544 bytes with --amp
  // (bf16 SH rest values, moments and gradients; fp32: 960), plus at most the 12.5 % of spare capacity
  // buffers keep for growth.
  std::ifstream metrics(runf / "metrics.jsonl");
  std::string line;
  int records = 0;
  while (std::getline(metrics, line)) {
    const nlohmann::json r = nlohmann::json::parse(line);
    REQUIRE(r.contains("memory"));
    CHECK(r["memory"]["optimizer_mb"].get<double>() > 0);
    CHECK(r["state_bytes_per_gaussian"].get<double>() >= 544);
    CHECK(r["state_bytes_per_gaussian"].get<double>() <= 544 * 1.125 + 1);
    ++records;
  }
  CHECK(records >= 4);
}

TEST_CASE("cli: a recorded setting the option refuses names the config and the field", "[cli]") {
  const fs::path dir = splat::test::scratch_dir("cli-resume-badconfig");
  const fs::path scene = small_demo(dir);
  const fs::path runf = dir / "run";
  REQUIRE(run_cli("train '" + scene.string() + "' --device cpu --steps 6 --stop-at 2 --out '" + runf.string() + "'").code == 0);
  nlohmann::json config = read_json(runf / "config.json");
  config["log_every"] = 0;
  std::ofstream(runf / "config.json") << config.dump();
  const CliResult r = run_cli("train --device cpu --resume '" + runf.string() + "'");
  INFO(r.out);
  CHECK(r.code == 1);
  const std::string line = splat::test::last_line(r.out);
  CHECK(line.find((runf / "config.json").string()) != std::string::npos);
  CHECK(line.find("field 'log_every' is '0'") != std::string::npos);
}

TEST_CASE("cli: an existing run folder is replaced only with --overwrite", "[cli]") {
  const fs::path dir = splat::test::scratch_dir("cli-overwrite");
  const fs::path scene = small_demo(dir);
  const fs::path runf = dir / "run";
  const std::string train = "train '" + scene.string() + "' --device cpu --out '" + runf.string() + "' ";
  REQUIRE(run_cli(train + "--steps 3").code == 0);
  const auto stamp = fs::last_write_time(runf / "checkpoint.ckpt");

  const CliResult refused = run_cli(train + "--steps 5");
  INFO(refused.out);
  CHECK(refused.code == 1);
  const std::string line = splat::test::last_line(refused.out);
  CHECK(line.find("error: " + runf.string() + ": already holds a run") == 0);
  CHECK(line.find("--overwrite") != std::string::npos);
  CHECK(fs::last_write_time(runf / "checkpoint.ckpt") == stamp);
  CHECK(refused.out.find("scene ") == std::string::npos);  // refused before loading the scene

  const CliResult replaced = run_cli(train + "--steps 5 --overwrite");
  INFO(replaced.out);
  CHECK(replaced.code == 0);
  CHECK(splat::read_checkpoint(runf / "checkpoint.ckpt").trainer.at("step").get<int>() == 5);
}

TEST_CASE("cli: a failed train leaves no run folder behind", "[cli]") {
  const fs::path dir = splat::test::scratch_dir("cli-no-leftovers");
  const fs::path scene = small_demo(dir);

  // Refused before the folder is made: a scene that does not exist.
  const fs::path early = dir / "early" / "run";
  CHECK(run_cli("train '" + (dir / "nope").string() + "' --device cpu --steps 2 --out '" + early.string() + "'").code == 2);
  CHECK(!fs::exists(dir / "early"));

  // Failing after the folder is made: the checkpoint to resume from is not one.
  const fs::path bogus = dir / "bogus.ckpt";
  std::ofstream(bogus) << "not a checkpoint";
  const fs::path late = dir / "late" / "run";
  const CliResult r = run_cli("train '" + scene.string() + "' --device cpu --steps 2 --resume '" + bogus.string() +
                              "' --out '" + late.string() + "'");
  INFO(r.out);
  CHECK(r.code == 1);
  CHECK(r.out.find(bogus.string()) != std::string::npos);
  CHECK(!fs::exists(dir / "late"));

  // In a folder that existed (empty) before, the folder stays and the run's files go.
  const fs::path kept = dir / "kept";
  fs::create_directories(kept);
  CHECK(run_cli("train '" + scene.string() + "' --device cpu --steps 2 --resume '" + bogus.string() + "' --out '" +
                kept.string() + "'").code == 1);
  CHECK(fs::exists(kept));
  CHECK(fs::is_empty(kept));
}

namespace {
std::vector<std::string> lines_of(const std::string& out) {
  std::vector<std::string> lines;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}
}  // namespace

TEST_CASE("cli: piped, a run prints no line twice; a resumed run counts images from the run's start", "[cli]") {
  const fs::path dir = splat::test::scratch_dir("cli-piped-progress");
  const fs::path scene = small_demo(dir);
  const fs::path runf = dir / "run";
  const CliResult first = run_cli("train '" + scene.string() + "' --device cpu --steps 40 --stop-at 20 --out '" +
                                  runf.string() + "'");
  INFO(first.out);
  REQUIRE(first.code == 0);
  std::set<std::string> seen;
  int decoding = 0;
  for (const std::string& line : lines_of(first.out)) {
    CHECK(seen.insert(line).second);
    decoding += line.rfind("decoding images", 0) == 0;
  }
  CHECK(decoding == 1);  // the photos decode in well under a second: the final line alone, no line per tenth

  const CliResult resumed = run_cli("train --device cpu --resume '" + runf.string() + "'");
  INFO(resumed.out);
  REQUIRE(resumed.code == 0);
  std::string last_progress;
  for (const std::string& line : lines_of(resumed.out))
    if (line.rfind("train  [", 0) == 0) last_progress = line;
  // The counter and the image number in one unit: images since the run's start.
  CHECK(last_progress.find("  40/40  ") != std::string::npos);
  CHECK(last_progress.find("image 40  step 40") != std::string::npos);
}
