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
