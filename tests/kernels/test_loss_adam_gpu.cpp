// CUDA loss, metrics and Adam against the CPU reference on random inputs, the loss and the
// metrics with and without a per-pixel mask.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "kernels/adam.h"
#include "kernels/buffer.h"
#include "kernels/loss.h"
#include "tests/kernels/loss_test_inputs.h"
#include "tests/support/test_support.h"

using namespace splat::kernels;

namespace {

// Values in [lo, hi); a range wider than [0,1] exercises the metrics' clamp.
std::vector<float> random_values(size_t n, uint32_t seed, float lo = 0.f, float hi = 1.f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}

template <class T>
Buffer<T> on_gpu(const std::vector<T>& v) {
  Buffer<T> b(Device::CUDA);
  b.upload(v);
  return b;
}

// max |a - b| / max |b|: gradients carry float cancellation (E[x^2] - E[x]^2), so they are
// compared relative to their largest entry rather than element by element.
double max_rel_diff(const std::vector<float>& a, const std::vector<float>& b) {
  double diff = 0, scale = 0;
  for (size_t i = 0; i < a.size(); ++i)
    diff = std::max(diff, double(std::abs(a[i] - b[i]))), scale = std::max(scale, double(std::abs(b[i])));
  return diff / scale;
}

// An empty mask means none (every pixel valid).
void check_loss_matches_cpu(PhotometricLoss& gpu_loss, const ImageBatchShape& s, uint32_t seed,
                            const std::vector<uint8_t>& mask = {}) {
  const std::vector<float> pred = random_values(s.elements(), seed), target = random_values(s.elements(), seed + 1);
  auto cpu_loss = make_photometric_loss(Device::CPU);
  std::vector<float> cpu_grad(s.elements());
  cpu_loss->forward(pred.data(), target.data(), s, mask.empty() ? nullptr : mask.data());
  cpu_loss->backward(cpu_grad.data(), 1.f);

  Buffer<float> d_pred = on_gpu(pred), d_target = on_gpu(target), d_grad(Device::CUDA, s.elements());
  Buffer<uint8_t> d_mask = on_gpu(mask);
  gpu_loss.forward(d_pred.data(), d_target.data(), s, mask.empty() ? nullptr : d_mask.data());
  gpu_loss.backward(d_grad.data(), 1.f);
  const float gpu_value = gpu_loss.read_loss();
  float scalar = 0;
  copy_bytes(&scalar, Device::CPU, gpu_loss.loss_scalar(), Device::CUDA, sizeof(float));

  INFO("shape " << s.cameras << "x" << s.height << "x" << s.width);
  CHECK(scalar == gpu_value);
  CHECK(gpu_value == Approx(cpu_loss->read_loss()).epsilon(1e-5));
  const std::vector<float> gpu_grad = d_grad.download();
  CHECK(max_rel_diff(gpu_grad, cpu_grad) < 1e-4);
  for (size_t e = 0; e < mask.size() * 3; ++e)
    if (!mask[e / 3]) REQUIRE(gpu_grad[e] == 0.f);
}

// The CUDA loss value and gradient of one batch; `mask` on the host, empty for none.
struct GpuLossRun {
  float loss;
  std::vector<float> grad;
};
GpuLossRun run_gpu_loss(const std::vector<float>& pred, const std::vector<float>& target, const ImageBatchShape& s,
                        const std::vector<uint8_t>& mask) {
  Buffer<float> d_pred = on_gpu(pred), d_target = on_gpu(target), d_grad(Device::CUDA, s.elements());
  Buffer<uint8_t> d_mask = on_gpu(mask);
  auto loss = make_photometric_loss(Device::CUDA);
  loss->forward(d_pred.data(), d_target.data(), s, mask.empty() ? nullptr : d_mask.data());
  loss->backward(d_grad.data(), 0.7f);
  return {loss->read_loss(), d_grad.download()};
}

}  // namespace

TEST_CASE("CUDA loss value and gradient match the CPU reference", "[loss][gpu]") {
  if (!splat::test::gpu_or_skip("CUDA loss vs CPU")) return;
  auto gpu_loss = make_photometric_loss(Device::CUDA);
  // Sizes not multiples of the 32x16 tile; the second call is smaller than the first, so
  // the kept buffers are reused rather than reallocated.
  check_loss_matches_cpu(*gpu_loss, ImageBatchShape{2, 97, 61}, 11);
  check_loss_matches_cpu(*gpu_loss, ImageBatchShape{1, 20, 33}, 13);
  check_loss_matches_cpu(*gpu_loss, ImageBatchShape{3, 7, 5}, 15);  // smaller than the window
}

