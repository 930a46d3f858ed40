// Rasterizer benchmark (CUDA backend): forward and forward+backward times, throughput and memory
// for the reference library's benchmark scenes, plus a per-stage breakdown. Figures go to
// bench/RESULTS.md. Usage: bench_raster [--quick] (quick: 100k and 1M only).
//
// Scene recipe (the reference library's): 1920x1080, fx = fy = 1000, principal point at the centre; means
// uniform in camera 0's frustum 2..10 units deep; log-scale ~ N(log(0.01 z), 0.5) per axis; random
// unit quaternions; opacity ~ U(0.1, 0.9); SH degree 3 with DC ~ N(0, 0.5) and rest ~ N(0, 0.1).
// Batch of 4: yaw -4.5..+4.5 degrees, x offsets -0.3..+0.3. The loss is mean |image - target|;
// its gradient sign(image - target) / numel is replaced by a fixed random +-1/numel buffer (same
// cost for the rasterizer, no loss kernel needed here). Timing: CUDA events, warm-up 5, median of 30.
// --profile [N]: only three forward+backward calls of the one-camera dense case of N Gaussians (1M
// unless given), for ncu. "host" is the median time the host takes to enqueue one forward+backward
// (no wait): where it reaches the device's time, the case is bound by launches, not by the device.
// The fwd and fwd+bwd times start from an idle device, so they include the host's launches of the
// first stages; "queued" is a forward+backward's time where calls follow each other without a wait
// (kQueued between two events), as in training, where the host enqueues ahead of the device: the
// device's own time for the call.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kernels/buffer.h"
#include "kernels/rasterizer.h"

using namespace splat::kernels;

