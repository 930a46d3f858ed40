// The per-pixel mask of the photometric loss and the metrics (kernels/loss.h), CPU reference:
// finite differences in double, the definition computed directly, an all-valid mask against
// no mask, and values at ignored pixels changed under the loss.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "kernels/loss.h"
#include "tests/kernels/fd_check.h"
#include "tests/kernels/loss_test_inputs.h"

using namespace splat::kernels;
using namespace splat::test;

namespace {

size_t mask_index(const ImageBatchShape& s, int cam, int r, int c) {
  return (size_t(cam) * s.height + r) * s.width + c;
}

// Sets every pixel of camera `cam` to ignored.
void mask_out_camera(std::vector<uint8_t>& mask, const ImageBatchShape& s, int cam) {
  std::fill_n(mask.begin() + cam * s.pixels_per_image(), s.pixels_per_image(), uint8_t(0));
}

// The masked loss written out from its definition in kernels/loss.h, with the direct 2D SSIM.
double direct_masked_loss(const std::vector<double>& pred, const std::vector<double>& target,
                          const std::vector<uint8_t>& mask, const ImageBatchShape& s, double w) {
  std::vector<double> p_tilde(target);
  double abs_sum = 0, valid = 0, ssim_sum = 0;
  for (size_t px = 0; px < mask.size(); ++px)
    if (mask[px]) {
      valid += 1;
      for (int ch = 0; ch < 3; ++ch) p_tilde[3 * px + ch] = pred[3 * px + ch];
      for (int ch = 0; ch < 3; ++ch) abs_sum += std::abs(pred[3 * px + ch] - target[3 * px + ch]);
    }
  for (int cam = 0; cam < s.cameras; ++cam)
    for (int ch = 0; ch < 3; ++ch) ssim_sum += direct_ssim_sum(p_tilde, target, s, cam, ch, mask.data());
  return (1 - w) * abs_sum / (3 * valid) + w * (1 - ssim_sum / (3 * valid));
}

struct LossRun {
  float loss;
  std::vector<float> grad;
  std::vector<ImageMetrics> metrics;
};

// The CPU backend's loss and gradient, and (when every image has a valid pixel) the metrics,
// of one batch.
LossRun run_cpu(const std::vector<float>& pred, const std::vector<float>& target, const ImageBatchShape& s,
                const uint8_t* mask, bool with_metrics = true) {
  auto loss = make_photometric_loss(Device::CPU);
  LossRun r{0, std::vector<float>(s.elements(), -1.f), {}};
  loss->forward(pred.data(), target.data(), s, mask);
  loss->backward(r.grad.data(), 1.f);
  r.loss = loss->read_loss();
  if (with_metrics) r.metrics = image_metrics(Device::CPU, pred.data(), target.data(), s, mask);
  return r;
}

void check_same(const LossRun& a, const LossRun& b) {
  CHECK(a.loss == b.loss);
  CHECK(a.grad == b.grad);
  REQUIRE(a.metrics.size() == b.metrics.size());
  for (size_t c = 0; c < a.metrics.size(); ++c) {
    CHECK(a.metrics[c].psnr == b.metrics[c].psnr);
    CHECK(a.metrics[c].ssim == b.metrics[c].ssim);
  }
}

// Whether pixel (r, c) of camera `cam` is ignored and no SSIM window centred on a valid pixel
// reaches it.
bool far_from_valid(const std::vector<uint8_t>& mask, const ImageBatchShape& s, int cam, int r, int c) {
  for (int rr = std::max(0, r - kSsimRadius); rr <= std::min(s.height - 1, r + kSsimRadius); ++rr)
    for (int cc = std::max(0, c - kSsimRadius); cc <= std::min(s.width - 1, c + kSsimRadius); ++cc)
      if (mask[mask_index(s, cam, rr, cc)]) return false;
  return true;
}

}  // namespace

