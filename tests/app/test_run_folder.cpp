// core/run/run_folder.h, the API `train` and a GUI training session share: a new run refuses a
// folder holding a run unless overwriting, and a run that never saved is removed again, down to
// the folders it made; an opened run is never touched.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <optional>

#include "core/run/run_folder.h"
#include "tests/support/test_support.h"

namespace fs = std::filesystem;
using splat::RunFolder;
using splat::RunFolderError;

TEST_CASE("run folder: a start that never saves leaves nothing, a saved run stays", "[run]") {
  const fs::path dir = splat::test::scratch_dir("run-folder-cleanup");
  const fs::path nested = dir / "a" / "b" / "run";
  {
    RunFolder run = RunFolder::create(nested, false);
    run.write_config({{"scene_folder", "x"}, {"data_factor", 1}});
    std::ofstream(run.metrics_file()) << "{}\n";
    CHECK(fs::exists(nested / "config.json"));
    CHECK_FALSE(run.has_results());
  }
  CHECK_FALSE(fs::exists(dir / "a"));  // every folder create() made is gone

  {
    RunFolder run = RunFolder::create(nested, false);
    run.write_config({{"scene_folder", "x"}, {"data_factor", 1}});
    std::ofstream(run.ply_file()) << "ply";  // stands for a saved result
    CHECK(run.has_results());
  }
  CHECK(fs::exists(nested / "config.json"));
  CHECK(fs::exists(nested / "point_cloud.ply"));

  // Continuing it: opened, metrics appended, and left alone whatever happens.
  {
    fs::remove(nested / "point_cloud.ply");
    RunFolder run = RunFolder::open(nested);
    splat::RunOptions ro;
    run.attach(ro);
    CHECK(ro.append_metrics);
    CHECK(ro.metrics_file == nested / "metrics.jsonl");
    CHECK(ro.checkpoint_file == nested / "checkpoint.ckpt");
  }
  CHECK(fs::exists(nested / "config.json"));
}

TEST_CASE("run folder: a folder holding a run is refused unless overwriting", "[run]") {
  const fs::path dir = splat::test::scratch_dir("run-folder-refuse");
  const fs::path runf = dir / "run";
  fs::create_directories(runf);
  std::ofstream(runf / "checkpoint.ckpt") << "old";
  std::ofstream(runf / "notes.txt") << "the user's";
  CHECK_THROWS_WITH(RunFolder::check_new(runf, false),
                    Catch::Contains(runf.string() + ": already holds a run (checkpoint.ckpt)") && Catch::Contains("--overwrite"));
  CHECK_THROWS_AS(RunFolder::create(runf, false), RunFolderError);
  CHECK(fs::exists(runf / "checkpoint.ckpt"));
  {
    RunFolder run = RunFolder::create(runf, true);
    CHECK_FALSE(fs::exists(runf / "checkpoint.ckpt"));  // the old run's files are gone
    splat::RunOptions ro;
    run.attach(ro);
    CHECK_FALSE(ro.append_metrics);
  }
  // The folder existed before: it stays, with what was not the run's.
  CHECK(fs::exists(runf / "notes.txt"));

  std::ofstream(dir / "file") << "x";
  CHECK_THROWS_WITH(RunFolder::check_new(dir / "file", true), Catch::Contains("is not a folder"));
  CHECK_THROWS_WITH(RunFolder::open(dir / "nothing"), Catch::Contains("config.json: not found"));
}