TEST_CASE("CUDA masked loss value and gradient match the CPU reference", "[loss][mask][gpu]") {
  if (!splat::test::gpu_or_skip("CUDA masked loss vs CPU")) return;
  auto gpu_loss = make_photometric_loss(Device::CUDA);
  const ImageBatchShape big{3, 97, 61};
  std::vector<uint8_t> mask = splat::test::random_mask(big, 17, 0.6);
  std::fill_n(mask.begin() + big.pixels_per_image(), big.pixels_per_image(), uint8_t(0));  // camera 1: none valid
  check_loss_matches_cpu(*gpu_loss, big, 11, mask);
  // The same loss object without a mask, then a smaller masked batch: nothing carries over.
  check_loss_matches_cpu(*gpu_loss, ImageBatchShape{1, 20, 33}, 13);
  const ImageBatchShape small{2, 7, 5};  // smaller than the window
  check_loss_matches_cpu(*gpu_loss, small, 15, splat::test::random_mask(small, 19, 0.5));
}

TEST_CASE("CUDA: an all-valid mask gives bitwise the unmasked loss and gradient", "[loss][mask][gpu]") {
  if (!splat::test::gpu_or_skip("CUDA all-valid mask")) return;
  const ImageBatchShape s{2, 45, 70};
  const std::vector<float> pred = random_values(s.elements(), 25), target = random_values(s.elements(), 26);
  const GpuLossRun masked = run_gpu_loss(pred, target, s, splat::test::random_mask(s, 27, 1.0));
  const GpuLossRun unmasked = run_gpu_loss(pred, target, s, {});
  CHECK(masked.loss == unmasked.loss);
  CHECK(masked.grad == unmasked.grad);
}

TEST_CASE("CUDA: a batch with no valid pixel gives loss 0 and a zero gradient", "[loss][mask][gpu]") {
  if (!splat::test::gpu_or_skip("CUDA loss, nothing valid")) return;
  const ImageBatchShape s{2, 30, 40};
  std::vector<float> pred = random_values(s.elements(), 28);
  pred[7] = std::nanf("");
  const GpuLossRun r = run_gpu_loss(pred, random_values(s.elements(), 29), s,
                                    std::vector<uint8_t>(size_t(s.cameras) * s.pixels_per_image(), 0));
  CHECK(r.loss == 0.f);
  CHECK(r.grad == std::vector<float>(s.elements(), 0.f));
}

TEST_CASE("CUDA loss gradient scales with grad_scale", "[loss][gpu]") {
  if (!splat::test::gpu_or_skip("CUDA loss grad_scale")) return;
  const ImageBatchShape s{1, 40, 50};
  Buffer<float> pred = on_gpu(random_values(s.elements(), 21)), target = on_gpu(random_values(s.elements(), 22));
  Buffer<float> g1(Device::CUDA, s.elements()), g2(Device::CUDA, s.elements());
  auto loss = make_photometric_loss(Device::CUDA);
  loss->forward(pred.data(), target.data(), s);
  loss->backward(g1.data(), 1.f);
  loss->backward(g2.data(), 0.5f);
  const std::vector<float> a = g1.download(), b = g2.download();
  for (size_t i = 0; i < a.size(); ++i) REQUIRE(b[i] == Approx(0.5f * a[i]).epsilon(1e-6));
}

namespace {

// A batch's runs summed with their weights, on each backend: the first run overwrites whatever the
// total held, the later ones add to it.
float weighted_sum_on(const ComputeContext& where, const std::vector<float>& values, const std::vector<float>& weights) {
  Buffer<float> value(where, 1), total(where, 1);
  total.upload(std::vector<float>{123.f});  // the previous batch's sum: the first run must overwrite it
  for (size_t k = 0; k < values.size(); ++k) {
    value.upload(std::vector<float>{values[k]});
    add_weighted_loss(where, value.data(), weights[k], k == 0, total.data());
  }
  return total.download()[0];
}

}  // namespace

