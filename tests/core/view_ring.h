#pragma once
// Posed views for camera-path tests: one at an eye looking at a target, and a ring of them.
#include <cmath>
#include <vector>

#include "core/scene/scene.h"

namespace splat::test {

// A view at `eye` looking at `target`, `up` up (COLMAP: rows right, down, forward).
inline SceneView view_at(Vec3d eye, Vec3d target, Vec3d up) {
  const Vec3d f = (target - eye) / norm(target - eye);
  Vec3d r = cross(-up, f);
  r = r / norm(r);
  const Vec3d d = cross(f, r);
  SceneView v;
  for (int j = 0; j < 3; ++j) v.R.m[0][j] = r[j], v.R.m[1][j] = d[j], v.R.m[2][j] = f[j];
  v.t = -(v.R * eye);
  v.intrinsics = {64, 48, 50, 50, 32, 24};
  return v;
}

// A ring of views about `up` through `target`, radius 3, 1 above it, with a little tilt noise.
inline std::vector<SceneView> ring(Vec3d target, Vec3d up, int n) {
  const Vec3d e1 = std::abs(up.x) < 0.9 ? cross(up, Vec3d{1, 0, 0}) / norm(cross(up, Vec3d{1, 0, 0}))
                                        : cross(up, Vec3d{0, 1, 0}) / norm(cross(up, Vec3d{0, 1, 0}));
  const Vec3d e2 = cross(up, e1);
  std::vector<SceneView> views;
  for (int k = 0; k < n; ++k) {
    const double a = 6.283185307179586 * k / n;
    const Vec3d eye = target + up * 1.0 + (e1 * std::cos(a) + e2 * std::sin(a)) * 3.0;
    views.push_back(view_at(eye, target + e1 * (0.05 * std::sin(3.0 * a)), up));
  }
  return views;
}

}  // namespace splat::test
