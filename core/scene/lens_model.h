#pragma once
// The lens of every COLMAP camera model splatlab reads (ids 0..10), with COLMAP's parameter
// order and formulas, and the inverse of each lens map.
//
// Coordinates: "normalised" coordinates are the pinhole image plane (x/z, y/z) of a ray in the
// camera frame. A model's forward map takes them to "distorted normalised" coordinates d, and
// the photo's pixel is (fx d.x + cx, fy d.y + cy) with COLMAP's pixel convention (continuous,
// the centre of pixel (i, j) at (i + 0.5, j + 0.5)).
//
// Internally each model distorts in its own plane: the pinhole plane for the perspective models
// (and FOV), the equidistant plane (the ray's angle theta = atan(r) as radius) for the fisheye
// models. Polynomial lenses fold back at large radius (the distorted radius stops growing and
// shrinks again); only the part inside the first fold is a one-to-one lens.
#include <array>
#include <optional>
#include <vector>

#include "core/scene/scene.h"

namespace splat {

struct LensCamera {
  CameraModel model = CameraModel::Pinhole;
  int width = 0, height = 0;
  double fx = 0, fy = 0, cx = 0, cy = 0;  // single-focal models have fx == fy until resized
  // The model's distortion parameters in COLMAP's order (the parameters after the focal
  // length(s) and principal point); unused entries are 0. See colmap::model_param_names.
  std::array<double, 8> extra{};
};

// From COLMAP's parameter list for the model. Throws std::invalid_argument when the list does
// not have the model's parameter count.
LensCamera lens_camera(CameraModel model, int width, int height, const std::vector<double>& params);

// OPENCV_FISHEYE, SIMPLE_RADIAL_FISHEYE, RADIAL_FISHEYE, THIN_PRISM_FISHEYE and FOV: lenses that
// can see wider than a pinhole of the same size should show.
bool is_fisheye(CameraModel model);

// Whether the photo differs from a pinhole photo: false for SIMPLE_PINHOLE and PINHOLE and for
// non-fisheye models whose coefficients are all zero; fisheye models always need remapping.
bool has_distortion(const LensCamera& cam);

// The same camera for an image resized to width x height (intrinsics scale per axis; the
// distortion acts on normalised coordinates and does not change).
LensCamera resized(const LensCamera& cam, int width, int height);

// The model's forward map: normalised (pinhole) coordinates -> distorted normalised coordinates.
Vec2<double> distort_normalized(const LensCamera& cam, Vec2<double> normalized);

// The inverse of distort_normalized by Newton iterations (analytic Jacobian) on the model's own
// plane, started at the distorted point with steps limited to a tenth of the radius. Empty when
// the iteration does not converge (a point beyond the lens's image, e.g. past the largest radius
// a folding polynomial reaches), when the solution lies past the lens's first fold (a folding
// lens reaches some points a second time there), or when the ray lies at or beyond 90 degrees
// from the optical axis (fisheye models).
std::optional<Vec2<double>> undistort_normalized(const LensCamera& cam, Vec2<double> distorted);

// Where the lens map of one camera is one-to-one: inside the first fold along each ray from the
// principal point. Built once per camera for rays up to a normalised radius; queries are cheap.
class UnfoldedRegion {
 public:
  // max_radius: the largest normalised radius |n| that will be asked about (points beyond it
  // count as folded).
  UnfoldedRegion(const LensCamera& cam, double max_radius);

  // Whether normalised point n lies inside the first fold (the Jacobian of the lens map stays
  // positive along the segment from the axis to n).
  bool contains(Vec2<double> normalized) const;

 private:
  // Squared normalised radius of the first fold (or of the searched disc) per bin of directions
  // from the axis, the nearer of the bin's two sampled ends; one bin for a rotationally
  // symmetric lens.
  std::vector<double> fold_radius2_;
};

}  // namespace splat
