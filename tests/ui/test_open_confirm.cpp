// Opening content while something would be discarded waits for a yes; paths are made absolute.
#include <catch2/catch.hpp>

#include "core/scene/demo_scene.h"
#include "tests/support/test_support.h"
#include "ui/viewer_state.h"

using namespace splat;
using namespace splat::ui;
namespace fs = std::filesystem;

TEST_CASE("an open request waits for confirmation while confirm_discard is set", "[ui][open]") {
  const fs::path dir = splat::test::scratch_dir("ui_open_confirm");
  demo::DemoOptions small;
  small.width = 40;
  small.height = 30;
  small.points = 200;
  small.samples_per_axis = 1;
  const fs::path folder = demo::ensure_demo_scene(dir / "scene", small).folder;
  ViewerState state(kernels::Device::CPU, dir / "recent.json");
  state.confirm_discard = true;
  state.open(folder);
  CHECK_FALSE(state.loader.busy());
  REQUIRE(state.pending_open());
  state.cancel_open();
  CHECK_FALSE(state.pending_open());
  CHECK_FALSE(state.loader.busy());

  // Confirmed, it opens; a relative path is remembered absolute, and the data factor applies.
  state.data_factor = 2;
  state.open(fs::relative(folder));
  REQUIRE(state.pending_open());
  state.confirm_open();
  CHECK_FALSE(state.pending_open());
  state.loader.wait();
  state.poll_loader();
  REQUIRE(state.has_content());
  CHECK(state.notes.error_count() == 0);
  REQUIRE_FALSE(state.recent.items().empty());
  CHECK(fs::path(state.recent.items().front()).is_absolute());
  CHECK(fs::path(state.recent.items().front()) == fs::absolute(folder).lexically_normal());
  CHECK(state.content.data_factor == 2);
  CHECK(state.content.scene->images.front().width == 20);  // 40 x 30 photos at 1/2
}
