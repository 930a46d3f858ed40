#include "core/scene/up_axis.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <stdexcept>
#include <string>

namespace splat {
namespace {

Vec3d row(const Mat3d& R, int i) { return {R.m[i][0], R.m[i][1], R.m[i][2]}; }

// The views look off their plane when their mean forward . normal is beyond this (about 3 degrees).
constexpr double kMinLookTilt = 0.05;

// Eigenvalues (ascending) and unit eigenvectors of a symmetric 3x3 matrix, by cyclic Jacobi
// rotations: a handful of sweeps reach double precision, and unlike a closed form it stays accurate
// for the repeated eigenvalues of a perfect ring.
void symmetric_eigen(Mat3d A, double value[3], Vec3d vector[3]) {
  Mat3d V = Mat3d::identity();
  for (int sweep = 0; sweep < 32; ++sweep) {
    const double off = A.m[0][1] * A.m[0][1] + A.m[0][2] * A.m[0][2] + A.m[1][2] * A.m[1][2];
    const double diag = A.m[0][0] * A.m[0][0] + A.m[1][1] * A.m[1][1] + A.m[2][2] * A.m[2][2];
    if (off <= 1e-30 * diag || off == 0) break;
    for (int p = 0; p < 2; ++p)
      for (int q = p + 1; q < 3; ++q) {
        if (A.m[p][q] == 0) continue;
        // The rotation in the (p, q) plane that zeroes A[p][q] (the smaller of the two angles).
        const double theta = (A.m[q][q] - A.m[p][p]) / (2 * A.m[p][q]);
        const double t = (theta >= 0 ? 1.0 : -1.0) / (std::abs(theta) + std::sqrt(theta * theta + 1));
        const double c = 1 / std::sqrt(t * t + 1), s = t * c;
        for (int k = 0; k < 3; ++k) {  // A <- A J
          const double akp = A.m[k][p], akq = A.m[k][q];
          A.m[k][p] = c * akp - s * akq;
          A.m[k][q] = s * akp + c * akq;
        }
        for (int k = 0; k < 3; ++k) {  // A <- J^T A
          const double apk = A.m[p][k], aqk = A.m[q][k];
          A.m[p][k] = c * apk - s * aqk;
          A.m[q][k] = s * apk + c * aqk;
        }
        for (int k = 0; k < 3; ++k) {  // V <- V J: the columns are the eigenvectors
          const double vkp = V.m[k][p], vkq = V.m[k][q];
          V.m[k][p] = c * vkp - s * vkq;
          V.m[k][q] = s * vkp + c * vkq;
        }
      }
  }
  int order[3] = {0, 1, 2};
  std::sort(order, order + 3, [&](int a, int b) { return A.m[a][a] < A.m[b][b]; });
  for (int i = 0; i < 3; ++i) {
    value[i] = std::max(0.0, A.m[order[i]][order[i]]);  // a covariance: rounding may dip below 0
    vector[i] = {V.m[0][order[i]], V.m[1][order[i]], V.m[2][order[i]]};
  }
}

// The mean of the views' up vectors, normalised; throws when they cancel out.
Vec3d mean_camera_up(std::span<const SceneView> views) {
  Vec3d sum{};
  for (const SceneView& v : views) sum = sum - row(v.R, 1);
  if (norm(sum) < 1e-6 * double(views.size()))
    throw std::invalid_argument("estimate_up: the views' up vectors cancel out; the capture has no consistent up");
  return sum / norm(sum);
}

double mean_of(std::span<const SceneView> views, auto&& f) {
  double s = 0;
  for (const SceneView& v : views) s += f(v);
  return s / double(views.size());
}

}  // namespace

const char* up_source_text(UpSource source) {
  return source == UpSource::CameraPlane ? "the normal of the camera centres' plane" : "the cameras' mean up";
}

UpEstimate estimate_up(std::span<const SceneView> views) {
  if (views.empty()) throw std::invalid_argument("estimate_up: the scene has no views");
  UpEstimate e;
  // Three points always lie in a plane: a plane of so few says nothing about the capture.
  if (views.size() >= 4) {
    Vec3d mean{};
    for (const SceneView& v : views) mean = mean + v.camera_center();
    mean = mean / double(views.size());
    Mat3d cov{};
    for (const SceneView& v : views) {
      const Vec3d d = v.camera_center() - mean;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) cov.m[i][j] += d[i] * d[j] / double(views.size());
    }
    Vec3d axes[3];
    symmetric_eigen(cov, e.lambda, axes);
    const Vec3d normal = axes[0] / norm(axes[0]);
    const bool flat = e.lambda[0] <= kMaxPlaneFlatness * e.lambda[1];
    const bool two_dimensional = e.lambda[1] > 0 && e.lambda[1] >= kMinPlaneSpread * e.lambda[2];
    const double facing = mean_of(views, [&](const SceneView& v) { return std::abs(dot(row(v.R, 2), normal)); });
    if (flat && two_dimensional && facing <= kMaxPlaneFacing) {
      const double agreement = mean_of(views, [&](const SceneView& v) { return -dot(row(v.R, 1), normal); });
      const double looking = mean_of(views, [&](const SceneView& v) { return dot(row(v.R, 2), normal); });
      // The sign: the cameras' ups where they say it clearly; else away from where the cameras look
      // (down at the object); a ring looking straight across with sideways ups leaves the ups' faint say.
      double sign = agreement >= 0 ? 1 : -1;
      if (std::abs(agreement) < kMinUpAgreement && std::abs(looking) > kMinLookTilt) sign = looking > 0 ? -1 : 1;
      e.up = normal * sign;
      e.source = UpSource::CameraPlane;
      return e;
    }
  }
  e.up = mean_camera_up(views);
  e.source = UpSource::CameraUp;
  return e;
}

const char* up_axis_name(UpAxis axis) { return kUpAxisNames[static_cast<int>(axis)]; }

std::optional<UpAxis> parse_up_axis(std::string_view name) {
  for (int i = 0; i < int(std::size(kUpAxisNames)); ++i)
    if (name == kUpAxisNames[i]) return static_cast<UpAxis>(i);
  return std::nullopt;
}

Vec3d up_direction(UpAxis axis, std::span<const SceneView> views) {
  if (axis == UpAxis::Auto) return estimate_up(views).up;
  if (axis == UpAxis::Flipped) return -estimate_up(views).up;
  const int k = static_cast<int>(axis) - static_cast<int>(UpAxis::PlusX);
  Vec3d d{};
  d[k / 2] = k % 2 == 0 ? 1.0 : -1.0;
  return d;
}

}  // namespace splat
