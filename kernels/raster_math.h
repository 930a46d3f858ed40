#pragma once
// The per-Gaussian and per-pixel math of the rasterizer, shared literally by the CPU reference
// (kernels/cpu) and the CUDA kernels (kernels/cuda), so both backends evaluate one function.
// Everything is templated on the scalar T: float in the backends, double in the
// finite-difference tests. Every forward function has its hand-written vector-Jacobian product
// (suffix _vjp) right below it; a _vjp takes the forward inputs (it recomputes what it needs)
// plus the upstream gradient and returns or ACCUMULATES (+=, said per function) input gradients.
//
// Gradient conventions:
//  * Mat3 gradients are with respect to all 9 entries independently; where a symmetric matrix
//    is an input (Σ_cam in project_ewa) the returned gradient is the symmetric one.
//  * Sym2 {xx, xy, yy} gradients are with respect to the three STORED numbers: xy appears in
//    both off-diagonal slots, so d/dxy = 2 × (full-matrix gradient of one off-diagonal entry).
//
// Contents (forward -> VJP):
//  1. Quat, quat_normalize / _vjp, quat_to_rotmat_vjp (hd_math.h has the forward),
//     covariance3d(q_raw, log_scale) -> Mat3 Σ = R S Sᵀ Rᵀ        / covariance3d_vjp -> dq_raw, dlog_scale
//  2. world_to_camera(cam, p) -> R p + t                          / world_to_camera_vjp -> dp
//     cov_world_to_camera(cam, Σ) -> W Σ Wᵀ                      / cov_world_to_camera_vjp -> dΣ
//     camera_centre(cam) -> -Rᵀ t
//     ewa_jacobian(cam, p_cam) -> EwaJacobian (the clamped 2x3 projection Jacobian)
//     project_ewa(cam, p_cam, Σ_cam, eps2d) -> mean2d, Σ2d (dilated) / project_ewa_vjp -> dp_cam, dΣ_cam
//  3. sym2_det; conic_from_cov2d(Σ2d) -> Σ2d⁻¹                            / conic_from_cov2d_vjp -> dΣ2d
//     aa_opacity_compensation(Σ2d, eps2d) -> sqrt(det(Σ2d - eps I)/det Σ2d) / _vjp -> dΣ2d
//     sigmoid(x) (kernels/hd_math.h, shared with host code)
//  4. screen_half_extent(opacity, Σ2d, hx, hy) -> bool (false: culled, α never reaches 1/255)
//     tiles_along(px); alpha_level_k2, CellRows / TileRows: the tiles (or cells) the α >= 1/255 ellipse
//     reaches, row by row; warp_cells_reached: which of a tile's 8 x 4 warp cells it reaches
//     project_gaussian(...) -> ProjectedGaussian (1-4 composed, with the visibility rule)
//     project_gaussian_vjp(...) accumulates into dmean, dq_raw, dlog_scale, dlogit
//     ndc_grad_norm, screen_radius_fraction: the DensifyStats definitions
//  5. sh_basis(degree, unit dir, b[16]) and sh_basis_vjp
//     sh_color(degree, dir, dc, rest) -> Vec3 (SH + 0.5, clamped at 0)
//     sh_color_vjp(...) accumulates into ddc, drest, ddir (unnormalised direction)
//  6. Per pixel: gaussian_alpha(...) -> α (0 when skipped), gaussian_alpha_vjp(...) (or its
//     conic moments, gaussian_alpha_vjp_moments, and conic_gradient once per sum of them)
//     PixelCompositor (front to back: add(), finish()), PixelReplay (back to front: the
//     gradient of α, colour and z of each composited Gaussian from the output gradients),
//     replay_resume (where a replay split into chunks starts each chunk).
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels/hd_math.h"
#include "kernels/rasterizer.h"
#include "kernels/storage_math.h"

namespace splat::raster {

// Rasterizer constants shared by both backends.
inline constexpr int kTileSize = 16;                // pixels per tile side
inline constexpr double kMaxAlpha = 0.99;           // α clamp, keeps 1 - α away from 0 for the replay
inline constexpr double kMinAlpha = 1.0 / 255.0;    // Gaussians below this α are skipped for a pixel
inline constexpr double kMinTransmittance = 1e-4;   // a pixel stops before T would drop below this
inline constexpr double kFovClamp = 1.3;            // x/z, y/z clamped to 1.3x the half field of view (Jacobian only)
inline constexpr double kDepthAlphaFloor = 1e-10;   // depth = Σ αᵢTᵢzᵢ / max(alpha, floor)
inline constexpr int kMaxShCoeffs = 16;             // degree 3

// The key a covering pair is depth-sorted by: its positive float depth's bit pattern without the sign
// bit (always 0) and the 7 lowest mantissa bits. These 24 bits order as the depths do, to 2^-16 of
// their value (0.1 mm at 5 m); pairs whose depths share a key keep their pair order on both backends,
// as exact ties always did. The radix sort then takes three 8-bit passes instead of four.
inline constexpr int kDepthKeyBits = 24;
SPLAT_HD uint32_t depth_sort_key(float depth) { return kernels::float_bits(depth) >> (31 - kDepthKeyBits); }

template <class T> SPLAT_HD T hd_min(T a, T b) { return a < b ? a : b; }
template <class T> SPLAT_HD T hd_max(T a, T b) { return a > b ? a : b; }

// A symmetric 2x2 matrix stored as its three distinct entries.
template <class T>
struct Sym2 {
  T xx{}, xy{}, yy{};
};

// Quaternion (w, x, y, z), the storage order of GaussiansView::quats.
template <class T>
struct Quat {
  T w{}, x{}, y{}, z{};
};

template <class T> SPLAT_HD Mat3<T> mat3_from_rowmajor(const float* m) {
  Mat3<T> r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) r.m[i][j] = T(m[3 * i + j]);
  return r;
}

// ---------------------------------------------------------------- 1. 3D covariance

template <class T> SPLAT_HD Quat<T> quat_normalize(Quat<T> q) {
  const T inv = T(1) / std::sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
  return {q.w * inv, q.x * inv, q.y * inv, q.z * inv};
}
// dq_raw from the gradient dn of the normalised quaternion: (dn - n (n·dn)) / |q|.
template <class T> SPLAT_HD Quat<T> quat_normalize_vjp(Quat<T> q, Quat<T> dn) {
  const T len = std::sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
  const Quat<T> n{q.w / len, q.x / len, q.y / len, q.z / len};
  const T nd = n.w * dn.w + n.x * dn.x + n.y * dn.y + n.z * dn.z;
  return {(dn.w - n.w * nd) / len, (dn.x - n.x * nd) / len, (dn.y - n.y * nd) / len, (dn.z - n.z * nd) / len};
}

