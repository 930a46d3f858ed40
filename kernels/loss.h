#pragma once
// The photometric training loss and the evaluation metrics (PSNR, SSIM) over a batch of C
// RGB images [C,H,W,3] fp32, interleaved channels, as the rasterizer writes them, against target
// images in fp32 or as the photos' 8-bit values (TargetImages, kernels/loss_math.h).
//
//   L = (1 - w) mean|pred - target| + w (1 - mean SSIM),  w = 0.2 by default,
//
// SSIM with an 11x11 Gaussian window (sigma 1.5), C1 = 0.01^2, C2 = 0.03^2 and zero padding
// (a "same"-size SSIM map), means over pixels, channels and cameras. The math lives in
// kernels/loss_math.h; the CPU reference and the CUDA backend both evaluate it.
//
// Mask. An optional `const uint8_t* mask` [C,H,W] on the backend's device marks the pixels
// that count (nonzero) and those to ignore (0: outside the source photo after undistortion,
// or masked out by the user); nullptr makes every pixel valid and gives exactly the unmasked
// results. With M the mask and N the number of valid pixels in the batch:
//   p~ = M ? pred : target, per pixel, all 3 channels;
//   L1 term   = sum over valid pixels and channels of |pred - target| / (3 N);
//   SSIM term = the SSIM map computed from p~ and target (so a window that straddles the
//               mask's edge sees the target's own values on the ignored side), averaged over
//               the valid pixels and channels only;
//   L = (1 - w) L1 + w (1 - mean SSIM), and L = 0 with a zero gradient when N = 0.
// dL/dpred is the exact derivative of that: 0 at ignored pixels, the SSIM term's part
// gathered from valid window centres only, chained through p~ (dp~/dpred = M).
// So the prediction at an ignored pixel never matters; the target there matters only within
// the window's radius (5 pixels) of a valid pixel, as the context those windows see.
// The metrics use the same p~ (after clamping pred): PSNR from the MSE over the valid pixels'
// channels, SSIM the mean of the map over the valid pixels; an image with no valid pixel is
// an error (see image_metrics).
#include <cstdint>
#include <memory>
#include <vector>

#include "kernels/loss_math.h"
#include "kernels/device_context.h"

namespace splat::kernels {

// Shape of a batch of interleaved RGB images.
struct ImageBatchShape {
  int cameras = 0, height = 0, width = 0;
  int64_t pixels_per_image() const { return int64_t(height) * width; }
  int64_t elements() const { return int64_t(cameras) * height * width * 3; }
};

// Throws std::invalid_argument when a dimension is not positive.
void validate(const ImageBatchShape& shape);

// A loss backend; pointers live in its context (device and stream, on which its CUDA work is
// enqueued). forward() keeps what backward() needs (the per-pixel SSIM partials and the image
// and mask pointers: keep the images and the mask alive and unchanged until backward).
class PhotometricLoss {
 public:
  virtual ~PhotometricLoss() = default;
  virtual ComputeContext context() const = 0;
  // Sizes the scratch for runs of up to most.cameras images no taller and no wider than `most`, so that
  // forward() allocates nothing for them later (growing device memory waits for the device).
  virtual void reserve(const ImageBatchShape& /*most*/) {}
  Device device() const { return context().device; }

  // Computes the loss of the batch into loss_scalar(), over the pixels `mask` marks valid
  // (all of them when null). On CUDA this only enqueues work, the valid-pixel count included:
  // nothing waits for the GPU, so a training step never stalls on reading the loss.
  virtual void forward(const float* pred, TargetImages target, const ImageBatchShape& shape,
                       const uint8_t* mask = nullptr) = 0;

  // Writes (does not accumulate) grad_scale * dL/dpred of the last forward into grad_pred
  // [C,H,W,3]. grad_scale lets a rank that renders part of a batch weight its cameras by
  // their share of the batch, or a mixed-precision step apply its loss scale.
  virtual void backward(float* grad_pred, float grad_scale = 1.f) = 0;

  // The loss of the last forward: one float on this backend's device, valid once the
  // forward's work has run (stream order on CUDA).
  virtual const float* loss_scalar() const = 0;
  // Copies loss_scalar() to the host; on CUDA this waits for the forward to finish. A host wait
  // (kernels/host_waits.h) on both backends.
  virtual float read_loss() const = 0;
};

// w is the weight of the (1 - SSIM) term. The CUDA backend works on `where`'s device and stream;
// make_cuda_photometric_loss throws std::invalid_argument for a CPU context.
std::unique_ptr<PhotometricLoss> make_cpu_photometric_loss(float ssim_weight = kDefaultSsimWeight);
std::unique_ptr<PhotometricLoss> make_cuda_photometric_loss(const ComputeContext& where = Device::CUDA,
                                                            float ssim_weight = kDefaultSsimWeight);
std::unique_ptr<PhotometricLoss> make_photometric_loss(const ComputeContext& where,
                                                       float ssim_weight = kDefaultSsimWeight);

// *total = weight * *value for the first run of a batch, else *total + weight * *value: both one float
// on `where`'s device. A batch of several image sizes sums its runs' losses (loss_scalar()) on the
// device this way, so that nothing is read on the host until the batch's loss is asked for. On CUDA
// it is enqueued on `where`'s stream, not waited for.
void add_weighted_loss(const ComputeContext& where, const float* value, float weight, bool first, float* total);

// Evaluation metrics of one image: PSNR (dB, peak 1) and mean SSIM over pixels and channels.
struct ImageMetrics {
  double psnr = 0;
  double ssim = 0;
};

// Metrics of each of the C images over the pixels `mask` marks valid (all when null); pred is
// clamped to [0,1] first. On CUDA it runs on `where`'s stream and waits for the result. Throws
// std::invalid_argument naming the image (its index in the batch) when one has no valid pixel: it
// has no PSNR or SSIM to report.
std::vector<ImageMetrics> image_metrics(const ComputeContext& where, const float* pred, TargetImages target,
                                        const ImageBatchShape& shape, const uint8_t* mask = nullptr);

// ---- CPU reference, templated so that the tests can run it in double precision. ----
// Instantiated for float and double.

// Per-image sums over the valid pixels of |d|, d^2 and the SSIM map (d = p~ - target), and
// their count; when clamp_pred the prediction is clamped to [0,1] first (metrics). When
// `partials` is non-null it receives, for every element, the SSIM derivatives that backward
// filters: [3][C,H,W,3] planes of d_mu_x, d_xx, d_xy (see SsimPartials), 0 at ignored pixels.
template <class T>
std::vector<ImageSums> image_sums_reference(const T* pred, BasicTargetImages<T> target, const ImageBatchShape& shape,
                                            bool clamp_pred, T* partials, const uint8_t* mask = nullptr);

// add_weighted_loss on the host (the entry point above calls it for Device::CPU).
void add_weighted_loss_reference(const float* value, float weight, bool first, float* total);

// grad_scale * dL/dpred from the partials image_sums_reference wrote (clamp_pred false) with
// the same mask.
template <class T>
void loss_backward_reference(const T* pred, BasicTargetImages<T> target, const T* partials, const ImageBatchShape& shape,
                             T ssim_weight, T grad_scale, T* grad_pred, const uint8_t* mask = nullptr);

}  // namespace splat::kernels
