#pragma once
// A box in world space that limits which Gaussians are shown and exported (the viewer's crop box).
// It stands upright: one axis is the scene's up direction, so that it can be sized as "this high,
// this wide" whatever COLMAP's own axes are. A Gaussian is inside when its mean is.
#include <cstdint>
#include <span>
#include <vector>

#include "core/model/gaussian_model.h"
#include "kernels/hd_math.h"

namespace splat {

struct CropBox {
  Vec3d center{};
  Vec3d up{0, -1, 0};         // unit; the box's second axis
  Vec3d half_size{1, 1, 1};   // half extents along (side, up, front), the box's own axes (box_axes)
  double yaw = 0;             // turn about up, radians
};

// The box's unit axes in world coordinates as rows: side, up, front (right-handed). Side and front
// follow from up alone (the world axis least aligned with up, made orthogonal), then turn by yaw.
Mat3d box_axes(const CropBox& box);

// Whether the point lies inside the box (on the faces counts as inside).
bool contains(const CropBox& box, const Vec3d& p);

// One entry per Gaussian of a means column ([n, 3]): 1 when its mean lies inside the box.
std::vector<uint8_t> inside_mask(std::span<const float> means, const CropBox& box);
// The rows whose means lie inside, in order (ModelSnapshot::rows takes them).
std::vector<int32_t> rows_inside(std::span<const float> means, const CropBox& box);

// The Gaussians whose means lie inside the box, in their order, every column kept.
GaussianModel cropped(const GaussianModel& model, const CropBox& box);

// The eight corners (in the order of the bits: side, up, front; 0 = minus, 1 = plus half size),
// for drawing the box.
std::vector<Vec3d> box_corners(const CropBox& box);

}  // namespace splat
