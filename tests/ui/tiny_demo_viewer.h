#pragma once
// What the training controller tests start from: a viewer (CPU backend, no window) that has opened
// a tiny generated demo scene, small enough that a CPU training step takes milliseconds.
#include <catch2/catch.hpp>

#include <filesystem>

#include "core/scene/demo_scene.h"
#include "ui/viewer_state.h"

namespace splat::test {

// Generates the scene under dir/scene (40 x 30 photos, 200 points, one ray a pixel), opens it in
// `state` and waits for the loader; the scene must load without an error.
inline void open_tiny_demo(ui::ViewerState& state, const std::filesystem::path& dir) {
  demo::DemoOptions small;
  small.width = 40;
  small.height = 30;
  small.points = 200;
  small.samples_per_axis = 1;
  const demo::DemoSceneInfo demo_info = demo::ensure_demo_scene(dir / "scene", small);
  state.open(demo_info.folder);
  state.loader.wait();
  state.poll_loader();
  REQUIRE(state.notes.error_count() == 0);
}

}  // namespace splat::test
