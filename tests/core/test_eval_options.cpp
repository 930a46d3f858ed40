// The one builder of evaluation settings: evaluation renders as the trainer renders.
#include <catch2/catch.hpp>

#include "core/train/evaluator.h"
#include "core/train/trainer.h"
#include "tests/core/demo_fixture.h"

using namespace splat;

TEST_CASE("evaluation settings: the trainer's background, antialiasing, packing and active SH degree",
          "[evaluator]") {
  const Scene scene = test::small_demo_scene(28, 21, 90);
  TrainerOptions o{.images = 3,
                   .packed = true,
                   .antialiased = true,
                   .sh_degree_cap = 2,
                   .sh_degree_interval = 1,
                   .background = {0.1f, 0.2f, 0.3f},
                   .cpu_threads = 1};
  Trainer t(scene, init_from_points(scene.points), o);
  t.step();
  t.step();
  REQUIRE(t.active_sh_degree() == 2);
  const kernels::RasterSettings s = eval_options_for(t).settings;
  CHECK(s.sh_degree == 2);
  CHECK(s.antialiased);
  CHECK(s.packed);
  CHECK(s.background[0] == 0.1f);
  CHECK(s.background[1] == 0.2f);
  CHECK(s.background[2] == 0.3f);
  CHECK(eval_options_for(t).render_dir.empty());

  // A saved model: the settings it was trained with, at the degree asked for.
  o.antialiased = false;
  const kernels::RasterSettings saved = eval_options_for(o, 1).settings;
  CHECK(saved.sh_degree == 1);
  CHECK_FALSE(saved.antialiased);
  CHECK(saved.background[2] == 0.3f);
}
