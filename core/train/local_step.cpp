#include "core/train/local_step.h"

#include <algorithm>
#include <span>
#include <stdexcept>
#include <vector>

#include "kernels/color_affine.h"

namespace splat {

std::unique_ptr<kernels::Rasterizer> make_rasterizer(const kernels::ComputeContext& where, int cpu_threads) {
  return where.device == kernels::Device::CPU ? kernels::make_cpu_rasterizer(cpu_threads)
                                              : kernels::make_cuda_rasterizer(where);
}

LocalStep::LocalStep(const kernels::ComputeContext& where, float ssim_weight, int cpu_threads)
    : where_(where),
      raster_(make_rasterizer(where, cpu_threads)),
      loss_(where, ssim_weight),
      rgb_(where), grad_rgb_(where), alpha_(where), mapped_(where), grad_mapped_(where),
      marks_(where, 2) {}

void LocalStep::run(const StepBatch& batch, const StepRows& rows) {
  const auto& cams = batch.cameras;
  const size_t B = cams.size();
  if (batch.targets.size() != B || (!batch.masks.empty() && batch.masks.size() != B))
    throw std::invalid_argument("step: " + std::to_string(B) + " cameras but " + std::to_string(batch.targets.size()) +
                                " targets and " + std::to_string(batch.masks.size()) + " masks");
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
    if (batch.color.params) {
      loss_with_color_maps(batch.color, begin, shape, targets, masks, int(B));
    } else {
      loss_.add_run(rgb_.data(), grad_rgb_.data(), shape, targets, masks, int(B));
    }
    mark("loss");
    raster_->backward({grad_rgb_.data(), nullptr, nullptr}, rows.grad(begin == 0 ? first_write : GradWrite::Add),
                      rows.stats);
    mark(rows.stats.visible_count ? "render backward (+densify stats)" : "render backward");
    begin = end;
  }
  marks_.mark(1);
}

// The loss of a run compared after each image's colour map: the mapped images and their gradient in
// scratch, then back through the maps into grad_rgb_ and the maps' gradients. At most
// kernels::kColorAffineMostImages images a map call.
void LocalStep::loss_with_color_maps(const StepBatch::ColorMaps& color, size_t begin,
                                     const kernels::ImageBatchShape& shape,
                                     std::span<const uint8_t* const> targets, std::span<const uint8_t* const> masks,
                                     int batch) {
  const int64_t pixels = shape.pixels_per_image(), n = shape.elements();
  mapped_.resize(size_t(n));
  grad_mapped_.resize(size_t(n));
  auto each_part = [&](auto&& f) {
    for (int c = 0; c < shape.cameras; c += kernels::kColorAffineMostImages) {
      const int count = std::min(kernels::kColorAffineMostImages, shape.cameras - c);
      f(color.views.subspan(begin + size_t(c), size_t(count)), 3 * int64_t(c) * pixels);
    }
  };
  each_part([&](std::span<const int> views, int64_t at) {
    kernels::color_affine_forward(where_, color.params, views, rgb_.data() + at, mapped_.data() + at, pixels);
  });
  loss_.add_run(mapped_.data(), grad_mapped_.data(), shape, targets, masks, batch);
  each_part([&](std::span<const int> views, int64_t at) {
    kernels::color_affine_backward(where_, color.params, views, rgb_.data() + at, grad_mapped_.data() + at,
                                   grad_rgb_.data() + at, color.grads, pixels);
  });
}

StepTimes LocalStep::step_times() {
  if (const auto ms = marks_.latest()) times_.render_ms = (*ms)[0];
  return times_;
}

size_t LocalStep::render_bytes() const {
  return (rgb_.capacity() + grad_rgb_.capacity() + alpha_.capacity() + mapped_.capacity() + grad_mapped_.capacity()) *
         sizeof(float);
}

}  // namespace splat