TEST_CASE("CUDA weighted loss sum of a batch's runs matches the CPU's", "[loss][gpu]") {
  if (!splat::test::gpu_or_skip("CUDA weighted loss sum")) return;
  const std::vector<float> values{0.31f, 0.072f, 0.55f}, weights{0.25f, 0.5f, 0.25f};
  const float cpu = weighted_sum_on(Device::CPU, values, weights);
  CHECK(cpu == Approx(0.25 * 0.31 + 0.5 * 0.072 + 0.25 * 0.55).epsilon(1e-6));
  CHECK(weighted_sum_on(Device::CUDA, values, weights) == Approx(cpu).epsilon(1e-6));
}

TEST_CASE("CUDA PSNR and SSIM metrics match the CPU reference", "[loss][gpu]") {
  if (!splat::test::gpu_or_skip("CUDA metrics vs CPU")) return;
  const ImageBatchShape s{2, 97, 61};
  const std::vector<float> target = random_values(s.elements(), 31);
  std::vector<float> pred = random_values(s.elements(), 32, -0.1f, 1.1f);
  // Make the images related so that SSIM is far from 0.
  for (size_t i = 0; i < pred.size(); ++i) pred[i] = 0.2f * pred[i] + 0.8f * target[i];
  Buffer<float> d_pred = on_gpu(pred), d_target = on_gpu(target);
  const std::vector<ImageMetrics> cpu = image_metrics(Device::CPU, pred.data(), target.data(), s);
  const std::vector<ImageMetrics> gpu = image_metrics(Device::CUDA, d_pred.data(), d_target.data(), s);
  REQUIRE(gpu.size() == cpu.size());
  for (size_t c = 0; c < cpu.size(); ++c) {
    INFO("image " << c << ": CPU psnr " << cpu[c].psnr << " ssim " << cpu[c].ssim);
    CHECK(cpu[c].ssim > 0.3);
    CHECK(gpu[c].psnr == Approx(cpu[c].psnr).margin(1e-4));
    CHECK(gpu[c].ssim == Approx(cpu[c].ssim).margin(1e-5));
  }
}

TEST_CASE("CUDA masked PSNR and SSIM match the CPU reference", "[loss][mask][gpu]") {
  if (!splat::test::gpu_or_skip("CUDA masked metrics vs CPU")) return;
  const ImageBatchShape s{3, 97, 61};
  const std::vector<float> target = random_values(s.elements(), 33);
  std::vector<float> pred = random_values(s.elements(), 34, -0.1f, 1.1f);
  for (size_t i = 0; i < pred.size(); ++i) pred[i] = 0.2f * pred[i] + 0.8f * target[i];
  std::vector<uint8_t> mask = splat::test::random_mask(s, 35, 0.5);
  for (int64_t p = 0; p < s.pixels_per_image() / 2; ++p) mask[p] = 0;  // camera 0: top half ignored
  Buffer<float> d_pred = on_gpu(pred), d_target = on_gpu(target);
  Buffer<uint8_t> d_mask = on_gpu(mask);
  const std::vector<ImageMetrics> cpu = image_metrics(Device::CPU, pred.data(), target.data(), s, mask.data());
  const std::vector<ImageMetrics> gpu = image_metrics(Device::CUDA, d_pred.data(), d_target.data(), s, d_mask.data());
  REQUIRE(gpu.size() == cpu.size());
  for (size_t c = 0; c < cpu.size(); ++c) {
    INFO("image " << c << ": CPU psnr " << cpu[c].psnr << " ssim " << cpu[c].ssim);
    CHECK(gpu[c].psnr == Approx(cpu[c].psnr).margin(1e-4));
    CHECK(gpu[c].ssim == Approx(cpu[c].ssim).margin(1e-5));
  }
  std::fill_n(mask.begin() + 2 * s.pixels_per_image(), s.pixels_per_image(), uint8_t(0));
  d_mask.upload(mask);
  CHECK_THROWS_WITH(image_metrics(Device::CUDA, d_pred.data(), d_target.data(), s, d_mask.data()),
                    Catch::Contains("image 2 ") && Catch::Contains("no valid pixel"));
}

