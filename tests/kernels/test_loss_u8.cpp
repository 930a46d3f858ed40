// Targets kept as the photos' bytes: the loss, its gradient and the metrics equal those against
// the float photos the trainer made before (v * (1/255) per value), bit for bit on each backend.
#include <catch2/catch.hpp>

#include <random>
#include <vector>

#include "kernels/buffer.h"
#include "kernels/loss.h"
#include "tests/support/test_support.h"

using namespace splat;
using namespace splat::kernels;

namespace {

struct Batch {
  ImageBatchShape shape{3, 37, 29};
  std::vector<float> pred, target_f32;
  std::vector<uint8_t> target_u8, mask;
  explicit Batch(unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> U(-0.1f, 1.1f);
    for (int64_t e = 0; e < shape.elements(); ++e) {
      pred.push_back(U(rng));
      target_u8.push_back(uint8_t(rng() % 256));
      target_f32.push_back(target_u8.back() * (1.f / 255.f));  // the trainer's conversion
    }
    for (int64_t p = 0; p < shape.cameras * shape.pixels_per_image(); ++p) mask.push_back(rng() % 5 != 0);
  }
};

struct Outcome {
  float loss;
  std::vector<float> grad;
  std::vector<ImageMetrics> metrics;
};

template <class T>
Buffer<T> on(Device d, const std::vector<T>& h) {
  Buffer<T> b(d);
  b.upload(h);
  return b;
}

Outcome run(Device d, const Batch& b, bool bytes, bool masked) {
  const Buffer<float> pred = on(d, b.pred), tf = on(d, b.target_f32);
  const Buffer<uint8_t> tu = on(d, b.target_u8), mask = on(d, b.mask);
  const TargetImages target = bytes ? TargetImages(tu.data()) : TargetImages(tf.data());
  const uint8_t* m = masked ? mask.data() : nullptr;
  auto loss = make_photometric_loss(d);
  Buffer<float> grad(d, size_t(b.shape.elements()));
  loss->forward(pred.data(), target, b.shape, m);
  loss->backward(grad.data(), 0.5f);
  return {loss->read_loss(), grad.download(), image_metrics(d, pred.data(), target, b.shape, m)};
}

void check_bytes_equal_floats(Device d) {
  const Batch b(17);
  for (const bool masked : {false, true}) {
    INFO("masked " << masked);
    const Outcome f = run(d, b, false, masked), u = run(d, b, true, masked);
    CHECK(u.loss == f.loss);
    CHECK(u.grad == f.grad);
    REQUIRE(u.metrics.size() == f.metrics.size());
    for (size_t c = 0; c < f.metrics.size(); ++c) {
      CHECK(u.metrics[c].psnr == f.metrics[c].psnr);
      CHECK(u.metrics[c].ssim == f.metrics[c].ssim);
    }
    CHECK(f.loss > 0.f);
  }
}

}  // namespace

TEST_CASE("8-bit targets give the float targets' loss, gradient and metrics (CPU)", "[loss]") {
  check_bytes_equal_floats(Device::CPU);
}

TEST_CASE("8-bit targets give the float targets' loss, gradient and metrics (CUDA)", "[loss][gpu]") {
  if (!splat::test::gpu_or_skip("CUDA 8-bit targets")) return;
  check_bytes_equal_floats(Device::CUDA);
}
