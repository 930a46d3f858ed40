// CPU reference of the photometric loss and the image metrics (see kernels/loss.h), with the
// optional per-pixel mask defined there. It works one channel plane at a time and filters
// with the same separable window, in the same order (horizontal, then vertical), as the CUDA
// kernels.
#include <array>
#include <stdexcept>
#include <string>

#include "kernels/buffer.h"
#include "kernels/loss.h"

namespace splat::kernels {

void validate(const ImageBatchShape& s) {
  if (s.cameras <= 0 || s.height <= 0 || s.width <= 0)
    throw std::invalid_argument("image batch shape must be positive, got cameras=" + std::to_string(s.cameras) +
                                " height=" + std::to_string(s.height) + " width=" + std::to_string(s.width));
}

namespace {

template <class T>
std::array<T, kSsimTaps> window_taps() {
  std::array<T, kSsimTaps> w;
  for (int k = 0; k < kSsimTaps; ++k) w[k] = ssim_window_tap<T>(k);
  return w;
}

// out = plane filtered by the 11x11 window, zero outside the image; tmp holds the
// horizontal pass. All three are [H,W].
template <class T>
void window_filter(const std::vector<T>& plane, std::vector<T>& tmp, std::vector<T>& out, int H, int W) {
  static const std::array<T, kSsimTaps> w = window_taps<T>();
  for (int r = 0; r < H; ++r)
    for (int c = 0; c < W; ++c) {
      T acc = 0;
      for (int k = 0; k < kSsimTaps; ++k) {
        const int cc = c + k - kSsimRadius;
        if (cc >= 0 && cc < W) acc += w[k] * plane[size_t(r) * W + cc];
      }
      tmp[size_t(r) * W + c] = acc;
    }
  for (int r = 0; r < H; ++r)
    for (int c = 0; c < W; ++c) {
      T acc = 0;
      for (int k = 0; k < kSsimTaps; ++k) {
        const int rr = r + k - kSsimRadius;
        if (rr >= 0 && rr < H) acc += w[k] * tmp[size_t(rr) * W + c];
      }
      out[size_t(r) * W + c] = acc;
    }
}

// Index of pixel `pixel` of camera `cam` in a [C,H,W] array (the mask).
inline size_t batch_pixel(const ImageBatchShape& s, int cam, int64_t pixel) {
  return size_t(cam) * s.pixels_per_image() + pixel;
}

// Offset of element (camera, pixel, channel) in an interleaved [C,H,W,3] array.
inline size_t element(const ImageBatchShape& s, int cam, int64_t pixel, int ch) {
  return batch_pixel(s, cam, pixel) * 3 + ch;
}

int64_t valid_pixels(const uint8_t* mask, const ImageBatchShape& s, int cam) {
  int64_t n = 0;
  for (int64_t p = 0; p < s.pixels_per_image(); ++p) n += pixel_valid(mask, batch_pixel(s, cam, p));
  return n;
}

class CpuPhotometricLoss final : public PhotometricLoss {
 public:
  explicit CpuPhotometricLoss(float ssim_weight) : weight_(ssim_weight) {}
  ComputeContext context() const override { return Device::CPU; }

  void forward(const float* pred, TargetImages target, const ImageBatchShape& shape, const uint8_t* mask) override {
    validate(shape);
    pred_ = pred;
    target_ = target;
    mask_ = mask;
    shape_ = shape;
    partials_.resize(3 * shape.elements());
    double abs_sum = 0, ssim_sum = 0, valid = 0;
    for (const ImageSums& s : image_sums_reference<float>(pred, target, shape, false, partials_.data(), mask)) {
      abs_sum += s.abs_diff;
      ssim_sum += s.ssim;
      valid += s.valid;
    }
    loss_ = float(photometric_loss_value(abs_sum, ssim_sum, 3 * valid, weight_));
  }

  void backward(float* grad_pred, float grad_scale) override {
    if (!pred_) throw std::logic_error("PhotometricLoss::backward called before forward");
    loss_backward_reference<float>(pred_, target_, partials_.data(), shape_, weight_, grad_scale, grad_pred, mask_);
  }

  const float* loss_scalar() const override { return &loss_; }
  // Through the host copy all the same: where a CUDA run waits, so it counts as its wait.
  float read_loss() const override {
    float v = 0;
    copy_to_host(&v, &loss_, Device::CPU, sizeof v, "reading a loss");
    return v;
  }

