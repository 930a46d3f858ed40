#include "ui/orbit_camera.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/scene/camera_path.h"

namespace splat::ui {
namespace {
Vec3d row(const Mat3d& R, int r) { return {R.m[r][0], R.m[r][1], R.m[r][2]}; }
Vec3d normalized(const Vec3d& v) { return v / norm(v); }
// Radians of orbit per pixel of mouse motion: a drag across ~600 px turns about half a turn.
constexpr double kOrbitRadiansPerPixel = 0.005;
// Distance factor per wheel step.
constexpr double kZoomFactorPerStep = 0.9;
// The distance never collapses to zero, where orbit and zoom would stop responding.
constexpr double kMinDistance = 1e-4;
}  // namespace

Mat3d axis_angle(const Vec3d& axis, double angle) {
  // Rodrigues: R = I + sin(a) K + (1 - cos(a)) K^2 with K the cross-product matrix of the axis.
  const double s = std::sin(angle), c = 1 - std::cos(angle);
  const double x = axis.x, y = axis.y, z = axis.z;
  Mat3d R;
  R.m[0][0] = 1 + c * (-y * y - z * z); R.m[0][1] = -s * z + c * x * y;       R.m[0][2] = s * y + c * x * z;
  R.m[1][0] = s * z + c * x * y;        R.m[1][1] = 1 + c * (-x * x - z * z); R.m[1][2] = -s * x + c * y * z;
  R.m[2][0] = -s * y + c * x * z;       R.m[2][1] = s * x + c * y * z;        R.m[2][2] = 1 + c * (-x * x - y * y);
  return R;
}

Mat3d orthonormalized(const Mat3d& R) {
  const Vec3d z = normalized(row(R, 2));
  Vec3d x = row(R, 0);
  x = normalized(x - dot(x, z) * z);
  const Vec3d y = cross(z, x);
  Mat3d out;
  const Vec3d rows[3] = {x, y, z};
  for (int r = 0; r < 3; ++r)
    for (int k = 0; k < 3; ++k) out.m[r][k] = rows[r][k];
  return out;
}

OrbitCamera::OrbitCamera() { home_ = state_; }

Vec3d OrbitCamera::forward() const { return row(state_.R, 2); }
Vec3d OrbitCamera::right() const { return row(state_.R, 0); }
Vec3d OrbitCamera::down() const { return row(state_.R, 1); }
Vec3d OrbitCamera::eye() const { return state_.pivot - state_.distance * forward(); }

void OrbitCamera::set_world_up(const Vec3d& up) { up_ = normalized(up); }
void OrbitCamera::set_fov_y(double radians) { state_.fov_y = std::clamp(radians, 0.05, 3.0); }

void OrbitCamera::rotate_about_pivot(const Vec3d& axis, double angle) {
  // The camera-to-world rotation C = R^T turns into Q C, so R turns into R Q^T; the eye follows
  // because it is derived from pivot, distance and the new forward axis.
  state_.R = orthonormalized(state_.R * transpose(axis_angle(axis, angle)));
}

void OrbitCamera::orbit(double dx, double dy) {
  // Positive turns about up / right move the eye right / down; the scene following the mouse
  // means the eye moves against it.
  rotate_about_pivot(up_, -dx * kOrbitRadiansPerPixel);
  rotate_about_pivot(right(), -dy * kOrbitRadiansPerPixel);
}

void OrbitCamera::pan(double dx, double dy, int viewport_height) {
  // World units per pixel at the pivot's depth, so the pivot stays under the cursor.
  const double per_px = 2 * state_.distance * std::tan(state_.fov_y / 2) / std::max(1, viewport_height);
  state_.pivot += -per_px * (dx * right() + dy * down());
}

void OrbitCamera::zoom(double steps) {
  state_.distance = std::max(kMinDistance, state_.distance * std::pow(kZoomFactorPerStep, steps));
}

void OrbitCamera::fly(const Vec3d& move) { state_.pivot += move.x * right() + move.y * down() + move.z * forward(); }

void OrbitCamera::frame(const Vec3d& center, double radius) {
  state_.pivot = center;
  state_.distance = std::max(kMinDistance, radius / std::sin(state_.fov_y / 2));
}

void OrbitCamera::look_at(const Vec3d& eye, const Vec3d& pivot) {
  state_.R = splat::look_at(eye, pivot, up_);
  state_.pivot = pivot;
  state_.distance = std::max(kMinDistance, norm(pivot - eye));
}

void OrbitCamera::level() {
  // Within about 0.06 degrees of up the horizon's direction is rounding noise: leave the roll alone.
  if (norm(cross(forward(), up_)) < 1e-3) return;
  state_.R = splat::look_at(eye(), state_.pivot, up_);
}

void OrbitCamera::snap_to(const SceneView& view, double pivot_distance) {
  state_.R = view.R;
  state_.distance = std::max(kMinDistance, pivot_distance);
  state_.pivot = view.camera_center() + state_.distance * forward();
  if (view.intrinsics.fy > 0 && view.intrinsics.height > 0)
    state_.fov_y = 2 * std::atan(0.5 * view.intrinsics.height / view.intrinsics.fy);
}

kernels::Camera OrbitCamera::camera(int width, int height) const {
  kernels::Camera c;
  const Vec3d e = eye();
  for (int r = 0; r < 3; ++r) {
    for (int k = 0; k < 3; ++k) c.R[r * 3 + k] = static_cast<float>(state_.R.m[r][k]);
    c.t[r] = static_cast<float>(-dot(row(state_.R, r), e));
  }
  c.fx = c.fy = static_cast<float>(0.5 * height / std::tan(state_.fov_y / 2));
  c.cx = 0.5f * width;
  c.cy = 0.5f * height;
  c.width = width;
  c.height = height;
  return c;
}

int nearest_view(std::span<const SceneView> views, std::span<const int> candidates, const Vec3d& eye) {
  int best = -1;
  double best_d = std::numeric_limits<double>::infinity();
  for (int i : candidates) {
    const double d = norm(views[i].camera_center() - eye);
    if (d < best_d) best_d = d, best = i;
  }
  return best;
}

int step_view(std::span<const int> candidates, int current, int delta) {
  const int n = static_cast<int>(candidates.size());
  if (n == 0) return -1;
  const auto it = std::find(candidates.begin(), candidates.end(), current);
  if (it == candidates.end()) return delta > 0 ? candidates.front() : candidates.back();
  const int pos = static_cast<int>(it - candidates.begin());
  return candidates[((pos + delta) % n + n) % n];
}

}  // namespace splat::ui
