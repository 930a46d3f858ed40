// Sparse Adam (TrainerOptions::adam) through the trainer: the option reaches the Adam step (the run
// differs from a dense one) and trains the demo as well as dense Adam does; `auto` is sparse at batch 1
// only. What it does to one
// element is tested with the kernels (tests/kernels/test_adam.cpp, and the CUDA kernel against it).
#include <catch2/catch.hpp>

#include "core/train/evaluator.h"
#include "core/train/trainer.h"
#include "tests/core/demo_fixture.h"

using namespace splat;

namespace {

struct Trained {
  double psnr;
  GaussianState state;
};

Trained train(const Scene& scene, const TrainerOptions& o) {
  Trainer t(scene, init_from_points(scene.points), o);
  while (!t.finished()) t.step();
  auto raster = kernels::make_cpu_rasterizer(o.cpu_threads);
  GaussianState whole = t.whole_state();
  const DeviceGaussians g(kernels::Device::CPU, whole);
  const double psnr =
      evaluate(*raster, g.view(), scene, scene.test_indices(), eval_options_for(o, t.active_sh_degree())).psnr;
  return {psnr, std::move(whole)};
}

}  // namespace

TEST_CASE("sparse Adam reaches the Adam step and trains the demo as dense Adam does", "[adam][sparse][train]") {
  const Scene scene = test::small_demo_scene(36, 27, 160);
  TrainerOptions o = test::short_run_options(800);
  o.cpu_threads = 1;
  o.adam = AdamMode::Dense;
  const Trained dense = train(scene, o);
  o.adam = AdamMode::Sparse;
  const Trained sparse = train(scene, o);
  INFO("test PSNR dense " << dense.psnr << " dB, sparse " << sparse.psnr << " dB");
  CHECK(sparse.state.col(Group::Means).value != dense.state.col(Group::Means).value);
  CHECK(sparse.psnr > dense.psnr - 0.5);
}

TEST_CASE("auto Adam is sparse exactly while a step trains one image", "[adam][sparse]") {
  CHECK(sparse_adam(AdamMode::Auto, 1));
  CHECK_FALSE(sparse_adam(AdamMode::Auto, 2));
  CHECK(sparse_adam(AdamMode::Sparse, 4));
  CHECK_FALSE(sparse_adam(AdamMode::Dense, 1));
  // Through the trainer: an auto run at batch 1 takes the sparse run's steps, at batch 2 the dense one's (long
  // enough for densification to make Gaussians that some views miss: before, every view sees every one).
  const Scene scene = test::small_demo_scene(36, 27, 160);
  for (const int batch : {1, 2}) {
    TrainerOptions o = test::short_run_options(300);
    o.cpu_threads = 1;
    o.batch_size = batch;
    o.adam = AdamMode::Auto;
    const Trained automatic = train(scene, o);
    o.adam = batch == 1 ? AdamMode::Sparse : AdamMode::Dense;
    const Trained same = train(scene, o);
    o.adam = batch == 1 ? AdamMode::Dense : AdamMode::Sparse;
    const Trained other = train(scene, o);
    INFO("batch " << batch);
    CHECK(automatic.state.col(Group::Means).value == same.state.col(Group::Means).value);
    CHECK(automatic.state.col(Group::Means).value != other.state.col(Group::Means).value);
  }
}
