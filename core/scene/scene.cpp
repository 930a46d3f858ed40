#include "core/scene/scene.h"

namespace splat {

const char* camera_model_name(CameraModel m) {
  switch (m) {
    case CameraModel::SimplePinhole: return "SIMPLE_PINHOLE";
    case CameraModel::Pinhole: return "PINHOLE";
    case CameraModel::SimpleRadial: return "SIMPLE_RADIAL";
    case CameraModel::Radial: return "RADIAL";
    case CameraModel::OpenCV: return "OPENCV";
    case CameraModel::OpenCVFisheye: return "OPENCV_FISHEYE";
    case CameraModel::FullOpenCV: return "FULL_OPENCV";
    case CameraModel::FOV: return "FOV";
    case CameraModel::SimpleRadialFisheye: return "SIMPLE_RADIAL_FISHEYE";
    case CameraModel::RadialFisheye: return "RADIAL_FISHEYE";
    case CameraModel::ThinPrismFisheye: return "THIN_PRISM_FISHEYE";
  }
  return "UNKNOWN";
}

kernels::Camera SceneView::to_kernel_camera() const {
  kernels::Camera c;
  for (int r = 0; r < 3; ++r)
    for (int k = 0; k < 3; ++k) c.R[r * 3 + k] = static_cast<float>(R.m[r][k]);
  c.t[0] = static_cast<float>(t.x);
  c.t[1] = static_cast<float>(t.y);
  c.t[2] = static_cast<float>(t.z);
  c.fx = static_cast<float>(intrinsics.fx);
  c.fy = static_cast<float>(intrinsics.fy);
  c.cx = static_cast<float>(intrinsics.cx);
  c.cy = static_cast<float>(intrinsics.cy);
  c.width = intrinsics.width;
  c.height = intrinsics.height;
  return c;
}

std::vector<int> Scene::train_indices() const {
  std::vector<int> r;
  for (int i = 0; i < static_cast<int>(views.size()); ++i)
    if (!views[i].is_test) r.push_back(i);
  return r;
}

std::vector<int> Scene::test_indices() const {
  std::vector<int> r;
  for (int i = 0; i < static_cast<int>(views.size()); ++i)
    if (views[i].is_test) r.push_back(i);
  return r;
}

}  // namespace splat