// Gradient of quat_to_rotmat (hd_math.h) with respect to its (already unit) quaternion.
template <class T> SPLAT_HD Quat<T> quat_to_rotmat_vjp(Quat<T> q, const Mat3<T>& G) {
  const T w = q.w, x = q.x, y = q.y, z = q.z;
  const auto& g = G.m;
  Quat<T> d;
  d.w = 2 * (-z * g[0][1] + y * g[0][2] + z * g[1][0] - x * g[1][2] - y * g[2][0] + x * g[2][1]);
  d.x = 2 * (y * g[0][1] + z * g[0][2] + y * g[1][0] - 2 * x * g[1][1] - w * g[1][2] + z * g[2][0] + w * g[2][1] -
             2 * x * g[2][2]);
  d.y = 2 * (-2 * y * g[0][0] + x * g[0][1] + w * g[0][2] + x * g[1][0] + z * g[1][2] - w * g[2][0] + z * g[2][1] -
             2 * y * g[2][2]);
  d.z = 2 * (-2 * z * g[0][0] - w * g[0][1] + x * g[0][2] + w * g[1][0] - 2 * z * g[1][1] + y * g[1][2] + x * g[2][0] +
             y * g[2][1]);
  return d;
}

// Σ = M Mᵀ with M = R(normalised q) diag(exp(log_scale)).
template <class T> SPLAT_HD Mat3<T> covariance3d(Quat<T> q_raw, Vec3<T> log_scale) {
  const Quat<T> q = quat_normalize(q_raw);
  Mat3<T> M = quat_to_rotmat(q.w, q.x, q.y, q.z);
  const T s[3] = {std::exp(log_scale.x), std::exp(log_scale.y), std::exp(log_scale.z)};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) M.m[i][j] *= s[j];
  return M * transpose(M);
}
// Overwrites dq_raw and dlog_scale with the gradients from dSigma (all 9 entries).
template <class T>
SPLAT_HD void covariance3d_vjp(Quat<T> q_raw, Vec3<T> log_scale, const Mat3<T>& dSigma, Quat<T>& dq_raw,
                               Vec3<T>& dlog_scale) {
  const Quat<T> q = quat_normalize(q_raw);
  const Mat3<T> R = quat_to_rotmat(q.w, q.x, q.y, q.z);
  const T s[3] = {std::exp(log_scale.x), std::exp(log_scale.y), std::exp(log_scale.z)};
  Mat3<T> M = R;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) M.m[i][j] *= s[j];
  const Mat3<T> dM = (dSigma + transpose(dSigma)) * M;  // d(M Mᵀ) for a general upstream
  Mat3<T> dR;
  T ds[3] = {0, 0, 0};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      dR.m[i][j] = dM.m[i][j] * s[j];
      ds[j] += dM.m[i][j] * R.m[i][j];
    }
  dlog_scale = {ds[0] * s[0], ds[1] * s[1], ds[2] * s[2]};
  dq_raw = quat_normalize_vjp(q_raw, quat_to_rotmat_vjp(q, dR));
}

// ---------------------------------------------------------------- 2. camera and EWA projection

template <class T> SPLAT_HD Vec3<T> world_to_camera(const kernels::Camera& cam, Vec3<T> p) {
  return mat3_from_rowmajor<T>(cam.R) * p + Vec3<T>{T(cam.t[0]), T(cam.t[1]), T(cam.t[2])};
}
template <class T> SPLAT_HD Vec3<T> world_to_camera_vjp(const kernels::Camera& cam, Vec3<T> dp_cam) {
  return transpose(mat3_from_rowmajor<T>(cam.R)) * dp_cam;
}
template <class T> SPLAT_HD Mat3<T> cov_world_to_camera(const kernels::Camera& cam, const Mat3<T>& Sigma) {
  const Mat3<T> W = mat3_from_rowmajor<T>(cam.R);
  return W * Sigma * transpose(W);
}
template <class T> SPLAT_HD Mat3<T> cov_world_to_camera_vjp(const kernels::Camera& cam, const Mat3<T>& dSigma_cam) {
  const Mat3<T> W = mat3_from_rowmajor<T>(cam.R);
  return transpose(W) * dSigma_cam * W;
}
// Camera centre in world space, the origin of the SH view direction.
template <class T> SPLAT_HD Vec3<T> camera_centre(const kernels::Camera& cam) {
  return -(transpose(mat3_from_rowmajor<T>(cam.R)) * Vec3<T>{T(cam.t[0]), T(cam.t[1]), T(cam.t[2])});
}

// The projection's 2x3 Jacobian at p_cam. x/z and y/z are clamped to ±1.3 tan(half fov), with
// tan(half fov) = size / (2 f), as 3DGS does, so that Gaussians far outside the view (where the
// linearisation is poor) do not get huge footprints. The clamp only touches J, never mean2d.
template <class T> struct EwaJacobian {
  T j00, j02, j11, j12;  // J = [[j00, 0, j02], [0, j11, j12]]
  bool clamped_x, clamped_y;
  T u, v;                // the (clamped) x/z, y/z
};
template <class T> SPLAT_HD EwaJacobian<T> ewa_jacobian(const kernels::Camera& cam, Vec3<T> p) {
  const T fx = T(cam.fx), fy = T(cam.fy);
  const T lim_x = T(kFovClamp) * T(0.5) * T(cam.width) / fx;
  const T lim_y = T(kFovClamp) * T(0.5) * T(cam.height) / fy;
  const T rz = T(1) / p.z;
  EwaJacobian<T> J;
  const T u = p.x * rz, v = p.y * rz;
  J.clamped_x = u < -lim_x || u > lim_x;
  J.clamped_y = v < -lim_y || v > lim_y;
  J.u = hd_min(lim_x, hd_max(-lim_x, u));
  J.v = hd_min(lim_y, hd_max(-lim_y, v));
  J.j00 = fx * rz;
  J.j02 = -fx * J.u * rz;
  J.j11 = fy * rz;
  J.j12 = -fy * J.v * rz;
  return J;
}

