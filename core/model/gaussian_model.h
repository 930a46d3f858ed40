#pragma once
// The Gaussians being trained, on the host: structure-of-arrays fp32 columns, one row per Gaussian.
// This is what PLY files load into and save from, what the trainer uploads to a device, and what
// the CPU rasterizer reads directly through view().
#include <cstdint>
#include <span>
#include <vector>

#include "core/model/param_columns.h"
#include "core/scene/scene.h"
#include "kernels/rasterizer.h"

namespace splat {

// Zeroth-order real spherical harmonic, Y_0^0 = 1 / (2 sqrt(pi)): colour = C0 * sh_dc + 0.5.
inline constexpr double kShC0 = 0.28209479177387814;

// Colour in [0, 1] <-> the DC coefficient that renders it (before the clamp at 0).
inline float rgb_to_sh_dc(double rgb) { return static_cast<float>((rgb - 0.5) / kShC0); }
inline double sh_dc_to_rgb(float dc) { return kShC0 * dc + 0.5; }

class GaussianModel {
 public:
  // Columns, n rows each. Rotation quaternions are (w, x, y, z) and unit length as created here;
  // scales are stored as log, opacities as logit.
  std::vector<float> means;           // [n,3]
  std::vector<float> log_scales;      // [n,3]
  std::vector<float> quats;           // [n,4]
  std::vector<float> opacity_logits;  // [n]
  std::vector<float> sh_dc;           // [n,3]
  // [n, K-1, 3] with K = (degree+1)^2, interleaved per coefficient: ((i*(K-1)) + k)*3 + c.
  std::vector<float> sh_rest;

  explicit GaussianModel(int sh_degree = 3, int64_t n = 0);

  int64_t size() const { return static_cast<int64_t>(opacity_logits.size()); }
  // Degree of the SH storage (0..3); the rasterizer may use a lower active degree.
  int sh_degree() const { return sh_degree_; }
  // Coefficients per channel beyond DC: K - 1.
  int sh_rest_coeffs() const { return kernels::sh_coeffs_for_degree(sh_degree_) - 1; }

  kernels::GaussiansView view() const;

  // The column of a group (kParamColumns describes each: name, width, storage).
  std::vector<float>& column(Group g);
  const std::vector<float>& column(Group g) const;

  // Grows or shrinks to n rows; new rows are zero except an identity rotation.
  void resize(int64_t n);
  // Appends copies of the given rows (in the given order, repeats allowed): densification's clone.
  void append_rows(std::span<const int64_t> rows);
  // Keeps the rows whose mask entry is nonzero, in order: densification's prune.
  void keep_rows(std::span<const uint8_t> keep);
  // Changes the storage degree: coefficients both degrees have are kept, new ones are zero.
  void set_sh_degree(int degree);

  // Throws std::logic_error when a column's length disagrees with size() (a bug, not bad input).
  void check_consistent() const;

 private:
  int sh_degree_ = 3;
};

// Initialisation from SfM points (3DGS style).
struct PointInitOptions {
  int sh_degree = 3;
  float opacity = 0.1f;  // initial opacity, stored as its logit
  int neighbours = 3;    // k of the kNN spacing estimate
  // Floor on the mean squared neighbour distance so duplicate points still get a finite log scale.
  double min_dist2 = 1e-7;
};

// means = xyz; colour -> sh_dc, sh_rest = 0; identity rotation; isotropic scale
// s = sqrt(max(min_dist2, mean over the k nearest other points of the squared distance)), stored
// as log(s) on all three axes.
GaussianModel init_from_points(std::span<const ScenePoint> points, const PointInitOptions& opt = {});

struct RandomInitOptions {
  int64_t count = 100000;
  Vec3d center{};
  double half_extent = 1.0;  // points are uniform in the cube center +- half_extent
  uint64_t seed = 0;
  PointInitOptions init;     // everything else as for SfM points (kNN scales, opacity, degree)
};

// N points uniform in a cube with uniform random colours, sized like SfM points; same seed, same model.
GaussianModel init_random(const RandomInitOptions& opt);

}  // namespace splat
