#pragma once
// Geometry of the viewport's line overlays (ground grid, axes, training-camera frustums, the crop box) and the
// GL projection that puts them over the rasterized image. Pure math, no GL: tested without a window.
#include <array>
#include <vector>

#include "core/model/crop_box.h"
#include "core/scene/scene.h"
#include "kernels/hd_math.h"
#include "kernels/rasterizer.h"

namespace splat::ui {

struct LineVertex {
  float pos[3];
  float color[4];
};
using Rgba = std::array<float, 4>;

// Column-major clip-from-world matrix for GL: a point lands on the same pixel as the pinhole
// projection the rasterizer uses (row 0 of the image at the top of the viewport), with depth
// mapped from [near, far] to [-1, 1].
std::array<float, 16> clip_matrix(const kernels::Camera& camera, float near_plane, float far_plane);

// A square grid of `cells` x `cells` in the plane through `center` perpendicular to `up`.
void append_grid(std::vector<LineVertex>& out, const Vec3d& center, const Vec3d& up, double half_size, int cells,
                 const Rgba& color);
// World x, y, z axes from `origin` in red, green, blue.
void append_axes(std::vector<LineVertex>& out, const Vec3d& origin, double length);
// The pyramid of a training camera: centre to the four image corners at distance `depth`.
void append_frustum(std::vector<LineVertex>& out, const SceneView& view, double depth, const Rgba& color);
// The 12 edges of a crop box.
void append_box(std::vector<LineVertex>& out, const CropBox& box, const Rgba& color);

}  // namespace splat::ui