// mean2d = (fx x/z + cx, fy y/z + cy); Σ2d = J Σ_cam Jᵀ + eps2d I. Requires p_cam.z > 0.
template <class T>
SPLAT_HD void project_ewa(const kernels::Camera& cam, Vec3<T> p, const Mat3<T>& S, T eps2d, Vec2<T>& mean2d,
                          Sym2<T>& cov2d) {
  mean2d = {T(cam.fx) * p.x / p.z + T(cam.cx), T(cam.fy) * p.y / p.z + T(cam.cy)};
  const EwaJacobian<T> J = ewa_jacobian(cam, p);
  // Rows of J Σ: a = row0 · Σ, b = row1 · Σ (row0 = (j00, 0, j02), row1 = (0, j11, j12)).
  const auto& s = S.m;
  T a[3], b[3];
  for (int c = 0; c < 3; ++c) {
    a[c] = J.j00 * s[0][c] + J.j02 * s[2][c];
    b[c] = J.j11 * s[1][c] + J.j12 * s[2][c];
  }
  cov2d.xx = a[0] * J.j00 + a[2] * J.j02 + eps2d;
  cov2d.xy = a[1] * J.j11 + a[2] * J.j12;  // (J Σ Jᵀ)[0][1]
  cov2d.yy = b[1] * J.j11 + b[2] * J.j12 + eps2d;
}
// Overwrites dp (camera space) and dS from dmean2d and dcov2d (Sym2 convention). Σ_cam is
// symmetric and the forward reads it as such, so dS is returned symmetric: the gradient of an
// off-diagonal VALUE (appearing twice) is dS[i][j] + dS[j][i].
template <class T>
SPLAT_HD void project_ewa_vjp(const kernels::Camera& cam, Vec3<T> p, const Mat3<T>& S, Vec2<T> dmean2d,
                              Sym2<T> dcov2d, Vec3<T>& dp, Mat3<T>& dS) {
  const T fx = T(cam.fx), fy = T(cam.fy);
  const T rz = T(1) / p.z, rz2 = rz * rz;
  const EwaJacobian<T> J = ewa_jacobian(cam, p);
  // Full 2x3 J and the full-matrix upstream G (symmetric).
  const T Jm[2][3] = {{J.j00, 0, J.j02}, {0, J.j11, J.j12}};
  const T G[2][2] = {{dcov2d.xx, dcov2d.xy / 2}, {dcov2d.xy / 2, dcov2d.yy}};
  // dS = Jᵀ G J.
  T GJ[2][3];
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 3; ++c) GJ[r][c] = G[r][0] * Jm[0][c] + G[r][1] * Jm[1][c];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) dS.m[i][j] = Jm[0][i] * GJ[0][j] + Jm[1][i] * GJ[1][j];
  // dJ = G J (S + Sᵀ) (valid for any S; G is symmetric).
  T dJ[2][3];
  for (int r = 0; r < 2; ++r)
    for (int c = 0; c < 3; ++c) {
      T acc = 0;
      for (int k = 0; k < 3; ++k) acc += GJ[r][k] * (S.m[k][c] + S.m[c][k]);
      dJ[r][c] = acc;
    }
  // mean2d terms.
  dp.x = dmean2d.x * fx * rz;
  dp.y = dmean2d.y * fy * rz;
  dp.z = -(dmean2d.x * fx * p.x + dmean2d.y * fy * p.y) * rz2;
  // J entries: j00 = fx/z, j11 = fy/z, j02 = -fx u/z, j12 = -fy v/z with u = x/z unless clamped.
  dp.z += -(dJ[0][0] * fx + dJ[1][1] * fy) * rz2;
  if (J.clamped_x) {
    dp.z += dJ[0][2] * fx * J.u * rz2;
  } else {  // j02 = -fx x / z^2
    dp.x += -dJ[0][2] * fx * rz2;
    dp.z += T(2) * dJ[0][2] * fx * p.x * rz2 * rz;
  }
  if (J.clamped_y) {
    dp.z += dJ[1][2] * fy * J.v * rz2;
  } else {
    dp.y += -dJ[1][2] * fy * rz2;
    dp.z += T(2) * dJ[1][2] * fy * p.y * rz2 * rz;
  }
}

// ---------------------------------------------------------------- 3. conic and antialiasing

template <class T> SPLAT_HD T sym2_det(Sym2<T> c) { return c.xx * c.yy - c.xy * c.xy; }

// Q = Σ2d⁻¹ (the "conic"). Σ2d is positive definite after the dilation.
template <class T> SPLAT_HD Sym2<T> conic_from_cov2d(Sym2<T> c) {
  const T inv = T(1) / sym2_det(c);
  return {c.yy * inv, -c.xy * inv, c.xx * inv};
}
// dΣ = -Q G Q in full-matrix form; converted to and from the Sym2 convention.
template <class T> SPLAT_HD Sym2<T> conic_from_cov2d_vjp(Sym2<T> c, Sym2<T> dconic) {
  const Sym2<T> q = conic_from_cov2d(c);
  const T g00 = dconic.xx, g01 = dconic.xy / 2, g11 = dconic.yy;
  // (G Q)
  const T a00 = g00 * q.xx + g01 * q.xy, a01 = g00 * q.xy + g01 * q.yy;
  const T a10 = g01 * q.xx + g11 * q.xy, a11 = g01 * q.xy + g11 * q.yy;
  // -Q (G Q)
  const T d00 = -(q.xx * a00 + q.xy * a10);
  const T d01 = -(q.xx * a01 + q.xy * a11);
  const T d11 = -(q.xy * a01 + q.yy * a11);
  return {d00, 2 * d01, d11};
}

// Antialiased mode: the dilation eps2d I widens small Gaussians, which brightens them; the
// opacity is scaled by sqrt(det(Σ2d - eps I) / det(Σ2d)) so the integrated weight stays close to
// the undilated one. Takes the DILATED Σ2d. Returns 0 for a degenerate undilated footprint.
template <class T> SPLAT_HD T aa_opacity_compensation(Sym2<T> c, T eps2d) {
  const T det_raw = (c.xx - eps2d) * (c.yy - eps2d) - c.xy * c.xy;
  if (det_raw <= T(0)) return T(0);
  return std::sqrt(det_raw / sym2_det(c));
}
template <class T> SPLAT_HD Sym2<T> aa_opacity_compensation_vjp(Sym2<T> c, T eps2d, T dcomp) {
  const T det_raw = (c.xx - eps2d) * (c.yy - eps2d) - c.xy * c.xy;
  if (det_raw <= T(0)) return {};
  const T det = sym2_det(c);
  const T comp = std::sqrt(det_raw / det);
  const T k = dcomp * T(0.5) / (comp * det * det);  // d comp = 1/(2 comp) d(det_raw/det)
  return {k * ((c.yy - eps2d) * det - det_raw * c.yy), k * (-T(2) * c.xy * (det - det_raw)),
          k * ((c.xx - eps2d) * det - det_raw * c.xx)};
}

// ---------------------------------------------------------------- 4. screen extent and tiles

