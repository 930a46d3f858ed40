// Per-image colour compensation (kernels/color_affine.h): its VJP against finite differences in
// double, the CPU reference against the map applied by hand (each image through its own view's
// parameters, gradients summed per view), and CUDA against the CPU reference.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <vector>

#include "kernels/buffer.h"
#include "kernels/color_affine.h"
#include "tests/kernels/device_arrays.h"
#include "tests/kernels/fd_check.h"
#include "tests/support/test_support.h"

using namespace splat;
using kernels::Device;
using splat::test::Vector;

TEST_CASE("colour affine VJP matches finite differences", "[color_affine]") {
  std::mt19937 rng(5);
  // x = [12 parameters, rgb]
  const Vector x = splat::test::random_vector(15, -1, 1, rng);
  auto f = [](const Vector& y) {
    Vector out(3);
    kernels::color_affine(y.data(), y.data() + 12, out.data());
    return out;
  };
  auto vjp = [](const Vector& y, const Vector& u) {
    Vector g(15, 0.0);
    kernels::color_affine_vjp(y.data(), y.data() + 12, u.data(), g.data() + 12, g.data());
    return g;
  };
  splat::test::check_vjp(f, vjp, x, "colour affine");
  double p[12], rgb[3] = {0.2, 0.5, 0.7}, out[3];
  kernels::color_affine_identity(p);
  kernels::color_affine(p, rgb, out);
  CHECK(out[0] == 0.2);
  CHECK(out[2] == 0.7);
}

namespace {

struct Case {
  int views = 5;
  int64_t pixels = 777;
  std::vector<int> batch = {3, 0, 3, 4};  // a view may come twice in one run
  std::vector<float> params, rgb, grad_out;
  explicit Case(unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> U(-1, 1);
    params.resize(size_t(views) * 12);
    for (int v = 0; v < views; ++v) {
      kernels::color_affine_identity(params.data() + 12 * v);
      for (int k = 0; k < 12; ++k) params[size_t(12 * v + k)] += 0.2f * U(rng);
    }
    for (size_t i = 0; i < size_t(batch.size() * pixels * 3); ++i) rgb.push_back(0.5f + 0.5f * U(rng)), grad_out.push_back(U(rng));
  }
};

}  // namespace

TEST_CASE("colour affine: each image through its own view's map, gradients summed per view", "[color_affine]") {
  const Case k(9);
  const size_t n = k.rgb.size();
  std::vector<float> out(n), grad_rgb(n), grad_params(k.params.size(), 0.5f);  // accumulates onto what is there
  kernels::color_affine_forward_reference(k.params.data(), k.batch, k.rgb.data(), out.data(), k.pixels);
  kernels::color_affine_backward_reference(k.params.data(), k.batch, k.rgb.data(), k.grad_out.data(), grad_rgb.data(),
                                           grad_params.data(), k.pixels);
  std::vector<double> want_params(k.params.size(), 0.5);
  for (size_t c = 0; c < k.batch.size(); ++c)
    for (int64_t i = 0; i < k.pixels; ++i) {
      const size_t at = 3 * (c * size_t(k.pixels) + size_t(i));
      const float* p = k.params.data() + 12 * k.batch[c];
      for (int r = 0; r < 3; ++r) {
        const double want = double(p[3 * r]) * k.rgb[at] + double(p[3 * r + 1]) * k.rgb[at + 1] +
                            double(p[3 * r + 2]) * k.rgb[at + 2] + p[9 + r];
        REQUIRE(out[at + size_t(r)] == Approx(want).margin(1e-6));
        const double g = double(p[r]) * k.grad_out[at] + double(p[3 + r]) * k.grad_out[at + 1] +
                         double(p[6 + r]) * k.grad_out[at + 2];
        REQUIRE(grad_rgb[at + size_t(r)] == Approx(g).margin(1e-6));
        for (int j = 0; j < 3; ++j) want_params[size_t(12 * k.batch[c] + 3 * r + j)] += double(k.grad_out[at + size_t(r)]) * k.rgb[at + size_t(j)];
        want_params[size_t(12 * k.batch[c] + 9 + r)] += k.grad_out[at + size_t(r)];
      }
    }
  for (size_t q = 0; q < want_params.size(); ++q) CHECK(grad_params[q] == Approx(want_params[q]).margin(1e-3));
  CHECK(grad_params[12 * 1] == 0.5f);  // view 1 was not in the batch
  CHECK_THROWS_WITH(kernels::check_color_affine(std::vector<int>(65, 0)), Catch::Contains("65 images in one call"));
}

