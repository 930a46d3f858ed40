#include "core/model/shard_layout.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "kernels/buffer.h"
#include "kernels/handoff_memory.h"

namespace splat::sharded {

namespace {

// Spreads the low 10 bits of v so that they occupy every third bit.
uint32_t spread_bits(uint32_t v) {
  v &= 0x3FF;
  v = (v | (v << 16)) & 0x030000FF;
  v = (v | (v << 8)) & 0x0300F00F;
  v = (v | (v << 4)) & 0x030C30C3;
  v = (v | (v << 2)) & 0x09249249;
  return v;
}

}  // namespace

RowBlock row_block(int64_t n, int rank, int ranks) {
  if (ranks < 1 || rank < 0 || rank >= ranks || n < 0)
    throw std::invalid_argument("row_block: rank " + std::to_string(rank) + " of " + std::to_string(ranks) +
                                " over " + std::to_string(n) + " rows");
  const int64_t first = n * rank / ranks;
  return {first, n * (rank + 1) / ranks - first};
}

Box bounding_box(std::span<const float> means) {
  const size_t n = means.size() / 3;
  Box b;
  for (int a = 0; a < 3; ++a) b.lo[a] = b.hi[a] = n ? means[size_t(a)] : 0.f;
  for (size_t i = 0; i < n; ++i)
    for (int a = 0; a < 3; ++a) {
      b.lo[a] = std::min(b.lo[a], means[3 * i + size_t(a)]);
      b.hi[a] = std::max(b.hi[a], means[3 * i + size_t(a)]);
    }
  return b;
}

std::vector<int64_t> morton_order(std::span<const float> means, const Box& box) {
  const size_t n = means.size() / 3;
  std::vector<uint32_t> code(n);
  for (size_t i = 0; i < n; ++i) {
    uint32_t c = 0;
    for (int a = 0; a < 3; ++a) {
      const float span = box.hi[a] - box.lo[a];
      const float t = span > 0 && std::isfinite(span) ? (means[3 * i + size_t(a)] - box.lo[a]) / span : 0.f;
      const uint32_t cell = std::isfinite(t) ? uint32_t(std::clamp(t, 0.f, 1.f) * 1023.f) : 0u;
      c |= spread_bits(cell) << a;
    }
    code[i] = c;
  }
  std::vector<int64_t> order(n);
  std::iota(order.begin(), order.end(), int64_t(0));
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return code[size_t(a)] < code[size_t(b)]; });
  return order;
}

std::vector<int64_t> morton_order(std::span<const float> means) { return morton_order(means, bounding_box(means)); }

GaussianState take_rows(const GaussianState& state, std::span<const int64_t> rows) {
  GaussianState out(state.sh_degree(), int64_t(rows.size()), state.columns());
  for (Group g : kAllGroups) {
    const size_t w = size_t(state.width(g));
    const HostColumn& from = state.col(g);
    HostColumn& to = out.col(g);
    for (size_t j = 0; j < rows.size(); ++j) {
      const size_t src = size_t(rows[j]) * w, dst = j * w;
      std::copy_n(from.value.begin() + src, w, to.value.begin() + dst);
      std::copy_n(from.exp_avg.begin() + src, w, to.exp_avg.begin() + dst);
      std::copy_n(from.exp_avg_sq.begin() + src, w, to.exp_avg_sq.begin() + dst);
    }
  }
  return out;
}

GaussianState initial_shard(const GaussianModel& whole, int rank, int ranks, const ColumnTable& columns) {
  const std::vector<int64_t> order = morton_order(whole.means);
  const RowBlock b = row_block(whole.size(), rank, ranks);
  return take_rows(GaussianState::from_model(whole, columns),
                   std::span<const int64_t>(order).subspan(size_t(b.first), size_t(b.count)));
}

GaussianState shard_of(const GaussianState& whole, int rank, int ranks) {
  const RowBlock b = row_block(whole.size(), rank, ranks);
  std::vector<int64_t> rows(size_t(b.count));
  std::iota(rows.begin(), rows.end(), b.first);
  return take_rows(whole, rows);
}

GaussianState gather_state(Communicator& comm, const DeviceGaussians& shard, int root) {
  const std::vector<int64_t> sizes = comm.all_gather_value(shard.size());
  const int64_t total = std::accumulate(sizes.begin(), sizes.end(), int64_t(0));
  const bool here = comm.rank() == root;
  GaussianState whole(shard.sh_degree(), here ? total : 0, shard.columns());
  // Each gathered column lands in scratch first (StoredColumnArray::refill): room for the widest in fp32.
  const kernels::HandoffBlock scratch(
      comm.context(), here ? size_t(total) * size_t(widest_group_width(shard.sh_degree())) * sizeof(float) : 0);
  for (Group g : kAllGroups) {
    const int64_t w = group_width(g, shard.sh_degree());
    const StoredColumnArray* parts[3] = {&shard.stored_param(g), &shard.exp_avg(g), &shard.exp_avg_sq(g)};
    std::vector<float> HostColumn::*into[3] = {&HostColumn::value, &HostColumn::exp_avg, &HostColumn::exp_avg_sq};
    for (int k = 0; k < 3; ++k) {
      const StoredColumnArray& mine = *parts[k];
      const int64_t row_bytes = w * int64_t(mine.element_bytes());
      std::vector<int64_t> bytes(sizes.size());
      for (size_t r = 0; r < sizes.size(); ++r) bytes[r] = sizes[r] * row_bytes;
      const int64_t my_bytes = bytes[size_t(comm.rank())];
      if (!here) {
        comm.gather(mine.data(), my_bytes, nullptr, bytes, root);
        continue;
      }
      StoredColumnArray all(comm.context(), mine.precision(), mine.two_bytes());
      all.refill(size_t(total * w), [&](const void*, size_t, void* out) { comm.gather(mine.data(), my_bytes, out, bytes, root); },
                 scratch);
      whole.col(g).*into[k] = all.download();
    }
  }
  if (here) {
    whole.round_to_storage();
    whole.check_consistent();
  }
  return whole;
}

int64_t first_global_id(std::span<const int64_t> sizes, int rank) {
  return std::accumulate(sizes.begin(), sizes.begin() + rank, int64_t(0));
}

}  // namespace splat::sharded