TEST_CASE("masked loss gradient matches central finite differences in double", "[loss][mask]") {
  const ImageBatchShape s{3, 13, 11};
  const std::vector<double> target = random_image<double>(s, 21);
  const std::vector<double> pred = offset_prediction(target, 22);
  std::vector<uint8_t> mask = random_mask(s, 23, 0.6);
  mask_out_camera(mask, s, 2);
  for (double w : {double(kDefaultSsimWeight), 1.0}) {  // 1.0 isolates the SSIM term
    INFO("ssim weight " << w);
    const std::vector<double> grad = reference_grad(pred, target, s, w, 1.0, mask.data());
    // Ignored pixels (all of camera 2 among them) get exactly 0; valid ones do not.
    double max_valid = 0;
    for (size_t e = 0; e < grad.size(); ++e) {
      if (mask[e / 3]) max_valid = std::max(max_valid, std::abs(grad[e]));
      else REQUIRE(grad[e] == 0.0);
    }
    CHECK(max_valid > 1e-5);
    const FdStats st = check_gradient(
        [&](const Vector& x) { return reference_loss(x, target, s, w, mask.data()); }, pred, grad, "masked loss", 1e-5,
        1e-5, 1e-6);
    CHECK(st.checked == int(pred.size()));
  }
}

TEST_CASE("masked loss value equals its definition computed directly", "[loss][mask]") {
  const ImageBatchShape s{2, 16, 12};
  const std::vector<double> target = random_image<double>(s, 31), pred = random_image<double>(s, 32);
  std::vector<uint8_t> mask = random_mask(s, 33, 0.5);
  // A solid ignored block too, so that windows straddle a long edge, not only isolated holes.
  for (int r = 4; r < 12; ++r)
    for (int c = 0; c < 6; ++c) mask[mask_index(s, 1, r, c)] = 0;
  for (double w : {double(kDefaultSsimWeight), 1.0, 0.0}) {
    INFO("ssim weight " << w);
    const double direct = direct_masked_loss(pred, target, mask, s, w);
    CHECK(reference_loss(pred, target, s, w, mask.data()) == Approx(direct).epsilon(1e-12));
    CHECK(reference_loss(pred, target, s, w) != Approx(direct).epsilon(1e-6));  // the mask matters here
  }
}

TEST_CASE("a mask with every pixel valid gives exactly the unmasked loss, gradient and metrics", "[loss][mask]") {
  const ImageBatchShape s{2, 19, 23};
  std::vector<uint8_t> all_valid = random_mask(s, 41, 1.0);  // random nonzero bytes
  const std::vector<float> target = random_image<float>(s, 42), pred = random_image<float>(s, 43, -0.1, 1.1);
  check_same(run_cpu(pred, target, s, all_valid.data()), run_cpu(pred, target, s, nullptr));
  const std::vector<double> pd(pred.begin(), pred.end()), td(target.begin(), target.end());
  CHECK(reference_loss(pd, td, s, 0.2, all_valid.data()) == reference_loss(pd, td, s, 0.2));
  CHECK(reference_grad(pd, td, s, 0.2, 1.0, all_valid.data()) == reference_grad(pd, td, s, 0.2, 1.0));
}

TEST_CASE("the CPU loss backend with a mask follows the double reference", "[loss][mask]") {
  const ImageBatchShape s{3, 14, 10};
  const std::vector<float> target = random_image<float>(s, 51), pred = random_image<float>(s, 52);
  std::vector<uint8_t> mask = random_mask(s, 53, 0.7);
  mask_out_camera(mask, s, 0);
  const LossRun r = run_cpu(pred, target, s, mask.data(), false);
  const std::vector<double> pd(pred.begin(), pred.end()), td(target.begin(), target.end());
  CHECK(r.loss == Approx(reference_loss(pd, td, s, kDefaultSsimWeight, mask.data())).epsilon(1e-5));
  const std::vector<double> gd = reference_grad(pd, td, s, kDefaultSsimWeight, 1.0, mask.data());
  double max_grad = 0, max_err = 0;
  for (size_t i = 0; i < gd.size(); ++i)
    max_grad = std::max(max_grad, std::abs(gd[i])), max_err = std::max(max_err, std::abs(gd[i] - r.grad[i]));
  CHECK(max_grad > 0);
  CHECK(max_err < 1e-4 * max_grad);
}

