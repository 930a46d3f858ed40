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

void ModelSnapshot::allocate(const kernels::ComputeContext& maker, bool bf16_rest) {
  where_ = home_of(maker);
  bf16_rest_ = bf16_rest;
  size_t total = 0;
  for (Group g : kAllGroups) {
    const size_t element_bytes = g == Group::ShRest && bf16_rest ? 2 : sizeof(float);
    const size_t bytes = static_cast<size_t>(n_) * group_width(g, sh_degree_) * element_bytes;
    offset_[static_cast<int>(g)] = total;
    bytes_[static_cast<int>(g)] = bytes;
    total += (bytes + 255) / 256 * 256;  // every column aligned as an allocation of its own would be
  }
  memory_ = kernels::HandoffBlock(maker, total);
}

void* ModelSnapshot::column(Group g) const {
  if (column_bytes(g) == 0) return nullptr;
  return static_cast<char*>(memory_.data()) + offset_[static_cast<int>(g)];
}

std::span<const float> ModelSnapshot::param(Group g) const {
  if (g == Group::ShRest && bf16_rest_) return {};  // held as stored: see sh_rest_bf16 in view()
  return {static_cast<const float*>(column(g)), column_bytes(g) / sizeof(float)};
}

std::shared_ptr<ModelSnapshot> ModelSnapshot::copy_of(const kernels::GaussiansView& source, int sh_degree,
                                                      const kernels::ComputeContext& from,
                                                      const kernels::ComputeContext& to) {
  std::shared_ptr<ModelSnapshot> s(new ModelSnapshot());
  s->n_ = source.n;
  s->sh_degree_ = sh_degree;
  s->allocate(to, source.sh_rest_bf16 != nullptr);
  for (Group g : kAllGroups) {
    const StoredColumn src = stored_column(source, g);
    const size_t bytes = s->column_bytes(g);
    if (bytes && !src.data) throw std::logic_error(std::string("snapshot: no source column ") + group_name(g));
    // Named by `to` (its stream), not where_: from == to enqueues on that stream without a host wait.
    if (bytes) kernels::copy_bytes(s->column(g), to, src.data, from, bytes);
  }
  s->ready_.record(to);
  s->used_on(to);  // the copies wrote there
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
  const kernels::GaussiansView source = shard.view();
  if (root) {
    s.reset(new ModelSnapshot());
    s->n_ = std::accumulate(rows.begin(), rows.end(), int64_t{0});
    s->sh_degree_ = shard.sh_degree();
    s->version_ = version;
    s->step_ = step;
    s->allocate(comm.context(), source.sh_rest_bf16 != nullptr);
  }
  // Every rank stores the same column table, so the shards' columns are alike (fp32, or bf16 SH rest).
  for (Group g : kAllGroups) {
    const StoredColumn src = stored_column(source, g);
    const int64_t row_bytes = static_cast<int64_t>(group_width(g, shard.sh_degree()) * src.element_bytes);
    std::vector<int64_t> bytes(rows.size());
    for (size_t r = 0; r < rows.size(); ++r) bytes[r] = rows[r] * row_bytes;
    void* dst = root ? s->column(g) : nullptr;
    comm.gather(src.data, bytes[static_cast<size_t>(comm.rank())], dst, bytes);
  }
  // Every backend's gather lands on the root's stream (the in-process copier pulls the shards there, NCCL
  // receives there; CPU ranks copy on the host): the event after it covers every shard.
  if (root) {
    s->ready_.record(comm.context());
    s->used_on(comm.context());
  }
  return s;
}

std::shared_ptr<const ModelSnapshot> ModelSnapshot::upload(const GaussianModel& m, const kernels::ComputeContext& where) {
  m.check_consistent();
  return copy_of(m.view(), m.sh_degree(), kernels::Device::CPU, where);
}

std::shared_ptr<const ModelSnapshot> ModelSnapshot::copy_to(const kernels::ComputeContext& where) const {
  ready_.synchronize("copying a snapshot");  // where_ has no stream to wait for: the copies' event does
  std::shared_ptr<ModelSnapshot> s = copy_of(view(), sh_degree_, where_, where);
  used_on(where);  // read there, unless the copies waited on the host
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
  s->version_ = version_;
  s->step_ = step_;
  s->allocate(on, bf16_rest_);  // `on` is a context of this snapshot's device
  // Hand-off memory too, so that dropping it makes no wait for the device.
  const kernels::HandoffBlock index(on, rows.size_bytes());
  // Waits for `on` alone, before it is made to wait for the maker's copies.
  kernels::copy_from_host(index.data(), on, rows.data(), rows.size_bytes(), "uploading a snapshot's rows");
  ready_.wait_on(on);  // the gather below reads this snapshot's columns on `on`
  const kernels::GaussiansView source = view();
  for (Group g : kAllGroups) {
    const int w = group_width(g, sh_degree_);
    const StoredColumn src = stored_column(source, g);
    if (rows.empty() || w == 0) continue;
    kernels::gather_rows(on, s->column(g), src.data, src.element_bytes, w, static_cast<const int32_t*>(index.data()),
                         s->n_);
  }
  s->ready_.record(on);
  s->used_on(on);
  used_on(on);        // the gather read this snapshot's columns there
  index.used_on(on);  // and the rows
  return s;
}

kernels::GaussiansView ModelSnapshot::view() const {
  kernels::GaussiansView v;
  v.n = n_;
  for (Group g : kAllGroups) view_column(v, g) = param(g).size() ? param(g).data() : nullptr;
  if (bf16_rest_ && column_bytes(Group::ShRest))
    v.sh_rest_bf16 = static_cast<const kernels::Bf16*>(column(Group::ShRest));
  v.sh_rest_coeffs = kernels::sh_coeffs_for_degree(sh_degree_) - 1;
  return v;
}

std::vector<float> ModelSnapshot::column_host(Group g) const {
  ready_.synchronize("reading a snapshot's column");
  const std::span<const float> c = param(g);
  std::vector<float> host(c.size());
  kernels::copy_to_host(host.data(), c.data(), where_, c.size_bytes(), "reading a snapshot's column");
  return host;
}

GaussianModel ModelSnapshot::download() const {
  ready_.synchronize("downloading a snapshot");  // the downloads below run on where_, no stream of the maker
  GaussianModel m(sh_degree_, 0);
  for (Group g : kAllGroups) {
    const std::span<const float> c = param(g);
    m.column(g).resize(c.size());
    kernels::copy_to_host(m.column(g).data(), c.data(), where_, c.size_bytes(), "downloading a snapshot");
  }
  if (bf16_rest_) {
    std::vector<uint16_t> bits(column_bytes(Group::ShRest) / sizeof(uint16_t));
    kernels::copy_to_host(bits.data(), column(Group::ShRest), where_, column_bytes(Group::ShRest),
                          "downloading a snapshot");
    std::vector<float>& rest = m.column(Group::ShRest);
    rest.resize(bits.size());
    for (size_t i = 0; i < bits.size(); ++i) rest[i] = kernels::bf16_to_float(bits[i]);
  }
  m.check_consistent();
  return m;
}

}  // namespace splat
