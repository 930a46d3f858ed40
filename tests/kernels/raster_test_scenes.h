#pragma once
// Cameras for the rasterizer tests.
#include <cmath>

#include "kernels/hd_math.h"
#include "kernels/rasterizer.h"

namespace splat::test {

// A pinhole camera at `eye` looking at `target` (COLMAP convention: x right, y down, z forward),
// principal point at the image centre.
inline kernels::Camera look_at_camera(Vec3d eye, Vec3d target, int width, int height, double focal) {
  const Vec3d f = (target - eye) / norm(target - eye);
  const Vec3d down{0, 1, 0};
  Vec3d r = cross(down, f);
  r = r / norm(r);
  const Vec3d d = cross(f, r);
  const Vec3d rows[3] = {r, d, f};
  kernels::Camera cam;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) cam.R[3 * i + j] = float(rows[i][j]);
    cam.t[i] = float(-dot(rows[i], eye));
  }
  cam.fx = cam.fy = float(focal);
  cam.cx = 0.5f * float(width);
  cam.cy = 0.5f * float(height);
  cam.width = width;
  cam.height = height;
  return cam;
}

}  // namespace splat::test
