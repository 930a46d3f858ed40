#include "core/model/device_gaussians.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/model/column_rows.h"
#include "kernels/handoff_memory.h"
#include "kernels/morton.h"
#include "kernels/row_ops.h"

namespace splat {

using kernels::Buffer;
using kernels::Device;

GaussianState::GaussianState(int sh_degree, int64_t n, const ColumnTable& columns)
    : sh_degree_(sh_degree), columns_(columns) {
  if (!table_is_indexed_by_group(columns)) throw std::logic_error("GaussianState: column table not in Group order");
  for (Group g : kAllGroups) {
    const size_t len = static_cast<size_t>(n) * width(g);
    col(g).value.assign(len, 0.f);
    col(g).exp_avg.assign(len, 0.f);
    col(g).exp_avg_sq.assign(len, 0.f);
  }
}

GaussianState GaussianState::from_model(const GaussianModel& m, const ColumnTable& columns) {
  m.check_consistent();
  GaussianState s(m.sh_degree(), m.size(), columns);
  for (Group g : kAllGroups) s.col(g).value = m.column(g);
  s.round_to_storage();
  return s;
}

GaussianState GaussianState::with_columns(const ColumnTable& columns) const {
  if (!same_columns(columns, columns_)) throw std::logic_error("GaussianState::with_columns: another set of columns");
  GaussianState s = *this;
  s.columns_ = columns;
  s.round_to_storage();
  return s;
}

GaussianModel GaussianState::to_model() const {
  GaussianModel m(sh_degree_, size());
  for (Group g : kAllGroups) m.column(g) = col(g).value;
  m.check_consistent();
  return m;
}

size_t GaussianState::storage_bytes() const {
  size_t b = 0;
  for (Group g : kAllGroups) {
    const HostColumn& c = col(g);
    b += c.value.size() * element_size(spec(g).storage) + (c.exp_avg.size() + c.exp_avg_sq.size()) * sizeof(float);
  }
  return b;
}

void GaussianState::round_to_storage() {
  for (Group g : kAllGroups)
    if (spec(g).storage != Precision::F32)
      for (float& v : col(g).value) v = splat::round_to_storage(v, spec(g).storage);
}

void GaussianState::append_rows(std::span<const int64_t> rows) {
  check_rows_in_range(rows, size(), "append_rows");
  for (Group g : kAllGroups) {
    HostColumn& c = col(g);
    append_column_rows(c.value, width(g), rows);
    c.exp_avg.resize(c.value.size(), 0.f);
    c.exp_avg_sq.resize(c.value.size(), 0.f);
  }
}

void GaussianState::keep_rows(std::span<const uint8_t> keep) {
  check_mask_length(keep, size(), "keep_rows");
  for (Group g : kAllGroups)
    for (std::vector<float>* v : {&col(g).value, &col(g).exp_avg, &col(g).exp_avg_sq}) keep_column_rows(*v, width(g), keep);
}

void GaussianState::reset_moments(Group g, std::span<const int64_t> rows) {
  const int w = width(g);
  for (int64_t r : rows)
    for (int k = 0; k < w; ++k) {
      col(g).exp_avg[r * w + k] = 0.f;
      col(g).exp_avg_sq[r * w + k] = 0.f;
    }
}

void GaussianState::reset_moments(std::span<const int64_t> rows) {
  for (Group g : kAllGroups) reset_moments(g, rows);
}

void GaussianState::copy_row(int64_t from, int64_t to) {
  for (Group g : kAllGroups) std::copy_n(row(g, from), width(g), row(g, to));
}

void GaussianState::check_consistent() const {
  const size_t n = static_cast<size_t>(size());
  for (Group g : kAllGroups) {
    const size_t len = n * width(g);
    const HostColumn& c = col(g);
    if (c.value.size() != len || c.exp_avg.size() != len || c.exp_avg_sq.size() != len)
      throw std::logic_error(std::string("GaussianState: column ") + group_name(g) + " has " +
                             std::to_string(c.value.size()) + "/" + std::to_string(c.exp_avg.size()) + "/" +
                             std::to_string(c.exp_avg_sq.size()) + " floats, expected " + std::to_string(len));
    const Precision p = spec(g).storage;
    if (p != Precision::F32)
      for (float v : c.value) {
        const float stored = splat::round_to_storage(v, p);
        if (std::memcmp(&v, &stored, sizeof v) != 0)  // bitwise: a NaN compares unequal to itself
          throw std::logic_error(std::string("GaussianState: column ") + group_name(g) + " holds a value " +
                                 precision_name(p) + " cannot store");
      }
  }
}

DeviceGaussians::DeviceGaussians(const kernels::ComputeContext& where, const GaussianState& state) : where_(where) {
  for (int i = 0; i < kGroupCount; ++i) grads_[i] = Buffer<float>(where_);
  rest_grad16_ = Buffer<uint16_t>(where_);
  reached_ = Buffer<uint8_t>(where_);
  grad2d_ = Buffer<float>(where_);
  grad2d_abs_ = Buffer<float>(where_);
  max_radius_ = Buffer<float>(where_);
  visible_count_ = Buffer<int32_t>(where_);
  rows_a_ = Buffer<int32_t>(where_);
  rows_b_ = Buffer<int32_t>(where_);
  upload(state);
}

kernels::GaussiansView DeviceGaussians::view() const {
  kernels::GaussiansView v;
  v.n = n_;
  v.means = param(Group::Means).data();
  v.quats = param(Group::Quats).data();
  v.log_scales = param(Group::LogScales).data();
  v.opacity_logits = param(Group::Opacity).data();
  v.sh_dc = param(Group::ShDc).data();
  if (sh_rest_coeffs()) {
    const StoredColumnArray& rest = params_[static_cast<int>(Group::ShRest)];
    if (rest.two_bytes())
      v.sh_rest_bf16 = rest.bf16();
    else
      v.sh_rest = rest.f32().data();
  }
  v.sh_rest_coeffs = sh_rest_coeffs();
  return v;
}

kernels::GaussiansGrad DeviceGaussians::grad(GradWrite how) {
  const bool rest_bf16 = params_[static_cast<int>(Group::ShRest)].two_bytes();
  set_rest_grad_narrow(how == GradWrite::OnlyCall && rest_bf16 && sh_rest_coeffs() > 0);
  kernels::GaussiansGrad g;
  g.means = grad(Group::Means).data();
  g.quats = grad(Group::Quats).data();
  g.log_scales = grad(Group::LogScales).data();
  g.opacity_logits = grad(Group::Opacity).data();
  g.sh_dc = grad(Group::ShDc).data();
  if (rest_grad_narrow_)
    g.sh_rest_bf16 = reinterpret_cast<kernels::Bf16*>(rest_grad16_.data());
  else if (sh_rest_coeffs())
    g.sh_rest = grad(Group::ShRest).data();
  g.overwrite = how != GradWrite::Add;
  only_reached_.fill(how == GradWrite::OnlyCall);
  if (how == GradWrite::OnlyCall) g.reached = reached_.data();
  return g;
}

const uint8_t* DeviceGaussians::reached_rows(Group g) const {
  return only_reached_[static_cast<int>(g)] ? reached_.data() : nullptr;
}

void DeviceGaussians::set_rest_grad_narrow(bool narrow) {
  if (narrow == rest_grad_narrow_) return;
  rest_grad_narrow_ = narrow;
  if (narrow) grads_[static_cast<int>(Group::ShRest)] = Buffer<float>(where_);
  else rest_grad16_ = Buffer<uint16_t>(where_);
  size_gradients();
  if (narrow) rest_grad16_.zero();
  else grads_[static_cast<int>(Group::ShRest)].zero();
}

void DeviceGaussians::size_gradients() {
  reached_.resize(static_cast<size_t>(n_));
  for (Group g : kAllGroups) {
    const size_t len = static_cast<size_t>(n_) * group_width(g, sh_degree_);
    if (g == Group::ShRest && rest_grad_narrow_) rest_grad16_.resize(len);
    else grads_[static_cast<int>(g)].resize(len);
  }
}

kernels::DensifyStats DeviceGaussians::stats() {
  return {grad2d_.data(), grad2d_abs_.data(), visible_count_.data(), max_radius_.data()};
}

void DeviceGaussians::zero_grad() {
  for (auto& b : grads_) b.zero();
  rest_grad16_.zero();
  only_reached_.fill(false);
}

void DeviceGaussians::zero_stats() {
  grad2d_.zero();
  grad2d_abs_.zero();
  max_radius_.zero();
  visible_count_.zero();
}

GaussianState DeviceGaussians::download() const {
  GaussianState s(sh_degree_, 0, columns_);
  for (Group g : kAllGroups) {
    const int i = static_cast<int>(g);
    s.col(g).value = params_[i].download();  // fp32 arrays of a narrow precision hold rounded values
    s.col(g).exp_avg = m1_[i].download();
    s.col(g).exp_avg_sq = m2_[i].download();
  }
  s.round_to_storage();
  s.check_consistent();
  return s;
}

void DeviceGaussians::upload(const GaussianState& state) {
  store_columns(state);
  reset_row_state();
}

void DeviceGaussians::set_columns(const ColumnTable& columns) {
  if (!same_columns(columns, columns_)) throw std::logic_error("DeviceGaussians::set_columns: another set of columns");
  store_columns(download().with_columns(columns));
}

void DeviceGaussians::store_columns(const GaussianState& state) {
  state.check_consistent();
  n_ = state.size();
  sh_degree_ = state.sh_degree();
  columns_ = state.columns();
  for (Group g : kAllGroups) {
    const int i = static_cast<int>(g);
    // 2-byte storage where a kernel reads bf16: every bf16 moment (Adam), bf16 SH rest values (the
    // rasterizer). Any other narrow column is held in fp32 elements rounded to its precision.
    const ColumnSpec& spec = state.spec(g);
    params_[i] = StoredColumnArray(where_, spec.storage, g == Group::ShRest && spec.storage == Precision::BF16);
    for (StoredColumnArray* m : {&m1_[i], &m2_[i]})
      *m = StoredColumnArray(where_, spec.moments, spec.moments == Precision::BF16);
    params_[i].upload(state.col(g).value);
    m1_[i].upload(state.col(g).exp_avg);
    m2_[i].upload(state.col(g).exp_avg_sq);
  }
  // fp32 SH rest values train from fp32 gradients.
  if (!params_[static_cast<int>(Group::ShRest)].two_bytes()) set_rest_grad_narrow(false);
  size_gradients();
}

// Scratch for a whole-column edit of `rows` rows: room for the widest column in fp32. From the
// device's stream-ordered pool (kernels/handoff_memory.h): it goes back without a wait for the whole
// device, and the pool keeps it for the next edit rather than a column's worth of memory per Gaussian
// staying allocated for the rest of the run.
kernels::HandoffBlock DeviceGaussians::edit_scratch(int64_t rows) const {
  return kernels::HandoffBlock(where_, static_cast<size_t>(rows) * size_t(widest_group_width(sh_degree_)) * sizeof(float));
}

void DeviceGaussians::reset_row_state() {
  const size_t n = static_cast<size_t>(n_);
  grad2d_.resize(n);
  grad2d_abs_.resize(n);
  max_radius_.resize(n);
  visible_count_.resize(n);
  zero_grad();
  zero_stats();
}

HostDensifyStats DeviceGaussians::download_stats(const StatsSelection& which) const {
  HostDensifyStats st;
  download_stats(st, which);
  return st;
}

void DeviceGaussians::download_stats(HostDensifyStats& into, const StatsSelection& which) const {
  auto fetch = [](bool wanted, const auto& buffer, auto& host) {
    if (wanted)
      download_into(buffer, host);
    else
      host.clear();
  };
  fetch(which.grad2d_norm, grad2d_, into.grad2d_norm);
  fetch(which.grad2d_abs_norm, grad2d_abs_, into.grad2d_abs_norm);
  fetch(which.max_radius, max_radius_, into.max_radius);
  fetch(which.visible_count, visible_count_, into.visible_count);
}

void DeviceGaussians::gather_rows(std::span<const int32_t> param_source, std::span<const int32_t> moment_source) {
  if (param_source.size() != moment_source.size())
    throw std::logic_error("DeviceGaussians::gather_rows: " + std::to_string(param_source.size()) +
                           " parameter sources but " + std::to_string(moment_source.size()) + " moment sources");
  for (std::span<const int32_t> list : {param_source, moment_source})
    for (int32_t r : list)
      if (r < -1 || r >= n_)
        throw std::out_of_range("DeviceGaussians::gather_rows: source row " + std::to_string(r) + " of " +
                                std::to_string(n_));
  rows_a_.upload(param_source);
  rows_b_.upload(moment_source);
  gather_rows_on_device(rows_a_.data(), rows_b_.data(), static_cast<int64_t>(param_source.size()));
}

void DeviceGaussians::gather_rows_on_device(const int32_t* param_source, const int32_t* moment_source, int64_t n_out) {
  // Every column goes through this one loop, so that none can be left with the old rows.
  const kernels::HandoffBlock scratch = edit_scratch(n_out);
  for (Group g : kAllGroups) {
    const int i = static_cast<int>(g);
    const int w = group_width(g, sh_degree_);
    using Target = std::pair<StoredColumnArray*, const int32_t*>;
    for (auto [column, source] : {Target{&params_[i], param_source}, Target{&m1_[i], moment_source}, Target{&m2_[i], moment_source}})
      column->gather(source, w, n_out, scratch);
  }
  n_ = n_out;
  size_gradients();
  reset_row_state();
}

void DeviceGaussians::sort_along_curve() {
  if (n_ > 0) sort_along_curve(kernels::bounding_box(context(), param(Group::Means).data(), n_));
}

void DeviceGaussians::sort_along_curve(const kernels::MortonBox& box) {
  if (n_ == 0) return;
  const kernels::ComputeContext& where = context();
  const kernels::HandoffBlock order(where, size_t(n_) * sizeof(int32_t) + 16);
  int32_t* rows = static_cast<int32_t*>(order.data());
  kernels::morton_order(where, param(Group::Means).data(), n_, box, rows);
  gather_rows_on_device(rows, rows, n_);
  order.used_on(where);
}

void DeviceGaussians::replace_rows(int64_t n, const ColumnFill& fill) {
  const kernels::HandoffBlock scratch = edit_scratch(n);
  for (Group g : kAllGroups) {
    const int i = static_cast<int>(g);
    const int w = group_width(g, sh_degree_);
    for (StoredColumnArray* column : {&params_[i], &m1_[i], &m2_[i]})
      column->refill(
          static_cast<size_t>(n) * w,
          [&](const void* old, size_t element_bytes, void* out) {
            fill(old, int64_t(w) * int64_t(element_bytes), out);
          },
          scratch);
  }
  n_ = n;
  size_gradients();
  reset_row_state();
}

void DeviceGaussians::append_rows(std::span<const int64_t> rows) {
  check_rows_in_range(rows, n_, "append_rows");
  std::vector<int32_t> params(static_cast<size_t>(n_)), moments;
  for (int64_t i = 0; i < n_; ++i) params[i] = static_cast<int32_t>(i);
  moments = params;
  for (int64_t r : rows) {
    params.push_back(static_cast<int32_t>(r));
    moments.push_back(-1);
  }
  gather_rows(params, moments);
}

void DeviceGaussians::keep_rows(std::span<const uint8_t> keep) {
  check_mask_length(keep, n_, "keep_rows");
  std::vector<int32_t> kept;
  for (int64_t i = 0; i < n_; ++i)
    if (keep[i]) kept.push_back(static_cast<int32_t>(i));
  gather_rows(kept, kept);
}

void DeviceGaussians::cap_values(Group g, float cap) {
  kernels::cap_values(where_, param(g).data(), static_cast<int64_t>(param(g).size()), cap);
  m1_[static_cast<int>(g)].zero();
  m2_[static_cast<int>(g)].zero();
}


kernels::AdamGroup DeviceGaussians::adam_group(Group g) {
  const int i = static_cast<int>(g);
  kernels::AdamGroup a;
  a.params = params_[i].stored();
  a.grads = g == Group::ShRest && rest_grad_narrow_ ? kernels::GradArray::narrow(rest_grad16_.data())
                                                     : kernels::GradArray(grads_[i].data());
  a.grads.reached = reached_rows(g);
  a.grads.width = group_width(g, sh_degree_);
  a.exp_avg = m1_[i].stored();
  a.exp_avg_sq = m2_[i].stored();
  a.n = n_ * group_width(g, sh_degree_);
  return a;
}

size_t DeviceGaussians::bytes() const {
  size_t b = grad2d_.bytes() + grad2d_abs_.bytes() + max_radius_.bytes() + visible_count_.bytes();
  b += rest_grad16_.bytes() + reached_.bytes();
  for (int i = 0; i < kGroupCount; ++i) b += params_[i].bytes() + grads_[i].bytes() + m1_[i].bytes() + m2_[i].bytes();
  return b;
}

GaussianMemory DeviceGaussians::memory() const {
  GaussianMemory m;
  m.gradients = rest_grad16_.capacity() * sizeof(uint16_t) + reached_.capacity();
  for (int i = 0; i < kGroupCount; ++i) {
    m.parameters += params_[i].capacity_bytes();
    m.optimizer += m1_[i].capacity_bytes() + m2_[i].capacity_bytes();
    m.gradients += grads_[i].capacity() * sizeof(float);
  }
  m.statistics = (grad2d_.capacity() + grad2d_abs_.capacity() + max_radius_.capacity()) * sizeof(float) +
                 visible_count_.capacity() * sizeof(int32_t);
  return m;
}

}  // namespace splat
