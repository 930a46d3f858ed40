// The viewer's file helpers: recent scenes persistence and path completion for the folder browser.
#include <catch2/catch.hpp>

#include <fstream>

#include "tests/support/test_support.h"
#include "ui/path_completion.h"
#include "ui/recent_scenes.h"

using namespace splat::ui;
namespace fs = std::filesystem;

TEST_CASE("recent scenes: newest first, no duplicates, capped, persisted", "[ui][files]") {
  const fs::path dir = splat::test::scratch_dir("ui_recent");
  const fs::path file = dir / "cfg" / "recent.json";
  {
    RecentScenes r(file, 3);
    REQUIRE(r.items().empty());
    REQUIRE(r.load_error().empty());
    r.add("/a");
    r.add("/b");
    r.add("/c");
    r.add("/a");  // moves to the front
    r.add("/d");  // drops the oldest (/b)
    REQUIRE(r.items() == std::vector<std::string>{"/d", "/a", "/c"});
  }
  RecentScenes again(file, 3);
  REQUIRE(again.items() == std::vector<std::string>{"/d", "/a", "/c"});
}

TEST_CASE("recent scenes: a malformed file is reported, not fatal", "[ui][files]") {
  const fs::path dir = splat::test::scratch_dir("ui_recent_bad");
  const fs::path file = dir / "recent.json";
  std::ofstream(file) << "{ not json";
  RecentScenes r(file);
  REQUIRE(r.items().empty());
  REQUIRE_THAT(r.load_error(), Catch::Contains(file.string()));
  r.add("/x");  // and the next save repairs it
  REQUIRE(RecentScenes(file).items() == std::vector<std::string>{"/x"});
}

TEST_CASE("path completion lists folders and PLY files of the typed prefix", "[ui][files]") {
  const fs::path dir = splat::test::scratch_dir("ui_complete");
  fs::create_directories(dir / "garden" / "sparse");
  fs::create_directories(dir / "garage");
  fs::create_directories(dir / ".hidden");
  std::ofstream(dir / "gaussians.ply") << "ply";
  std::ofstream(dir / "gnotes.txt") << "x";
  const std::string base = dir.string() + "/";

  REQUIRE(complete_path(base + "ga") ==
          std::vector<std::string>{base + "garage/", base + "garden/", base + "gaussians.ply"});
  REQUIRE(complete_common_prefix(base + "gar") == base + "gar");
  REQUIRE(complete_common_prefix(base + "gard") == base + "garden/");
  REQUIRE(complete_common_prefix(base + "zzz") == base + "zzz");

  const FolderListing l = list_folder(dir);
  REQUIRE(l.error.empty());
  REQUIRE(l.folders == std::vector<std::string>{"garage", "garden"});
  REQUIRE(l.ply_files == std::vector<std::string>{"gaussians.ply"});
  const FolderListing missing = list_folder(dir / "nope");
  REQUIRE_THAT(missing.error, Catch::Contains("nope"));
}
