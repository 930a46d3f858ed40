#pragma once
// Lens models of the supported COLMAP cameras and undistortion to a pinhole camera.
// All five supported models are special cases of OPENCV (radial k1, k2 and tangential p1, p2),
// so one general form serves them all. Pixel coordinates follow COLMAP: continuous, with the
// centre of pixel (i, j) at (i + 0.5, j + 0.5).
#include <vector>

#include "core/scene.h"

namespace splat {

struct LensCamera {
  CameraModel model = CameraModel::Pinhole;
  int width = 0, height = 0;
  double fx = 0, fy = 0, cx = 0, cy = 0;
  double k1 = 0, k2 = 0, p1 = 0, p2 = 0;
};

// From COLMAP's parameter list for the model (see colmap::model_param_names for the order).
// The caller guarantees params.size() matches the model.
LensCamera lens_camera(CameraModel model, int width, int height, const std::vector<double>& params);

bool has_distortion(const LensCamera& cam);

// The same camera for an image resized to width x height (intrinsics scale per axis; the
// distortion acts on normalised coordinates and does not change).
LensCamera resized(const LensCamera& cam, int width, int height);

// The undistorted camera: same size, focal lengths and principal point, no distortion.
PinholeIntrinsics pinhole_of(const LensCamera& cam);

// Normalised image coordinates (x/z, y/z) -> distorted normalised coordinates.
Vec2<double> distort_normalized(const LensCamera& cam, Vec2<double> xn);

// For a pixel position in the undistorted image, the position in the distorted source image
// that shows the same ray.
Vec2<double> distorted_pixel(const LensCamera& cam, Vec2<double> undistorted);

// Bilinear sample at a continuous pixel position; black outside the image.
std::array<double, 3> sample_bilinear(const ImageRGB8& img, Vec2<double> pos);

// Remaps a distorted image (of cam's size) to the pinhole camera pinhole_of(cam): each output
// pixel samples the source where distorted_pixel puts it.
ImageRGB8 undistort_image(const ImageRGB8& src, const LensCamera& cam);

}  // namespace splat
