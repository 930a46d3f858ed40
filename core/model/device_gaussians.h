#pragma once
// The Gaussians being trained, on one device: every parameter column together with its gradient
// and its two Adam moments, plus the densification statistics the backward pass accumulates.
// Values and moments are stored as the column table says (StoredColumnArray: fp32, or bf16 where
// mixed precision asks for it); gradients and statistics are fp32 (they accumulate), except the SH rest
// gradients of a mixed-precision step rendered in one dense call (GradWrite). Keeping all of them in
// one object is what lets a structural edit (clone, split, prune, relocate) touch parameters AND
// optimizer state AND statistics together, so that row i of every buffer always describes the same
// Gaussian.
//
// Structural edits happen on the device (gather_rows): the strategies plan their row mappings where
// the model lives (kernels/refine_plan.h, kernels/mcmc_relocate.h), so a refinement does not move the
// model through the host. GaussianState, a host copy of parameters and moments, serves checkpoints
// and tests.
#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "core/model/gaussian_model.h"
#include "core/model/param_columns.h"
#include "core/model/stored_array.h"
#include "kernels/adam.h"
#include "kernels/buffer.h"
#include "kernels/morton_math.h"
#include "kernels/handoff_memory.h"
#include "kernels/rasterizer.h"

namespace splat {

// One column on the host: values and Adam's first and second moments, n * width floats each.
// Values are held as fp32 but, for a column whose storage is BF16, only values bf16 represents
// (check_consistent enforces it), so storing them loses nothing; moments are fp32 always.
struct HostColumn {
  std::vector<float> value, exp_avg, exp_avg_sq;
};

// Host copy of parameters and optimizer state. Row edits keep all columns and moments aligned.
class GaussianState {
 public:
  explicit GaussianState(int sh_degree = 3, int64_t n = 0, const ColumnTable& columns = kParamColumns);
  // Parameters from a model, rounded to each column's storage precision; moments zero.
  static GaussianState from_model(const GaussianModel& m, const ColumnTable& columns = kParamColumns);
  // The same Gaussians and moments described by another table of the same columns (values rounded
  // to its storage precisions): how mixed precision is switched on and off between steps.
  GaussianState with_columns(const ColumnTable& columns) const;
  GaussianModel to_model() const;

  const ColumnTable& columns() const { return columns_; }
  const ColumnSpec& spec(Group g) const { return columns_[static_cast<int>(g)]; }
  int sh_degree() const { return sh_degree_; }
  int width(Group g) const { return spec(g).width(sh_degree_); }
  // Bytes the columns take in their storage precision (values) plus the fp32 moments.
  size_t storage_bytes() const;
  // Rounds every value to its column's storage precision (after fp32 arithmetic wrote them).
  void round_to_storage();
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
  // Copies row `from`'s values to row `to` in every group (moments untouched).
  void copy_row(int64_t from, int64_t to);

  // Throws std::logic_error when a column or moment length disagrees with size(), or a value is
  // not representable in its column's storage precision.
  void check_consistent() const;

 private:
  int sh_degree_ = 3;
  ColumnTable columns_;
  std::array<HostColumn, kGroupCount> cols_;
};

// Densification statistics on the host (see kernels::DensifyStats for their meaning).
struct HostDensifyStats {
  std::vector<float> grad2d_norm, grad2d_abs_norm, max_radius;
  std::vector<int32_t> visible_count;
};

// Device memory of a DeviceGaussians by role, in bytes allocated (spare capacity included).
struct GaussianMemory {
  size_t parameters = 0, optimizer = 0, gradients = 0, statistics = 0;
  size_t total() const { return parameters + optimizer + gradients + statistics; }
};

// Which statistics DeviceGaussians::download_stats fetches; the others come back empty (a
// refinement reads only some of them, and each is a full column to copy off the device).
struct StatsSelection {
  bool grad2d_norm = true, grad2d_abs_norm = true, max_radius = true, visible_count = true;
};

// How a backward call writes the gradients (kernels::GaussiansGrad).
enum class GradWrite {
  Add,        // onto what they hold (the later calls of a step split into calls; tests)
  Overwrite,  // the step's first call replaces them: no pass zeroes them before
  OnlyCall,   // the step's one call, of the dense layout: overwrites, and where the SH rest values are
              // bf16 (mixed precision) stores their gradients in bf16, summed in fp32 and stored once;
              // it stores only the rows it reached (kernels::GaussiansGrad::reached, reached_rows)
};

class DeviceGaussians {
 public:
  // Lives on `where` (a plain Device: ordinal 0, its default stream): its buffers, and its row
  // edits run on that device and stream, so ranks sharing a GPU or owning one each keep their own.
  DeviceGaussians(const kernels::ComputeContext& where, const GaussianState& state);

