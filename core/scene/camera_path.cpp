#include "core/scene/camera_path.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

namespace splat {
namespace {

constexpr double kPi = 3.14159265358979323846;

Vec3d row(const Mat3d& R, int i) { return {R.m[i][0], R.m[i][1], R.m[i][2]}; }
Vec3d normalized(Vec3d v) { return v / norm(v); }

void require_views(std::span<const SceneView> views, const char* who) {
  if (views.empty()) throw std::invalid_argument(std::string(who) + ": the scene has no views");
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Output size: 0 takes the first view's, one of them 0 keeps its aspect ratio.
void output_size(const SceneView& v, int& width, int& height) {
  const int vw = v.intrinsics.width, vh = v.intrinsics.height;
  if (width == 0 && height == 0) width = vw, height = vh;
  if (width == 0) width = std::max(1, int(std::lround(double(height) * vw / vh)));
  if (height == 0) height = std::max(1, int(std::lround(double(width) * vh / vw)));
}

// A camera at `centre` with rotation R (rows: right, down, forward), the field of view of view `v`
// across the width, square pixels, principal point at the centre.
kernels::Camera make_camera(const Mat3d& R, Vec3d centre, const SceneView& v, int width, int height) {
  kernels::Camera cam;
  const Vec3d t = -(R * centre);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) cam.R[3 * i + j] = float(R.m[i][j]);
    cam.t[i] = float(t[i]);
  }
  cam.fx = cam.fy = float(v.intrinsics.fx * width / v.intrinsics.width);
  cam.cx = 0.5f * float(width);
  cam.cy = 0.5f * float(height);
  cam.width = width;
  cam.height = height;
  return cam;
}

// Unit quaternion (w, x, y, z) of a rotation matrix (Shepperd's method: the largest diagonal term).
std::array<double, 4> to_quat(const Mat3d& R) {
  const auto& m = R.m;
  const double tr = m[0][0] + m[1][1] + m[2][2];
  std::array<double, 4> q;
  if (tr > 0) {
    const double s = 2 * std::sqrt(1 + tr);
    q = {0.25 * s, (m[2][1] - m[1][2]) / s, (m[0][2] - m[2][0]) / s, (m[1][0] - m[0][1]) / s};
  } else if (m[0][0] > m[1][1] && m[0][0] > m[2][2]) {
    const double s = 2 * std::sqrt(1 + m[0][0] - m[1][1] - m[2][2]);
    q = {(m[2][1] - m[1][2]) / s, 0.25 * s, (m[0][1] + m[1][0]) / s, (m[0][2] + m[2][0]) / s};
  } else if (m[1][1] > m[2][2]) {
    const double s = 2 * std::sqrt(1 + m[1][1] - m[0][0] - m[2][2]);
    q = {(m[0][2] - m[2][0]) / s, (m[0][1] + m[1][0]) / s, 0.25 * s, (m[1][2] + m[2][1]) / s};
  } else {
    const double s = 2 * std::sqrt(1 + m[2][2] - m[0][0] - m[1][1]);
    q = {(m[1][0] - m[0][1]) / s, (m[0][2] + m[2][0]) / s, (m[1][2] + m[2][1]) / s, 0.25 * s};
  }
  return q;
}

Mat3d slerp(const Mat3d& A, const Mat3d& B, double u) {
  std::array<double, 4> a = to_quat(A), b = to_quat(B);
  double dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
  if (dot < 0) {  // the shorter way round
    for (double& x : b) x = -x;
    dot = -dot;
  }
  std::array<double, 4> q;
  if (dot > 0.9995) {  // nearly equal: linear, then normalised
    for (int i = 0; i < 4; ++i) q[i] = a[i] + u * (b[i] - a[i]);
  } else {
    const double theta = std::acos(dot), s = std::sin(theta);
    const double wa = std::sin((1 - u) * theta) / s, wb = std::sin(u * theta) / s;
    for (int i = 0; i < 4; ++i) q[i] = wa * a[i] + wb * b[i];
  }
  const double n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  return quat_to_rotmat(q[0] / n, q[1] / n, q[2] / n, q[3] / n);
}

}  // namespace

Mat3d look_at(Vec3d eye, Vec3d target, Vec3d up) {
  const Vec3d f = normalized(target - eye);
  const Vec3d r = normalized(cross(-up, f));
  const Vec3d d = cross(f, r);
  Mat3d R;
  for (int j = 0; j < 3; ++j) R.m[0][j] = r[j], R.m[1][j] = d[j], R.m[2][j] = f[j];
  return R;
}