TEST_CASE("the prediction at ignored pixels does not reach the masked loss, gradient or metrics", "[loss][mask]") {
  const ImageBatchShape s{2, 20, 17};
  const std::vector<float> target = random_image<float>(s, 61), pred = random_image<float>(s, 62);
  const std::vector<uint8_t> mask = random_mask(s, 63, 0.5);
  std::vector<float> changed(pred), poisoned(pred);
  std::mt19937 rng(64);
  std::uniform_real_distribution<float> u(-2.f, 3.f);
  const float poison[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(), -1e30f};
  for (size_t e = 0; e < pred.size(); ++e)
    if (!mask[e / 3]) changed[e] = u(rng), poisoned[e] = poison[e % 3];
  const LossRun base = run_cpu(pred, target, s, mask.data());
  {
    INFO("ignored predictions replaced by other values");
    check_same(run_cpu(changed, target, s, mask.data()), base);
  }
  {
    INFO("ignored predictions replaced by NaN, inf and -1e30");
    check_same(run_cpu(poisoned, target, s, mask.data()), base);
  }
  // The same change is seen without the mask: the checks above can fail.
  CHECK(run_cpu(changed, target, s, nullptr).loss != run_cpu(pred, target, s, nullptr).loss);
}

TEST_CASE("the target at ignored pixels counts only inside the windows of valid pixels", "[loss][mask]") {
  // Camera 0 is valid in its left 8 columns (with random holes), ignored to the right; camera 1
  // is valid in a central block. Ignored pixels further than the window's radius from every
  // valid pixel cannot change anything; an ignored pixel next to a valid one does, by the
  // definition (a window straddling the edge sees the target's own values there).
  const ImageBatchShape s{2, 24, 26};
  std::vector<uint8_t> mask = random_mask(s, 71, 0.8);
  for (int r = 0; r < s.height; ++r)
    for (int c = 0; c < s.width; ++c) {
      if (c >= 8) mask[mask_index(s, 0, r, c)] = 0;
      if (r < 6 || r >= 12 || c < 10 || c >= 16) mask[mask_index(s, 1, r, c)] = 0;
    }
  const std::vector<float> target = random_image<float>(s, 72), pred = random_image<float>(s, 73);
  std::vector<float> far_changed(target);
  std::mt19937 rng(74);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  int far = 0;
  for (int cam = 0; cam < s.cameras; ++cam)
    for (int r = 0; r < s.height; ++r)
      for (int c = 0; c < s.width; ++c)
        if (far_from_valid(mask, s, cam, r, c)) {
          ++far;
          for (int ch = 0; ch < 3; ++ch) far_changed[mask_index(s, cam, r, c) * 3 + ch] = u(rng);
        }
  REQUIRE(far > 100);
  const LossRun base = run_cpu(pred, target, s, mask.data());
  check_same(run_cpu(pred, far_changed, s, mask.data()), base);
  CHECK(run_cpu(pred, far_changed, s, nullptr).loss != run_cpu(pred, target, s, nullptr).loss);

  std::vector<float> edge_changed(target);
  for (int ch = 0; ch < 3; ++ch) edge_changed[mask_index(s, 0, 10, 8) * 3 + ch] += 0.5f;  // next to column 7
  REQUIRE(!mask[mask_index(s, 0, 10, 8)]);
  CHECK(run_cpu(pred, edge_changed, s, mask.data()).loss != base.loss);
}

