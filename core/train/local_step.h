#pragma once
// The step of one rank that holds the whole model (core/train/train_step.h): the batch's cameras in
// runs of one image size, each run one Rasterizer::forward, loss and Rasterizer::backward (the
// rasterizer's one-rank shortcut: no pair copies). The first run's backward overwrites the gradients;
// a batch of one dense run is the one call that may store them narrow (GradWrite::OnlyCall).
#include <memory>

#include "core/train/batch_loss.h"
#include "core/train/train_step.h"
#include "kernels/buffer.h"

namespace splat {

class LocalStep final : public TrainStep {
 public:
  // On `where` (its device and stream); cpu_threads for a CPU rasterizer (0: all cores).
  LocalStep(const kernels::ComputeContext& where, float ssim_weight, int cpu_threads);

  void run(const StepBatch& batch, const StepRows& rows) override;
  float read_loss() override { return loss_.read_loss(); }
  StepTimes step_times() override;
  std::vector<StepTimes> measured_steps() override;
  size_t render_bytes() const override;
  kernels::Rasterizer& rasterizer() override { return *raster_; }

 private:
  kernels::ComputeContext where_;
  std::unique_ptr<kernels::Rasterizer> raster_;
  BatchLoss loss_;
  kernels::Buffer<float> rgb_, grad_rgb_, alpha_;
  kernels::StepMarks marks_;  // around the whole step: its render time without waiting
  StepTimes times_;
};

// The rasterizer of a rank computing on `where` (cpu_threads: the CPU backend's, 0 for all cores).
std::unique_ptr<kernels::Rasterizer> make_rasterizer(const kernels::ComputeContext& where, int cpu_threads);

}  // namespace splat
