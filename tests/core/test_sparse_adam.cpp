// Sparse Adam (TrainerOptions::sparse_adam) through the trainer: the option reaches the Adam step (the
// run differs from a dense one) and trains the demo as well as dense Adam does. What it does to one
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
  const Trained dense = train(scene, o);
  o.sparse_adam = true;
  const Trained sparse = train(scene, o);
  INFO("test PSNR dense " << dense.psnr << " dB, sparse " << sparse.psnr << " dB");
  CHECK(sparse.state.col(Group::Means).value != dense.state.col(Group::Means).value);
  CHECK(sparse.psnr > dense.psnr - 0.5);
}