TEST_CASE("CUDA Adam matches the CPU reference over several steps", "[adam][gpu]") {
  if (!splat::test::gpu_or_skip("CUDA Adam vs CPU")) return;
  const size_t n = 100003;
  AdamHyperParams base;
  base.lr = 1e-3f;
  const AdamHyperParams h = scale_for_batch(base, 4);
  std::vector<float> p = random_values(n, 41, -1.f, 1.f), m(n, 0.f), v(n, 0.f);
  Buffer<float> dp = on_gpu(p), dm = on_gpu(m), dv = on_gpu(v), dg(Device::CUDA);
  for (int step = 1; step <= 5; ++step) {
    const std::vector<float> g = random_values(n, 100 + step, -0.01f, 0.01f);
    dg.upload(g);
    adam_step(Device::CPU, p.data(), g.data(), m.data(), v.data(), int64_t(n), h, step);
    adam_step(Device::CUDA, dp.data(), dg.data(), dm.data(), dv.data(), int64_t(n), h, step);
  }
  const std::vector<float> gp = dp.download(), gm = dm.download(), gv = dv.download();
  size_t bad = 0;
  for (size_t i = 0; i < n; ++i) {
    const auto close = [](float a, float b) { return std::abs(a - b) <= 1e-6f * std::max(std::abs(b), 1e-30f); };
    if (!close(gp[i], p[i]) || !close(gm[i], m[i]) || !close(gv[i], v[i])) ++bad;
  }
  CHECK(bad == 0);
  // The parameters moved: the comparison is not between two untouched copies.
  CHECK(max_rel_diff(gp, random_values(n, 41, -1.f, 1.f)) > 1e-3);
}

TEST_CASE("CUDA Adam on arrays that do not start on 16 bytes takes the scalar path", "[adam][gpu]") {
  if (!splat::test::gpu_or_skip("CUDA Adam, unaligned arrays")) return;
  // The kernel reads float4s only where all four arrays are 16-byte aligned; views one float into
  // the buffers are not, and must still give the reference's update.
  const size_t n = 4099;
  AdamHyperParams h;
  h.lr = 1e-2f;
  std::vector<float> p = random_values(n + 1, 7, -1.f, 1.f), m(n + 1, 0.f), v(n + 1, 0.f);
  const std::vector<float> g = random_values(n + 1, 8, -0.01f, 0.01f);
  Buffer<float> dp = on_gpu(p), dm = on_gpu(m), dv = on_gpu(v), dg = on_gpu(g);
  adam_step(Device::CPU, p.data() + 1, g.data() + 1, m.data() + 1, v.data() + 1, int64_t(n), h, 1);
  adam_step(Device::CUDA, dp.data() + 1, dg.data() + 1, dm.data() + 1, dv.data() + 1, int64_t(n), h, 1);
  CHECK(dp.download() == p);
  CHECK(dm.download() == m);
  CHECK(dv.download() == v);
  CHECK(p[1] != random_values(n + 1, 7, -1.f, 1.f)[1]);
}

TEST_CASE("CUDA multi-group Adam (one launch per 8 groups) matches per-group CPU steps", "[adam][gpu]") {
  if (!splat::test::gpu_or_skip("CUDA multi-group Adam vs CPU")) return;
  // Ten groups (two launches), including an empty one and sizes that end mid-block, each with its
  // own learning rate, so that a block reading the wrong group's arrays or constants shows.
  const std::vector<size_t> sizes = {1000, 3, 0, 70001, 257, 256, 1, 4097, 12345, 50};
  struct Host {
    std::vector<float> p, m, v, g;
  };
  std::vector<Host> host(sizes.size());
  std::vector<Buffer<float>> dp, dm, dv, dg;
  std::vector<AdamGroup> cpu_groups, gpu_groups;
  for (size_t k = 0; k < sizes.size(); ++k) {
    const size_t n = sizes[k];
    host[k] = {random_values(n, 300 + k, -1.f, 1.f), std::vector<float>(n, 0.f), std::vector<float>(n, 0.f),
               std::vector<float>(n)};
    dp.push_back(on_gpu(host[k].p));
    dm.push_back(on_gpu(host[k].m));
    dv.push_back(on_gpu(host[k].v));
    dg.emplace_back(Device::CUDA, n);
  }
  for (int step = 1; step <= 3; ++step) {
    cpu_groups.clear();
    gpu_groups.clear();
    for (size_t k = 0; k < sizes.size(); ++k) {
      host[k].g = random_values(sizes[k], 1000 * step + k, -0.01f, 0.01f);
      dg[k].upload(host[k].g);
      AdamHyperParams h;
      h.lr = 1e-3f * float(k + 1);
      cpu_groups.push_back({fp32_array(host[k].p.data()), host[k].g.data(), fp32_array(host[k].m.data()),
                            fp32_array(host[k].v.data()), int64_t(sizes[k]), h});
      gpu_groups.push_back({fp32_array(dp[k].data()), dg[k].data(), fp32_array(dm[k].data()),
                            fp32_array(dv[k].data()), int64_t(sizes[k]), h});
    }
    adam_step_groups(Device::CPU, cpu_groups, step);
    adam_step_groups(Device::CUDA, gpu_groups, step);
  }
  for (size_t k = 0; k < sizes.size(); ++k) {
    INFO("group " << k << " of " << sizes[k] << " elements");
    // adam_math.h makes both backends round identically: the results are bitwise equal.
    CHECK(dp[k].download() == host[k].p);
    CHECK(dm[k].download() == host[k].m);
    CHECK(dv[k].download() == host[k].v);
    if (sizes[k] > 0) CHECK(host[k].p != random_values(sizes[k], 300 + k, -1.f, 1.f));
  }
}

