#pragma once
// The Compare window's state: which scene view is compared with its photo and how, the render of
// that view (renewed when the view, what is shown or the render settings change), and the test
// views' PSNR from the evaluator (core/train/evaluator.h) on what is shown. No ImGui or GL here.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/train/evaluator.h"
#include "ui/compare_image.h"
#include "ui/viewer_state.h"

namespace splat::ui {

class ViewCompare {
 public:
  bool open = false;
  int view = -1;  // into the scene's views: 0-based in image-name order, as everywhere
  CompareParams params;

  // Opens the comparison of view v.
  void show(int v) {
    open = true;
    view = v;
  }

  // Brings the comparison of the current view up to date (renders when the view, the shown model or
  // the render settings changed; recomposes when only the parameters did). Returns false, with the
  // reason in why(), when there is nothing to compare (no scene, no photos, no such view).
  bool update(ViewerState& state);
  const std::string& why() const { return why_; }
  const ImageRGBA8& image() const { return image_; }
  uint64_t image_version() const { return image_version_; }  // bumps whenever image() changes
  // The evaluator's PSNR of the current view (nullopt when its mask leaves no pixel).
  std::optional<double> view_psnr() const { return view_psnr_; }

  // Evaluates every test view of what is shown when it starts (training goes on meanwhile), one
  // view per evaluate_next() call, so that the window stays responsive on the CPU backend; at the
  // end the mean is a notification. Errors become notifications. evaluate_test_views() does it all
  // at once (scripted mode, tests).
  void start_evaluation(ViewerState& state);
  void evaluate_next(ViewerState& state);
  void evaluate_test_views(ViewerState& state);
  bool evaluating() const { return !queue_.empty(); }
  // Progress of the running evaluation: views done, views in all.
  size_t evaluated() const { return partial_.views.size() + size_t(partial_.skipped); }
  size_t to_evaluate() const { return evaluated() + queue_.size(); }
  // Shows a training evaluation (TrainingController::latest_evaluation) once it is new, so that the
  // table fills as the run evaluates, without a click; one the user started runs on and wins.
  // `of_shown_model`: the evaluation measured what the viewer shows now (it then reads as current).
  void follow_training(const ViewerState& state, const std::shared_ptr<const EvalResult>& latest, bool of_shown_model);
  const std::optional<EvalResult>& evaluation() const { return evaluation_; }
  // Whether the evaluation is still of what is shown (training or cropping changed it since).
  bool evaluation_current(const ViewerState& state) const {
    return evaluation_ && evaluated_generation_ == state.content_generation && evaluated_version_ == state.model_version;
  }

 private:
  // What the render depends on; the image depends on it and the parameters.
  std::vector<double> render_key(const ViewerState& state) const;

  std::string why_;
  std::vector<double> rendered_key_;
  std::vector<float> render_;
  std::optional<double> view_psnr_;
  CompareParams composed_params_{};
  ImageRGBA8 image_;
  uint64_t image_version_ = 0;
  std::optional<EvalResult> evaluation_;
  std::vector<int> queue_;  // test views still to evaluate, next last
  std::unique_ptr<ViewRasterizer> pinned_;  // holds the model the running evaluation measures
  EvalResult partial_;      // the running evaluation's views so far
  uint64_t evaluated_generation_ = 0, evaluated_version_ = 0;
  std::shared_ptr<const EvalResult> followed_;  // the training evaluation last seen
  bool showing_followed_ = false;               // evaluation_ is followed_
};

// Evaluation options for what the viewer shows: its render settings (background, SH degree).
EvalOptions viewer_eval_options(const ViewerState& state);

}  // namespace splat::ui
