#include "core/model/model_snapshot.h"

#include <numeric>
#include <stdexcept>
#include <string>

#include "kernels/row_ops.h"

#include "core/transport/communicator.h"

namespace splat {
namespace {
// The view's pointer for a group: the one mapping between groups and view fields, used both to
// read a source view and to build a snapshot's own view.
template <class View>
auto& view_column(View& v, Group g) {
  switch (g) {
    case Group::Means: return v.means;
    case Group::LogScales: return v.log_scales;
    case Group::Quats: return v.quats;
    case Group::Opacity: return v.opacity_logits;
    case Group::ShDc: return v.sh_dc;
    case Group::ShRest: return v.sh_rest;
  }
  throw std::logic_error("bad group");
}

// A group's values in a view as stored: SH rest in bf16 where the view holds it so, else fp32.
struct StoredColumn {
  const void* data;
  size_t element_bytes;
};
StoredColumn stored_column(const kernels::GaussiansView& v, Group g) {
  if (g == Group::ShRest && v.sh_rest_bf16) return {v.sh_rest_bf16, 2};
  return {view_column(v, g), sizeof(float)};
}

// Where a snapshot's columns live: the device, without the maker's stream (which may go before the
// snapshot does).
kernels::ComputeContext home_of(const kernels::ComputeContext& c) { return kernels::ComputeContext(c.device, c.ordinal); }
}  // namespace

void* ModelSnapshot::allocate(Group g, size_t element_bytes) {
  const size_t values = static_cast<size_t>(n_) * group_width(g, sh_degree_);
  kernels::Buffer<float>& column = params_[static_cast<int>(g)];
  if (element_bytes == 2) {  // kept in bf16: a snapshot is a copy, not a conversion
    sh_rest_bf16_ = kernels::Buffer<uint16_t>(where_, values);
    column = kernels::Buffer<float>(where_);
    return sh_rest_bf16_.data();
  }
  column = kernels::Buffer<float>(where_, values);
  return column.data();
}

std::shared_ptr<ModelSnapshot> ModelSnapshot::copy_of(const kernels::GaussiansView& source, int sh_degree,
                                                      const kernels::ComputeContext& from,
                                                      const kernels::ComputeContext& to) {
  std::shared_ptr<ModelSnapshot> s(new ModelSnapshot());
  s->n_ = source.n;
  s->sh_degree_ = sh_degree;
  s->where_ = home_of(to);
  for (Group g : kAllGroups) {
    const StoredColumn src = stored_column(source, g);
    const size_t bytes = static_cast<size_t>(source.n) * group_width(g, sh_degree) * src.element_bytes;
    void* dst = s->allocate(g, src.element_bytes);
    if (bytes && !src.data) throw std::logic_error(std::string("snapshot: no source column ") + group_name(g));
    // Named by `to` (its stream), not where_: from == to enqueues on that stream without a host wait.
    if (bytes) kernels::copy_bytes(dst, to, src.data, from, bytes);
  }
  s->ready_.record(to);
  return s;
}

std::shared_ptr<const ModelSnapshot> ModelSnapshot::capture(const DeviceGaussians& g, uint64_t version, int step) {
  const kernels::ComputeContext& where = g.param(Group::Means).context();
  std::shared_ptr<ModelSnapshot> s = copy_of(g.view(), g.sh_degree(), where, where);
  s->version_ = version;
  s->step_ = step;
  return s;
}

std::shared_ptr<const ModelSnapshot> ModelSnapshot::gather(const DeviceGaussians& shard, transport::Communicator& comm,
                                                           uint64_t version, int step) {
  const std::vector<int64_t> rows = comm.all_gather_value(shard.size());
  const bool root = comm.rank() == 0;
  std::shared_ptr<ModelSnapshot> s;
  if (root) {
    s.reset(new ModelSnapshot());
    s->n_ = std::accumulate(rows.begin(), rows.end(), int64_t{0});
    s->sh_degree_ = shard.sh_degree();
    s->where_ = home_of(comm.context());
    s->version_ = version;
    s->step_ = step;
  }
  const kernels::GaussiansView source = shard.view();
  // Every rank stores the same column table, so the shards' columns are alike (fp32, or bf16 SH rest).
  for (Group g : kAllGroups) {
    const StoredColumn src = stored_column(source, g);
    const int64_t row_bytes = static_cast<int64_t>(group_width(g, shard.sh_degree()) * src.element_bytes);
    std::vector<int64_t> bytes(rows.size());
    for (size_t r = 0; r < rows.size(); ++r) bytes[r] = rows[r] * row_bytes;
    void* dst = root ? s->allocate(g, src.element_bytes) : nullptr;
    comm.gather(src.data, bytes[static_cast<size_t>(comm.rank())], dst, bytes);
  }
  // Every backend's gather lands on the root's stream (the in-process copier pulls the shards there, NCCL
  // receives there; CPU ranks copy on the host): the event after it covers every shard.
  if (root) s->ready_.record(comm.context());
  return s;
}

std::shared_ptr<const ModelSnapshot> ModelSnapshot::upload(const GaussianModel& m, const kernels::ComputeContext& where) {
  m.check_consistent();
  return copy_of(m.view(), m.sh_degree(), kernels::Device::CPU, where);
}

std::shared_ptr<const ModelSnapshot> ModelSnapshot::copy_to(const kernels::ComputeContext& where) const {
  ready_.synchronize("copying a snapshot");  // where_ has no stream to wait for: the copies' event does
  std::shared_ptr<ModelSnapshot> s = copy_of(view(), sh_degree_, where_, where);
  s->version_ = version_;
  s->step_ = step_;
  return s;
}

std::shared_ptr<const ModelSnapshot> ModelSnapshot::rows(std::span<const int32_t> rows,
                                                         const kernels::ComputeContext& on_device) const {
  for (int32_t r : rows)
    if (r < 0 || r >= n_) throw std::out_of_range("snapshot rows: row " + std::to_string(r) + " of " + std::to_string(n_));
  const bool same_device = on_device.device == where_.device && on_device.ordinal == where_.ordinal;
  const kernels::ComputeContext on = where_.device == kernels::Device::CUDA && same_device ? on_device : where_;
  std::shared_ptr<ModelSnapshot> s(new ModelSnapshot());
  s->n_ = static_cast<int64_t>(rows.size());
  s->sh_degree_ = sh_degree_;
  s->where_ = where_;
  s->version_ = version_;
  s->step_ = step_;
  kernels::Buffer<int32_t> index(on);
  index.upload(rows);  // waits for `on` alone, before it is made to wait for the maker's copies
  ready_.wait_on(on);  // the gather below reads this snapshot's columns on `on`
  const kernels::GaussiansView source = view();
  for (Group g : kAllGroups) {
    const int w = group_width(g, sh_degree_);
    const StoredColumn src = stored_column(source, g);
    void* dst = s->allocate(g, src.element_bytes);
    if (rows.empty() || w == 0) continue;
    kernels::gather_rows(on, dst, src.data, src.element_bytes, w, index.data(), s->n_);
  }
  s->ready_.record(on);
  return s;  // `index` goes with cudaFree, which waits for the gather
}

kernels::GaussiansView ModelSnapshot::view() const {
  kernels::GaussiansView v;
  v.n = n_;
  for (Group g : kAllGroups) view_column(v, g) = param(g).size() ? param(g).data() : nullptr;
  if (sh_rest_bf16_.size()) v.sh_rest_bf16 = reinterpret_cast<const kernels::Bf16*>(sh_rest_bf16_.data());
  v.sh_rest_coeffs = kernels::sh_coeffs_for_degree(sh_degree_) - 1;
  return v;
}

std::vector<float> ModelSnapshot::column_host(Group g) const {
  ready_.synchronize("reading a snapshot's column");
  return param(g).download();
}

GaussianModel ModelSnapshot::download() const {
  ready_.synchronize("downloading a snapshot");  // the downloads below run on where_, no stream of the maker
  GaussianModel m(sh_degree_, 0);
  for (Group g : kAllGroups) m.column(g) = param(g).download();
  if (sh_rest_bf16_.size()) {
    const std::vector<uint16_t> bits = sh_rest_bf16_.download();
    std::vector<float>& rest = m.column(Group::ShRest);
    rest.resize(bits.size());
    for (size_t i = 0; i < bits.size(); ++i) rest[i] = kernels::bf16_to_float(bits[i]);
  }
  m.check_consistent();
  return m;
}

}  // namespace splat
