// A backward call that takes the Adam step itself (kernels::GaussiansGrad::adam_step) against the
// backward that stores the gradients followed by kernels::adam_step on each array: on each backend the
// two leave the same parameters and moments, and the calls it cannot serve are refused.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "kernels/adam.h"
#include "kernels/buffer.h"
#include "kernels/rasterizer.h"
#include "tests/kernels/device_arrays.h"
#include "tests/kernels/raster_test_scenes.h"
#include "tests/support/test_support.h"

using namespace splat;
using kernels::Buffer;
using kernels::Camera;
using kernels::Device;
using Floats = std::vector<float>;

namespace {

constexpr int kWidth = 48, kHeight = 40;

// The six parameter arrays of a model, in GaussiansView order, with their moments.
struct Model {
  int degree = 0;
  int64_t n = 0;
  Floats p[6], m[6], v[6];
  int rest_coeffs() const { return kernels::sh_coeffs_for_degree(degree) - 1; }
};
constexpr float kLr[6] = {1.6e-4f, 1e-3f, 5e-3f, 5e-2f, 2.5e-3f, 1.25e-4f};

// n Gaussians in front of two cameras, some behind them (no pair: a zero gradient, yet a step), with
// moments as after some steps (the update reads them).
Model random_model(unsigned seed, int64_t n, int degree) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> U(-1, 1);
  Model s;
  s.degree = degree;
  s.n = n;
  const int widths[6] = {3, 4, 3, 1, 3, 3 * s.rest_coeffs()};
  for (int64_t i = 0; i < n; ++i) {
    s.p[0].insert(s.p[0].end(), {1.2f * U(rng), 0.9f * U(rng), i % 9 == 4 ? -8.f : 0.9f * U(rng)});
    s.p[1].insert(s.p[1].end(), {1 + 0.4f * U(rng), 0.5f * U(rng), 0.5f * U(rng), 0.5f * U(rng)});
    for (int k = 0; k < 3; ++k) s.p[2].push_back(std::log(0.08f + 0.05f * (1 + U(rng))));
    s.p[3].push_back(1.5f * U(rng));
    for (int k = 0; k < 3; ++k) s.p[4].push_back(0.5f + 0.5f * U(rng));
    for (int k = 0; k < widths[5]; ++k) s.p[5].push_back(0.2f * U(rng));
  }
  for (int a = 0; a < 6; ++a)
    for (size_t k = 0; k < s.p[a].size(); ++k) {
      s.m[a].push_back(1e-4f * U(rng));
      s.v[a].push_back(1e-8f * (1.5f + U(rng)));
    }
  return s;
}

std::vector<Camera> cameras() {
  return {test::look_at_camera({0, 0, -4}, {0, 0, 0}, kWidth, kHeight, 45),
          test::look_at_camera({2, -0.4, -3.4}, {0, 0, 0}, kWidth, kHeight, 40)};
}

// Forward and backward of every camera at `degree` (the model's own unless given), then the Adam step
// at step count `t`: taken by the backward (`fused`), or the gradients stored and adam_step run on each
// array. Returns the model after it.
Model step(Device d, const Model& in, bool fused, int degree, int64_t t = 7) {
  Buffer<float> p[6], m[6], v[6], grads[6];
  for (int a = 0; a < 6; ++a) {
    p[a] = test::on(d, in.p[a]), m[a] = test::on(d, in.m[a]), v[a] = test::on(d, in.v[a]);
    grads[a] = test::zeros<float>(d, in.p[a].size());
  }
  const kernels::GaussiansView g{in.n,        p[0].data(), p[1].data(), p[2].data(), p[3].data(), p[4].data(),
                                 p[5].data(), in.rest_coeffs()};
  kernels::RasterSettings settings;
  settings.sh_degree = degree;
  const std::vector<Camera> cams = cameras();
  const int64_t px = int64_t(cams.size()) * kWidth * kHeight;
  Buffer<float> rgb(d, 3 * px), alpha(d, px);
  auto r = d == Device::CPU ? kernels::make_cpu_rasterizer(2) : kernels::make_cuda_rasterizer();
  r->forward(g, cams, settings, {rgb.data(), alpha.data(), nullptr});
  const test::OutputGrads og(px, 5);
  Buffer<float> drgb = test::on(d, og.rgb);
  kernels::AdamHyperParams h[6];
  for (int a = 0; a < 6; ++a) h[a].lr = kLr[a];
  kernels::GaussiansGrad grad{grads[0].data(), grads[1].data(), grads[2].data(),
                              grads[3].data(), grads[4].data(), in.rest_coeffs() ? grads[5].data() : nullptr};
  grad.overwrite = true;
  if (fused) {
    grad.adam_step = true;
    kernels::AdamTarget* targets[6] = {&grad.adam.means,          &grad.adam.quats, &grad.adam.log_scales,
                                       &grad.adam.opacity_logits, &grad.adam.sh_dc, &grad.adam.sh_rest};
    for (int a = 0; a < 6; ++a)
      if (!in.p[a].empty())
        *targets[a] = {p[a].data(), m[a].data(), v[a].data(), kernels::adam_step_constants<float>(h[a], t)};
  }
  r->backward({drgb.data(), nullptr, nullptr}, grad, {});
  if (!fused)
    for (int a = 0; a < 6; ++a)
      if (!in.p[a].empty())
        kernels::adam_step(d, p[a].data(), grads[a].data(), m[a].data(), v[a].data(), int64_t(in.p[a].size()), h[a], t);
  Model out = in;
  for (int a = 0; a < 6; ++a) out.p[a] = p[a].download(), out.m[a] = m[a].download(), out.v[a] = v[a].download();
  return out;
}