Vec3d focus_point(std::span<const SceneView> views) {
  require_views(views, "focus_point");
  // Minimise sum |(I - d d^T)(p - c)|^2 over p: (sum (I - d d^T)) p = sum (I - d d^T) c.
  Mat3d A{};
  Vec3d b{}, centres{}, dirs{};
  for (const SceneView& v : views) {
    const Vec3d c = v.camera_center(), d = row(v.R, 2);
    Mat3d P;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) P.m[i][j] = (i == j ? 1.0 : 0.0) - d[i] * d[j];
    A = A + P;
    b = b + P * c;
    centres = centres + c;
    dirs = dirs + d;
  }
  const double n = double(views.size());
  const double det = determinant(A);
  if (std::abs(det) > 1e-6 * n * n * n) {  // well conditioned: solve by Cramer's rule
    Vec3d p;
    for (int k = 0; k < 3; ++k) {
      Mat3d Ak = A;
      for (int i = 0; i < 3; ++i) Ak.m[i][k] = b[i];
      p[k] = determinant(Ak) / det;
    }
    return p;
  }
  // Parallel axes (a forward-facing capture): a point ahead of the mean camera.
  const Vec3d mean_c = centres / n;
  double dist = 0;
  for (const SceneView& v : views) dist += norm(v.camera_center() - mean_c);
  return mean_c + normalized(dirs) * std::max(dist / n, 1.0);
}

std::vector<CameraPose> orbit_poses(std::span<const SceneView> views, int frames, std::optional<Vec3d> given_up) {
  require_views(views, "orbit path");
  if (frames < 1) throw std::invalid_argument("orbit path: needs at least 1 frame, got " + std::to_string(frames));
  const Vec3d up = given_up ? normalized(*given_up) : estimate_up(views).up, focus = focus_point(views);
  std::vector<double> radius, lift;
  for (const SceneView& v : views) {
    const Vec3d off = v.camera_center() - focus;
    lift.push_back(dot(off, up));
    radius.push_back(norm(off - up * dot(off, up)));
  }
  const double r = std::max(median(radius), 1e-6), h = median(lift);
  // Azimuth basis in the plane perpendicular to up, starting at the first view.
  Vec3d e1 = views[0].camera_center() - focus;
  e1 = e1 - up * dot(e1, up);
  if (norm(e1) < 1e-9) e1 = std::abs(up.x) < 0.9 ? cross(up, Vec3d{1, 0, 0}) : cross(up, Vec3d{0, 1, 0});
  e1 = normalized(e1);
  const Vec3d e2 = cross(up, e1);
  std::vector<CameraPose> out;
  for (int k = 0; k < frames; ++k) {
    const double a = 2 * kPi * k / frames;
    const Vec3d eye = focus + up * h + (e1 * std::cos(a) + e2 * std::sin(a)) * r;
    out.push_back({look_at(eye, focus, up), eye});
  }
  return out;
}

std::vector<kernels::Camera> orbit_path(std::span<const SceneView> views, int frames, int width, int height,
                                        std::optional<Vec3d> up) {
  std::vector<CameraPose> poses = orbit_poses(views, frames, up);
  output_size(views[0], width, height);
  std::vector<kernels::Camera> out;
  for (const CameraPose& p : poses) out.push_back(make_camera(p.R, p.centre, views[0], width, height));
  return out;
}

std::vector<kernels::Camera> views_path(std::span<const SceneView> views, int frames, int width, int height) {
  require_views(views, "camera path");
  if (frames < 0) throw std::invalid_argument("camera path: a negative frame count");
  output_size(views[0], width, height);
  std::vector<kernels::Camera> out;
  if (frames == 0) {
    for (const SceneView& v : views) out.push_back(make_camera(v.R, v.camera_center(), v, width, height));
    return out;
  }
  const double last = double(views.size() - 1);
  for (int k = 0; k < frames; ++k) {
    const double s = frames == 1 ? 0 : last * k / (frames - 1);
    const size_t i = std::min(size_t(s), views.size() - 1), j = std::min(i + 1, views.size() - 1);
    const double u = s - double(i);
    const Vec3d c = views[i].camera_center() * (1 - u) + views[j].camera_center() * u;
    out.push_back(make_camera(slerp(views[i].R, views[j].R, u), c, views[i], width, height));
  }
  return out;
}

}  // namespace splat
