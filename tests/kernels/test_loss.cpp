// CPU reference of the photometric loss and the image metrics: finite-difference gradients in
// double, the separable SSIM against a direct 2D window, and hand-computed PSNR values.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "kernels/loss.h"
#include "tests/kernels/loss_test_inputs.h"

using namespace splat::kernels;
using namespace splat::test;

TEST_CASE("loss gradient matches central finite differences in double", "[loss]") {
  const ImageBatchShape s{2, 13, 11};
  const std::vector<double> target = random_image<double>(s, 1);
  std::vector<double> pred = offset_prediction(target, 2);
  for (double w : {double(kDefaultSsimWeight), 1.0}) {  // 1.0 isolates the SSIM term
    const std::vector<double> grad = reference_grad(pred, target, s, w, 1.0);
    const double h = 1e-5;
    double max_err = 0, max_grad = 0;
    for (size_t i = 0; i < pred.size(); ++i) {
      const double keep = pred[i];
      pred[i] = keep + h;
      const double up = reference_loss(pred, target, s, w);
      pred[i] = keep - h;
      const double down = reference_loss(pred, target, s, w);
      pred[i] = keep;
      max_err = std::max(max_err, std::abs((up - down) / (2 * h) - grad[i]));
      max_grad = std::max(max_grad, std::abs(grad[i]));
    }
    INFO("ssim weight " << w << ", max |grad| " << max_grad);
    CHECK(max_grad > 1e-5);
    CHECK(max_err < 1e-6 * max_grad);  // finite-difference round-off is ~1e-7 here
  }
}

TEST_CASE("loss gradient scales linearly with grad_scale", "[loss]") {
  const ImageBatchShape s{1, 9, 7};
  const std::vector<double> target = random_image<double>(s, 3);
  const std::vector<double> pred = offset_prediction(target, 4);
  const std::vector<double> g1 = reference_grad(pred, target, s, 0.2, 1.0);
  const std::vector<double> g3 = reference_grad(pred, target, s, 0.2, 3.0);
  for (size_t i = 0; i < g1.size(); ++i) CHECK(g3[i] == Approx(3.0 * g1[i]).epsilon(1e-12));
}

TEST_CASE("separable SSIM equals the direct 2D window with zero padding", "[loss]") {
  // Smaller than the window in one direction, so every pixel sees the border.
  const ImageBatchShape s{2, 9, 12};
  const std::vector<double> x = random_image<double>(s, 5), y = random_image<double>(s, 6);
  const std::vector<ImageSums> sums = image_sums_reference<double>(x.data(), y.data(), s, false, nullptr);
  for (int cam = 0; cam < s.cameras; ++cam) {
    double direct = 0;
    for (int ch = 0; ch < 3; ++ch) direct += direct_ssim_sum(x, y, s, cam, ch) / (3.0 * s.pixels_per_image());
    CHECK(sums[cam].ssim / (3.0 * s.pixels_per_image()) == Approx(direct).epsilon(1e-12));
  }
}

TEST_CASE("SSIM of an image with itself is 1 and drops as noise grows", "[loss]") {
  const ImageBatchShape s{1, 24, 20};
  const std::vector<float> clean = random_image<float>(s, 7);
  const ImageMetrics same = image_metrics(Device::CPU, clean.data(), clean.data(), s)[0];
  CHECK(same.ssim == Approx(1.0).epsilon(1e-6));
  CHECK(std::isinf(same.psnr));
  double prev_ssim = same.ssim, prev_psnr = same.psnr;
  std::mt19937 rng(8);
  std::normal_distribution<float> n01(0.f, 1.f);
  const std::vector<float> noise_unit = [&] {
    std::vector<float> v(s.elements());
    for (float& e : v) e = n01(rng);
    return v;
  }();
  for (float sigma : {0.01f, 0.05f, 0.2f}) {
    std::vector<float> noisy(clean);
    for (size_t i = 0; i < noisy.size(); ++i) noisy[i] += sigma * noise_unit[i];
    const ImageMetrics m = image_metrics(Device::CPU, noisy.data(), clean.data(), s)[0];
    INFO("sigma " << sigma);
    CHECK(m.ssim < prev_ssim);
    CHECK(m.psnr < prev_psnr);
    prev_ssim = m.ssim, prev_psnr = m.psnr;
  }
  CHECK(prev_ssim < 0.9);
}

TEST_CASE("PSNR on hand-computed cases, prediction clamped to [0,1]", "[loss]") {
  const ImageBatchShape s{3, 4, 6};
  const int64_t per_image = 3 * s.pixels_per_image();
  std::vector<float> target(s.elements()), pred(s.elements());
  for (int64_t i = 0; i < per_image; ++i) {
    // Image 0: every element off by 0.1 -> MSE 0.01 -> 20 dB.
    target[i] = 0.3f, pred[i] = 0.4f;
    // Image 1: pred 1.5 clamps to 1, target 0.9 -> off by 0.1 again -> 20 dB.
    target[per_image + i] = 0.9f, pred[per_image + i] = 1.5f;
    // Image 2: half the elements off by 0.1 -> MSE 0.005 -> 10 log10(200) = 23.0103 dB.
    target[2 * per_image + i] = 0.5f, pred[2 * per_image + i] = (i % 2) ? 0.6f : 0.5f;
  }
  const std::vector<ImageMetrics> m = image_metrics(Device::CPU, pred.data(), target.data(), s);
  REQUIRE(m.size() == 3);
  CHECK(m[0].psnr == Approx(20.0).epsilon(1e-5));
  CHECK(m[1].psnr == Approx(20.0).epsilon(1e-5));
  CHECK(m[2].psnr == Approx(23.0103).epsilon(1e-5));
}

TEST_CASE("CPU loss backend: zero for identical images, value and gradient of the reference", "[loss]") {
  const ImageBatchShape s{2, 10, 8};
  const std::vector<float> target = random_image<float>(s, 9);
  auto loss = make_photometric_loss(Device::CPU);
  std::vector<float> grad(s.elements(), 1.f);
  CHECK_THROWS_AS(loss->backward(grad.data()), std::logic_error);
  loss->forward(target.data(), target.data(), s);
  CHECK(loss->read_loss() == Approx(0.0).margin(1e-6));

  const std::vector<float> pred = random_image<float>(s, 10);
  loss->forward(pred.data(), target.data(), s);
  loss->backward(grad.data());
  std::vector<double> pd(pred.begin(), pred.end()), td(target.begin(), target.end());
  CHECK(loss->read_loss() == Approx(reference_loss(pd, td, s, kDefaultSsimWeight)).epsilon(1e-5));
  CHECK(*loss->loss_scalar() == loss->read_loss());
  const std::vector<double> gd = reference_grad(pd, td, s, kDefaultSsimWeight, 1.0);
  double max_grad = 0, max_err = 0;
  for (size_t i = 0; i < gd.size(); ++i)
    max_grad = std::max(max_grad, std::abs(gd[i])), max_err = std::max(max_err, std::abs(gd[i] - grad[i]));
  CHECK(max_err < 1e-4 * max_grad);
}

TEST_CASE("loss rejects an empty image batch with a clear error", "[loss]") {
  auto loss = make_photometric_loss(Device::CPU);
  float x = 0;
  CHECK_THROWS_WITH(loss->forward(&x, &x, ImageBatchShape{1, 0, 4}), Catch::Contains("height=0"));
}
