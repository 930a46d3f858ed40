#include "core/train/sharding.h"

#include "core/train/local_step.h"

namespace splat {
namespace {

class OneRank final : public Sharding {
 public:
  explicit OneRank(const kernels::ComputeContext& where) : where_(where) {}

  int rank() const override { return 0; }
  int ranks() const override { return 1; }
  kernels::ComputeContext context() const override { return where_; }
  std::unique_ptr<TrainStep> make_step(float ssim_weight, int cpu_threads) const override {
    return std::make_unique<LocalStep>(where_, ssim_weight, cpu_threads);
  }
  GaussianState initial_rows(const GaussianModel& init, const ColumnTable& columns) const override {
    return GaussianState::from_model(init, columns);
  }
  GaussianState rows_of(const GaussianState& whole) const override { return whole; }
  std::vector<int64_t> row_counts(int64_t mine) override { return {mine}; }
  bool rebalance(DeviceGaussians&, double, const sharded::RankWindow&) override { return false; }
  GaussianState gather_state(const DeviceGaussians& rows) override { return rows.download(); }
  std::shared_ptr<const ModelSnapshot> gather_snapshot(const DeviceGaussians& rows, uint64_t version,
                                                       int step) override {
    return ModelSnapshot::capture(rows, version, step);
  }
  void sum_each(std::span<int64_t>) override {}
  void sum_on_device(float*, int64_t) override {}
  std::vector<sharded::RankStats> gather_stats(const sharded::RankStats& mine) override { return {mine}; }

 private:
  kernels::ComputeContext where_;
};

}  // namespace

std::unique_ptr<Sharding> one_rank(const kernels::ComputeContext& where) { return std::make_unique<OneRank>(where); }

}  // namespace splat