  kernels::Device device() const { return where_.device; }
  const kernels::ComputeContext& context() const { return where_; }
  int64_t size() const { return n_; }
  int sh_degree() const { return sh_degree_; }
  int sh_rest_coeffs() const { return kernels::sh_coeffs_for_degree(sh_degree_) - 1; }

  kernels::GaussiansView view() const;
  // The gradient arrays for one backward call. GradWrite::OnlyCall may switch the SH rest gradients
  // to bf16, any other write back to fp32 (adam_group reads whichever the last call wrote); a switch
  // frees the other array and zeroes the new one.
  kernels::GaussiansGrad grad(GradWrite how = GradWrite::Add);
  kernels::DensifyStats stats();

  const ColumnTable& columns() const { return columns_; }
  // A column's fp32 values (the strategies read and edit these); std::logic_error for a column
  // stored in 2 bytes (SH rest under mixed precision).
  kernels::Buffer<float>& param(Group g) { return params_[static_cast<int>(g)].f32(); }
  const kernels::Buffer<float>& param(Group g) const { return params_[static_cast<int>(g)].f32(); }
  // A group's fp32 gradients (empty for SH rest while its gradients are bf16: rest_grad_narrow()).
  kernels::Buffer<float>& grad(Group g) { return grads_[static_cast<int>(g)]; }
  // The rows the last backward call reached, where group g's gradients hold values only there (after a
  // GradWrite::OnlyCall call; the other rows' values stand for zeros: kernels/reached_rows.h); null where
  // every row of the group holds its gradient.
  const uint8_t* reached_rows(Group g) const;
  // A writer stored every row's gradient of group g (a regulariser, which takes the unreached rows' as zeros).
  void set_grad_complete(Group g) { only_reached_[static_cast<int>(g)] = false; }
  bool rest_grad_narrow() const { return rest_grad_narrow_; }
  // A group's Adam moments as stored (read-only here: Adam writes them through adam_group).
  const StoredColumnArray& stored_param(Group g) const { return params_[static_cast<int>(g)]; }
  const StoredColumnArray& exp_avg(Group g) const { return m1_[static_cast<int>(g)]; }
  const StoredColumnArray& exp_avg_sq(Group g) const { return m2_[static_cast<int>(g)]; }
  // One group's arrays for Adam (kernels/adam.h); the caller sets the hyper-parameters and seed.
  kernels::AdamGroup adam_group(Group g);

  // Zeroes all gradients (for callers that accumulate; the trainer's first backward call overwrites).
  void zero_grad();
  // Zeroes the densification statistics (after each refinement that consumed them).
  void zero_stats();

  GaussianState download() const;
  // Replaces everything with `state` (rows may differ); gradients and statistics are zeroed.
  void upload(const GaussianState& state);
  // Stores the same values and moments as `columns` says (another table of the same columns);
  // gradients and statistics are kept.
  void set_columns(const ColumnTable& columns);
  HostDensifyStats download_stats(const StatsSelection& which = {}) const;
  // The same into `into`, reusing its vectors' memory (for callers that download every few steps).
  void download_stats(HostDensifyStats& into, const StatsSelection& which = {}) const;
  GaussianModel to_model() const { return download().to_model(); }

