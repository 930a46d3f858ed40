// The View panel's settings file: a round trip keeps every setting, including the viewer's fps cap,
// pause and resolution while moving during training; a missing file keeps the defaults, a malformed one is reported.
#include <catch2/catch.hpp>

#include <fstream>

#include "tests/support/test_support.h"
#include "ui/view_settings_file.h"

using namespace splat::ui;
namespace fs = std::filesystem;

TEST_CASE("view settings survive a save and a load", "[ui][view_settings]") {
  const fs::path file = splat::test::scratch_dir("view_settings_round_trip") / "config" / "view.json";
  ViewSettings saved;
  saved.mode = RenderMode::Depth;
  saved.resolution_scale = 0.5f;
  saved.moving_resolution_scale = 0.25f;
  saved.sh_degree = 1;
  saved.background[0] = 0.25f;
  saved.background[2] = 1.f;
  saved.show_grid = false;
  saved.show_frustums = false;
  saved.fps_cap = 144;
  saved.pause_while_training = true;
  save_view_settings(file, saved);
  ViewSettings loaded;
  REQUIRE_FALSE(loaded == saved);
  load_view_settings(file, loaded);
  CHECK(loaded == saved);
  CHECK(loaded.fps_cap == 144);
  CHECK(loaded.pause_while_training);
  CHECK(loaded.moving_resolution_scale == 0.25f);
}

TEST_CASE("view settings keep their values where the file has none", "[ui][view_settings]") {
  const fs::path dir = splat::test::scratch_dir("view_settings_partial");
  ViewSettings settings;
  settings.fps_cap = 75;  // as the app sets it from the display before loading
  load_view_settings(dir / "missing.json", settings);
  CHECK(settings == ViewSettings{.fps_cap = 75});
  std::ofstream(dir / "partial.json") << R"({"pause_while_training": true})";
  load_view_settings(dir / "partial.json", settings);
  CHECK(settings.fps_cap == 75);
  CHECK(settings.pause_while_training);
}

TEST_CASE("a malformed view settings file is reported and changes nothing", "[ui][view_settings]") {
  const fs::path dir = splat::test::scratch_dir("view_settings_bad");
  std::ofstream(dir / "bad.json") << R"({"fps_cap": 30, "show_grid": "yes"})";
  ViewSettings settings;
  CHECK_THROWS_WITH(load_view_settings(dir / "bad.json", settings), Catch::Contains("bad.json"));
  CHECK(settings == ViewSettings{});
  std::ofstream(dir / "mode.json") << R"({"mode": 7})";
  CHECK_THROWS(load_view_settings(dir / "mode.json", settings));
}