TEST_CASE("a batch with no valid pixel has loss 0 and a zero gradient", "[loss][mask]") {
  const ImageBatchShape s{2, 9, 12};
  const std::vector<uint8_t> none(size_t(s.cameras) * s.pixels_per_image(), 0);
  std::vector<float> pred = random_image<float>(s, 81);
  const std::vector<float> target = random_image<float>(s, 82);
  pred[5] = std::numeric_limits<float>::quiet_NaN();
  auto loss = make_photometric_loss(Device::CPU);
  loss->forward(pred.data(), target.data(), s, none.data());
  std::vector<float> grad(s.elements(), 1.f);
  loss->backward(grad.data(), 1.f);
  CHECK(loss->read_loss() == 0.f);
  CHECK(grad == std::vector<float>(s.elements(), 0.f));
  const std::vector<double> pd = random_image<double>(s, 83), td = random_image<double>(s, 84);
  CHECK(reference_loss(pd, td, s, 0.2, none.data()) == 0.0);
  CHECK(reference_grad(pd, td, s, 0.2, 1.0, none.data()) == std::vector<double>(s.elements(), 0.0));
}

TEST_CASE("masked PSNR and SSIM equal a direct computation over the valid pixels", "[loss][mask]") {
  const ImageBatchShape s{3, 16, 14};
  const std::vector<float> target = random_image<float>(s, 91);
  std::vector<float> pred = random_image<float>(s, 92, -0.2, 1.2);  // exercises the clamp
  for (size_t i = 0; i < pred.size(); ++i) pred[i] = 0.3f * pred[i] + 0.7f * target[i];
  std::vector<uint8_t> mask = random_mask(s, 93, 0.6);
  for (int r = 0; r < 7; ++r)
    for (int c = 0; c < s.width; ++c) mask[mask_index(s, 2, r, c)] = 0;  // a long edge
  const std::vector<ImageMetrics> m = image_metrics(Device::CPU, pred.data(), target.data(), s, mask.data());
  const std::vector<ImageMetrics> unmasked = image_metrics(Device::CPU, pred.data(), target.data(), s);
  REQUIRE(m.size() == 3);
  const std::vector<double> td(target.begin(), target.end());
  for (int cam = 0; cam < s.cameras; ++cam) {
    std::vector<double> x(td);  // clamp(pred) where valid, the target elsewhere
    double sq = 0, valid = 0, ssim = 0;
    for (int64_t p = 0; p < s.pixels_per_image(); ++p) {
      const size_t px = size_t(cam) * s.pixels_per_image() + p;
      if (!mask[px]) continue;
      valid += 1;
      for (int ch = 0; ch < 3; ++ch) {
        x[3 * px + ch] = std::clamp(double(pred[3 * px + ch]), 0.0, 1.0);
        sq += (x[3 * px + ch] - td[3 * px + ch]) * (x[3 * px + ch] - td[3 * px + ch]);
      }
    }
    for (int ch = 0; ch < 3; ++ch) ssim += direct_ssim_sum(x, td, s, cam, ch, mask.data());
    INFO("camera " << cam << ", " << valid << " valid pixels");
    CHECK(m[cam].psnr == Approx(10 * std::log10(3 * valid / sq)).epsilon(1e-5));
    CHECK(m[cam].ssim == Approx(ssim / (3 * valid)).epsilon(1e-5));
    CHECK(m[cam].psnr != Approx(unmasked[cam].psnr).epsilon(1e-4));  // the mask matters here
  }
}

TEST_CASE("metrics of an image with no valid pixel: a clear error naming the image", "[loss][mask]") {
  const ImageBatchShape s{3, 8, 8};
  std::vector<uint8_t> mask = random_mask(s, 101, 0.5);
  mask_out_camera(mask, s, 1);
  const std::vector<float> target = random_image<float>(s, 102), pred = random_image<float>(s, 103);
  CHECK_THROWS_AS(image_metrics(Device::CPU, pred.data(), target.data(), s, mask.data()), std::invalid_argument);
  CHECK_THROWS_WITH(image_metrics(Device::CPU, pred.data(), target.data(), s, mask.data()),
                    Catch::Contains("image 1 ") && Catch::Contains("no valid pixel"));
}