 private:
  float weight_;
  const float* pred_ = nullptr;
  TargetImages target_{static_cast<const float*>(nullptr)};
  const uint8_t* mask_ = nullptr;
  ImageBatchShape shape_;
  std::vector<float> partials_;
  float loss_ = 0;
};

}  // namespace

template <class T>
std::vector<ImageSums> image_sums_reference(const T* pred, BasicTargetImages<T> target, const ImageBatchShape& s,
                                            bool clamp_pred, T* partials, const uint8_t* mask) {
  validate(s);
  const int H = s.height, W = s.width;
  const int64_t P = s.pixels_per_image();
  const size_t plane_stride = size_t(s.elements());
  std::vector<ImageSums> sums(s.cameras);
  // Five input planes (x, y, x^2, y^2, xy) and their filtered moments.
  std::array<std::vector<T>, 5> in, mom;
  for (int i = 0; i < 5; ++i) in[i].resize(P), mom[i].resize(P);
  std::vector<T> tmp(P);
  for (int cam = 0; cam < s.cameras; ++cam) {
    sums[cam].valid = double(valid_pixels(mask, s, cam));
    for (int ch = 0; ch < 3; ++ch) {
      for (int64_t p = 0; p < P; ++p) {
        const size_t e = element(s, cam, p, ch);
        const bool valid = pixel_valid(mask, batch_pixel(s, cam, p));
        const T y = target[e];
        const T x = masked_pred(clamp_pred ? clamp_unit(pred[e]) : pred[e], y, valid);
        in[0][p] = x, in[1][p] = y, in[2][p] = x * x, in[3][p] = y * y, in[4][p] = x * y;
        if (valid) {
          sums[cam].abs_diff += double(std::abs(x - y));
          sums[cam].sq_diff += double((x - y) * (x - y));
        }
      }
      for (int i = 0; i < 5; ++i) window_filter(in[i], tmp, mom[i], H, W);
      for (int64_t p = 0; p < P; ++p) {
        const bool valid = pixel_valid(mask, batch_pixel(s, cam, p));
        const SsimPartials<T> sp = ssim_partials(SsimMoments<T>{mom[0][p], mom[1][p], mom[2][p], mom[3][p], mom[4][p]});
        if (valid) sums[cam].ssim += double(sp.ssim);
        if (partials) {  // an ignored centre's SSIM is not in the loss: no partials from it
          const size_t e = element(s, cam, p, ch);
          partials[e] = valid ? sp.d_mu_x : T(0);
          partials[plane_stride + e] = valid ? sp.d_xx : T(0);
          partials[2 * plane_stride + e] = valid ? sp.d_xy : T(0);
        }
      }
    }
  }
  return sums;
}

template <class T>
void loss_backward_reference(const T* pred, BasicTargetImages<T> target, const T* partials, const ImageBatchShape& s,
                             T ssim_weight, T grad_scale, T* grad_pred, const uint8_t* mask) {
  validate(s);
  const int H = s.height, W = s.width;
  const int64_t P = s.pixels_per_image();
  const size_t plane_stride = size_t(s.elements());
  int64_t valid = 0;
  for (int cam = 0; cam < s.cameras; ++cam) valid += valid_pixels(mask, s, cam);
  const LossGradWeights<T> g = loss_grad_weights(ssim_weight, T(3 * valid), grad_scale);
  std::array<std::vector<T>, 3> in, filt;
  for (int i = 0; i < 3; ++i) in[i].resize(P), filt[i].resize(P);
  std::vector<T> tmp(P);
  for (int cam = 0; cam < s.cameras; ++cam)
    for (int ch = 0; ch < 3; ++ch) {
      for (int64_t p = 0; p < P; ++p)
        for (int i = 0; i < 3; ++i) in[i][p] = partials[i * plane_stride + element(s, cam, p, ch)];
      // The window is symmetric, so its adjoint (scatter back to the taps' pixels) is the
      // same zero-padded filter.
      for (int i = 0; i < 3; ++i) window_filter(in[i], tmp, filt[i], H, W);
      for (int64_t p = 0; p < P; ++p) {
        const size_t e = element(s, cam, p, ch);
        // dp~/dpred is the mask: an ignored pixel's prediction does not reach the loss.
        grad_pred[e] = pixel_valid(mask, batch_pixel(s, cam, p))
                           ? loss_grad_element(pred[e], target[e], filt[0][p], filt[1][p], filt[2][p], g)
                           : T(0);
      }
    }
}

template std::vector<ImageSums> image_sums_reference<float>(const float*, TargetImages, const ImageBatchShape&, bool,
                                                            float*, const uint8_t*);
template std::vector<ImageSums> image_sums_reference<double>(const double*, BasicTargetImages<double>,
                                                             const ImageBatchShape&, bool, double*, const uint8_t*);
template void loss_backward_reference<float>(const float*, TargetImages, const float*, const ImageBatchShape&, float,
                                             float, float*, const uint8_t*);
template void loss_backward_reference<double>(const double*, BasicTargetImages<double>, const double*,
                                              const ImageBatchShape&, double, double, double*, const uint8_t*);

void add_weighted_loss_reference(const float* value, float weight, bool first, float* total) {
  *total = weighted_loss_sum(first ? 0.f : *total, *value, weight);
}

std::unique_ptr<PhotometricLoss> make_cpu_photometric_loss(float ssim_weight) {
  return std::make_unique<CpuPhotometricLoss>(ssim_weight);
}

}  // namespace splat::kernels
