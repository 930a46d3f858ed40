#include "core/train/local_step.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace splat {

std::unique_ptr<kernels::Rasterizer> make_rasterizer(const kernels::ComputeContext& where, int cpu_threads) {
  return where.device == kernels::Device::CPU ? kernels::make_cpu_rasterizer(cpu_threads)
                                              : kernels::make_cuda_rasterizer(where);
}

LocalStep::LocalStep(const kernels::ComputeContext& where, float ssim_weight, int cpu_threads)
    : where_(where),
      raster_(make_rasterizer(where, cpu_threads)),
      loss_(where, ssim_weight),
      rgb_(where), grad_rgb_(where), alpha_(where),
      marks_(where, 2) {}

void LocalStep::run(const StepBatch& batch, const StepRows& rows) {
  const auto& cams = batch.cameras;
  const size_t B = cams.size();
  check_batch_lists(batch, "step");
  marks_.mark(0);
  const kernels::ImageBatchShape largest = largest_run(batch, int(B));
  if (largest.cameras > 0) loss_.reserve(largest);
  const size_t most = size_t(largest.cameras) * size_t(largest.pixels_per_image());
  loss_.clear();
  const std::vector<size_t> run_ends = size_run_ends(cams);
  const GradWrite first_write =
      run_ends.size() == 1 && !batch.settings.packed ? GradWrite::OnlyCall : GradWrite::Overwrite;
  size_t begin = 0;
  for (const size_t end : run_ends) {
    const size_t C = end - begin;
    const kernels::ImageBatchShape shape{int(C), cams[begin].height, cams[begin].width};
    const size_t pixels = std::max(C * size_t(shape.pixels_per_image()), most);
    rgb_.resize(3 * pixels);
    grad_rgb_.resize(3 * pixels);
    alpha_.resize(pixels);
    raster_->forward(rows.view, cams.subspan(begin, C), batch.settings, {rgb_.data(), alpha_.data(), nullptr});
    mark("render forward");
    const auto targets = batch.targets.subspan(begin, C);
    const auto masks = batch.masks.empty() ? batch.masks : batch.masks.subspan(begin, C);
    if (batch.color.params)
      loss_.add_mapped_run(rgb_.data(), grad_rgb_.data(), shape, targets, masks, int(B), batch.color.params,
                           batch.color.grads, batch.views.subspan(begin, C));
    else
      loss_.add_run(rgb_.data(), grad_rgb_.data(), shape, targets, masks, int(B));
    mark("loss");
    raster_->backward({grad_rgb_.data(), nullptr, nullptr}, rows.grad(begin == 0 ? first_write : GradWrite::Add),
                      rows.stats);
    mark(rows.stats.visible_count ? "render backward (+densify stats)" : "render backward");
    begin = end;
  }
  marks_.mark(1);
}

StepTimes LocalStep::step_times() {
  if (const auto ms = marks_.latest()) times_.render_ms = (*ms)[0];
  return times_;
}

std::vector<StepTimes> LocalStep::measured_steps() {
  std::vector<StepTimes> out;
  for (const kernels::StepMarks::Completed& c : marks_.take_completed()) out.emplace_back().render_ms = c.ms[0];
  return out;
}

size_t LocalStep::render_bytes() const {
  return (rgb_.capacity() + grad_rgb_.capacity() + alpha_.capacity()) * sizeof(float);
}

}  // namespace splat