// Per-axis half extents (px) of the box holding the ellipse dᵀQd <= k² where α = opacity
// exp(-½ dᵀQd) reaches 1/255, k² = 2 ln(255 opacity), capped at k = 3 (3σ). A Gaussian with
// opacity < 1/255 can never reach 1/255 and is culled (false). The box decides whether a pair is in
// view and gives its screen radius (DensifyStats); the tiles a pair is blended in come from its
// uncapped ellipse (TileRows below).
template <class T> SPLAT_HD bool screen_half_extent(T opacity, Sym2<T> cov2d, int& half_x, int& half_y) {
  half_x = half_y = 0;
  if (!(opacity >= T(kMinAlpha))) return false;
  const T k = hd_min(T(3), std::sqrt(T(2) * std::log(T(255) * opacity)));
  half_x = int(std::ceil(k * std::sqrt(cov2d.xx)));
  half_y = int(std::ceil(k * std::sqrt(cov2d.yy)));
  return half_x > 0 && half_y > 0;
}

SPLAT_HD int tiles_along(int pixels) { return (pixels + kTileSize - 1) / kTileSize; }

// k² of the ellipse dᵀQd <= k² outside which α = opacity exp(-½ dᵀQd) stays below 1/255.
template <class T> SPLAT_HD T alpha_level_k2(T opacity) { return T(2) * std::log(T(255) * opacity); }

// The cells of a cells_x x cells_y grid of kW x kH-pixel cells (origin at pixel (0, 0)) whose pixel
// centres the ellipse dᵀQd <= k² around `mean` (Q = conic) reaches, row by row: [first_row(), end_row())
// are the rows the ellipse spans, row(cy) the run [x0, x1) of row cy. TileRows is the tile grid's case.
// With k² = alpha_level_k2(opacity) these are exactly the tiles holding a pixel
// where α can reach 1/255, so the render does not depend on the tiling: no pixel loses a Gaussian
// that reaches it, and no tile gets one that cannot (a screen box would add its corners, up to 4/π
// of the ellipse's area for a round Gaussian and far more for a thin diagonal one, each costing a
// key, a sort slot and a pass of both blending kernels). The test is exact for the continuous ellipse
// against the rectangle of a cell's pixel centres: the ellipse cut to a row's band of centres is
// convex, so its x-extent within the band is [min, max] of the chord ends x(dy) = (-b dy ∓ √(a k² -
// det dy²)) / a (Q = [a b; b c]), which are convex and concave in dy with their extremes at the
// ellipse's leftmost and rightmost points, dy = ±k b / √(c det); a cell of the row is reached iff its
// centres' column range meets that extent. What does not depend on the row is computed once.
template <class T, int kW, int kH>
struct CellRows {
  SPLAT_HD CellRows(Vec2<T> mean, Sym2<T> conic, T k2, int cells_x, int cells_y)
      : mean_(mean), b_(conic.xy), cells_x_(cells_x) {
    const T a = conic.xx, c = conic.yy, h = T(kH);
    det_ = a * c - b_ * b_;
    if (!(a > T(0) && c > T(0) && det_ > T(0) && k2 > T(0))) return;  // no ellipse: no rows
    ak2_ = a * k2;
    inv_a_ = T(1) / a;
    ey_ = std::sqrt(ak2_ / det_);
    s_ = b_ * std::sqrt(k2 / (c * det_));  // dy of the leftmost point; the rightmost is at -s
    // Rows whose band of centres [kH cy + 0.5, kH cy + kH - 0.5] meets [y - ey, y + ey], in the grid.
    y0_ = in_grid(std::ceil((mean.y - ey_ - (h - T(0.5))) / h), cells_y);
    y1_ = in_grid(std::floor((mean.y + ey_ - T(0.5)) / h) + T(1), cells_y);
    if (y1_ < y0_) y1_ = y0_;
  }
  SPLAT_HD int first_row() const { return y0_; }
  SPLAT_HD int end_row() const { return y1_; }
  SPLAT_HD void row(int cy, int& x0, int& x1) const {
    x0 = x1 = 0;
    const T w = T(kW), h = T(kH), inv_w = T(1) / w;
    const T lo = hd_max(T(cy) * h + T(0.5) - mean_.y, -ey_);
    const T hi = hd_min(T(cy) * h + (h - T(0.5)) - mean_.y, ey_);
    if (!(lo <= hi)) return;
    const T yl = hd_min(hd_max(s_, lo), hi), yr = hd_min(hd_max(-s_, lo), hi);
    const T left = mean_.x + (-b_ * yl - std::sqrt(hd_max(T(0), ak2_ - det_ * yl * yl))) * inv_a_;
    const T right = mean_.x + (-b_ * yr + std::sqrt(hd_max(T(0), ak2_ - det_ * yr * yr))) * inv_a_;
    x0 = in_grid(std::ceil((left - (w - T(0.5))) * inv_w), cells_x_);
    x1 = in_grid(std::floor((right - T(0.5)) * inv_w) + T(1), cells_x_);
    if (x1 < x0) x0 = x1 = 0;
  }
  // How many cells the ellipse reaches.
  SPLAT_HD int count() const {
    int n = 0;
    for (int cy = y0_; cy < y1_; ++cy) {
      int x0, x1;
      row(cy, x0, x1);
      n += x1 - x0;
    }
    return n;
  }

 private:
  // A cell index clamped to [0, cells] before it becomes an int (a far Gaussian's would overflow).
  SPLAT_HD static int in_grid(T t, int cells) { return t > T(0) ? int(hd_min(t, T(cells))) : 0; }

  Vec2<T> mean_;
  T b_, det_{}, ak2_{}, inv_a_{}, ey_{}, s_{};
  int cells_x_, y0_ = 0, y1_ = 0;
};

// The tiles of a tiles_x x tiles_y grid the ellipse reaches: TileRows<T>(mean, conic, k2, tiles_x, tiles_y).
template <class T>
using TileRows = CellRows<T, kTileSize, kTileSize>;

// The blending kernels' warp cells: a tile's 8 x 4-pixel cells, cell w at column w % 2, row w / 2,
// one per warp of a tile's block (kernels/cuda/warp_cells.cuh).
inline constexpr int kWarpCellW = 8, kWarpCellH = 4;
inline constexpr int kWarpCellsX = kTileSize / kWarpCellW, kWarpCellsY = kTileSize / kWarpCellH;

// Bit w set: the ellipse dᵀQd <= k² around `mean_in_tile` (relative to the tile's top-left pixel corner)
// reaches a pixel centre of warp cell w (CellRows on the cells).
template <class T>
SPLAT_HD unsigned warp_cells_reached(Vec2<T> mean_in_tile, Sym2<T> conic, T k2) {
  const CellRows<T, kWarpCellW, kWarpCellH> rows(mean_in_tile, conic, k2, kWarpCellsX, kWarpCellsY);
  unsigned cells = 0;
  for (int cy = rows.first_row(); cy < rows.end_row(); ++cy) {
    int x0, x1;
    rows.row(cy, x0, x1);
    for (int cx = x0; cx < x1; ++cx) cells |= 1u << (cy * kWarpCellsX + cx);
  }
  return cells;
}

