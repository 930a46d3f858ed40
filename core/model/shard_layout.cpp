#include "core/model/shard_layout.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "kernels/buffer.h"
#include "kernels/handoff_memory.h"
#include "kernels/morton.h"

namespace splat::sharded {

RowBlock row_block(int64_t n, int rank, int ranks) {
  if (ranks < 1 || rank < 0 || rank >= ranks || n < 0)
    throw std::invalid_argument("row_block: rank " + std::to_string(rank) + " of " + std::to_string(ranks) +
                                " over " + std::to_string(n) + " rows");
  const int64_t first = n * rank / ranks;
  return {first, n * (rank + 1) / ranks - first};
}

Box bounding_box(std::span<const float> means) {
  return kernels::bounding_box_reference(means.data(), int64_t(means.size() / 3));
}

std::vector<int64_t> morton_order(std::span<const float> means, const Box& box) {
  std::vector<int32_t> order(means.size() / 3);
  kernels::morton_order_reference(means.data(), int64_t(order.size()), box, order.data());
  return {order.begin(), order.end()};
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
