#include "ui/view_rasterizer.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace splat::ui {

using kernels::Device;

namespace {
// Records, on the way out, that `where`'s stream read the shown snapshot: its memory goes back only after
// what was enqueued there, whichever thread drops it, without a wait for the device. On the way out,
// thrown or not: a render that fails halfway has enqueued reads too.
class RecordUse {
 public:
  RecordUse(const std::shared_ptr<const ModelSnapshot>& s, const kernels::ComputeContext& where) : s_(s.get()), where_(where) {}
  ~RecordUse() {
    try {
      if (s_) s_->used_on(where_);
    } catch (...) {  // a lost device: nothing to order any more
    }
  }
  RecordUse(const RecordUse&) = delete;
  RecordUse& operator=(const RecordUse&) = delete;

 private:
  const ModelSnapshot* s_;
  kernels::ComputeContext where_;
};
}  // namespace

ImageRGBA8 colorize_image(const float* rgb, const float* alpha, const float* depth, int width, int height,
                          const ColorizeParams& params) {
  ImageRGBA8 img{width, height, std::vector<uint8_t>(static_cast<size_t>(width) * height * 4)};
  const size_t n = static_cast<size_t>(width) * height;
  for (size_t i = 0; i < n; ++i)
    colorize_pixel(rgb + 3 * i, alpha[i], depth ? depth[i] : 0.f, params, img.pixels.data() + 4 * i);
  return img;
}

ViewRasterizer::ViewRasterizer(Device device, kernels::StreamPriority priority)
    : device_(device),
      where_(kernels::on_own_stream(device, priority, stream_)),
      rasterizer_(device == Device::CUDA ? kernels::make_cuda_rasterizer(where_) : kernels::make_cpu_rasterizer()),
      rgb_(where_), alpha_(where_), depth_(where_) {}

void ViewRasterizer::set_gaussians(std::shared_ptr<const GaussianModel> model, uint64_t version) {
  const bool changed = model != model_ || version != version_ || source_;
  model_ = std::move(model);
  version_ = version;
  if (!changed) return;
  source_.reset();
  shown_ = device_ == Device::CUDA && model_ ? ModelSnapshot::upload(*model_, where_) : nullptr;
}

void ViewRasterizer::set_snapshot(std::shared_ptr<const ModelSnapshot> snapshot) {
  if (snapshot == source_ && snapshot) return;
  model_.reset();
  version_ = 0;
  source_ = std::move(snapshot);
  if (!source_) {
    shown_.reset();
    return;
  }
  const kernels::ComputeContext& there = source_->context();
  const bool here = there.device == where_.device && (device_ == Device::CPU || there.ordinal == where_.ordinal);
  shown_ = here ? source_ : source_->copy_to(where_);
  // The trainer enqueued the snapshot's copies on its own stream: this stream's renders wait for them
  // on the device, the host does not.
  shown_->ready_on(where_);
}

void ViewRasterizer::set_cpu_threads(int threads) {
  if (device_ != Device::CPU || threads == cpu_threads_) return;
  cpu_threads_ = threads;
  rasterizer_ = kernels::make_cpu_rasterizer(threads);
}

void ViewRasterizer::render(const kernels::Camera& camera, const kernels::RasterSettings& settings) {
  width_ = camera.width;
  height_ = camera.height;
  const size_t pixels = static_cast<size_t>(width_) * height_;
  rgb_.resize(pixels * 3);
  alpha_.resize(pixels);
  depth_.resize(pixels);
  if (gaussian_count() == 0) {
    // Nothing to draw: the background colour, fully transparent.
    std::vector<float> bg(pixels * 3);
    for (size_t i = 0; i < pixels; ++i) std::copy(settings.background, settings.background + 3, &bg[3 * i]);
    rgb_.upload(bg);
    alpha_.zero();
    depth_.zero();
    return;
  }
  const kernels::GaussiansView view = shown_ ? shown_->view() : model_->view();
  kernels::RasterSettings s = settings;
  s.sh_degree = std::min(s.sh_degree, shown_ ? shown_->sh_degree() : model_->sh_degree());
  s.count_entries = true;  // the frame stays on screen until something changes: it must be whole
  s.packed = packed_;
  const kernels::Camera cams[1] = {camera};
  const RecordUse read(shown_, where_);
  rasterizer_->forward(view, cams, s, {rgb_.data(), alpha_.data(), depth_.data()});
}

ImageRGBA8 ViewRasterizer::colorize(const ColorizeParams& params) const {
  if (device_ == Device::CPU) return colorize_image(rgb_.data(), alpha_.data(), depth_.data(), width_, height_, params);
  const std::vector<float> rgb = rgb_.download(), alpha = alpha_.download(), depth = depth_.download();
  return colorize_image(rgb.data(), alpha.data(), depth.data(), width_, height_, params);
}

std::vector<float> ViewRasterizer::rgb_host() const { return rgb_.download(); }

EvalResult ViewRasterizer::evaluate(const Scene& scene, const std::vector<int>& views, const EvalOptions& options) {
  EvalOptions o = options;
  if (gaussian_count() == 0) {
    // All cropped away: the views show the background alone, measured like any render, on the CPU
    // backend (as render() draws it without the rasterizer, which expects Gaussians).
    const GaussianModel none;
    return splat::evaluate(*kernels::make_cpu_rasterizer(), none.view(), scene, views, o);
  }
  o.settings.sh_degree = std::min(o.settings.sh_degree, shown_ ? shown_->sh_degree() : model_->sh_degree());
  const RecordUse read(shown_, where_);
  return splat::evaluate(*rasterizer_, shown_ ? shown_->view() : model_->view(), scene, views, o);
}

}  // namespace splat::ui