// What the rasterization stage needs of one (camera, Gaussian) pair.
template <class T>
struct ProjectedGaussian {
  Vec2<T> mean2d;
  Sym2<T> conic;
  T depth{};        // camera-space z
  T opacity{};      // sigmoid(logit), times the compensation in antialiased mode
  int half_x = 0, half_y = 0;
  int tile_count = 0;  // the tiles the α >= 1/255 ellipse reaches (TileRows)
  bool visible = false;
};

// Steps 1-4 for one (camera, Gaussian). Visible when near < z < far, the opacity can reach
// 1/255 (extent > 0), the box mean2d ± half overlaps the image [0, W) x [0, H) (a box that
// only touches the padding of the last tile row/column is not visible) and the ellipse reaches a
// tile; other fields are only meaningful when visible.
template <class T>
SPLAT_HD ProjectedGaussian<T> project_gaussian(const kernels::Camera& cam, Vec3<T> mean, Quat<T> q_raw,
                                               Vec3<T> log_scale, T opacity_logit, T near_plane, T far_plane,
                                               T eps2d, bool antialiased) {
  ProjectedGaussian<T> out;
  const Vec3<T> p = world_to_camera(cam, mean);
  if (!(p.z > near_plane && p.z < far_plane)) return out;
  const Mat3<T> S = cov_world_to_camera(cam, covariance3d(q_raw, log_scale));
  Sym2<T> cov2d;
  project_ewa(cam, p, S, eps2d, out.mean2d, cov2d);
  if (!(sym2_det(cov2d) > T(0))) return out;
  out.conic = conic_from_cov2d(cov2d);
  out.depth = p.z;
  out.opacity = sigmoid(opacity_logit);
  if (antialiased) out.opacity *= aa_opacity_compensation(cov2d, eps2d);
  if (!screen_half_extent(out.opacity, cov2d, out.half_x, out.half_y)) return out;
  const bool overlaps = out.mean2d.x + T(out.half_x) >= T(0) && out.mean2d.x - T(out.half_x) < T(cam.width) &&
                        out.mean2d.y + T(out.half_y) >= T(0) && out.mean2d.y - T(out.half_y) < T(cam.height);
  if (overlaps)
    out.tile_count = TileRows<T>(out.mean2d, out.conic, alpha_level_k2(out.opacity), tiles_along(cam.width),
                                 tiles_along(cam.height)).count();
  out.visible = out.tile_count > 0;
  return out;
}

// Gradients of one visible pair's projected quantities (d mean2d, d conic in the Sym2
// convention, d opacity of the EFFECTIVE opacity, d depth) back to the Gaussian's parameters;
// ACCUMULATES into dmean, dq_raw, dlog_scale, dlogit. (Colour gradients go through sh_color_vjp.)
template <class T>
SPLAT_HD void project_gaussian_vjp(const kernels::Camera& cam, Vec3<T> mean, Quat<T> q_raw, Vec3<T> log_scale,
                                   T opacity_logit, T eps2d, bool antialiased, Vec2<T> dmean2d, Sym2<T> dconic,
                                   T dopacity, T ddepth, Vec3<T>& dmean, Quat<T>& dq_raw, Vec3<T>& dlog_scale,
                                   T& dlogit) {
  const Vec3<T> p = world_to_camera(cam, mean);
  const Mat3<T> S = cov_world_to_camera(cam, covariance3d(q_raw, log_scale));
  Vec2<T> mean2d;
  Sym2<T> cov2d;
  project_ewa(cam, p, S, eps2d, mean2d, cov2d);
  Sym2<T> dcov = conic_from_cov2d_vjp(cov2d, dconic);
  const T sig = sigmoid(opacity_logit);
  T comp = T(1);
  if (antialiased) {
    comp = aa_opacity_compensation(cov2d, eps2d);
    const Sym2<T> da = aa_opacity_compensation_vjp(cov2d, eps2d, dopacity * sig);
    dcov = {dcov.xx + da.xx, dcov.xy + da.xy, dcov.yy + da.yy};
  }
  dlogit += dopacity * comp * sig * (T(1) - sig);
  Vec3<T> dp;
  Mat3<T> dS;
  project_ewa_vjp(cam, p, S, dmean2d, dcov, dp, dS);
  dp.z += ddepth;
  dmean += world_to_camera_vjp(cam, dp);
  Quat<T> dq;
  Vec3<T> dls;
  covariance3d_vjp(q_raw, log_scale, cov_world_to_camera_vjp(cam, dS), dq, dls);
  dq_raw = {dq_raw.w + dq.w, dq_raw.x + dq.x, dq_raw.y + dq.y, dq_raw.z + dq.z};
  dlog_scale += dls;
}

// Order of compositing within a tile (both backends): increasing camera-space depth, ties broken
// by increasing Gaussian index (a stable sort of keys emitted in Gaussian order gives this).

// DensifyStats, per visible (camera, Gaussian) pair of a backward call (both backends):
//   grad2d_norm     += ndc_grad_norm(g)  with g = dL/dmean2d summed over the pixels;
//   grad2d_abs_norm += ndc_grad_norm(a)  with a = per-component sums over the pixels of
//                      |that pixel's contribution to dL/dmean2d| (AbsGS);
//   visible_count   += 1;
//   max_radius       = max(max_radius, screen_radius_fraction(half_x, half_y, W, H)).
// The pixel gradient times (W/2, H/2) is the gradient with respect to NDC coordinates, the unit
// the usual 2e-4 densification threshold is expressed in.
template <class T> SPLAT_HD T ndc_grad_norm(Vec2<T> g, int width, int height) {
  const T gx = g.x * T(0.5) * T(width), gy = g.y * T(0.5) * T(height);
  return std::sqrt(gx * gx + gy * gy);
}
template <class T> SPLAT_HD T screen_radius_fraction(int half_x, int half_y, int width, int height) {
  return T(hd_max(half_x, half_y)) / T(hd_max(width, height));
}

// ---------------------------------------------------------------- 5. spherical harmonics

