#include <catch2/catch.hpp>

#include "core/scene/scene.h"

TEST_CASE("scene split marks every 8th view as test and camera centre is -R^T t", "[scene]") {
  splat::Scene s;
  for (int i = 0; i < 17; ++i) {
    splat::SceneView v;
    v.is_test = (i % 8 == 0);
    s.views.push_back(v);
  }
  CHECK(s.test_indices() == std::vector<int>{0, 8, 16});
  CHECK(s.train_indices().size() == 14);

  splat::SceneView v;
  v.R = splat::Mat3d::identity();
  v.R.m[0][0] = -1; v.R.m[1][1] = -1;  // 180 degrees about z
  v.t = {1, 2, 3};
  const splat::Vec3d c = v.camera_center();
  CHECK(c.x == Approx(1));
  CHECK(c.y == Approx(2));
  CHECK(c.z == Approx(-3));
}
