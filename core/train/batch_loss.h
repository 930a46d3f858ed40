#pragma once
// The photometric loss of a training batch and its image gradient, computed over runs of images of
// one size (one loss call per run), weighted so that the runs of a batch of B images add up to the
// batch mean: a run of C images weighs C / B, in its loss and in its gradient. The one-GPU trainer
// feeds it the runs of its batch; a rank of a multi-GPU step (core/train/sharded/sharded_step.h) feeds it the
// runs of its block of the batch, so the ranks' losses and gradients add up to the batch's.
//
// Masks pool their valid pixels over a run (kernels/loss.h), so with masks the weights are per run,
// not per valid pixel: a batch split differently into runs weighs masked pixels a little differently.
#include <cstdint>
#include <memory>
#include <span>

#include "kernels/buffer.h"
#include "kernels/loss.h"

namespace splat {

class BatchLoss {
 public:
  BatchLoss(const kernels::ComputeContext& where, float ssim_weight);

  // Starts a batch: forgets the losses of the previous one.
  void clear();

  // Sizes the scratch for runs up to `most` (kernels::PhotometricLoss::reserve), masks included.
  void reserve(const kernels::ImageBatchShape& most);

  // Adds a run of shape.cameras images of one size: `rgb` the rendered images [C,H,W,3], `targets`
  // (the photos' 8-bit RGB, read as v / 255) and `masks` (empty: no masks; else one per image) the C
  // images' own arrays, all on this loss's
  // context. Writes the run's gradient, weighted C / batch, to grad_rgb [C,H,W,3], and adds the run's
  // loss, weighted likewise, to the batch's on the device: no host wait, however many runs.
  void add_run(const float* rgb, float* grad_rgb, const kernels::ImageBatchShape& shape,
               std::span<const uint8_t* const> targets, std::span<const uint8_t* const> masks, int batch);

  // The same through per-image colour maps (kernels/color_affine.h): the run's images are compared with
  // their photos after the maps of `views` (one per image, rows of `params` [V, 12]); grad_rgb is the
  // gradient with respect to the unmapped images, and each map's gradient is added to `grad_params`.
  void add_mapped_run(const float* rgb, float* grad_rgb, const kernels::ImageBatchShape& shape,
                      std::span<const uint8_t* const> targets, std::span<const uint8_t* const> masks, int batch,
                      const float* params, float* grad_params, std::span<const int> views);

  // Sum of the weighted losses of the runs since clear(): the batch mean once every run of the batch
  // was added. A host wait (on CUDA for the last run's loss); 0 without a run.
  float read_loss() const;

 private:
  kernels::ComputeContext where_;
  std::unique_ptr<kernels::PhotometricLoss> loss_;
  kernels::Buffer<uint8_t> target_; // a run's targets (the photos' bytes) gathered into one batch
  kernels::Buffer<uint8_t> mask_;   // and its masks
  kernels::Buffer<float> total_;    // the weighted sum of the runs' losses since clear(), one float
  kernels::Buffer<float> mapped_, grad_mapped_;  // a mapped run and its gradient
  int runs_ = 0;                    // runs since clear()
};

}  // namespace splat
