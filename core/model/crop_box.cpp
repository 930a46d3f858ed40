#include "core/model/crop_box.h"

#include <cmath>

namespace splat {
namespace {
Vec3d unit(const Vec3d& v) { return v / norm(v); }

bool inside(const Mat3d& axes, const CropBox& box, const Vec3d& p) {
  const Vec3d local = axes * (p - box.center);
  for (int a = 0; a < 3; ++a)
    if (std::abs(local[a]) > box.half_size[a]) return false;
  return true;
}
}  // namespace

Mat3d box_axes(const CropBox& box) {
  const Vec3d up = unit(box.up);
  // The world axis least aligned with up seeds the side axis.
  Vec3d seed{1, 0, 0};
  if (std::abs(up.y) < std::abs(up.x) && std::abs(up.y) <= std::abs(up.z)) seed = {0, 1, 0};
  else if (std::abs(up.z) < std::abs(up.x) && std::abs(up.z) < std::abs(up.y)) seed = {0, 0, 1};
  const Vec3d side0 = unit(seed - up * dot(seed, up));
  const Vec3d front0 = cross(side0, up);
  const double c = std::cos(box.yaw), s = std::sin(box.yaw);
  const Vec3d side = side0 * c + front0 * s, front = cross(side, up);
  Mat3d axes;
  for (int j = 0; j < 3; ++j) axes.m[0][j] = side[j], axes.m[1][j] = up[j], axes.m[2][j] = front[j];
  return axes;
}

bool contains(const CropBox& box, const Vec3d& p) { return inside(box_axes(box), box, p); }

std::vector<uint8_t> inside_mask(std::span<const float> means, const CropBox& box) {
  const Mat3d axes = box_axes(box);
  std::vector<uint8_t> keep(means.size() / 3);
  for (size_t i = 0; i < keep.size(); ++i) keep[i] = inside(axes, box, {means[3 * i], means[3 * i + 1], means[3 * i + 2]});
  return keep;
}

std::vector<int32_t> rows_inside(std::span<const float> means, const CropBox& box) {
  const std::vector<uint8_t> keep = inside_mask(means, box);
  std::vector<int32_t> rows;
  for (size_t i = 0; i < keep.size(); ++i)
    if (keep[i]) rows.push_back(static_cast<int32_t>(i));
  return rows;
}

GaussianModel cropped(const GaussianModel& model, const CropBox& box) {
  GaussianModel out = model;
  out.keep_rows(inside_mask(model.means, box));
  return out;
}

std::vector<Vec3d> box_corners(const CropBox& box) {
  const Mat3d axes = box_axes(box);
  std::vector<Vec3d> corners;
  for (int bits = 0; bits < 8; ++bits) {
    Vec3d p = box.center;
    for (int a = 0; a < 3; ++a) {
      const Vec3d axis{axes.m[a][0], axes.m[a][1], axes.m[a][2]};
      p = p + axis * ((bits >> a & 1 ? 1.0 : -1.0) * box.half_size[a]);
    }
    corners.push_back(p);
  }
  return corners;
}

}  // namespace splat
