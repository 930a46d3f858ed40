#pragma once
// The Gaussians being trained, on one device: every parameter column together with its gradient
// and its two Adam moments, as kernels::Buffer<float>, plus the densification statistics the
// backward pass accumulates. Keeping all of them in one object is what lets a structural edit
// (clone, split, prune, relocate) touch parameters AND optimizer state AND statistics together, so
// that row i of every buffer always describes the same Gaussian.
//
// Structural edits go through GaussianState, a host copy of parameters and moments: the
// decision-making strategies run on the host (every 100 steps, so the copy is not on the per-step
// path) and the edited state is uploaded again.
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "core/gaussian_model.h"
#include "kernels/buffer.h"
#include "kernels/rasterizer.h"

namespace splat {

// Parameter groups: each has its own learning rate and its own Adam moments.
enum class Group : int { Means = 0, LogScales, Quats, Opacity, ShDc, ShRest };
inline constexpr int kGroupCount = 6;
inline constexpr std::array<Group, kGroupCount> kAllGroups = {Group::Means,   Group::LogScales, Group::Quats,
                                                             Group::Opacity, Group::ShDc,      Group::ShRest};
const char* group_name(Group g);
// Floats per row of a group for a storage SH degree.
int group_width(Group g, int sh_degree);

// One column on the host: values and Adam's first and second moments, n * width floats each.
struct HostColumn {
  std::vector<float> value, exp_avg, exp_avg_sq;
};

// Host copy of parameters and optimizer state. Row edits keep all columns and moments aligned.
class GaussianState {
 public:
  explicit GaussianState(int sh_degree = 3, int64_t n = 0);
  // Parameters from a model; moments zero.
  static GaussianState from_model(const GaussianModel& m);
  GaussianModel to_model() const;

  int sh_degree() const { return sh_degree_; }
  int width(Group g) const { return group_width(g, sh_degree_); }
  int64_t size() const { return static_cast<int64_t>(col(Group::Opacity).value.size()); }

  HostColumn& col(Group g) { return cols_[static_cast<int>(g)]; }
  const HostColumn& col(Group g) const { return cols_[static_cast<int>(g)]; }
  // Row i of a group's values.
  float* row(Group g, int64_t i) { return col(g).value.data() + i * width(g); }
  const float* row(Group g, int64_t i) const { return col(g).value.data() + i * width(g); }

  // Appends copies of the given rows' parameters (repeats allowed). The new rows' moments start at
  // zero: a new Gaussian has no gradient history, and inheriting its parent's momentum would push
  // both copies the same way.
  void append_rows(std::span<const int64_t> rows);
  // Keeps rows whose mask entry is nonzero, in order (parameters and moments).
  void keep_rows(std::span<const uint8_t> keep);
  // Zeroes both moments of the given rows in one group (after their values were overwritten).
  void reset_moments(Group g, std::span<const int64_t> rows);
  // Zeroes both moments of the given rows in every group.
  void reset_moments(std::span<const int64_t> rows);

  // Throws std::logic_error when a column or moment length disagrees with size().
  void check_consistent() const;

 private:
  int sh_degree_ = 3;
  std::array<HostColumn, kGroupCount> cols_;
};

// Densification statistics on the host (see kernels::DensifyStats for their meaning).
struct HostDensifyStats {
  std::vector<float> grad2d_norm, grad2d_abs_norm, max_radius;
  std::vector<int32_t> visible_count;
};

class DeviceGaussians {
 public:
  DeviceGaussians(kernels::Device device, const GaussianState& state);

  kernels::Device device() const { return device_; }
  int64_t size() const { return n_; }
  int sh_degree() const { return sh_degree_; }
  int sh_rest_coeffs() const { return kernels::sh_coeffs_for_degree(sh_degree_) - 1; }

  kernels::GaussiansView view() const;
  kernels::GaussiansGrad grad();
  kernels::DensifyStats stats();

  kernels::Buffer<float>& param(Group g) { return params_[static_cast<int>(g)]; }
  const kernels::Buffer<float>& param(Group g) const { return params_[static_cast<int>(g)]; }
  kernels::Buffer<float>& grad(Group g) { return grads_[static_cast<int>(g)]; }
  kernels::Buffer<float>& exp_avg(Group g) { return m1_[static_cast<int>(g)]; }
  kernels::Buffer<float>& exp_avg_sq(Group g) { return m2_[static_cast<int>(g)]; }

  // Zeroes all gradients (once per optimisation step: backward accumulates).
  void zero_grad();
  // Zeroes the densification statistics (after each refinement that consumed them).
  void zero_stats();

  GaussianState download() const;
  // Replaces everything with `state` (rows may differ); gradients and statistics are zeroed.
  void upload(const GaussianState& state);
  HostDensifyStats download_stats() const;
  GaussianModel to_model() const { return download().to_model(); }

  // Row edits on the device copy, through the host: gradients and statistics are zeroed after.
  void append_rows(std::span<const int64_t> rows);
  void keep_rows(std::span<const uint8_t> keep);

  // Bytes held on the device (parameters, gradients, moments, statistics).
  size_t bytes() const;

 private:
  kernels::Device device_;
  int64_t n_ = 0;
  int sh_degree_ = 3;
  std::array<kernels::Buffer<float>, kGroupCount> params_, grads_, m1_, m2_;
  kernels::Buffer<float> grad2d_, grad2d_abs_, max_radius_;
  kernels::Buffer<int32_t> visible_count_;
};

// Runs f(std::span<float>) on a host view of a buffer: in place for the CPU backend, through a
// download and upload otherwise (for host-side updates that have no device kernel yet).
template <class F>
void edit_on_host(kernels::Buffer<float>& b, F&& f) {
  if (b.device() == kernels::Device::CPU) {
    f(std::span<float>(b.data(), b.size()));
    return;
  }
  std::vector<float> h = b.download();
  f(std::span<float>(h));
  b.upload(h);
}

}  // namespace splat
