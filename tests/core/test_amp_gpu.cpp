// Mixed precision on CUDA against the CPU twin: the same bf16 state renders and back-propagates alike,
// Adam on bf16 storage (stochastic rounding) writes the same bits on both backends, and a short CUDA
// training run with --amp stays finite and learns like fp32.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

#include "core/model/device_gaussians.h"
#include "core/train/evaluator.h"
#include "core/train/trainer.h"
#include "kernels/adam.h"
#include "tests/core/amp_fixture.h"
#include "tests/core/demo_fixture.h"
#include "tests/support/test_support.h"

using namespace splat;
using kernels::Device;

namespace {
double rel_err(const std::vector<float>& a, const std::vector<float>& b) {
  double d = 0, n = 0;
  for (size_t i = 0; i < a.size(); ++i) d += (double(a[i]) - b[i]) * (double(a[i]) - b[i]), n += double(b[i]) * b[i];
  return std::sqrt(d) / std::max(std::sqrt(n), 1e-6);
}
}  // namespace

TEST_CASE("amp: CUDA forward and backward from bf16 storage match the CPU twin", "[amp][gpu]") {
  if (!test::gpu_or_skip("CUDA AMP rasterizer vs CPU")) return;
  const GaussianState s = GaussianState::from_model(test::busy_model(500, 5), kAmpColumns);
  DeviceGaussians cpu(Device::CPU, s), gpu(Device::CUDA, s);
  REQUIRE(gpu.view().sh_rest_bf16 != nullptr);
  for (bool packed : {false, true}) {
    INFO("packed " << packed);
    const std::vector<float> a = test::render_and_backward(gpu, packed), b = test::render_and_backward(cpu, packed);
    REQUIRE(a.size() == b.size());
    CHECK(rel_err(a, b) < 1e-3);  // the tolerance of the fp32 CUDA-vs-CPU tests (atomic sums, fast exp)
  }
}

TEST_CASE("amp: Adam on bf16 storage writes the same bits on CUDA and the CPU", "[amp][adam][gpu]") {
  if (!test::gpu_or_skip("CUDA AMP Adam vs CPU")) return;
  GaussianState s = GaussianState::from_model(test::busy_model(3001, 9), kAmpColumns);
  DeviceGaussians cpu(Device::CPU, s), gpu(Device::CUDA, s);
  for (int t = 1; t <= 5; ++t) {
    for (DeviceGaussians* g : {&cpu, &gpu}) {
      std::vector<kernels::AdamGroup> groups;
      for (Group grp : kAllGroups) {
        std::vector<float> grad(g->grad(grp).size());
        for (size_t i = 0; i < grad.size(); ++i) grad[i] = 1e-4f * float(int((i * 2654435761u + t) % 201) - 100);
        g->grad(grp).upload(grad);
        kernels::AdamGroup a = g->adam_group(grp);
        a.h.lr = 1e-3f;
        a.seed = uint64_t(t) * 100 + uint64_t(grp) * 3;
        a.first = int64_t(grp) * 7919;  // as a shard of a larger model: its rows draw the whole model's bits
        groups.push_back(a);
      }
      kernels::adam_step_groups(g->context(), groups, t);
    }
  }
  const GaussianState a = gpu.download(), b = cpu.download();
  for (Group grp : kAllGroups) {
    INFO(group_name(grp));
    CHECK(a.col(grp).value == b.col(grp).value);
    CHECK(a.col(grp).exp_avg == b.col(grp).exp_avg);
    CHECK(a.col(grp).exp_avg_sq == b.col(grp).exp_avg_sq);
  }
}

TEST_CASE("amp: a short CUDA run with amp learns the demo like fp32", "[amp][trainer][gpu]") {
  if (!test::gpu_or_skip("CUDA AMP training")) return;
  const Scene scene = test::small_demo_scene(96, 72, 1500);
  double psnr[2] = {0, 0};
  for (bool amp : {false, true}) {
    TrainerOptions o = test::short_run_options(600);
    o.device = Device::CUDA;
    o.amp = amp;
    Trainer t(scene, init_from_points(scene.points), o);
    while (!t.finished()) t.step();
    psnr[amp] = evaluate(t.rasterizer(), t.gaussians().view(), scene, scene.test_indices(), eval_options_for(t)).psnr;
    const GaussianState st = t.whole_state();
    for (Group g : kAllGroups)
      for (float v : st.col(g).value) REQUIRE(std::isfinite(v));
  }
  std::printf("CUDA demo 600 images: fp32 %.2f dB, amp %.2f dB\n", psnr[0], psnr[1]);
  CHECK(psnr[1] > psnr[0] - 0.5);  // one seed on the GPU (atomic sums): a loose bound; the bench measures
}
