#include "core/train/sharded/comm_sharding.h"

#include "core/model/shard_layout.h"
#include "core/train/sharded/rebalance.h"
#include "core/train/sharded/sharded_step.h"
#include "kernels/buffer.h"
#include "kernels/row_ops.h"

namespace splat::sharded {
namespace {

class CommSharding final : public Sharding {
 public:
  explicit CommSharding(transport::Communicator& comm) : comm_(comm) {}

  int rank() const override { return comm_.rank(); }
  int ranks() const override { return comm_.size(); }
  kernels::ComputeContext context() const override { return comm_.context(); }
  std::unique_ptr<TrainStep> make_step(float ssim_weight, int cpu_threads) const override {
    return std::make_unique<ShardedStep>(comm_, ssim_weight, cpu_threads);
  }
  GaussianState initial_rows(const GaussianModel& init, const ColumnTable& columns) const override {
    return initial_shard(init, comm_.rank(), comm_.size(), columns);
  }
  GaussianState rows_of(const GaussianState& whole) const override {
    return shard_of(whole, comm_.rank(), comm_.size());
  }
  std::vector<int64_t> row_counts(int64_t mine) override { return comm_.all_gather_value(mine); }
  bool rebalance(DeviceGaussians& rows, double threshold, const RankWindow& window) override {
    return rebalance_if_uneven(comm_, rows, threshold, window);
  }
  GaussianState gather_state(const DeviceGaussians& rows) override { return sharded::gather_state(comm_, rows); }
  std::shared_ptr<const ModelSnapshot> gather_snapshot(const DeviceGaussians& rows, uint64_t version,
                                                       int step) override {
    return ModelSnapshot::gather(rows, comm_, version, step);
  }
  void sum_each(std::span<int64_t> values) override { comm_.all_reduce_sum(values); }
  std::vector<RankStats> gather_stats(const RankStats& mine) override { return gather_rank_stats(comm_, mine); }
  void sum_on_device(float* values, int64_t n) override {
    const size_t R = size_t(comm_.size());
    const int64_t bytes = n * int64_t(sizeof(float));
    copies_.resize(R * size_t(n));
    const std::vector<int64_t> counts(R, bytes), none(R, 0);
    std::vector<int64_t> at(R);
    for (size_t q = 0; q < R; ++q) at[q] = int64_t(q) * bytes;
    comm_.all_to_all_v(values, {counts, none}, copies_.data(), {counts, at});
    kernels::sum_slices(comm_.context(), copies_.data(), int(R), n, values);
  }

 private:
  transport::Communicator& comm_;
  kernels::Buffer<float> copies_{comm_.context()};  // every rank's copy, in rank order
};

}  // namespace

std::unique_ptr<Sharding> over(transport::Communicator& comm) { return std::make_unique<CommSharding>(comm); }

}  // namespace splat::sharded
