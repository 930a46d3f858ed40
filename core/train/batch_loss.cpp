#include "core/train/batch_loss.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "kernels/color_affine.h"

namespace splat {

using kernels::Buffer;

namespace {

// The C arrays of `per` elements each, as one [C, per] array: the only array itself when C = 1.
template <class T>
const T* gathered(std::span<const T* const> arrays, size_t per, const kernels::ComputeContext& where, Buffer<T>& batch) {
  if (arrays.size() == 1) return arrays[0];
  batch.resize(per * arrays.size());
  for (size_t c = 0; c < arrays.size(); ++c)
    kernels::copy_bytes(batch.data() + c * per, where, arrays[c], where, per * sizeof(T));
  return batch.data();
}

}  // namespace

BatchLoss::BatchLoss(const kernels::ComputeContext& where, float ssim_weight)
    : where_(where),
      loss_(kernels::make_photometric_loss(where, ssim_weight)),
      target_(where),
      mask_(where),
      total_(where, 1),
      mapped_(where),
      grad_mapped_(where) {}

void BatchLoss::reserve(const kernels::ImageBatchShape& most) {
  loss_->reserve(most);
  // resize() keeps a larger allocation: the runs' gathers below then never grow these.
  if (target_.capacity() < size_t(most.elements())) target_.resize(size_t(most.elements()));
  const size_t pixels = size_t(most.cameras) * size_t(most.pixels_per_image());
  if (mask_.capacity() < pixels) mask_.resize(pixels);
}

void BatchLoss::clear() { runs_ = 0; }

void BatchLoss::add_run(const float* rgb, float* grad_rgb, const kernels::ImageBatchShape& shape,
                        std::span<const uint8_t* const> targets, std::span<const uint8_t* const> masks, int batch) {
  kernels::validate(shape);
  if (int(targets.size()) != shape.cameras || (!masks.empty() && int(masks.size()) != shape.cameras))
    throw std::invalid_argument("batch loss: a run of " + std::to_string(shape.cameras) + " images got " +
                                std::to_string(targets.size()) + " targets and " + std::to_string(masks.size()) +
                                " masks");
  if (batch < shape.cameras)
    throw std::invalid_argument("batch loss: a run of " + std::to_string(shape.cameras) +
                                " images in a batch of " + std::to_string(batch));
  const size_t pixels = size_t(shape.pixels_per_image());
  const uint8_t* target = gathered(targets, pixels * 3, where_, target_);
  const uint8_t* mask = masks.empty() ? nullptr : gathered(masks, pixels, where_, mask_);
  loss_->forward(rgb, target, shape, mask);
  const float weight = float(shape.cameras) / float(batch);
  kernels::add_weighted_loss(where_, loss_->loss_scalar(), weight, runs_ == 0, total_.data());
  ++runs_;
  loss_->backward(grad_rgb, weight);
}

// At most kernels::kColorAffineMostImages images a map call.
void BatchLoss::add_mapped_run(const float* rgb, float* grad_rgb, const kernels::ImageBatchShape& shape,
                               std::span<const uint8_t* const> targets, std::span<const uint8_t* const> masks,
                               int batch, const float* params, float* grad_params, std::span<const int> views) {
  kernels::validate(shape);
  if (int(views.size()) != shape.cameras)
    throw std::invalid_argument("batch loss: a run of " + std::to_string(shape.cameras) + " images got " +
                                std::to_string(views.size()) + " colour maps");
  const int64_t pixels = shape.pixels_per_image(), n = shape.elements();
  mapped_.resize(size_t(n));
  grad_mapped_.resize(size_t(n));
  auto each_part = [&](auto&& f) {
    for (int c = 0; c < shape.cameras; c += kernels::kColorAffineMostImages) {
      const int count = std::min(kernels::kColorAffineMostImages, shape.cameras - c);
      f(views.subspan(size_t(c), size_t(count)), 3 * int64_t(c) * pixels);
    }
  };
  each_part([&](std::span<const int> part, int64_t at) {
    kernels::color_affine_forward(where_, params, part, rgb + at, mapped_.data() + at, pixels);
  });
  add_run(mapped_.data(), grad_mapped_.data(), shape, targets, masks, batch);
  each_part([&](std::span<const int> part, int64_t at) {
    kernels::color_affine_backward(where_, params, part, rgb + at, grad_mapped_.data() + at, grad_rgb + at,
                                   grad_params, pixels);
  });
}

float BatchLoss::read_loss() const {
  if (runs_ == 0) return 0.f;
  float total = 0;
  kernels::copy_to_host(&total, total_.data(), where_, sizeof total, "reading a batch loss");
  return total;
}

}  // namespace splat