// Every parameter and moment of `a` equals `b`'s, and the step moved parameters of every array.
void check_same_step(const Model& a, const Model& b, const Model& before, const std::string& what) {
  for (int k = 0; k < 6; ++k) {
    INFO(what << ", array " << k);
    CHECK(a.p[k] == b.p[k]);
    CHECK(a.m[k] == b.m[k]);
    CHECK(a.v[k] == b.v[k]);
    if (!before.p[k].empty()) CHECK(a.p[k] != before.p[k]);
  }
}

void check_fused_like_separate(Device d) {
  for (int degree : {0, 1, 3}) {
    const Model s = random_model(40 + unsigned(degree), 90, degree);
    check_same_step(step(d, s, true, degree), step(d, s, false, degree), s, "degree " + std::to_string(degree));
  }
  // Degree 3 stored, degree 1 active: the coefficients beyond it take a step with a zero gradient.
  const Model s = random_model(51, 60, 3);
  check_same_step(step(d, s, true, 1), step(d, s, false, 1), s, "degree 1 of 3");
}

void check_refusals(Device d) {
  // Stored SH rest coefficients whose gradients a degree-0 call does not compute.
  const Model s = random_model(60, 20, 2);
  CHECK_THROWS_WITH(step(d, s, true, 0), Catch::Contains("SH degree 0"));
  CHECK_NOTHROW(step(d, s, false, 0));
}

}  // namespace

TEST_CASE("a backward that takes the Adam step leaves what the gradients and adam_step leave (CPU)",
          "[raster_cpu][adam]") {
  check_fused_like_separate(Device::CPU);
  check_refusals(Device::CPU);
}

TEST_CASE("a backward takes the Adam step only as the step's one overwriting dense fp32 call", "[raster_cpu][adam]") {
  kernels::GaussiansGrad g;
  g.adam_step = true;
  CHECK_THROWS_WITH(kernels::check_gradient_targets(g, false, "test"), Catch::Contains("overwriting call"));
  g.overwrite = true;
  CHECK_NOTHROW(kernels::check_gradient_targets(g, false, "test"));
  CHECK_THROWS_WITH(kernels::check_gradient_targets(g, true, "test"), Catch::Contains("dense layout"));
  kernels::Bf16 rest{};
  g.sh_rest_bf16 = &rest;
  CHECK_THROWS_WITH(kernels::check_gradient_targets(g, false, "test"), Catch::Contains("fp32"));
}

TEST_CASE("CUDA: a backward that takes the Adam step leaves what the gradients and adam_step leave",
          "[raster][gpu][adam]") {
  if (!test::gpu_or_skip("CUDA backward taking the Adam step")) return;
  check_fused_like_separate(Device::CUDA);
  check_refusals(Device::CUDA);
  // And the CUDA step is the CPU's, within the gradients' agreement (tests/kernels/test_raster_gpu.cpp).
  const Model s = random_model(70, 90, 3);
  const Model cpu = step(Device::CPU, s, true, 3), gpu = step(Device::CUDA, s, true, 3);
  for (int k = 0; k < 6; ++k) {
    INFO("array " << k);
    double moved = 0, diff = 0;
    for (size_t i = 0; i < s.p[k].size(); ++i) {
      moved += std::abs(double(cpu.p[k][i]) - s.p[k][i]);
      diff += std::abs(double(gpu.p[k][i]) - cpu.p[k][i]);
    }
    CHECK(diff <= 0.02 * moved);
  }
}
