#include "ui/view_compare.h"

#include <cstdio>


namespace splat::ui {

EvalOptions viewer_eval_options(const ViewerState& state) {
  EvalOptions o;
  o.settings = state.raster_settings();
  return o;
}

std::vector<double> ViewCompare::render_key(const ViewerState& s) const {
  const kernels::RasterSettings rs = s.raster_settings();
  return {double(view), double(s.content_generation), double(s.model_version), double(rs.sh_degree),
          rs.background[0], rs.background[1], rs.background[2]};
}

bool ViewCompare::update(ViewerState& state) {
  const Scene* scene = state.content.scene.get();
  why_.clear();
  if (!scene || scene->views.empty()) why_ = "no posed scene is open (a PLY file has no photos)";
  else if (scene->images.size() != scene->views.size()) why_ = "the scene's photos are not loaded";
  else if (view < 0 || view >= int(scene->views.size())) why_ = "no view chosen";
  if (!why_.empty()) {
    rendered_key_.clear();
    return false;
  }
  const std::vector<double> key = render_key(state);
  const bool rerender = key != rendered_key_;
  if (rerender) {
    rendered_key_.clear();  // a render that throws leaves no stale key behind
    state.update_raster();
    state.raster.render(scene->views[view].to_kernel_camera(), state.raster_settings());
    render_ = state.raster.rgb_host();
    const EvalResult e = state.raster.evaluate(*scene, {view}, viewer_eval_options(state));
    view_psnr_ = e.views.empty() ? std::nullopt : std::optional<double>(e.views.front().psnr);
    rendered_key_ = key;
  }
  if (rerender || params != composed_params_) {
    image_ = compare_image(render_, scene->images[view], scene->mask(view), params);
    composed_params_ = params;
    ++image_version_;
  }
  return true;
}

void ViewCompare::evaluate_test_views(ViewerState& state) {
  try {
    const Scene* scene = state.content.scene.get();
    if (!scene || scene->test_indices().empty()) throw std::invalid_argument("the open scene has no test views");
    state.update_raster();
    evaluation_ = state.raster.evaluate(*scene, scene->test_indices(), viewer_eval_options(state));
    evaluated_generation_ = state.content_generation;
    evaluated_version_ = state.model_version;
    char line[160];
    std::snprintf(line, sizeof line, "test views: mean PSNR %.2f dB, SSIM %.3f over %zu views", evaluation_->psnr,
                  evaluation_->ssim, evaluation_->views.size());
    state.notes.info(line);
  } catch (const std::exception& e) {
    state.notes.error(std::string("evaluating the test views: ") + e.what());
  }
}

}  // namespace splat::ui
