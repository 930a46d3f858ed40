#include "core/scene/lens_model.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "core/scene/colmap_reader.h"

namespace splat {

namespace {

using V2 = Vec2<double>;

// sqrt rather than std::hypot: this runs per pixel, and hypot's overflow care costs several times more.
double length(V2 v) { return std::sqrt(v.x * v.x + v.y * v.y); }

constexpr double kPi = 3.14159265358979323846;
constexpr double kHalfPi = kPi / 2;

// Row-major 2x2 Jacobian.
struct Jacobian {
  double xx = 1, xy = 0, yx = 0, yy = 1;
  double det() const { return xx * yy - xy * yx; }
};

struct Distorted {
  V2 value;
  Jacobian jac;
};

bool has_single_focal(CameraModel m) {
  switch (m) {
    case CameraModel::SimplePinhole:
    case CameraModel::SimpleRadial:
    case CameraModel::Radial:
    case CameraModel::SimpleRadialFisheye:
    case CameraModel::RadialFisheye: return true;
    default: return false;
  }
}

// Models that distort the equidistant plane (radius = the ray's angle from the axis); the
// others, FOV included, distort the pinhole plane.
bool distorts_angle_plane(CameraModel m) {
  return m == CameraModel::OpenCVFisheye || m == CameraModel::SimpleRadialFisheye || m == CameraModel::RadialFisheye ||
         m == CameraModel::ThinPrismFisheye;
}

// Normalised coordinates -> the model's own plane. The fisheye models replace the radius
// r = tan(theta) by theta itself, as COLMAP does (below machine epsilon the ray is the axis).
V2 to_model_plane(const LensCamera& c, V2 n) {
  if (!distorts_angle_plane(c.model)) return n;
  const double r = length(n);
  if (r <= std::numeric_limits<double>::epsilon()) return n;
  const double s = std::atan(r) / r;
  return {n.x * s, n.y * s};
}

double model_plane_radius(const LensCamera& c, double normalized_radius) {
  return distorts_angle_plane(c.model) ? std::atan(normalized_radius) : normalized_radius;
}

// The model's plane -> normalised coordinates; empty at or beyond 90 degrees.
std::optional<V2> from_model_plane(const LensCamera& c, V2 q) {
  if (!distorts_angle_plane(c.model)) return q;
  const double theta = length(q);
  if (theta >= kHalfPi) return std::nullopt;
  if (theta <= std::numeric_limits<double>::epsilon()) return q;
  const double s = std::tan(theta) / theta;
  return V2{q.x * s, q.y * s};
}

// Every model is p -> p * scale(r^2) + tangential(p) + thin prism(p) on its plane; this is the
// radial factor and its derivative with respect to r^2.
struct RadialScale {
  double s = 1, ds_dr2 = 0;
};

// FOV (Devernay & Faugeras): r_d = atan(2 r tan(omega / 2)) / omega, i.e. the factor
// atan(2 r tan(omega / 2)) / (r omega), with COLMAP's two series for small omega and small r
// (threshold 1e-4 on omega^2 and r^2). COLMAP's small-omega series, 1 + omega^2 r^2 / 3 -
// omega^2 / 12, is the series of the inverse factor (the true one has the opposite signs); we
// keep it because COLMAP fitted omega with exactly this forward map.
RadialScale fov_scale(double omega, double r2) {
  constexpr double kEps = 1e-4;
  const double w2 = omega * omega;
  if (w2 < kEps) return {w2 * r2 / 3 - w2 / 12 + 1, w2 / 3};
  const double t = std::tan(omega / 2);
  if (r2 < kEps) return {-2 * t * (4 * r2 * t * t - 3) / (3 * omega), -8 * t * t * t / (3 * omega)};
  const double r = std::sqrt(r2);
  const double a = std::atan(2 * r * t);
  const double s = a / (r * omega);
  // d s / d r = (2 t r / (1 + 4 r^2 t^2) - atan(2 r t)) / (omega r^2); d r^2 = 2 r d r.
  const double ds_dr = (2 * t * r / (1 + 4 * r2 * t * t) - a) / (omega * r2);
  return {s, ds_dr / (2 * r)};
}

RadialScale radial_scale(const LensCamera& c, double r2) {
  const auto& e = c.extra;
  // Polynomial 1 + c1 r2 + c2 r2^2 + ... with its derivative (Horner).
  auto poly = [r2](std::initializer_list<double> coeffs) {
    double s = 0, ds = 0;
    const double* k = coeffs.end();
    while (k != coeffs.begin()) {
      --k;
      ds = ds * r2 + s;
      s = s * r2 + *k;
    }
    return RadialScale{1 + s * r2, s + ds * r2};
  };
  switch (c.model) {
    case CameraModel::SimplePinhole:
    case CameraModel::Pinhole: return {};
    case CameraModel::SimpleRadial:
    case CameraModel::SimpleRadialFisheye: return poly({e[0]});
    case CameraModel::Radial:
    case CameraModel::RadialFisheye:
    case CameraModel::OpenCV: return poly({e[0], e[1]});
    case CameraModel::OpenCVFisheye: return poly({e[0], e[1], e[2], e[3]});
    case CameraModel::ThinPrismFisheye: return poly({e[0], e[1], e[4], e[5]});  // k1 k2 p1 p2 k3 k4 sx1 sy1
    case CameraModel::FullOpenCV: {
      // (1 + k1 r2 + k2 r4 + k3 r6) / (1 + k4 r2 + k5 r4 + k6 r6); k1 k2 p1 p2 k3 k4 k5 k6
      const RadialScale num = poly({e[0], e[1], e[4]});
      const RadialScale den = poly({e[5], e[6], e[7]});
      return {num.s / den.s, (num.ds_dr2 * den.s - num.s * den.ds_dr2) / (den.s * den.s)};
    }
    case CameraModel::FOV: return fov_scale(e[0], r2);
  }
  return {};
}

// Tangential (p1, p2) and thin-prism (sx1, sy1) coefficients, zero where the model has none.
struct Decentering {
  double p1 = 0, p2 = 0, sx1 = 0, sy1 = 0;
};

Decentering decentering(const LensCamera& c) {
  const auto& e = c.extra;
  switch (c.model) {
    case CameraModel::OpenCV:
    case CameraModel::FullOpenCV: return {e[2], e[3], 0, 0};
    case CameraModel::ThinPrismFisheye: return {e[2], e[3], e[6], e[7]};
    default: return {};
  }
}

bool is_rotationally_symmetric(const LensCamera& c) {
  const Decentering d = decentering(c);
  return d.p1 == 0 && d.p2 == 0 && d.sx1 == 0 && d.sy1 == 0;
}

// The distortion on the model's plane and its Jacobian.
Distorted distort_model_plane(const LensCamera& c, V2 p) {
  const double xx = p.x * p.x, yy = p.y * p.y, xy = p.x * p.y;
  const double r2 = xx + yy;
  const RadialScale rs = radial_scale(c, r2);
  const Decentering d = decentering(c);
  Distorted out;
  out.value.x = p.x * rs.s + 2 * d.p1 * xy + d.p2 * (r2 + 2 * xx) + d.sx1 * r2;
  out.value.y = p.y * rs.s + 2 * d.p2 * xy + d.p1 * (r2 + 2 * yy) + d.sy1 * r2;
  // d(p s(r2)) = s I + 2 s' p p^T; the tangential and prism terms are quadratic in p.
  out.jac.xx = rs.s + 2 * rs.ds_dr2 * xx + 2 * d.p1 * p.y + 6 * d.p2 * p.x + 2 * d.sx1 * p.x;
  out.jac.xy = 2 * rs.ds_dr2 * xy + 2 * d.p1 * p.x + 2 * d.p2 * p.y + 2 * d.sx1 * p.y;
  out.jac.yx = 2 * rs.ds_dr2 * xy + 2 * d.p2 * p.y + 2 * d.p1 * p.x + 2 * d.sy1 * p.x;
  out.jac.yy = rs.s + 2 * rs.ds_dr2 * yy + 2 * d.p2 * p.x + 6 * d.p1 * p.y + 2 * d.sy1 * p.y;
  return out;
}

bool unfolded_at(const LensCamera& c, V2 p) {
  const double det = distort_model_plane(c, p).jac.det();
  return std::isfinite(det) && det > 0;
}

// Radius on the model's plane of the first fold along unit direction dir (where the Jacobian
// of the lens map stops being positive), searched up to max_radius; infinity when there is
// none there. Sampled at 1024 steps, then bisected to machine precision.
double first_fold_radius(const LensCamera& c, V2 dir, double max_radius) {
  constexpr int kSteps = 1024;
  const double h = max_radius / kSteps;
  for (int i = 1; i <= kSteps; ++i) {
    const double r = i * h;
    if (unfolded_at(c, r * dir)) continue;
    double lo = r - h, hi = r;
    for (int k = 0; k < 60 && hi - lo > 1e-15 * hi; ++k) {
      const double mid = 0.5 * (lo + hi);
      (unfolded_at(c, mid * dir) ? lo : hi) = mid;
    }
    return lo;
  }
  return std::numeric_limits<double>::infinity();
}

constexpr int kFoldDirections = 360;
constexpr int kFoldSamples = 16;

}  // namespace

LensCamera lens_camera(CameraModel model, int width, int height, const std::vector<double>& p) {
  const int want = colmap::model_param_count(model);
  if (static_cast<int>(p.size()) != want)
    throw std::invalid_argument(std::string(camera_model_name(model)) + " takes " + std::to_string(want) +
                                " parameters, got " + std::to_string(p.size()));
  LensCamera c;
  c.model = model;
  c.width = width;
  c.height = height;
  size_t next;
  if (has_single_focal(model)) {
    c.fx = c.fy = p[0];
    c.cx = p[1];
    c.cy = p[2];
    next = 3;
  } else {
    c.fx = p[0];
    c.fy = p[1];
    c.cx = p[2];
    c.cy = p[3];
    next = 4;
  }
  for (size_t i = next; i < p.size(); ++i) c.extra[i - next] = p[i];
  return c;
}

bool is_fisheye(CameraModel m) { return distorts_angle_plane(m) || m == CameraModel::FOV; }

bool has_distortion(const LensCamera& c) {
  if (is_fisheye(c.model)) return true;
  for (double e : c.extra)
    if (e != 0) return true;
  return false;
}

LensCamera resized(const LensCamera& cam, int width, int height) {
  LensCamera c = cam;
  const double sx = static_cast<double>(width) / cam.width;
  const double sy = static_cast<double>(height) / cam.height;
  c.width = width;
  c.height = height;
  c.fx *= sx;
  c.cx *= sx;
  c.fy *= sy;
  c.cy *= sy;
  return c;
}

Vec2<double> distort_normalized(const LensCamera& c, Vec2<double> n) {
  return distort_model_plane(c, to_model_plane(c, n)).value;
}

std::optional<Vec2<double>> undistort_normalized(const LensCamera& c, Vec2<double> d) {
  // Newton on the model's plane from the distorted point (where a mild lens puts the answer),
  // each step limited to a tenth of the current radius (at least 0.1) so that a near-singular
  // Jacobian close to a fold does not throw the iterate far onto another branch.
  constexpr int kMaxIterations = 100;
  constexpr double kTolerance = 1e-13;
  V2 x = d;
  bool converged = false;
  for (int i = 0; i < kMaxIterations; ++i) {
    const Distorted f = distort_model_plane(c, x);
    const V2 res = f.value - d;
    if (length(res) <= kTolerance * std::max(1.0, length(d))) {
      converged = true;
      break;
    }
    const double det = f.jac.det();
    if (!std::isfinite(det) || det == 0) return std::nullopt;
    V2 step{(f.jac.yy * res.x - f.jac.xy * res.y) / det, (f.jac.xx * res.y - f.jac.yx * res.x) / det};
    const double len = length(step);
    const double limit = std::max(0.1, 0.1 * length(x));
    if (len > limit) step = (limit / len) * step;
    x = x - step;
  }
  if (!converged) return std::nullopt;
  // A folding lens reaches some distorted points a second time past its fold; that preimage
  // is not the ray the photo shows. The Jacobian must stay positive on the way out to it
  // (checked at kFoldSamples points: this runs per pixel, where UnfoldedRegion runs per camera).
  for (int i = 1; i <= kFoldSamples; ++i) {
    const double t = static_cast<double>(i) / kFoldSamples;
    if (!unfolded_at(c, t * x)) return std::nullopt;
  }
  return from_model_plane(c, x);
}

UnfoldedRegion::UnfoldedRegion(const LensCamera& cam, double max_radius) {
  // A little beyond the largest radius asked about, so that points on it are decided by the lens.
  const double search = model_plane_radius(cam, max_radius) * 1.001 + 1e-12;
  const int directions = is_rotationally_symmetric(cam) ? 1 : kFoldDirections;
  // Fold radius per sampled direction, back in normalised units (where queries are made).
  std::vector<double> fold(directions);
  for (int i = 0; i < directions; ++i) {
    const double a = 2 * kPi * i / directions;
    const double plane = std::min(first_fold_radius(cam, {std::cos(a), std::sin(a)}, search), search);
    fold[i] = !distorts_angle_plane(cam.model) ? plane
              : plane < kHalfPi               ? std::tan(plane)
                                              : std::numeric_limits<double>::infinity();
  }
  // Between two sampled directions the nearer fold of the two counts.
  fold_radius2_.resize(directions);
  for (int i = 0; i < directions; ++i) {
    const double r = std::min(fold[i], fold[(i + 1) % directions]);
    fold_radius2_[i] = r * r;
  }
}

bool UnfoldedRegion::contains(Vec2<double> n) const {
  const double r2 = n.x * n.x + n.y * n.y;
  if (fold_radius2_.size() == 1) return r2 < fold_radius2_[0];
  const int dirs = static_cast<int>(fold_radius2_.size());
  double a = std::atan2(n.y, n.x) / (2 * kPi) * dirs;
  if (a < 0) a += dirs;
  return r2 < fold_radius2_[static_cast<int>(a) % dirs];
}

}  // namespace splat
