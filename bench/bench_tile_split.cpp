// How the rasterizer's cost per image depends on the images a call renders, on a trained model:
// bench_tile_split MODEL.ply SCENE [--batches 1,2,4] [--chunks -1,0,256,512] [--calls 24]
// For each chunk length of the backward blend (RasterSettings::backward_chunk_entries; -1: by the call's
// share, kChunksByShare) and each call
// size B, renders `calls` calls of B training views (views spread over the scene: call k takes views
// k, k + s, ... ), each forward then backward with a fixed random output gradient, and prints every
// stage's device time per image (CUDA events between stages, summed over the calls). A two-GPU rank
// renders half of a batch a call, so B = 2 against B = 4 is the cost a rank pays for its smaller calls.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/model/ply_io.h"
#include "core/scene/scene_loader.h"
#include "kernels/buffer.h"
#include "kernels/rasterizer.h"

using namespace splat;
using namespace splat::kernels;

namespace {

std::vector<int> int_list(const std::string& s) {
  std::vector<int> v;
  std::stringstream in(s);
  for (std::string x; std::getline(in, x, ',');) v.push_back(std::stoi(x));
  return v;
}

struct DeviceModel {
  int64_t n = 0;
  int rest_coeffs = 0;
  Buffer<float> means{Device::CUDA}, quats{Device::CUDA}, log_scales{Device::CUDA}, logits{Device::CUDA},
      dc{Device::CUDA}, rest{Device::CUDA};
  explicit DeviceModel(const GaussianModel& m) : n(m.size()), rest_coeffs(m.sh_rest_coeffs()) {
    means.upload(m.means), quats.upload(m.quats), log_scales.upload(m.log_scales);
    logits.upload(m.opacity_logits), dc.upload(m.sh_dc), rest.upload(m.sh_rest);
  }
  GaussiansView view() const {
    return {n, means.data(), quats.data(), log_scales.data(), logits.data(), dc.data(), rest.data(), rest_coeffs};
  }
};

struct Grads {
  Buffer<float> means, quats, log_scales, logits, dc, rest, grad2d;
  Buffer<int32_t> visible;
  Grads(int64_t n, int rest_coeffs)
      : means(Device::CUDA, 3 * n), quats(Device::CUDA, 4 * n), log_scales(Device::CUDA, 3 * n),
        logits(Device::CUDA, n), dc(Device::CUDA, 3 * n), rest(Device::CUDA, 3 * rest_coeffs * n),
        grad2d(Device::CUDA, n), visible(Device::CUDA, n) {}
  GaussiansGrad grad() {
    return {means.data(), quats.data(), log_scales.data(), logits.data(), dc.data(), rest.data()};
  }
  DensifyStats stats() { return {grad2d.data(), nullptr, visible.data(), nullptr}; }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: bench_tile_split MODEL.ply SCENE [--batches 1,2,4] [--chunks -1,0,256,512] [--calls 24]\n");
    return 2;
  }
  std::vector<int> batches{1, 2, 4}, chunks{kChunksByShare, 0, 512, 2048};
  int calls = 24;
  for (int i = 3; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--batches") batches = int_list(argv[i + 1]);
    else if (a == "--chunks") chunks = int_list(argv[i + 1]);
    else if (a == "--calls") calls = std::atoi(argv[i + 1]);
  }
  const GaussianModel model = read_ply(argv[1]);
  SceneLoadOptions options;
  options.load_images = false;
  options.show_progress = false;
  const Scene scene = load_scene(argv[2], options);
  std::vector<Camera> views;
  for (int v : scene.train_indices()) views.push_back(scene.views[size_t(v)].to_kernel_camera());
  std::printf("%lld Gaussians (SH degree %d), %zu training views of %dx%d\n", (long long)model.size(),
              model.sh_degree(), views.size(), views[0].width, views[0].height);

  const DeviceModel g(model);
  Grads grads(g.n, g.rest_coeffs);
  int most = 0;
  for (int b : batches) most = std::max(most, b);
  const int64_t pixels = int64_t(most) * views[0].width * views[0].height;
  Buffer<float> rgb(Device::CUDA, 3 * pixels), alpha(Device::CUDA, pixels);
  std::vector<float> d(3 * size_t(pixels));
  std::mt19937 rng(7);
  for (float& x : d) x = (rng() & 1 ? 1.f : -1.f) / float(pixels);
  Buffer<float> drgb(Device::CUDA);
  drgb.upload(d);

  for (int chunk : chunks) {
    auto r = make_cuda_rasterizer();
    RasterSettings settings;
    settings.sh_degree = model.sh_degree();
    settings.backward_chunk_entries = chunk;
    for (int b : batches) {
      const int stride = int(views.size()) / b;
      std::map<std::string, double> ms;
      std::vector<std::string> order;
      double intersections = 0;
      for (int k = -2; k < calls; ++k) {  // two calls to warm up
        std::vector<Camera> cams;
        for (int i = 0; i < b; ++i) cams.push_back(views[size_t((std::max(k, 0) + i * stride) % int(views.size()))]);
        r->set_stage_timing(k >= 0);
        r->forward(g.view(), cams, settings, {rgb.data(), alpha.data(), nullptr});
        r->backward({drgb.data(), nullptr, nullptr}, grads.grad(), grads.stats());
        if (k < 0) continue;
        for (const StageTime& s : r->stage_times()) {
          if (!ms.count(s.stage)) order.push_back(s.stage);
          ms[s.stage] += s.ms;
        }
        intersections += double(r->last_intersections());
      }
      const std::string length = chunk == kChunksByShare ? "share" : std::to_string(chunk);
      std::printf("chunks %5s, %d image(s) a call, %.2fM entries an image; ms an image:", length.c_str(), b,
                  intersections / calls / b / 1e6);
      double total = 0;
      for (const std::string& s : order) {
        std::printf(" %s %.4f;", s.c_str(), ms[s] / calls / b);
        total += ms[s] / calls / b;
      }
      std::printf(" all %.4f\n", total);
    }
  }
  return 0;
}