TEST_CASE("CUDA Adam with bf16 gradients writes the CPU reference's bits", "[adam][amp][gpu]") {
  if (!splat::test::gpu_or_skip("CUDA Adam, bf16 gradients")) return;
  // Mixed precision's SH rest group (everything bf16: the four-element path, and its tail) and fp32
  // parameters with bf16 moments (the same path, fp32 parameter loads).
  const size_t n = 4099;
  const std::vector<float> g = random_values(n, 21, -0.01f, 0.01f), p0 = random_values(n, 22, -1.f, 1.f);
  std::vector<uint16_t> g16;
  for (float x : g) g16.push_back(bf16_nearest(x));
  for (const bool bf16_params : {true, false}) {
    INFO("bf16 parameters: " << bf16_params);
    std::vector<uint16_t> p16, m16(n, 0), v16(n, 0);
    for (float x : p0) p16.push_back(bf16_nearest(x));
    std::vector<float> p32 = p0;
    Buffer<uint16_t> dp16 = on_gpu(p16), dm16 = on_gpu(m16), dv16 = on_gpu(v16), dg16 = on_gpu(g16);
    Buffer<float> dp32 = on_gpu(p32);
    for (int step = 1; step <= 3; ++step) {
      AdamGroup cpu, gpu;
      cpu.params = bf16_params ? StoredArray{nullptr, p16.data(), splat::Precision::BF16} : fp32_array(p32.data());
      gpu.params = bf16_params ? StoredArray{nullptr, dp16.data(), splat::Precision::BF16} : fp32_array(dp32.data());
      cpu.exp_avg = {nullptr, m16.data(), splat::Precision::BF16};
      gpu.exp_avg = {nullptr, dm16.data(), splat::Precision::BF16};
      cpu.exp_avg_sq = {nullptr, v16.data(), splat::Precision::BF16};
      gpu.exp_avg_sq = {nullptr, dv16.data(), splat::Precision::BF16};
      cpu.grads = GradArray::narrow(g16.data()), gpu.grads = GradArray::narrow(dg16.data());
      for (AdamGroup* a : {&cpu, &gpu}) a->n = int64_t(n), a->h.lr = 1e-3f, a->seed = uint64_t(step) * 7;
      adam_step_groups(Device::CPU, std::span<const AdamGroup>(&cpu, 1), step);
      adam_step_groups(Device::CUDA, std::span<const AdamGroup>(&gpu, 1), step);
    }
    if (bf16_params) CHECK(dp16.download() == p16);
    else CHECK(dp32.download() == p32);
    CHECK(dm16.download() == m16);
    CHECK(dv16.download() == v16);
    CHECK(std::any_of(m16.begin(), m16.end(), [](uint16_t b) { return b != 0; }));
  }
}

