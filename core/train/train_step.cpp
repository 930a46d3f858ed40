#include "core/train/train_step.h"

#include <stdexcept>

namespace splat {

StepRows step_rows(DeviceGaussians& g, bool stats, bool abs_stats) {
  kernels::DensifyStats s = stats ? g.stats() : kernels::DensifyStats{};
  if (!abs_stats) s.grad2d_abs_norm = nullptr;
  return {g.view(), [&g](GradWrite how) { return g.grad(how); }, s};
}

void check_batch_covers_ranks(int batch_size, int ranks, const std::string& batch_name) {
  if (batch_size < ranks)
    throw std::invalid_argument(batch_name + " " + std::to_string(batch_size) + " is smaller than the " +
                                std::to_string(ranks) + " ranks: every rank renders at least one image of a step, " +
                                "so a batch needs at least " + std::to_string(ranks));
}

void check_batch_lists(const StepBatch& batch, const std::string& path) {
  const size_t B = batch.cameras.size();
  auto listed = [B](size_t n, bool optional) { return n == B || (optional && n == 0); };
  if (!listed(batch.targets.size(), false) || !listed(batch.masks.size(), true) ||
      !listed(batch.views.size(), !batch.color.params))
    throw std::invalid_argument(path + ": " + std::to_string(B) + " cameras but " + std::to_string(batch.targets.size()) +
                                " targets, " + std::to_string(batch.masks.size()) + " masks and " +
                                std::to_string(batch.views.size()) + " views" +
                                (batch.color.params ? " (colour maps need one view per camera)" : ""));
}

kernels::ImageBatchShape largest_run(const StepBatch& batch, int cameras) {
  if (batch.largest_width <= 0 || batch.largest_height <= 0) return {};
  return {cameras, batch.largest_height, batch.largest_width};
}

std::vector<size_t> size_run_ends(std::span<const kernels::Camera> cameras) {
  std::vector<size_t> ends;
  for (size_t k = 1; k <= cameras.size(); ++k)
    if (k == cameras.size() || cameras[k].width != cameras[k - 1].width || cameras[k].height != cameras[k - 1].height)
      ends.push_back(k);
  return ends;
}

}  // namespace splat