TEST_CASE("colour affine centring moves the listed maps together to a mean at the identity", "[color_affine]") {
  const Case k(13);
  std::vector<float> params = k.params;
  const std::vector<int32_t> listed = {0, 2, 3};  // view 1 and 4 are not training views here
  kernels::color_affine_centre_reference(params.data(), listed.data(), int(listed.size()));
  for (int q = 0; q < 12; ++q) {
    double mean = 0;
    for (int v : listed) mean += params[size_t(12 * v + q)] / 3.0;
    CHECK(mean == Approx(q == 0 || q == 4 || q == 8 ? 1.0 : 0.0).margin(1e-6));
    // Together: the differences between the listed maps stay.
    CHECK(params[size_t(q)] - params[size_t(24 + q)] == Approx(k.params[size_t(q)] - k.params[size_t(24 + q)]).margin(1e-6));
  }
  for (int q = 0; q < 12; ++q) CHECK(params[size_t(12 + q)] == k.params[size_t(12 + q)]);
}

TEST_CASE("CUDA colour affine matches the CPU reference", "[color_affine][gpu]") {
  if (!splat::test::gpu_or_skip("CUDA colour affine")) return;
  const Case k(11);
  const size_t n = k.rgb.size();
  std::vector<float> out(n), grad_rgb(n), grad_params(k.params.size(), 0.f);
  kernels::color_affine_forward_reference(k.params.data(), k.batch, k.rgb.data(), out.data(), k.pixels);
  kernels::color_affine_backward_reference(k.params.data(), k.batch, k.rgb.data(), k.grad_out.data(), grad_rgb.data(),
                                           grad_params.data(), k.pixels);
  const kernels::ComputeContext gpu(Device::CUDA);
  auto params = test::on(Device::CUDA, k.params), rgb = test::on(Device::CUDA, k.rgb), g = test::on(Device::CUDA, k.grad_out);
  auto d_out = test::zeros<float>(Device::CUDA, n), d_grad = test::zeros<float>(Device::CUDA, n),
       d_params = test::zeros<float>(Device::CUDA, k.params.size());
  kernels::color_affine_forward(gpu, params.data(), k.batch, rgb.data(), d_out.data(), k.pixels);
  kernels::color_affine_backward(gpu, params.data(), k.batch, rgb.data(), g.data(), d_grad.data(), d_params.data(), k.pixels);
  const std::vector<float> got_out = d_out.download(), got_grad = d_grad.download(), got_params = d_params.download();
  for (size_t i = 0; i < n; ++i) {
    REQUIRE(got_out[i] == Approx(out[i]).margin(1e-6));
    REQUIRE(got_grad[i] == Approx(grad_rgb[i]).margin(1e-6));
  }
  for (size_t q = 0; q < got_params.size(); ++q) CHECK(got_params[q] == Approx(grad_params[q]).epsilon(1e-4).margin(1e-3));

  std::vector<float> centred = k.params;
  const std::vector<int32_t> listed = {4, 0, 3};
  kernels::color_affine_centre_reference(centred.data(), listed.data(), int(listed.size()));
  auto d_listed = test::on(Device::CUDA, listed);
  kernels::color_affine_centre(gpu, params.data(), d_listed.data(), int(listed.size()));
  CHECK(params.download() == centred);  // the same shift, summed in the same order
}