  // Rebuilds every column with one row mapping, on the device: parameter row i becomes old row
  // param_source[i]; moment row i becomes old row moment_source[i], or zeros where it is -1 (new or
  // rewritten Gaussians have no gradient history). The two lists have the new row count.
  // Gradients and statistics are resized and zeroed.
  void gather_rows(std::span<const int32_t> param_source, std::span<const int32_t> moment_source);
  // The same with both lists (n_out entries each) already on this model's device, as a device-planned
  // refinement writes them (kernels/refine_plan.h); they are trusted to be in range.
  void gather_rows_on_device(const int32_t* param_source, const int32_t* moment_source, int64_t n_out);
  // Puts the rows in order along the Morton curve of their means over `box` (kernels/morton.h), moments
  // with them; gradients and statistics are zeroed. Rows that lie near each other in space then lie
  // near each other in memory, so that a camera's visible rows come in runs: the projection's warps,
  // and the gated exchange's writes over the link, are then whole rather than scattered
  // (bench/bench_gated_copy.cu). Without a box, over the means' own box (read on the host); a shard
  // sorted for a rebalance passes the whole model's.
  void sort_along_curve();
  void sort_along_curve(const kernels::MortonBox& box);
  // Replaces every column (parameters and both moments of every group) with `n` rows that
  // fill(old, row_bytes, out) writes into `out` (n rows of row_bytes on this device) from the column
  // now held, `old`, rows in their storage encoding (fp32, or bf16 where the table asks for it); for
  // moving rows between the shards of a distributed run. Gradients and statistics are resized and zeroed.
  using ColumnFill = std::function<void(const void* old, int64_t row_bytes, void* out)>;
  void replace_rows(int64_t n, const ColumnFill& fill);
  // Appends copies of the given rows (moments zero) / keeps the rows whose mask entry is nonzero;
  // both through gather_rows.
  void append_rows(std::span<const int64_t> rows);
  void keep_rows(std::span<const uint8_t> keep);
  // Caps every value of one group at `cap` and zeroes that group's moments (the opacity reset).
  void cap_values(Group g, float cap);

  // Bytes held on the device (parameters, gradients, moments, statistics).
  size_t bytes() const;
  // The same by role, as allocated (spare capacity included).
  GaussianMemory memory() const;

 private:
  // Sizes the per-row statistics to n_ and zeroes them and the gradients (after any row change).
  void reset_row_state();
  // Sizes every gradient array to n_ rows (SH rest: the bf16 or the fp32 one, whichever is in use).
  void size_gradients();
  // Switches the SH rest gradients between bf16 and fp32 storage (GradWrite::OnlyCall).
  void set_rest_grad_narrow(bool narrow);
  // The scratch of a whole-column edit of `rows` rows (StoredColumnArray::refill).
  kernels::HandoffBlock edit_scratch(int64_t rows) const;
  // Parameters and moments from `state`, stored as its table says (gradients sized, not zeroed).
  void store_columns(const GaussianState& state);

  kernels::ComputeContext where_;
  int64_t n_ = 0;
  int sh_degree_ = 3;
  // The uploaded state's columns: download() hands back values in their storage precision.
  ColumnTable columns_ = kParamColumns;
  std::array<StoredColumnArray, kGroupCount> params_, m1_, m2_;
  std::array<kernels::Buffer<float>, kGroupCount> grads_;
  // The SH rest gradients in bf16 while rest_grad_narrow_ (grads_[ShRest] is then empty).
  kernels::Buffer<uint16_t> rest_grad16_;
  bool rest_grad_narrow_ = false;
  // The rows the last GradWrite::OnlyCall call reached, and the groups whose gradients hold values only there.
  kernels::Buffer<uint8_t> reached_;
  std::array<bool, kGroupCount> only_reached_{};
  kernels::Buffer<float> grad2d_, grad2d_abs_, max_radius_;
  kernels::Buffer<int32_t> visible_count_;
  // The row lists of an edit planned on the host.
  kernels::Buffer<int32_t> rows_a_, rows_b_;
};

// Copies a buffer into `into`, reusing its memory: unlike Buffer::download, repeated downloads of a
// large column touch no fresh pages once `into` has grown to the column's size.
template <class T>
void download_into(const kernels::Buffer<T>& b, std::vector<T>& into) {
  into.resize(b.size());
  kernels::copy_to_host(into.data(), b.data(), b.context(), b.bytes(), "downloading a model column");
}

}  // namespace splat
