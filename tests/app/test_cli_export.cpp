// `splatlab export`: a run folder or a splat file to the format the --out name's ending asks for,
// refusing unknown endings (usage error) and existing files (without --overwrite).
#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/model/compressed_ply.h"
#include "core/model/ply_io.h"
#include "tests/app/cli_runner.h"
#include "tests/support/test_support.h"

namespace fs = std::filesystem;
using splat::test::CliResult;
using splat::test::last_line;
using splat::test::run_cli;

namespace {

std::string bytes(const fs::path& f) {
  std::ifstream in(f, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A two-step CPU run of a small demo scene: a run folder with a checkpoint and a PLY.
fs::path small_run(const fs::path& dir) {
  const fs::path scene = dir / "demo", runf = dir / "run";
  REQUIRE(run_cli("demo --out '" + scene.string() + "' --width 32 --height 24").code == 0);
  REQUIRE(run_cli("train '" + scene.string() + "' --device cpu --steps 2 --out '" + runf.string() + "'").code == 0);
  return runf;
}

}  // namespace

TEST_CASE("cli: export writes a run's Gaussians as 3DGS PLY or compressed PLY by the name's ending", "[cli]") {
  const fs::path dir = splat::test::scratch_dir("cli-export");
  const fs::path runf = small_run(dir);
  const splat::GaussianModel trained = splat::read_ply(runf / "point_cloud.ply");

  const CliResult ply = run_cli("export '" + runf.string() + "' --out '" + (dir / "a.ply").string() + "'");
  INFO(ply.out);
  REQUIRE(ply.code == 0);
  CHECK(ply.out.find("wrote " + (dir / "a.ply").string()) != std::string::npos);
  CHECK(splat::read_ply(dir / "a.ply").means == trained.means);

  const CliResult compressed = run_cli("export '" + runf.string() + "' --out '" + (dir / "a.compressed.ply").string() + "'");
  INFO(compressed.out);
  REQUIRE(compressed.code == 0);
  CHECK(splat::read_compressed_ply(dir / "a.compressed.ply").size() == trained.size());
  CHECK(fs::file_size(dir / "a.compressed.ply") < fs::file_size(dir / "a.ply") / 3);

  // The run's newer file: with the PLY older than the checkpoint (or gone), the checkpoint.
  const fs::path older = dir / "run-older-ply";
  fs::copy(runf, older);
  fs::last_write_time(older / "point_cloud.ply", fs::last_write_time(older / "checkpoint.ckpt") - std::chrono::hours(1));
  const CliResult newer = run_cli("export '" + older.string() + "' --out '" + (dir / "n.ply").string() + "'");
  INFO(newer.out);
  CHECK(newer.out.find("from " + (older / "checkpoint.ckpt").string()) != std::string::npos);
  CHECK(splat::read_ply(dir / "n.ply").means == trained.means);
  fs::remove(older / "checkpoint.ckpt");
  const CliResult ply_only = run_cli("export '" + older.string() + "' --out '" + (dir / "p.ply").string() + "'");
  CHECK(ply_only.out.find("from " + (older / "point_cloud.ply").string()) != std::string::npos);

  // A splat file as the source, in either format.
  REQUIRE(run_cli("export '" + (dir / "a.compressed.ply").string() + "' --out '" + (dir / "b.ply").string() + "'").code == 0);
  CHECK(splat::read_ply(dir / "b.ply").size() == trained.size());
  REQUIRE(run_cli("export '" + (runf / "checkpoint.ckpt").string() + "' --out '" + (dir / "c.ply").string() + "'").code == 0);
  CHECK(splat::read_ply(dir / "c.ply").means == trained.means);
}

TEST_CASE("cli: export refuses an unknown ending, an existing file and a source without Gaussians", "[cli]") {
  const fs::path dir = splat::test::scratch_dir("cli-export-refusals");
  const fs::path runf = small_run(dir);
  const std::string exp = "export '" + runf.string() + "' --out ";

  const CliResult unknown = run_cli(exp + "'" + (dir / "a.splat").string() + "'");
  INFO(unknown.out);
  CHECK(unknown.code == 2);
  CHECK(unknown.out.find('\n') == unknown.out.size() - 1);  // one line
  CHECK(last_line(unknown.out).find("error: --out '" + (dir / "a.splat").string() + "': unknown extension") == 0);
  CHECK(last_line(unknown.out).find(".ply, .compressed.ply") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "a.splat"));

  const fs::path existing = dir / "keep.compressed.ply";
  std::ofstream(existing) << "not to be lost";
  const CliResult kept = run_cli(exp + "'" + existing.string() + "'");
  INFO(kept.out);
  CHECK(kept.code == 1);
  CHECK(last_line(kept.out).find("already exists; give --overwrite") != std::string::npos);
  CHECK(bytes(existing) == "not to be lost");
  const CliResult replaced = run_cli(exp + "'" + existing.string() + "' --overwrite");
  INFO(replaced.out);
  CHECK(replaced.code == 0);
  CHECK(bytes(existing).starts_with("ply\n"));

  const fs::path empty = dir / "empty-run";
  fs::create_directories(empty);
  const CliResult nothing = run_cli("export '" + empty.string() + "' --out '" + (dir / "x.ply").string() + "'");
  INFO(nothing.out);
  CHECK(nothing.code == 1);
  CHECK(last_line(nothing.out).find("holds neither checkpoint.ckpt nor point_cloud.ply") != std::string::npos);
  const CliResult missing = run_cli("export '" + (dir / "nope").string() + "' --out '" + (dir / "x.ply").string() + "'");
  CHECK(missing.code == 2);  // a usage error: the source named is not there
  CHECK(last_line(missing.out).find((dir / "nope").string() + "': no such run folder or file") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "x.ply"));
  for (const auto& e : fs::directory_iterator(dir)) CHECK_FALSE(e.path().filename().string().starts_with(".export-"));
}