// Real SH basis up to `degree` (0..3) at the unit direction d; b[0..(degree+1)^2).
template <class T> SPLAT_HD void sh_basis(int degree, Vec3<T> d, T* b) {
  const T x = d.x, y = d.y, z = d.z;
  b[0] = T(0.28209479177387814);
  if (degree < 1) return;
  const T c1 = T(0.4886025119029199);
  b[1] = -c1 * y;
  b[2] = c1 * z;
  b[3] = -c1 * x;
  if (degree < 2) return;
  const T xx = x * x, yy = y * y, zz = z * z;
  b[4] = T(1.0925484305920792) * x * y;
  b[5] = T(-1.0925484305920792) * y * z;
  b[6] = T(0.31539156525252005) * (2 * zz - xx - yy);
  b[7] = T(-1.0925484305920792) * x * z;
  b[8] = T(0.5462742152960396) * (xx - yy);
  if (degree < 3) return;
  b[9] = T(-0.5900435899266435) * y * (3 * xx - yy);
  b[10] = T(2.890611442640554) * x * y * z;
  b[11] = T(-0.4570457994644658) * y * (4 * zz - xx - yy);
  b[12] = T(0.3731763325901154) * z * (2 * zz - 3 * xx - 3 * yy);
  b[13] = T(-0.4570457994644658) * x * (4 * zz - xx - yy);
  b[14] = T(1.445305721320277) * z * (xx - yy);
  b[15] = T(-0.5900435899266435) * x * (xx - 3 * yy);
}
// g += c · db · (gx, gy, gz): one basis function's contribution to the direction gradient.
template <class T> SPLAT_HD void sh_grad_add(Vec3<T>& g, T c, T db, T gx, T gy, T gz) {
  g.x += c * db * gx;
  g.y += c * db * gy;
  g.z += c * db * gz;
}
// Gradient with respect to the unit direction given db (upstream per basis function).
template <class T> SPLAT_HD Vec3<T> sh_basis_vjp(int degree, Vec3<T> d, const T* db) {
  Vec3<T> g{};
  if (degree < 1) return g;
  const T x = d.x, y = d.y, z = d.z;
  const T c1 = T(0.4886025119029199);
  g.x += -c1 * db[3];
  g.y += -c1 * db[1];
  g.z += c1 * db[2];
  if (degree < 2) return g;
  const T xx = x * x, yy = y * y, zz = z * z;
  sh_grad_add<T>(g, T(1.0925484305920792), db[4], y, x, 0);
  sh_grad_add<T>(g, T(-1.0925484305920792), db[5], 0, z, y);
  sh_grad_add<T>(g, T(0.31539156525252005), db[6], -2 * x, -2 * y, 4 * z);
  sh_grad_add<T>(g, T(-1.0925484305920792), db[7], z, 0, x);
  sh_grad_add<T>(g, T(0.5462742152960396), db[8], 2 * x, -2 * y, 0);
  if (degree < 3) return g;
  sh_grad_add<T>(g, T(-0.5900435899266435), db[9], 6 * x * y, 3 * xx - 3 * yy, 0);
  sh_grad_add<T>(g, T(2.890611442640554), db[10], y * z, x * z, x * y);
  sh_grad_add<T>(g, T(-0.4570457994644658), db[11], -2 * x * y, 4 * zz - xx - 3 * yy, 8 * y * z);
  sh_grad_add<T>(g, T(0.3731763325901154), db[12], -6 * x * z, -6 * y * z, 6 * zz - 3 * xx - 3 * yy);
  sh_grad_add<T>(g, T(-0.4570457994644658), db[13], 4 * zz - 3 * xx - yy, -2 * x * y, 8 * x * z);
  sh_grad_add<T>(g, T(1.445305721320277), db[14], 2 * x * z, -2 * y * z, xx - yy);
  sh_grad_add<T>(g, T(-0.5900435899266435), db[15], 3 * xx - 3 * yy, -6 * x * y, 0);
  return g;
}

// Colour of one Gaussian seen along `dir` = mean - camera centre (unnormalised): the SH
// expansion up to `degree` + 0.5, clamped at 0 per channel. dc: [3]; rest: [coeffs, 3] with
// coefficients per channel stored beyond DC (degree must satisfy (degree+1)^2 - 1 <= coeffs).
// With the [n, coeffs, 3] storage, rest = sh_rest + i * coeffs * 3 for Gaussian i (no copy).
// S / R: the stored scalars of dc / rest (R may be kernels::Bf16, decoded as it is read).
template <class S, class T, class R = S>
SPLAT_HD Vec3<T> sh_color(int degree, Vec3<T> dir, const S* dc, const R* rest) {
  T b[kMaxShCoeffs];
  sh_basis(degree, dir / norm(dir), b);
  T c[3];
  for (int ch = 0; ch < 3; ++ch) {
    T acc = b[0] * T(dc[ch]);
    for (int k = 1; k < kernels::sh_coeffs_for_degree(degree); ++k) acc += b[k] * T(rest[3 * (k - 1) + ch]);
    c[ch] = hd_max(T(0), acc + T(0.5));
  }
  return {c[0], c[1], c[2]};
}
// ACCUMULATES into ddc [3], drest [coeffs, 3] and ddir (the unnormalised direction, i.e. the
// mean's gradient through the view direction). Channels clamped in the forward get no gradient.
template <class S, class T, class R = S>
SPLAT_HD void sh_color_vjp(int degree, Vec3<T> dir, const S* dc, const R* rest, Vec3<T> dcolor, T* ddc, T* drest,
                           Vec3<T>& ddir) {
  const T len = norm(dir);
  const Vec3<T> n = dir / len;
  T b[kMaxShCoeffs];
  sh_basis(degree, n, b);
  const int nb = kernels::sh_coeffs_for_degree(degree);
  T g[3];
  for (int ch = 0; ch < 3; ++ch) {
    T acc = b[0] * T(dc[ch]);
    for (int k = 1; k < nb; ++k) acc += b[k] * T(rest[3 * (k - 1) + ch]);
    g[ch] = acc + T(0.5) < T(0) ? T(0) : dcolor[ch];
  }
  T db[kMaxShCoeffs];
  for (int ch = 0; ch < 3; ++ch) ddc[ch] += b[0] * g[ch];
  db[0] = 0;
  for (int k = 1; k < nb; ++k) {
    db[k] = 0;
    for (int ch = 0; ch < 3; ++ch) {
      drest[3 * (k - 1) + ch] += b[k] * g[ch];
      db[k] += T(rest[3 * (k - 1) + ch]) * g[ch];
    }
  }
  const Vec3<T> dn = sh_basis_vjp(degree, n, db);
  ddir += (dn - n * dot(n, dn)) / len;  // through n = dir / |dir|
}

// ---------------------------------------------------------------- 6. per pixel

// α of one Gaussian at a pixel centre (px + 0.5, py + 0.5) = `pixel`:
// α = min(0.99, opacity exp(-½ dᵀQd)), d = pixel - mean2d. Returns 0 when α < 1/255 (the
// Gaussian is skipped for this pixel); `gauss` receives exp(-½ dᵀQd) for the VJP.
// 2^x and 1/x inside the per-pixel loops, which run them once per (pixel, Gaussian) and are
// bound by issued instructions. On the GPU in float they are the hardware approximations
// (exp2f: ~2 ulp, with x in [-8, 0] for any α that counts; __fdividef: ~2 ulp for the divisors
// 0.01..1 here), a few instructions instead of the IEEE sequences; the CPU backends, and double
// anywhere, use the exact functions.
template <class T> SPLAT_HD T pixel_exp2(T x) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, float>) return exp2f(x);
#endif
  return std::exp2(x);
}
template <class T> SPLAT_HD T pixel_reciprocal(T x) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, float>) return __fdividef(1.f, x);
#endif
  return T(1) / x;
}