TEST_CASE("CUDA sparse Adam writes the CPU reference's bits on every path", "[adam][sparse][gpu]") {
  if (!splat::test::gpu_or_skip("CUDA sparse Adam vs CPU")) return;
  // Zero gradients in whole rows of three (unseen Gaussians: some float4s all zero, some mixed) and
  // scattered; the fp32 float4 path, the fp32 scalar path (arrays one float in: unaligned), the all-bf16
  // eight-element path and fp32 parameters with bf16 moments (four elements), each with a tail.
  const size_t n = 40003;
  std::vector<float> g = random_values(n, 51, -0.01f, 0.01f);
  for (size_t i = 0; i < n; ++i)
    if ((i / 3) % 5 == 2 || i % 29 == 0) g[i] = 0.f;
  const std::vector<float> p0 = random_values(n + 1, 52, -1.f, 1.f), m0 = random_values(n + 1, 53, -0.01f, 0.01f),
                           v0 = random_values(n + 1, 54, 0.f, 1e-4f);
  AdamHyperParams h;
  h.lr = 1e-3f;
  for (const int offset : {0, 1}) {
    INFO("fp32, arrays " << offset << " float(s) in");
    std::vector<float> p = p0, m = m0, v = v0, gg(n + 1, 0.f);
    std::copy(g.begin(), g.end(), gg.begin() + offset);
    Buffer<float> dp = on_gpu(p), dm = on_gpu(m), dv = on_gpu(v), dg = on_gpu(gg);
    AdamGroup cpu{fp32_array(p.data() + offset), gg.data() + offset, fp32_array(m.data() + offset),
                  fp32_array(v.data() + offset), int64_t(n), h};
    AdamGroup gpu{fp32_array(dp.data() + offset), dg.data() + offset, fp32_array(dm.data() + offset),
                  fp32_array(dv.data() + offset), int64_t(n), h};
    cpu.skip_zero_grads = gpu.skip_zero_grads = true;
    adam_step_groups(Device::CPU, std::span<const AdamGroup>(&cpu, 1), 7);
    adam_step_groups(Device::CUDA, std::span<const AdamGroup>(&gpu, 1), 7);
    CHECK(dp.download() == p);
    CHECK(dm.download() == m);
    CHECK(dv.download() == v);
    CHECK(p[size_t(offset) + 6] == p0[size_t(offset) + 6]);  // element 6: a zero row, kept
    CHECK(p[size_t(offset) + 1] != p0[size_t(offset) + 1]);  // element 1: moved
  }
  std::vector<uint16_t> g16, p16, m16, v16;
  for (size_t i = 0; i < n; ++i) {
    g16.push_back(bf16_nearest(g[i]));
    p16.push_back(bf16_nearest(p0[i]));
    m16.push_back(bf16_nearest(m0[i]));
    v16.push_back(bf16_nearest(v0[i]));
  }
  for (const bool bf16_params : {true, false}) {
    INFO("mixed precision, bf16 parameters: " << bf16_params);
    std::vector<uint16_t> cp16 = p16, cm16 = m16, cv16 = v16;
    std::vector<float> cp32(p0.begin(), p0.begin() + n);
    Buffer<uint16_t> dp16 = on_gpu(p16), dm16 = on_gpu(m16), dv16 = on_gpu(v16), dg16 = on_gpu(g16);
    Buffer<float> dp32 = on_gpu(cp32);
    AdamGroup cpu, gpu;
    cpu.params = bf16_params ? StoredArray{nullptr, cp16.data(), splat::Precision::BF16} : fp32_array(cp32.data());
    gpu.params = bf16_params ? StoredArray{nullptr, dp16.data(), splat::Precision::BF16} : fp32_array(dp32.data());
    cpu.exp_avg = {nullptr, cm16.data(), splat::Precision::BF16};
    gpu.exp_avg = {nullptr, dm16.data(), splat::Precision::BF16};
    cpu.exp_avg_sq = {nullptr, cv16.data(), splat::Precision::BF16};
    gpu.exp_avg_sq = {nullptr, dv16.data(), splat::Precision::BF16};
    cpu.grads = GradArray::narrow(g16.data()), gpu.grads = GradArray::narrow(dg16.data());
    for (AdamGroup* a : {&cpu, &gpu})
      a->n = int64_t(n), a->h = h, a->seed = 77, a->skip_zero_grads = true;
    adam_step_groups(Device::CPU, std::span<const AdamGroup>(&cpu, 1), 7);
    adam_step_groups(Device::CUDA, std::span<const AdamGroup>(&gpu, 1), 7);
    if (bf16_params) CHECK(dp16.download() == cp16);
    else CHECK(dp32.download() == cp32);
    CHECK(dm16.download() == cm16);
    CHECK(dv16.download() == cv16);
    CHECK(cm16[6] == m16[6]);  // a zero row keeps its moments' bits
    CHECK(cm16[1] != m16[1]);
  }
}

