#pragma once
// Inputs shared by the mixed-precision tests (test_amp.cpp on the CPU, test_amp_gpu.cpp against
// CUDA): a model with every column busy, and one forward + backward of a DeviceGaussians.
#include <cmath>
#include <random>
#include <vector>

#include "core/model/device_gaussians.h"
#include "kernels/rasterizer.h"

namespace splat::test {

// Every column busy, SH rest included, so that bf16 storage changes the values.
inline GaussianModel busy_model(int64_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> U(-1, 1);
  GaussianModel m(3, n);
  for (int64_t i = 0; i < n; ++i) {
    for (int k = 0; k < 3; ++k) m.means[3 * i + k] = 0.8f * U(rng);
    for (int k = 0; k < 3; ++k) m.log_scales[3 * i + k] = std::log(0.08f + 0.03f * U(rng));
    m.quats[4 * i] = 1 + 0.3f * U(rng);
    for (int k = 1; k < 4; ++k) m.quats[4 * i + k] = 0.4f * U(rng);
    m.opacity_logits[i] = 2 * U(rng);
    for (int k = 0; k < 3; ++k) m.sh_dc[3 * i + k] = U(rng);
  }
  for (float& v : m.sh_rest) v = 0.3f * U(rng);
  return m;
}

// One 48x36 view at degree 3 of g (on its device), then backward of a fixed linear loss: the image
// followed by every group's gradient, on the host. `packed` picks the rasterizer's layout.
inline std::vector<float> render_and_backward(DeviceGaussians& g, bool packed) {
  constexpr int W = 48, H = 36;
  kernels::Camera cam;
  cam.t[2] = 3;
  cam.fx = cam.fy = 40;
  cam.cx = 24, cam.cy = 18;
  cam.width = W, cam.height = H;
  kernels::RasterSettings rs;
  rs.sh_degree = 3;
  rs.packed = packed;
  auto r = g.device() == kernels::Device::CPU ? kernels::make_cpu_rasterizer(2) : kernels::make_cuda_rasterizer();
  kernels::Buffer<float> rgb(g.context(), W * H * 3), alpha(g.context(), W * H), drgb(g.context());
  std::vector<float> d(W * H * 3);
  for (size_t i = 0; i < d.size(); ++i) d[i] = float(i % 7) * 0.01f - 0.03f;
  drgb.upload(d);
  r->forward(g.view(), std::span<const kernels::Camera>(&cam, 1), rs, {rgb.data(), alpha.data(), nullptr});
  g.zero_grad();
  r->backward({drgb.data(), nullptr, nullptr}, g.grad(), {});
  std::vector<float> out = rgb.download();
  for (Group grp : kAllGroups) {
    const std::vector<float> gr = g.grad(grp).download();
    out.insert(out.end(), gr.begin(), gr.end());
  }
  return out;
}

}  // namespace splat::test