// The exponent of exp(-½ dᵀQd) in base 2, as coefficients of the offset d: -½ log2(e) dᵀQd =
// dx (a dx + b dy) + c dy². The blending kernels take them once per Gaussian and tile (where they
// stage it), so that a pixel's α costs four multiply-adds and the 2^x: with Q itself it also took the
// ½, the cross term's sign and the scaling to base 2, once per (pixel, Gaussian).
template <class T>
struct AlphaExponent {
  T a, b, c;
};
template <class T>
SPLAT_HD AlphaExponent<T> alpha_exponent(Sym2<T> conic) {
  constexpr T kHalfLog2e = T(-0.5 * 1.4426950408889634);  // -½ log2(e)
  return {kHalfLog2e * conic.xx, T(2) * kHalfLog2e * conic.xy, kHalfLog2e * conic.yy};
}
// Whether the Gaussian counts at the offset d = pixel - mean2d (α >= 1/255), and then its α and
// `gauss`: gaussian_alpha below as a test, which the blending kernels branch on directly.
template <class T>
SPLAT_HD bool pixel_alpha(AlphaExponent<T> e, T opacity, Vec2<T> d, T& alpha, T& gauss) {
  gauss = pixel_exp2(d.x * (e.a * d.x + e.b * d.y) + e.c * (d.y * d.y));
  const T unclamped = opacity * gauss;  // below 1/255 exactly where the clamped α is (0.99 > 1/255)
  if (unclamped < T(kMinAlpha)) return false;
  alpha = hd_min(T(kMaxAlpha), unclamped);
  return true;
}
template <class T>
SPLAT_HD T gaussian_alpha(Vec2<T> mean2d, Sym2<T> conic, T opacity, Vec2<T> pixel, T& gauss) {
  T alpha;
  return pixel_alpha(alpha_exponent(conic), opacity, Vec2<T>{pixel.x - mean2d.x, pixel.y - mean2d.y}, alpha, gauss)
             ? alpha
             : T(0);
}
// ACCUMULATES the gradients of a composited α (> 0) into dmean2d, dopacity and, for the conic, its
// moments dpower (dx², dx dy, dy²) (dpower = dα/d(-½ dᵀQd)), which conic_gradient turns into the Sym2
// gradient: the constants are linear, so a kernel sums the moments over pixels and applies them once
// per sum rather than once per pixel. `gauss` is what gaussian_alpha gave for the same inputs (not
// recomputed: the exp is a large part of the per-pixel cost). Where the 0.99 clamp is active α does
// not depend on the inputs.
template <class T>
SPLAT_HD void gaussian_alpha_vjp_moments(Vec2<T> mean2d, Sym2<T> conic, T opacity, Vec2<T> pixel, T gauss, T dalpha,
                                         Vec2<T>& dmean2d, Sym2<T>& conic_moments, T& dopacity) {
  const T dx = pixel.x - mean2d.x, dy = pixel.y - mean2d.y;
  const T alpha = opacity * gauss;  // unclamped
  if (alpha > T(kMaxAlpha)) return;
  dopacity += dalpha * gauss;
  const T dpower = dalpha * alpha;
  const T px = dpower * dx, py = dpower * dy;
  conic_moments.xx += px * dx;
  conic_moments.xy += px * dy;
  conic_moments.yy += py * dy;
  // dpower/d(dx) = -(Qxx dx + Qxy dy), and d(dx)/dmean = -1.
  dmean2d.x += conic.xx * px + conic.xy * py;
  dmean2d.y += conic.xy * px + conic.yy * py;
}
// The conic's gradient (Sym2 convention) from a sum of gaussian_alpha_vjp_moments' moments.
template <class T>
SPLAT_HD Sym2<T> conic_gradient(Sym2<T> moments) {
  return {T(-0.5) * moments.xx, -moments.xy, T(-0.5) * moments.yy};
}
// gaussian_alpha_vjp_moments with the conic's gradient ACCUMULATED into dconic.
template <class T>
SPLAT_HD void gaussian_alpha_vjp(Vec2<T> mean2d, Sym2<T> conic, T opacity, Vec2<T> pixel, T gauss, T dalpha,
                                 Vec2<T>& dmean2d, Sym2<T>& dconic, T& dopacity) {
  Sym2<T> moments{};
  gaussian_alpha_vjp_moments(mean2d, conic, opacity, pixel, gauss, dalpha, dmean2d, moments, dopacity);
  const Sym2<T> d = conic_gradient(moments);
  dconic.xx += d.xx, dconic.xy += d.xy, dconic.yy += d.yy;
}

// Front-to-back compositing of one pixel. Termination rule (3DGS style): before compositing a
// Gaussian with α, compute T' = T (1 - α); if T' < 1e-4 that Gaussian is NOT composited and the
// pixel stops (add() returns false). So every composited Gaussian leaves T >= 1e-4, and the
// backward replay starts from exactly the Gaussians composited here (count `n_contrib`, the
// index in the pixel's list + 1 of the last composited Gaussian).
template <class T>
struct PixelCompositor {
  T transmittance = T(1);
  T rgb[3] = {0, 0, 0};
  T depth_sum = 0;  // Σ αᵢ Tᵢ zᵢ
  // Returns false when the pixel is finished (this Gaussian was not composited).
  SPLAT_HD bool add(T alpha, Vec3<T> color, T z) {
    const T next = transmittance * (T(1) - alpha);
    if (next < T(kMinTransmittance)) return false;
    const T w = alpha * transmittance;
    rgb[0] += w * color.x;
    rgb[1] += w * color.y;
    rgb[2] += w * color.z;
    depth_sum += w * z;
    transmittance = next;
    return true;
  }
  // rgb = Σ cᵢαᵢTᵢ + T_final·bg, alpha = 1 - T_final, depth = Σ αᵢTᵢzᵢ / max(alpha, 1e-10)
  // (0 where nothing was composited).
  SPLAT_HD void finish(const float* background, T* out_rgb, T& out_alpha, T& out_depth) const {
    for (int c = 0; c < 3; ++c) out_rgb[c] = rgb[c] + transmittance * T(background[c]);
    out_alpha = T(1) - transmittance;
    out_depth = depth_sum / hd_max(out_alpha, T(kDepthAlphaFloor));
  }
};

