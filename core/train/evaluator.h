#pragma once
// Test-split evaluation: renders every test view with the current Gaussians and averages PSNR
// and SSIM (kernels::image_metrics, prediction clamped to [0,1]); optionally writes each render
// as a PNG beside its ground truth name.
#include <filesystem>
#include <string>
#include <vector>

#include "core/scene/scene.h"
#include "kernels/rasterizer.h"

namespace splat {

struct ViewMetrics {
  int view = 0;
  std::string name;
  double psnr = 0, ssim = 0;
};

struct EvalResult {
  double psnr = 0, ssim = 0;  // means over the views
  double ms_per_view = 0;     // render + metric time per view
  int skipped = 0;            // views left out because their mask leaves no valid pixel
  std::vector<ViewMetrics> views;
};

struct EvalOptions {
  kernels::RasterSettings settings;   // active SH degree, background, ...
  std::filesystem::path render_dir;   // empty: write no PNGs
};

struct TrainerOptions;
class Trainer;
// The one builder of evaluation settings: evaluation renders as training renders (the trainer's
// background, antialiasing and packing), so that PSNR measures the model the loss saw.
// Of a live trainer, at its active SH degree:
EvalOptions eval_options_for(const Trainer& trainer);
// Of a model trained with `options`, at `sh_degree` (a saved run: the degree it reached, capped by
// what the model stores):
EvalOptions eval_options_for(const TrainerOptions& options, int sh_degree);

// Evaluates the given views (usually scene.test_indices()); the scene's images must be loaded.
// Throws std::invalid_argument when `views` is empty.
EvalResult evaluate(kernels::Rasterizer& raster, const kernels::GaussiansView& g, const Scene& scene,
                    const std::vector<int>& views, const EvalOptions& options);

}  // namespace splat
