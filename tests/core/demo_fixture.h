#pragma once
// A small generated demo scene for trainer tests, cached under the build tree (the generator
// skips work when the folder's stamp matches). Each caller passes its own size so that tests
// running in parallel never write the same folder.
#include <filesystem>
#include <string>

#include "core/demo_scene.h"
#include "core/scene_loader.h"

namespace splat::test {

inline Scene small_demo_scene(int width, int height, int points) {
  demo::DemoOptions o;
  o.width = width;
  o.height = height;
  o.points = points;
  const std::filesystem::path folder = std::filesystem::path(SPLATLAB_BINARY_DIR) / "test-cache" /
                                       ("demo-" + std::to_string(width) + "x" + std::to_string(height));
  demo::ensure_demo_scene(folder, o);
  SceneLoadOptions lo;
  lo.show_progress = false;
  return load_scene(folder, lo);
}

}  // namespace splat::test
