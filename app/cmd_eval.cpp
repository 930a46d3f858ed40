// `splatlab eval <run>`: PSNR/SSIM of a run's point_cloud.ply on its scene's test views.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <vector>

#include "app/commands.h"
#include "app/path_args.h"
#include "app/device_arg.h"
#include "core/run/run_config.h"
#include "core/train/evaluator.h"
#include "core/model/ply_io.h"
#include "core/train/trainer.h"

namespace splat::app {
namespace {

struct EvalArgs {
  std::string run;
  std::string ply;
  std::string device;
  bool renders = false;
  bool train_views = false;
};

int run_eval(const EvalArgs& a) {
  const std::filesystem::path run = a.run;
  require_path_argument("run folder", "run", run);
  if (!a.ply.empty()) check_path_argument("--ply", a.ply);
  const RunConfig config = read_run_config(run);
  const kernels::Device dev = parse_device(a.device);
  const Scene scene = load_run_scene(config, true);
  const GaussianModel model = read_ply(a.ply.empty() ? run / run_files::kPly : std::filesystem::path(a.ply));
  // A device copy of the model through the same path the trainer uses (no optimizer state needed).
  DeviceGaussians g(dev, GaussianState::from_model(model));
  auto raster = dev == kernels::Device::CPU ? kernels::make_cpu_rasterizer() : kernels::make_cuda_rasterizer();
  // Rendered as the run trained (background, packed, antialiased), up to the degree the PLY holds.
  EvalOptions eo = eval_options_for(config.trainer_options(dev), std::min(config.sh_degree, model.sh_degree()));
  if (a.renders) eo.render_dir = run / "renders";
  const std::vector<int> views = a.train_views ? scene.train_indices() : scene.test_indices();
  const EvalResult r = evaluate(*raster, g.view(), scene, views, eo);
  for (const ViewMetrics& v : r.views) std::printf("%-40s PSNR %7.3f  SSIM %.4f\n", v.name.c_str(), v.psnr, v.ssim);
  std::printf("mean over %zu %s views: PSNR %.3f dB  SSIM %.4f  (%lld Gaussians, %.1f ms/view)\n", r.views.size(),
              a.train_views ? "train" : "test", r.psnr, r.ssim, static_cast<long long>(model.size()), r.ms_per_view);
  if (a.renders) std::printf("renders written to %s\n", eo.render_dir.c_str());
  return 0;
}

}  // namespace

CommandRun add_eval_command(CLI::App& app) {
  auto* sub = app.add_subcommand("eval", "PSNR/SSIM of a trained run on its scene's test views");
  auto a = std::make_shared<EvalArgs>();
  sub->add_option("run", a->run, "Run folder written by `splatlab train`")->required();
  sub->add_option("--ply", a->ply, "Gaussians to evaluate (default: <run>/point_cloud.ply)");
  sub->add_option("--device", a->device, "cpu or cuda (default: cuda when a CUDA device exists, else cpu)")
      ->check(CLI::IsMember({"cpu", "cuda"}));
  sub->add_flag("--renders", a->renders, "Also write each render as <run>/renders/<image>.png");
  sub->add_flag("--train-views", a->train_views, "Evaluate the training views instead of the test views");
  return [a]() { return run_eval(*a); };
}

}  // namespace splat::app
