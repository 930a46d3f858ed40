// `splatlab train --ranks R` as a user runs it: R CPU rank threads train one model and write one run
// folder (one PLY, one checkpoint, rank 0's metrics); a batch smaller than the rank count is refused
// before anything is made.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/model/ply_io.h"
#include "core/train/checkpoint.h"
#include "tests/app/cli_runner.h"
#include "tests/support/test_support.h"

namespace fs = std::filesystem;

namespace {
splat::test::CliResult run(const std::string& args) { return splat::test::run_cli(args); }

int count_lines(const fs::path& file) {
  std::ifstream in(file);
  int n = 0;
  for (std::string line; std::getline(in, line);) n += !line.empty();
  return n;
}
}  // namespace

// With --amp: every rank stores its shard in mixed precision (the fp32 ranks run as mpirun's twin in test_cli_mpi.cpp).
TEST_CASE("cli: train --ranks 2 --amp on the CPU writes one model for the run", "[cli][dist][amp]") {
  const fs::path dir = splat::test::scratch_dir("cli-ranks");
  const fs::path scene = dir / "demo";
  REQUIRE(run("demo --out '" + scene.string() + "' --width 40 --height 30").code == 0);
  const fs::path out = dir / "run";
  const auto train = run("train '" + scene.string() + "' --device cpu --ranks 2 --batch-size 2 --images 40 "
                         "--log-every 10 --amp --out '" + out.string() + "'");
  INFO(train.out);
  REQUIRE(train.code == 0);
  CHECK(train.out.find("2 ranks") != std::string::npos);
  int files = 0;
  for (const auto& e : fs::directory_iterator(out)) files += e.path().extension() == ".ply";
  CHECK(files == 1);
  const splat::GaussianModel m = splat::read_ply(out / "point_cloud.ply");
  const splat::Checkpoint ck = splat::read_checkpoint(out / "checkpoint.ckpt");
  CHECK(m.size() == ck.gaussians.size());  // both the whole model, gathered from the two shards
  CHECK(ck.gaussians.spec(splat::Group::ShRest).storage == splat::Precision::BF16);  // the ranks kept --amp
  CHECK(train.out.find(std::to_string(m.size()) + " Gaussians") != std::string::npos);
  CHECK(ck.trainer.at("images").get<int>() == 40);
  CHECK(count_lines(out / "metrics.jsonl") == 4);  // one writer: rank 0, a record every 10 images
  // The run's evaluation (the shards' parameters gathered on rank 0) is that of the model it wrote.
  const size_t at = train.out.find("test PSNR ");
  REQUIRE(at != std::string::npos);
  const std::string psnr = train.out.substr(at + 10, train.out.find(" dB", at) - at - 10);
  const auto eval = run("eval '" + out.string() + "' --device cpu");
  INFO(eval.out);
  CHECK(eval.code == 0);
  CHECK(eval.out.find("PSNR " + psnr + " dB") != std::string::npos);

  // The whole model resumes with another rank count.
  const auto resumed = run("train --resume '" + out.string() + "' --device cpu --ranks 1 --images 60");
  INFO(resumed.out);
  CHECK(resumed.code == 0);
  CHECK(resumed.out.find("resumed at image 40") != std::string::npos);
}

TEST_CASE("cli: a batch smaller than --ranks is refused in one line", "[cli][dist]") {
  const fs::path out = splat::test::scratch_dir("cli-ranks-batch") / "run";
  const auto r = run("train demo --device cpu --ranks 3 --batch-size 2 --images 10 --out '" + out.string() + "'");
  CHECK(r.code != 0);
  CHECK(r.out.find("--batch-size 2 is smaller than the 3 ranks") != std::string::npos);
  CHECK_FALSE(fs::exists(out / "config.json"));

  const auto uneven = run("train demo --device cpu --ranks 3 --batch-size 4 --images 10 --out '" + out.string() + "'");
  CHECK(uneven.code != 0);
  CHECK(uneven.out.find("ends with a step of 2 image(s), fewer than the 3 ranks") != std::string::npos);
}
