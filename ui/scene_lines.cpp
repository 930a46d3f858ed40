#include "ui/scene_lines.h"

#include <cmath>

namespace splat::ui {
namespace {
void add_line(std::vector<LineVertex>& out, const Vec3d& a, const Vec3d& b, const Rgba& c) {
  for (const Vec3d& p : {a, b})
    out.push_back({{float(p.x), float(p.y), float(p.z)}, {c[0], c[1], c[2], c[3]}});
}
}  // namespace

std::array<float, 16> clip_matrix(const kernels::Camera& k, float n, float f) {
  const double W = k.width, H = k.height;
  // Projection rows acting on camera coordinates (x right, y down, z forward): NDC x = 2u/W - 1 and
  // NDC y = 1 - 2v/H (GL's y points up) with u = fx x/z + cx, v = fy y/z + cy; clip w = z.
  const double P[4][3] = {{2 * k.fx / W, 0, 2 * k.cx / W - 1},
                          {0, -2 * k.fy / H, 1 - 2 * k.cy / H},
                          {0, 0, (f + n) / double(f - n)},
                          {0, 0, 1}};
  const double Pt[4] = {0, 0, -2.0 * f * n / (f - n), 0};
  std::array<float, 16> M{};
  for (int r = 0; r < 4; ++r) {
    for (int c = 0; c < 3; ++c) {
      double v = 0;
      for (int i = 0; i < 3; ++i) v += P[r][i] * k.R[i * 3 + c];
      M[c * 4 + r] = float(v);
    }
    double v = Pt[r];
    for (int i = 0; i < 3; ++i) v += P[r][i] * k.t[i];
    M[12 + r] = float(v);
  }
  return M;
}

void append_grid(std::vector<LineVertex>& out, const Vec3d& center, const Vec3d& up, double half_size, int cells,
                 const Rgba& color) {
  const Vec3d n = up / norm(up);
  // Any direction not parallel to n gives the first in-plane axis.
  const Vec3d helper = std::abs(n.x) < 0.9 ? Vec3d{1, 0, 0} : Vec3d{0, 1, 0};
  Vec3d u = cross(n, helper);
  u = u / norm(u);
  const Vec3d v = cross(n, u);
  for (int i = 0; i <= cells; ++i) {
    const double s = -half_size + 2 * half_size * i / cells;
    add_line(out, center + s * u - half_size * v, center + s * u + half_size * v, color);
    add_line(out, center - half_size * u + s * v, center + half_size * u + s * v, color);
  }
}

void append_axes(std::vector<LineVertex>& out, const Vec3d& origin, double length) {
  add_line(out, origin, origin + Vec3d{length, 0, 0}, {1.f, 0.2f, 0.2f, 1.f});
  add_line(out, origin, origin + Vec3d{0, length, 0}, {0.2f, 1.f, 0.2f, 1.f});
  add_line(out, origin, origin + Vec3d{0, 0, length}, {0.3f, 0.4f, 1.f, 1.f});
}

void append_frustum(std::vector<LineVertex>& out, const SceneView& view, double depth, const Rgba& color) {
  const PinholeIntrinsics& in = view.intrinsics;
  const Mat3d to_world = transpose(view.R);
  const Vec3d c = view.camera_center();
  Vec3d corners[4];
  const double us[4] = {0, double(in.width), double(in.width), 0};
  const double vs[4] = {0, 0, double(in.height), double(in.height)};
  for (int i = 0; i < 4; ++i) {
    const Vec3d ray{(us[i] - in.cx) / in.fx * depth, (vs[i] - in.cy) / in.fy * depth, depth};
    corners[i] = c + to_world * ray;
  }
  for (int i = 0; i < 4; ++i) {
    add_line(out, c, corners[i], color);
    add_line(out, corners[i], corners[(i + 1) % 4], color);
  }
}

void append_box(std::vector<LineVertex>& out, const CropBox& box, const Rgba& color) {
  const std::vector<Vec3d> corners = box_corners(box);
  // The 12 edges join corners whose indices differ in one bit (one axis).
  for (int i = 0; i < 8; ++i)
    for (int bit = 1; bit < 8; bit <<= 1)
      if (!(i & bit)) add_line(out, corners[i], corners[i | bit], color);
}

}  // namespace splat::ui
