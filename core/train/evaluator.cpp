#include "core/train/evaluator.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include "core/scene/image_writer.h"
#include "core/train/trainer.h"
#include "kernels/buffer.h"
#include "kernels/loss.h"

namespace splat {

EvalOptions eval_options_for(const TrainerOptions& options, int sh_degree) {
  EvalOptions eo;
  eo.settings = render_settings(options, sh_degree);
  return eo;
}

EvalOptions eval_options_for(const Trainer& trainer) {
  return eval_options_for(trainer.options(), trainer.active_sh_degree());
}

EvalResult evaluate(kernels::Rasterizer& raster, const kernels::GaussiansView& g, const Scene& scene,
                    const std::vector<int>& views, const EvalOptions& options) {
  if (views.empty()) throw std::invalid_argument("evaluate: no views to evaluate (" + scene.root + ")");
  if (scene.images.size() != scene.views.size())
    throw std::invalid_argument("evaluate: the scene's images are not loaded (" + scene.root + ")");
  // Everything on the rasterizer's own context (device and stream): the metrics read its image in stream
  // order, which another stream (the legacy default one included) would not give.
  const kernels::ComputeContext dev = raster.context();
  kernels::Buffer<float> rgb(dev), alpha(dev);
  kernels::Buffer<uint8_t> target(dev);  // the photo's bytes: the metrics read them as v / 255
  kernels::Buffer<uint8_t> mask(dev);
  if (!options.render_dir.empty()) std::filesystem::create_directories(options.render_dir);
  EvalResult res;
  kernels::RasterSettings settings = options.settings;
  settings.count_entries = true;  // every render whole: the metrics read it at once
  const auto t0 = std::chrono::steady_clock::now();
  for (int v : views) {
    const SceneView& sv = scene.views[v];
    const kernels::Camera cam = sv.to_kernel_camera();
    const kernels::ImageBatchShape shape{1, cam.height, cam.width};
    rgb.resize(size_t(shape.elements()));
    alpha.resize(size_t(shape.pixels_per_image()));
    target.upload(scene.images[v].pixels);
    raster.forward(g, std::span<const kernels::Camera>(&cam, 1), settings, {rgb.data(), alpha.data(), nullptr});
    // Ignored pixels (outside the undistorted photo, or masked by the user) are left out of the metrics.
    const uint8_t* m_host = scene.mask(v);
    if (m_host && std::none_of(m_host, m_host + shape.pixels_per_image(), [](uint8_t b) { return b != 0; })) {
      ++res.skipped;  // a user mask that leaves nothing to measure
      continue;
    }
    if (m_host) mask.upload({m_host, size_t(shape.pixels_per_image())});
    const kernels::ImageMetrics m =
        kernels::image_metrics(dev, rgb.data(), target.data(), shape, m_host ? mask.data() : nullptr)[0];
    res.views.push_back({v, sv.name, m.psnr, m.ssim});
    res.psnr += m.psnr;
    res.ssim += m.ssim;
    if (!options.render_dir.empty()) {
      std::filesystem::path name = std::filesystem::path(sv.name).filename();
      name.replace_extension(".png");
      write_png(options.render_dir / name, rgb.download(), cam.width, cam.height);
    }
  }
  if (res.views.empty())
    throw std::invalid_argument("evaluate: every test view is fully masked (" + scene.root + ")");
  res.psnr /= double(res.views.size());
  res.ssim /= double(res.views.size());
  res.ms_per_view =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / double(views.size());
  return res;
}

}  // namespace splat