namespace {

constexpr int kWidth = 1920, kHeight = 1080, kWarmup = 5, kRuns = 30;

void cuda_ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "bench_raster: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

Camera bench_camera(double yaw_deg, double x_offset) {
  const double a = yaw_deg * M_PI / 180.0, c = std::cos(a), s = std::sin(a);
  // Camera-to-world rotation about y; world-to-camera is its transpose, t = -R eye.
  const double R[9] = {c, 0, -s, 0, 1, 0, s, 0, c};
  Camera cam;
  for (int i = 0; i < 9; ++i) cam.R[i] = float(R[i]);
  for (int i = 0; i < 3; ++i) cam.t[i] = float(-R[3 * i] * x_offset);
  cam.fx = cam.fy = 1000.f;
  cam.cx = kWidth / 2.f;
  cam.cy = kHeight / 2.f;
  cam.width = kWidth;
  cam.height = kHeight;
  return cam;
}

struct DeviceScene {
  int64_t n;
  Buffer<float> means{Device::CUDA}, quats{Device::CUDA}, log_scales{Device::CUDA}, logits{Device::CUDA},
      dc{Device::CUDA}, rest{Device::CUDA};
  GaussiansView view() const {
    return {n, means.data(), quats.data(), log_scales.data(), logits.data(), dc.data(), rest.data(), 15};
  }
};

DeviceScene make_scene(int64_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> U(0, 1);
  std::normal_distribution<float> N01(0, 1);
  std::vector<float> means(3 * n), quats(4 * n), log_scales(3 * n), logits(n), dc(3 * n), rest(45 * n);
  for (int64_t i = 0; i < n; ++i) {
    const float z = 2 + 8 * U(rng);
    means[3 * i] = (U(rng) * kWidth - kWidth / 2.f) / 1000.f * z;
    means[3 * i + 1] = (U(rng) * kHeight - kHeight / 2.f) / 1000.f * z;
    means[3 * i + 2] = z;
    for (int k = 0; k < 3; ++k) log_scales[3 * i + k] = std::log(0.01f * z) + 0.5f * N01(rng);
    float q[4], len = 0;
    for (float& v : q) v = N01(rng), len += v * v;
    for (int k = 0; k < 4; ++k) quats[4 * i + k] = q[k] / std::sqrt(len);
    const float o = 0.1f + 0.8f * U(rng);
    logits[i] = std::log(o / (1 - o));
    for (int k = 0; k < 3; ++k) dc[3 * i + k] = 0.5f * N01(rng);
    for (int k = 0; k < 45; ++k) rest[45 * i + k] = 0.1f * N01(rng);
  }
  DeviceScene s;
  s.n = n;
  s.means.upload(means), s.quats.upload(quats), s.log_scales.upload(log_scales), s.logits.upload(logits);
  s.dc.upload(dc), s.rest.upload(rest);
  return s;
}

struct Grads {
  Buffer<float> means, quats, log_scales, logits, dc, rest, grad2d;
  Buffer<int32_t> visible;
  explicit Grads(int64_t n)
      : means(Device::CUDA, 3 * n), quats(Device::CUDA, 4 * n), log_scales(Device::CUDA, 3 * n),
        logits(Device::CUDA, n), dc(Device::CUDA, 3 * n), rest(Device::CUDA, 45 * n), grad2d(Device::CUDA, n),
        visible(Device::CUDA, n) {
    for (auto* b : {&means, &quats, &log_scales, &logits, &dc, &rest, &grad2d}) b->zero();
    visible.zero();
  }
  GaussiansGrad grad() {
    return {means.data(), quats.data(), log_scales.data(), logits.data(), dc.data(), rest.data()};
  }
  DensifyStats stats() { return {grad2d.data(), nullptr, visible.data(), nullptr}; }
};

// The median host time of enqueueing `step` (the device is drained between calls, so each call's
// launches start from an idle queue).
template <class F>
float median_host_ms(F&& step) {
  std::vector<float> t;
  for (int i = 0; i < kRuns; ++i) {
    cuda_ok(cudaDeviceSynchronize(), "drain");
    const auto a = std::chrono::steady_clock::now();
    step();
    t.push_back(std::chrono::duration<float, std::milli>(std::chrono::steady_clock::now() - a).count());
  }
  cuda_ok(cudaDeviceSynchronize(), "drain");
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

template <class F>
float median_ms(F&& step) {
  cudaEvent_t a, b;
  cuda_ok(cudaEventCreate(&a), "event");
  cuda_ok(cudaEventCreate(&b), "event");
  for (int i = 0; i < kWarmup; ++i) step();
  std::vector<float> t;
  for (int i = 0; i < kRuns; ++i) {
    cuda_ok(cudaEventRecord(a), "record");
    step();
    cuda_ok(cudaEventRecord(b), "record");
    cuda_ok(cudaEventSynchronize(b), "sync");
    float ms;
    cuda_ok(cudaEventElapsedTime(&ms, a, b), "elapsed");
    t.push_back(ms);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// The median over kRuns of the mean time of kQueued calls enqueued back to back.
constexpr int kQueued = 10;
template <class F>
float median_queued_ms(F&& step) {
  cudaEvent_t a, b;
  cuda_ok(cudaEventCreate(&a), "event");
  cuda_ok(cudaEventCreate(&b), "event");
  std::vector<float> t;
  for (int i = 0; i < kRuns; ++i) {
    cuda_ok(cudaEventRecord(a), "record");
    for (int k = 0; k < kQueued; ++k) step();
    cuda_ok(cudaEventRecord(b), "record");
    cuda_ok(cudaEventSynchronize(b), "sync");
    float ms;
    cuda_ok(cudaEventElapsedTime(&ms, a, b), "elapsed");
    t.push_back(ms / kQueued);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

double gib(size_t bytes) { return double(bytes) / double(1ull << 30); }

// One benchmark case: the cameras, output and gradient buffers, and a rasterizer.
struct Case {
  const DeviceScene& scene;
  std::vector<Camera> cams;
  Buffer<float> rgb, alpha, drgb{Device::CUDA};
  Grads grads;
  std::unique_ptr<Rasterizer> r = make_cuda_rasterizer();
  RasterSettings settings;

  Case(const DeviceScene& s, int cameras, bool packed)
      : scene(s), rgb(Device::CUDA, 3 * pixels(cameras)), alpha(Device::CUDA, pixels(cameras)), grads(s.n) {
    if (cameras == 1)
      cams.push_back(bench_camera(0, 0));
    else
      for (int c = 0; c < cameras; ++c) {
        const double f = double(c) / (cameras - 1);
        cams.push_back(bench_camera(-4.5 + 9 * f, -0.3 + 0.6 * f));
      }
    std::vector<float> g(3 * pixels(cameras));
    std::mt19937 rng(3);
    for (float& v : g) v = (rng() & 1 ? 1.f : -1.f) / float(g.size());
    drgb.upload(g);
    settings.sh_degree = 3;
    settings.packed = packed;
  }
  static int64_t pixels(int cameras) { return int64_t(cameras) * kWidth * kHeight; }
  void fwd() { r->forward(scene.view(), cams, settings, {rgb.data(), alpha.data(), nullptr}); }
  void fwd_bwd() {
    fwd();
    r->backward({drgb.data(), nullptr, nullptr}, grads.grad(), grads.stats());
  }
};

void bench_case(const DeviceScene& scene, int cameras, bool packed, bool breakdown) {
  size_t free0, total;
  cuda_ok(cudaMemGetInfo(&free0, &total), "meminfo");
  Case c(scene, cameras, packed);
  auto fwd = [&] { c.fwd(); };
  auto fwd_bwd = [&] { c.fwd_bwd(); };
  const float t_fwd = median_ms(fwd);
  const float t_both = median_ms(fwd_bwd);
  const float t_host = median_host_ms(fwd_bwd);
  const float t_queued = median_queued_ms(fwd_bwd);
  size_t free1;
  cuda_ok(cudaMemGetInfo(&free1, &total), "meminfo");
  const double pairs = double(scene.n) * cameras;
  std::printf("%6.0fk  %d  %-6s  fwd %7.2f ms  fwd+bwd %7.2f ms (host %5.2f, queued %5.2f)  %6.2f G pairs/s  "
              "workspace %.2f GiB  total %.2f GiB (params, grads, images, workspace)  %.1fM intersections\n",
              scene.n / 1e3, cameras, packed ? "packed" : "dense", t_fwd, t_both, t_host, t_queued,
              pairs / (t_both * 1e-3) / 1e9,
              gib(c.r->workspace_peak_bytes()), gib(free0 - free1 + size_t(scene.n) * 59 * 4),
              c.r->last_intersections() / 1e6);
  if (breakdown) {
    c.r->set_stage_timing(true);
    std::vector<std::vector<StageTime>> runs;
    for (int i = 0; i < kRuns; ++i) {
      fwd_bwd();
      runs.push_back(c.r->stage_times());
    }
    std::printf("  stage breakdown (median of %d, ms):\n", kRuns);
    for (size_t k = 0; k < runs[0].size(); ++k) {
      std::vector<float> t;
      for (auto& run : runs)
        if (k < run.size()) t.push_back(run[k].ms);
      std::sort(t.begin(), t.end());
      std::printf("    %-24s %7.3f\n", runs[0][k].stage.c_str(), t[t.size() / 2]);
    }
  }
  cuda_ok(cudaDeviceSynchronize(), "end of case");
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  if (argc > 1 && std::strcmp(argv[1], "--profile") == 0) {
    // Three forward+backward calls of one one-camera dense case and nothing else, so that a
    // profiler (ncu -k ... --launch-skip) sees a short, known sequence of launches.
    const DeviceScene scene = make_scene(argc > 2 ? std::atoll(argv[2]) : 1000000, 42);
    Case c(scene, 1, false);
    for (int i = 0; i < 3; ++i) c.fwd_bwd();
    cuda_ok(cudaDeviceSynchronize(), "profile run");
    return 0;
  }
  cudaDeviceProp prop;
  cuda_ok(cudaGetDeviceProperties(&prop, 0), "device properties");
  std::printf("device: %s, %d x %d, SH degree 3, warm-up %d, median of %d (CUDA events)\n", prop.name, kWidth,
              kHeight, kWarmup, kRuns);
  std::vector<int64_t> sizes = {100000, 1000000};
  if (!quick) sizes.push_back(3000000);
  for (int64_t n : sizes) {
    const DeviceScene scene = make_scene(n, 42);
    for (int cameras : {1, 4})
      for (bool packed : {false, true}) bench_case(scene, cameras, packed, cameras == 1 && !packed);
  }
  return 0;
}
