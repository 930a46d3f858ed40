#pragma once
#include <cmath>
// A small generated demo scene for trainer tests, cached under the build tree (the generator
// skips work when the folder's stamp matches). Tests of several files ask for the same sizes and
// CTest runs them in parallel processes, so the generation holds a file lock beside the folder.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <filesystem>
#include <stdexcept>
#include <string>

#include "core/scene/demo_scene.h"
#include "core/scene/scene_loader.h"
#include "core/train/trainer.h"

namespace splat::test {

// The folder of a small demo scene, generated on first use; lens_tag names the lens so that
// scenes through different lenses never share a folder (nor scenes of different point counts, which
// would regenerate it under a test that is reading it).
inline std::filesystem::path small_demo_folder(const demo::DemoOptions& o, const std::string& lens_tag = "") {
  const std::filesystem::path folder =
      std::filesystem::path(SPLATLAB_BINARY_DIR) / "test-cache" /
      ("demo-" + std::to_string(o.width) + "x" + std::to_string(o.height) + "-" + std::to_string(o.points) +
       (lens_tag.empty() ? "" : "-" + lens_tag));
  std::filesystem::create_directories(folder.parent_path());
  const std::string lock_file = folder.string() + ".lock";
  const int fd = ::open(lock_file.c_str(), O_CREAT | O_RDWR, 0644);
  if (fd < 0 || ::flock(fd, LOCK_EX) != 0) throw std::runtime_error(lock_file + ": cannot lock");
  try {
    demo::ensure_demo_scene(folder, o);
  } catch (...) {
    ::close(fd);  // closing releases the lock
    throw;
  }
  ::close(fd);
  return folder;
}

inline demo::DemoOptions small_demo_options(int width, int height, int points) {
  demo::DemoOptions o;
  o.width = width;
  o.height = height;
  o.points = points;
  return o;
}

// Trainer options for short CPU runs on a small demo scene: 2 threads, SH growth and densification
// compressed to a few hundred images (steps at batch size 1).
inline TrainerOptions short_run_options(int images) {
  TrainerOptions o;
  o.images = images;
  o.cpu_threads = 2;
  o.sh_degree_interval = 200;
  // The demo's sky is light grey: a matching background lets the Gaussians spend themselves on the
  // objects (with black, the sky must be covered by Gaussians first, which takes far longer).
  o.background = {0.8f, 0.8f, 0.8f};
  o.default_strategy.refine_start = 100;
  o.default_strategy.refine_every = 50;
  o.default_strategy.refine_stop = 300;
  o.default_strategy.reset_every = 100000;  // no opacity reset: too short a run to recover from one
  return o;
}

inline Scene small_demo_scene(int width, int height, int points) {
  SceneLoadOptions lo;
  lo.show_progress = false;
  return load_scene(small_demo_folder(small_demo_options(width, height, points)), lo);
}

// `scene` with every other training photo darkened to `gain` of its brightness and the test views to
// the training photos' mean exposure: a capture whose exposure changes between photos, judged at the
// exposure a scene fitting all of them takes.
inline Scene alternating_exposure(Scene scene, float gain) {
  auto darken = [&](int view, float by) {
    for (uint8_t& p : scene.images[size_t(view)].pixels) p = uint8_t(std::lround(p * by));
  };
  const std::vector<int> train = scene.train_indices();
  for (size_t k = 0; k < train.size(); k += 2) darken(train[k], gain);
  const float mean = (gain * float((train.size() + 1) / 2) + float(train.size() / 2)) / float(train.size());
  for (int v : scene.test_indices()) darken(v, mean);
  return scene;
}

}  // namespace splat::test
