#include "ui/path_export_job.h"

#include <filesystem>

namespace splat::ui {
namespace fs = std::filesystem;

void PathExportJob::start(ViewerState& state) {
  try {
    if (!state.content.scene || state.content.scene->views.empty())
      throw std::invalid_argument("camera paths follow a scene's cameras; open a COLMAP scene or the demo");
    if (settings.out_dir.empty()) throw std::invalid_argument("name a folder for the frames");
    const fs::path dir = fs::absolute(settings.out_dir).lexically_normal();
    PathRequest request = settings.request;
    request.up = state.up_axis();  // the orbit turns about the up axis the viewer shows
    export_.emplace(path_cameras(state.content.scene->views, request), dir, request.kind);
    generation_ = state.content_generation;
    if (!pinned_ || pinned_->device() != state.raster.device()) pinned_ = std::make_unique<ViewRasterizer>(state.raster.device());
    state.show_in(*pinned_);
  } catch (const std::exception& e) {
    export_.reset();
    state.notes.error(std::string("camera path: ") + e.what());
  }
}

void PathExportJob::step(ViewerState& state) {
  if (!export_) return;
  try {
    if (state.content_generation != generation_) throw std::runtime_error("other content was opened");
    export_->render_next([&](const kernels::Camera& camera) {
      pinned_->render(camera, state.raster_settings());
      return pinned_->rgb_host();
    });
    if (!export_->finished()) return;  // more frames at the next GUI frame
    const kernels::Camera& c = export_->camera(0);
    std::string msg = "wrote " + std::to_string(export_->frames()) + " frames (" + std::to_string(c.width) + "x" +
                      std::to_string(c.height) + ") into " + export_->dir().string();
    const auto video = export_->encode_video();
    msg += video ? " and " + video->string() : " (ffmpeg is not on PATH: no video)";
    state.notes.info(msg);
  } catch (const std::exception& e) {
    state.notes.error(std::string("camera path: ") + e.what() + " (stopped after " + std::to_string(export_->done()) +
                      " frames)");
  }
  finish();  // finished, or failed
}

void PathExportJob::cancel(ViewerState& state) {
  if (!export_) return;
  state.notes.info("camera path stopped after " + std::to_string(export_->done()) + " of " +
                   std::to_string(export_->frames()) + " frames (in " + export_->dir().string() + ")");
  finish();
}

void PathExportJob::finish() {
  export_.reset();
  if (pinned_) pinned_->set_gaussians(nullptr, 0);  // the model shown is not held any longer
}

}  // namespace splat::ui
