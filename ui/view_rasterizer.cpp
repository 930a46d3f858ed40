#include "ui/view_rasterizer.h"

#include <algorithm>
#include <utility>

namespace splat::ui {

using kernels::Device;

ImageRGBA8 colorize_image(const float* rgb, const float* alpha, const float* depth, int width, int height,
                          const ColorizeParams& params) {
  ImageRGBA8 img{width, height, std::vector<uint8_t>(static_cast<size_t>(width) * height * 4)};
  const size_t n = static_cast<size_t>(width) * height;
  for (size_t i = 0; i < n; ++i)
    colorize_pixel(rgb + 3 * i, alpha[i], depth ? depth[i] : 0.f, params, img.pixels.data() + 4 * i);
  return img;
}

ViewRasterizer::ViewRasterizer(Device device)
    : device_(device),
      rasterizer_(device == Device::CUDA ? kernels::make_cuda_rasterizer() : kernels::make_cpu_rasterizer()),
      means_(device), quats_(device), log_scales_(device), opacities_(device), sh_dc_(device), sh_rest_(device),
      rgb_(device), alpha_(device), depth_(device) {}

void ViewRasterizer::set_gaussians(std::shared_ptr<const GaussianModel> model, uint64_t version) {
  const bool changed = model != model_ || version != version_;
  model_ = std::move(model);
  version_ = version;
  if (!changed || device_ == Device::CPU || !model_) return;
  means_.upload(model_->means);
  quats_.upload(model_->quats);
  log_scales_.upload(model_->log_scales);
  opacities_.upload(model_->opacity_logits);
  sh_dc_.upload(model_->sh_dc);
  sh_rest_.upload(model_->sh_rest);
}

void ViewRasterizer::render(const kernels::Camera& camera, const kernels::RasterSettings& settings) {
  width_ = camera.width;
  height_ = camera.height;
  const size_t pixels = static_cast<size_t>(width_) * height_;
  rgb_.resize(pixels * 3);
  alpha_.resize(pixels);
  depth_.resize(pixels);
  if (!model_ || model_->size() == 0) {
    // Nothing to draw: the background colour, fully transparent.
    std::vector<float> bg(pixels * 3);
    for (size_t i = 0; i < pixels; ++i) std::copy(settings.background, settings.background + 3, &bg[3 * i]);
    rgb_.upload(bg);
    alpha_.zero();
    depth_.zero();
    return;
  }
  kernels::GaussiansView view = model_->view();
  if (device_ == Device::CUDA) {
    view.means = means_.data();
    view.quats = quats_.data();
    view.log_scales = log_scales_.data();
    view.opacity_logits = opacities_.data();
    view.sh_dc = sh_dc_.data();
    view.sh_rest = sh_rest_.size() ? sh_rest_.data() : nullptr;
  }
  kernels::RasterSettings s = settings;
  s.sh_degree = std::min(s.sh_degree, model_->sh_degree());
  const kernels::Camera cams[1] = {camera};
  rasterizer_->forward(view, cams, s, {rgb_.data(), alpha_.data(), depth_.data()});
}

ImageRGBA8 ViewRasterizer::colorize(const ColorizeParams& params) const {
  if (device_ == Device::CPU) return colorize_image(rgb_.data(), alpha_.data(), depth_.data(), width_, height_, params);
  const std::vector<float> rgb = rgb_.download(), alpha = alpha_.download(), depth = depth_.download();
  return colorize_image(rgb.data(), alpha.data(), depth.data(), width_, height_, params);
}

}  // namespace splat::ui