// One segment of a pixel's list composited from T = 1 without the stop rule, so that segments can be
// composited side by side and joined in order (the CUDA forward's lanes on long tiles): the product of
// (1 - α) over the segment and its colour and depth sums. Joined to a compositor of transmittance T,
// the segment adds T times its sums and multiplies T by `kept`, as compositing its Gaussians one by one
// would, unless T·kept falls below the floor: then the pixel stops inside the segment, and the segment
// must be composited one by one from T (PixelCompositor::add) to find where.
template <class T>
struct SegmentSums {
  T kept = T(1);
  T rgb[3] = {0, 0, 0};
  T depth_sum = 0;
  SPLAT_HD void add(T alpha, Vec3<T> color, T z) {
    const T w = alpha * kept;
    rgb[0] += w * color.x;
    rgb[1] += w * color.y;
    rgb[2] += w * color.z;
    depth_sum += w * z;
    kept *= T(1) - alpha;
  }
  // Whether the pixel would stop inside this segment, joined after transmittance `before`.
  SPLAT_HD bool stops_after(T before) const { return before * kept < T(kMinTransmittance); }
  // This segment's sums as joined after transmittance `before` (the transmittance itself not included).
  SPLAT_HD void scale(T before) {
    for (T& v : rgb) v *= before;
    depth_sum *= before;
  }
  // Adds joined sums to `comp` and moves its transmittance to `after`.
  SPLAT_HD void add_to(PixelCompositor<T>& comp, T after) const {
    for (int c = 0; c < 3; ++c) comp.rgb[c] += rgb[c];
    comp.depth_sum += depth_sum;
    comp.transmittance = after;
  }
};

// The replay's state at a point inside a pixel's list: Tᵢ₊₁ and the suffixes Aᵢ, Zᵢ (PixelReplay).
template <class T>
struct ReplayResume {
  T transmittance;
  T acc_rgb[3];
  T acc_depth;
};

// Back-to-front replay of one pixel for the backward pass. Built from the forward outputs
// (final T, alpha, depth) and the output gradients; then step() is called on the composited
// Gaussians in REVERSE order (last composited first), each giving dα, dcolour, dz for it.
//
// With Tᵢ the transmittance before Gaussian i and the suffixes
//   Aᵢ = (Σ_{j>i} cⱼαⱼTⱼ + T_final bg) / Tᵢ₊₁,  Zᵢ = Σ_{j>i} αⱼTⱼzⱼ / Tᵢ₊₁,
// dC/dαᵢ = Tᵢ (cᵢ - Aᵢ), d(Σ αTz)/dαᵢ = Tᵢ (zᵢ - Zᵢ), d(alpha)/dαᵢ = T_final / (1 - αᵢ).
// Tᵢ is recovered as Tᵢ₊₁ / (1 - αᵢ) (α <= 0.99 keeps this finite).
template <class T>
struct PixelReplay {
  T transmittance;      // Tᵢ₊₁ for the next step
  T t_final;
  T acc_rgb[3];         // Aᵢ
  T acc_depth = 0;      // Zᵢ
  T drgb[3];
  T ddepth_sum;         // d loss / d(Σ αTz)
  T dalpha_out;         // d loss / d(alpha output), including the depth normalisation

  SPLAT_HD PixelReplay(const float* background, T t_final_, T depth_out, const T* drgb_, T dalpha, T ddepth)
      : transmittance(t_final_), t_final(t_final_) {
    for (int c = 0; c < 3; ++c) {
      acc_rgb[c] = T(background[c]);
      drgb[c] = drgb_ ? drgb_[c] : T(0);
    }
    const T a = T(1) - t_final_;
    const T floor_a = hd_max(a, T(kDepthAlphaFloor));
    ddepth_sum = ddepth / floor_a;
    dalpha_out = dalpha;
    // depth = depth_sum / alpha where alpha > floor: d depth / d alpha = -depth / alpha.
    if (a > T(kDepthAlphaFloor)) dalpha_out -= ddepth * depth_out / a;
  }

  // One composited Gaussian (α > 0 as composited, its colour and z), going backwards.
  // kDepthAlpha = false: the caller gave no depth and no alpha gradient (training's case), so
  // their terms, zero, are not computed and dz is left alone (per-pixel instructions are the cost).
  template <bool kDepthAlpha = true>
  SPLAT_HD void step(T alpha, Vec3<T> color, T z, T& dalpha, Vec3<T>& dcolor, T& dz) {
    const T one_minus = T(1) - alpha;
    const T inv_one_minus = pixel_reciprocal(one_minus);  // one reciprocal serves both quotients
    const T Ti = transmittance * inv_one_minus;
    const T w = alpha * Ti;
    const T c[3] = {color.x, color.y, color.z};
    T g = 0;
    for (int ch = 0; ch < 3; ++ch) {  // Aᵢ = α c + (1 - α) Aᵢ₊₁, taken as Aᵢ₊₁ + α (c - Aᵢ₊₁)
      const T diff = c[ch] - acc_rgb[ch];
      g += drgb[ch] * diff;
      acc_rgb[ch] += alpha * diff;
    }
    dalpha = Ti * g;
    if constexpr (kDepthAlpha) {
      const T zdiff = z - acc_depth;
      dalpha += ddepth_sum * Ti * zdiff + dalpha_out * t_final * inv_one_minus;
      acc_depth += alpha * zdiff;
      dz = ddepth_sum * w;
    }
    dcolor = {drgb[0] * w, drgb[1] * w, drgb[2] * w};
    transmittance = Ti;
  }

  // Continues the replay at a point inside the list (see replay_resume) instead of at its end.
  SPLAT_HD void resume(const ReplayResume<T>& at) {
    transmittance = at.transmittance;
    for (int c = 0; c < 3; ++c) acc_rgb[c] = at.acc_rgb[c];
    acc_depth = at.acc_depth;
  }
};

// A replay split into chunks: the backward pass may replay a long list in pieces, each piece
// starting where the next one (in list order) begins. There the replay needs the state it would
// have reached coming from the end: Tᵢ₊₁ and the suffixes A and Z. From the compositor's state at
// that point (`at`: T and the sums so far) and at the end of the pixel (`end`):
//   T = at.T,  A = (end.rgb + end.T·bg - at.rgb) / at.T,  Z = (end.depth_sum - at.depth_sum) / at.T.
// at.T >= kMinTransmittance wherever the pixel went on compositing past that point.
template <class T>
SPLAT_HD ReplayResume<T> replay_resume(const PixelCompositor<T>& at, const PixelCompositor<T>& end,
                                       const float* background) {
  const T inv = T(1) / at.transmittance;
  ReplayResume<T> r;
  r.transmittance = at.transmittance;
  for (int c = 0; c < 3; ++c) r.acc_rgb[c] = (end.rgb[c] + end.transmittance * T(background[c]) - at.rgb[c]) * inv;
  r.acc_depth = (end.depth_sum - at.depth_sum) * inv;
  return r;
}

}  // namespace splat::raster
