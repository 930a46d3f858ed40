#pragma once
// The photometric training loss and the evaluation metrics (PSNR, SSIM) over a batch of C
// RGB images [C,H,W,3] fp32, interleaved channels, as the rasterizer writes them.
//
//   L = (1 - w) mean|pred - target| + w (1 - mean SSIM),  w = 0.2 by default,
//
// SSIM with an 11x11 Gaussian window (sigma 1.5), C1 = 0.01^2, C2 = 0.03^2 and zero padding
// (a "same"-size SSIM map), means over pixels, channels and cameras. The math lives in
// kernels/loss_math.h; the CPU reference and the CUDA backend both evaluate it.
#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/loss_math.h"
#include "kernels/rasterizer.h"

namespace splat::kernels {

// Shape of a batch of interleaved RGB images.
struct ImageBatchShape {
  int cameras = 0, height = 0, width = 0;
  int64_t pixels_per_image() const { return int64_t(height) * width; }
  int64_t elements() const { return int64_t(cameras) * height * width * 3; }
};

// Throws std::invalid_argument when a dimension is not positive.
void validate(const ImageBatchShape& shape);

// A loss backend; pointers live on its device. forward() keeps what backward() needs (the
// per-pixel SSIM partials and the two image pointers: keep both images alive and unchanged
// until backward).
class PhotometricLoss {
 public:
  virtual ~PhotometricLoss() = default;
  virtual Device device() const = 0;

  // Computes the loss of the batch into loss_scalar(). On CUDA this only enqueues work:
  // nothing waits for the GPU, so a training step never stalls on reading the loss.
  virtual void forward(const float* pred, const float* target, const ImageBatchShape& shape) = 0;

  // Writes (does not accumulate) grad_scale * dL/dpred of the last forward into grad_pred
  // [C,H,W,3]. grad_scale lets a rank that renders part of a batch weight its cameras by
  // their share of the batch, or a mixed-precision step apply its loss scale.
  virtual void backward(float* grad_pred, float grad_scale = 1.f) = 0;

  // The loss of the last forward: one float on this backend's device, valid once the
  // forward's work has run (stream order on CUDA).
  virtual const float* loss_scalar() const = 0;
  // Copies loss_scalar() to the host; on CUDA this waits for the forward to finish.
  virtual float read_loss() const = 0;
};

// w is the weight of the (1 - SSIM) term. The CUDA backend uses the current device and the
// given stream (stream 0 when null).
std::unique_ptr<PhotometricLoss> make_cpu_photometric_loss(float ssim_weight = kDefaultSsimWeight);
std::unique_ptr<PhotometricLoss> make_cuda_photometric_loss(float ssim_weight = kDefaultSsimWeight,
                                                            void* cuda_stream = nullptr);
std::unique_ptr<PhotometricLoss> make_photometric_loss(Device device, float ssim_weight = kDefaultSsimWeight,
                                                       void* cuda_stream = nullptr);

// Evaluation metrics of one image: PSNR (dB, peak 1) and mean SSIM over pixels and channels.
struct ImageMetrics {
  double psnr = 0;
  double ssim = 0;
};

// Metrics of each of the C images; pred is clamped to [0,1] first. Waits for the result.
std::vector<ImageMetrics> image_metrics(Device device, const float* pred, const float* target,
                                        const ImageBatchShape& shape);

// ---- CPU reference, templated so that the tests can run it in double precision. ----
// Instantiated for float and double.

// Per-image sums of |d|, d^2 and the SSIM map (d = pred - target); when clamp_pred the
// prediction is clamped to [0,1] first (metrics). When `partials` is non-null it receives,
// for every element, the SSIM derivatives that backward filters: [3][C,H,W,3] planes of
// d_mu_x, d_xx, d_xy (see SsimPartials).
template <class T>
std::vector<ImageSums> image_sums_reference(const T* pred, const T* target, const ImageBatchShape& shape,
                                            bool clamp_pred, T* partials);

// grad_scale * dL/dpred from the partials image_sums_reference wrote (clamp_pred false).
template <class T>
void loss_backward_reference(const T* pred, const T* target, const T* partials, const ImageBatchShape& shape,
                             T ssim_weight, T grad_scale, T* grad_pred);

}  // namespace splat::kernels