TEST_CASE("CUDA Adam with rows reached matches the CPU's on every path of the kernel", "[adam][reached][gpu]") {
  if (!splat::test::gpu_or_skip("CUDA Adam with rows reached vs CPU")) return;
  // The unreached rows' gradients hold NaN (what a backward call given the rows reached leaves there);
  // groups of 1, 3, 4 and 45 values a row take the fp32 path, its tail, the scalar path of unaligned
  // arrays and the two vectorised bf16 paths.
  const float nan = std::nanf("");
  AdamHyperParams h;
  h.lr = 1e-3f;
  struct Case {
    const char* name;
    int width;
    bool bf16_moments, bf16_params_grads, unaligned;
  };
  for (const Case c : {Case{"fp32, width 3", 3, false, false, false}, Case{"fp32, width 45", 45, false, false, false},
                       Case{"fp32, width 1, unaligned", 1, false, false, true},
                       Case{"bf16 moments, width 4", 4, true, false, false},
                       Case{"all bf16, width 45", 45, true, true, false}}) {
    INFO(c.name);
    const int64_t rows = 20011, n = rows * c.width, off = c.unaligned ? 1 : 0;
    std::vector<uint8_t> reached(static_cast<size_t>(rows));
    for (int64_t r = 0; r < rows; ++r) reached[size_t(r)] = (r * 7919) % 10 < 3;  // about a third
    const size_t count = size_t(n + off);
    const std::vector<float> p0 = random_values(count, 51, -1.f, 1.f);
    std::vector<float> p = p0, g = random_values(count, 52, -1e-2f, 1e-2f);
    std::vector<float> m = random_values(count, 53, -1e-3f, 1e-3f), v = random_values(count, 54, 0.f, 1e-5f);
    for (int64_t i = 0; i < n; ++i)
      if (!reached[size_t(i / c.width)]) g[size_t(i + off)] = nan;
    const auto u16 = [](const std::vector<float>& f) {
      std::vector<uint16_t> o;
      for (float x : f) o.push_back(bf16_nearest(x));
      return o;
    };
    std::vector<uint16_t> p16 = u16(p), g16 = u16(g), m16 = u16(m), v16 = u16(v);
    Buffer<float> dp = on_gpu(p), dg = on_gpu(g), dm = on_gpu(m), dv = on_gpu(v);
    Buffer<uint16_t> dp16 = on_gpu(p16), dg16 = on_gpu(g16), dm16 = on_gpu(m16), dv16 = on_gpu(v16);
    Buffer<uint8_t> dreached = on_gpu(reached);
    // The group over host or device arrays.
    const auto group = [&](float* pf, float* gf, float* mf, float* vf, uint16_t* ph, uint16_t* gh, uint16_t* mh,
                           uint16_t* vh, const uint8_t* r) {
      const auto bf = [](uint16_t* x) { return StoredArray{nullptr, x, splat::Precision::BF16}; };
      AdamGroup a{c.bf16_params_grads ? bf(ph) : fp32_array(pf + off),
                  c.bf16_params_grads ? GradArray::narrow(gh) : GradArray(gf + off),
                  c.bf16_moments ? bf(mh) : fp32_array(mf + off), c.bf16_moments ? bf(vh) : fp32_array(vf + off), n, h,
                  /*seed=*/77};
      a.grads.reached = r;
      a.grads.width = c.width;
      return a;
    };
    for (int step = 1; step <= 2; ++step) {
      const AdamGroup cpu = group(p.data(), g.data(), m.data(), v.data(), p16.data(), g16.data(), m16.data(),
                                  v16.data(), reached.data());
      const AdamGroup gpu = group(dp.data(), dg.data(), dm.data(), dv.data(), dp16.data(), dg16.data(), dm16.data(),
                                  dv16.data(), dreached.data());
      adam_step_groups(Device::CPU, std::span<const AdamGroup>(&cpu, 1), step);
      adam_step_groups(Device::CUDA, std::span<const AdamGroup>(&gpu, 1), step);
    }
    if (c.bf16_params_grads) CHECK(dp16.download() == p16);
    else CHECK(dp.download() == p);
    if (c.bf16_moments) {
      CHECK(dm16.download() == m16);
      CHECK(dv16.download() == v16);
    } else {
      CHECK(dm.download() == m);
      CHECK(dv.download() == v);
    }
    // No NaN reached the parameters, and unreached rows moved too (dense Adam moves them on their moments).
    const std::vector<float> pf = c.bf16_params_grads ? std::vector<float>() : dp.download();
    CHECK(std::none_of(pf.begin(), pf.end(), [](float x) { return std::isnan(x); }));
    if (!c.bf16_params_grads) CHECK(pf[size_t(off + c.width)] != p0[size_t(off + c.width)]);
  }
}
