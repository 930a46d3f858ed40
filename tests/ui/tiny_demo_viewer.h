#pragma once
// What the viewer and training controller tests start from: a viewer (CPU backend, no window) that
// has opened a tiny generated demo scene, small enough that a CPU training step takes milliseconds,
// or a PLY file of random Gaussians.
#include <catch2/catch.hpp>

#include <filesystem>

#include "core/model/ply_io.h"
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

// Writes `count` random Gaussians (SH degree 1) uniform in the cube (5, -2, 1) +- 0.5 to dir/in.ply
// and opens that file in `state`, waiting for the loader.
inline void open_random_cube(ui::ViewerState& state, const std::filesystem::path& dir, int64_t count) {
  RandomInitOptions init;
  init.count = count;
  init.center = {5, -2, 1};
  init.half_extent = 0.5;
  init.init.sh_degree = 1;
  write_ply(dir / "in.ply", init_random(init));
  state.open(dir / "in.ply");
  state.loader.wait();
  state.poll_loader();
}

}  // namespace splat::test
