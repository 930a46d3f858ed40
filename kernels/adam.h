#pragma once
// Fused Adam step over parameter groups, all arrays on one device. The arithmetic is fp32; the
// parameters and both moments may be stored narrower (kernels/storage_math.h: StoredArray), in
// which case each is read, updated in fp32 and written back rounded (bf16 stochastically), see
// docs/ARCHITECTURE.md "Precision columns". Gradients are fp32, or bf16 where mixed precision stores
// the SH rest gradients once per step (GradArray). The math lives in
// kernels/adam_math.h.
#include <cstdint>
#include <span>

#include "kernels/adam_math.h"
#include "kernels/device_context.h"
#include "kernels/storage_math.h"

namespace splat::kernels {

struct AdamHyperParams {
  float lr = 0;
  float beta1 = 0.9f;
  float beta2 = 0.999f;
  // Small on purpose: Gaussian-splatting gradients are tiny (1e-6 and below for far or
  // faint Gaussians), and an epsilon like 1e-8 would swamp sqrt(v) and freeze them.
  float eps = 1e-15f;
};

// The sqrt(B) batch rule: a step over a batch of B images stands in for B single-image
// steps. Averaging B gradients shrinks the gradient noise by sqrt(B), so the learning rate
// grows by sqrt(B) to keep the distance travelled per image; eps shrinks by sqrt(B) because
// sqrt(v) of the averaged gradient is about sqrt(B) times smaller; and beta -> beta^B keeps
// the moments' memory the same number of images (one step now consumes B of them).
// batch_size == 1 returns `base` unchanged. Throws std::invalid_argument when batch_size < 1.
AdamHyperParams scale_for_batch(const AdamHyperParams& base, int batch_size);

// The per-step constants for step t >= 1 (t counts this step), bias corrections computed in
// double. Throws std::invalid_argument when t < 1 or a hyper-parameter is out of range.
template <class T>
AdamStepConstants<T> adam_step_constants(const AdamHyperParams& h, int64_t step);

// One Adam step over n elements: params, exp_avg and exp_avg_sq are updated in place.
// All pointers live in `where`; on CUDA the step is enqueued on its device and stream and nothing
// waits for it.
void adam_step(const ComputeContext& where, float* params, const float* grads, float* exp_avg, float* exp_avg_sq,
               int64_t n, const AdamHyperParams& h, int64_t step);

// One parameter group of a multi-group step: its arrays of n elements and its own hyper-parameters.
// `seed` names the stream of stochastic-rounding bits of this group's narrow arrays (the trainer
// passes a different one per group and step); it does not matter for fp32 arrays. `first` is the
// index of element 0 in the whole model's array of this group: a rank's shard passes its offset, so
// that an element draws the same bits on whichever rank holds it, and shards round like the whole model.
struct AdamGroup {
  StoredArray params;
  GradArray grads;
  StoredArray exp_avg, exp_avg_sq;
  int64_t n = 0;
  AdamHyperParams h;
  uint64_t seed = 0;
  int64_t first = 0;
  // Sparse Adam: an element whose gradient is exactly zero this step keeps its value and both moments
  // (dense Adam decays the moments and moves the value along them). A Gaussian that no camera of the
  // step saw has a zero gradient in every column, so its row is left as it is and, on CUDA, neither
  // read nor written beyond its gradient.
  bool skip_zero_grads = false;
};
// An fp32 array as a StoredArray.
inline StoredArray fp32_array(float* p) { return {p, nullptr, Precision::F32}; }

// adam_step on every group (same step count), as one kernel launch on CUDA: a training step has
// several small groups, and one launch each would cost about as much as their work. Same context
// rules as adam_step, which is this with one group.
void adam_step_groups(const ComputeContext& where, std::span<const AdamGroup> groups, int64_t step);

// CPU reference, templated so that tests can run it in double; instantiated for float and double.
template <class T>
void adam_step_reference(T* params, const T* grads, T* exp_avg, T* exp_avg_sq, int64_t n, const AdamHyperParams& h,
                         int64_t step, bool skip_zero_grads = false);
// CPU reference of one group in its storage precisions (the CUDA kernel's generic path).
void adam_step_stored_reference(const AdamGroup& g, int64_t step);

}  // namespace splat::kernels
