#include "ui/view_compare.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>


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
    const uint8_t* mask = scene->mask(size_t(view));
    const size_t pixels = render_.size() / 3;
    view_psnr_.reset();
    if (!mask || std::any_of(mask, mask + pixels, [](uint8_t b) { return b != 0; }))
      view_psnr_ = state.raster.evaluate(*scene, {view}, viewer_eval_options(state)).views.front().psnr;
    rendered_key_ = key;
  }
  if (rerender || params != composed_params_) {
    image_ = compare_image(render_, scene->images[view], scene->mask(view), params);
    composed_params_ = params;
    ++image_version_;
  }
  return true;
}

void ViewCompare::follow_training(const ViewerState& state, const std::shared_ptr<const EvalResult>& latest,
                                  bool of_shown_model) {
  if (!latest) return;
  if (latest != followed_) {
    followed_ = latest;
    showing_followed_ = false;
    if (evaluating()) return;  // the user's own evaluation, of what is shown, comes next
    evaluation_ = *latest;
    showing_followed_ = true;
    evaluated_generation_ = state.content_generation;
    evaluated_version_ = of_shown_model ? state.model_version : 0;  // 0: no shown model has it
  }
  // The run's last snapshot may reach the viewer a frame after its evaluation.
  if (showing_followed_ && of_shown_model) evaluated_version_ = state.model_version;
}

void ViewCompare::start_evaluation(ViewerState& state) {
  const Scene* scene = state.content.scene.get();
  if (!scene || scene->test_indices().empty()) {
    state.notes.error("evaluating the test views: the open scene has no test views");
    return;
  }
  const std::vector<int> tests = scene->test_indices();
  queue_.assign(tests.rbegin(), tests.rend());
  partial_ = {};
  if (!pinned_ || pinned_->device() != state.raster.device()) pinned_ = std::make_unique<ViewRasterizer>(state.raster.device());
  state.show_in(*pinned_);
  evaluated_generation_ = state.content_generation;
  evaluated_version_ = state.model_version;
}

void ViewCompare::evaluate_next(ViewerState& state) {
  if (queue_.empty()) return;
  try {
    // Other content was opened meanwhile: its views are not the ones queued.
    if (state.content_generation != evaluated_generation_) throw std::runtime_error("other content was opened");
    const int v = queue_.back();
    const Scene& scene = *state.content.scene;
    const uint8_t* mask = scene.mask(size_t(v));
    const size_t pixels = size_t(scene.images[size_t(v)].width) * scene.images[size_t(v)].height;
    if (mask && std::none_of(mask, mask + pixels, [](uint8_t b) { return b != 0; })) {
      ++partial_.skipped;  // nothing to measure, as the evaluator skips it
    } else {
      const EvalResult one = pinned_->evaluate(scene, {v}, viewer_eval_options(state));
      partial_.views.push_back(one.views.front());
      partial_.psnr += one.psnr;
      partial_.ssim += one.ssim;
    }
    queue_.pop_back();
    if (!queue_.empty()) return;
    pinned_->set_gaussians(nullptr, 0);  // the model measured is not held any longer
    if (partial_.views.empty()) throw std::invalid_argument("every test view is fully masked");
    partial_.psnr /= double(partial_.views.size());
    partial_.ssim /= double(partial_.views.size());
    evaluation_ = std::move(partial_);
    showing_followed_ = false;
    partial_ = {};
    char line[160];
    std::snprintf(line, sizeof line, "test views: mean PSNR %.2f dB, SSIM %.3f over %zu views", evaluation_->psnr,
                  evaluation_->ssim, evaluation_->views.size());
    state.notes.info(line);
  } catch (const std::exception& e) {
    queue_.clear();
    partial_ = {};
    pinned_->set_gaussians(nullptr, 0);
    state.notes.error(std::string("evaluating the test views: ") + e.what());
  }
}

void ViewCompare::evaluate_test_views(ViewerState& state) {
  start_evaluation(state);
  while (evaluating()) evaluate_next(state);
}

}  // namespace splat::ui
