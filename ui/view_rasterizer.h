#pragma once
// Renders the current Gaussians from the viewer's camera with either backend. The viewport and
// the PNG snapshot both go through here; only how the pixels reach the screen differs (see
// viewport_texture.h). No GL in this file, so it is tested without a window.
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "core/model/gaussian_model.h"
#include "core/model/model_snapshot.h"
#include "core/train/evaluator.h"
#include "kernels/buffer.h"
#include "kernels/rasterizer.h"
#include "kernels/stream.h"
#include "ui/view_colorize.h"

namespace splat::ui {

struct ImageRGBA8 {
  int width = 0, height = 0;
  std::vector<uint8_t> pixels;  // row-major, top row first, 4 bytes per pixel
};

class ViewRasterizer {
 public:
  // Device::CUDA renders on CUDA device 0, on a non-blocking stream of its own (kernels/stream.h):
  // the viewer never waits for the trainer's queue, only for the snapshot it shows (ready_on). Its
  // priority is above training's: it renders only when something it shows changed, and then a
  // frame's blocks go ahead of the queued steps' (with one step queued while the view moves, the
  // orbit's frame p90 falls from 29 to 18 ms on one H100 at the same training speed, 92 %; see
  // bench/VIEWER.md). bench_viewer compares the other priorities.
  static constexpr kernels::StreamPriority kPriority = kernels::StreamPriority::Interactive;
  explicit ViewRasterizer(kernels::Device device, kernels::StreamPriority priority = kPriority);
  kernels::Device device() const { return device_; }
  // Where this viewer's work runs (its device and stream): the viewport's interop writes on it too.
  const kernels::ComputeContext& context() const { return where_; }

  // The Gaussians to show, from a host model. For CUDA they are uploaded only when `version`
  // differs from the last call's, so the per-frame cost is the render alone.
  void set_gaussians(std::shared_ptr<const GaussianModel> model, uint64_t version);
  // The Gaussians to show, from a snapshot (the training session's). One on this rasterizer's
  // device is rendered in place and held for as long as it is shown (this stream waits on the device
  // for the copies that made it, without a host wait); one elsewhere is copied here once per snapshot.
  void set_snapshot(std::shared_ptr<const ModelSnapshot> snapshot);
  bool has_gaussians() const { return model_ != nullptr || shown_ != nullptr; }
  int64_t gaussian_count() const { return shown_ ? shown_->size() : model_ ? model_->size() : 0; }

  // The CPU backend's render threads (0: every core; ui/viewport_share.h lowers it while the CPU trains).
  // A change makes a new rasterizer: it keeps nothing between renders the viewer needs. CUDA ignores it.
  void set_cpu_threads(int threads);

  // Renders one view into the output buffers (on this backend's device).
  void render(const kernels::Camera& camera, const kernels::RasterSettings& settings);
  // Whether renders project into packed pairs (only the visible ones, counted on the host first) or
  // dense ones (every Gaussian, culled ones included, through the sorts). Packed: less memory for a
  // frame, and an orbit's frame p90 0.2 ms lower on a GPU that trains (bench/VIEWER.md); bench_viewer
  // compares them.
  static constexpr bool kPacked = true;
  void set_packed(bool packed) { packed_ = packed; }

  int width() const { return width_; }
  int height() const { return height_; }
  const float* rgb() const { return rgb_.data(); }      // [h,w,3]
  const float* alpha() const { return alpha_.data(); }  // [h,w]
  const float* depth() const { return depth_.data(); }  // [h,w]

  // The last render as RGBA8 on the host (downloads from the device when needed).
  ImageRGBA8 colorize(const ColorizeParams& params) const;
  // The last render's float RGB on the host.
  std::vector<float> rgb_host() const;

  // The evaluator (core/train/evaluator.h) on what is shown: PSNR and SSIM of each of `views`.
  EvalResult evaluate(const Scene& scene, const std::vector<int>& views, const EvalOptions& options);

 private:
  kernels::Device device_;
  bool packed_ = kPacked;
  std::optional<kernels::PriorityStream> stream_;  // first: everything below runs on it
  kernels::ComputeContext where_;
  std::unique_ptr<kernels::Rasterizer> rasterizer_;
  int cpu_threads_ = 0;
  // What is shown: a host model (read directly by the CPU backend), or a snapshot on this
  // backend's context (a host model's upload on CUDA, or the session's snapshot).
  std::shared_ptr<const GaussianModel> model_;
  uint64_t version_ = 0;
  std::shared_ptr<const ModelSnapshot> source_;  // the snapshot last passed to set_snapshot
  std::shared_ptr<const ModelSnapshot> shown_;
  kernels::Buffer<float> rgb_, alpha_, depth_;
  int width_ = 0, height_ = 0;
};

// colorize_pixel over whole host arrays: the CPU path of the viewport and of snapshots.
ImageRGBA8 colorize_image(const float* rgb, const float* alpha, const float* depth, int width, int height,
                          const ColorizeParams& params);

}  // namespace splat::ui
