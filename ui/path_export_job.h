#pragma once
// File > Export camera path: the frames `splatlab render --path` writes (core/render/path_export.h),
// of what the viewer shows when it starts (cropped when the crop box is on; training goes on
// meanwhile), rendered one frame per GUI frame so that the window stays responsive and shows the
// progress. No ImGui or GL here.
#include <memory>
#include <optional>
#include <string>

#include "core/render/path_export.h"
#include "ui/viewer_state.h"

namespace splat::ui {

struct PathExportSettings {
  PathRequest request;                 // kind, frames (-1: the kind's default), size (0: the first view's)
  std::string out_dir = "camera_path";  // relative paths are taken from the working directory
};

class PathExportJob {
 public:
  PathExportSettings settings;
  bool dialog_open = false;

  // Starts writing the frames of the open scene's path; errors become notifications.
  void start(ViewerState& state);
  // Renders the next frame; after the last one encodes the video (when ffmpeg is there) and says
  // where everything went. Errors end the export with a notification.
  void step(ViewerState& state);
  void cancel(ViewerState& state);
  bool running() const { return export_.has_value(); }
  size_t done() const { return export_ ? export_->done() : 0; }
  size_t frames() const { return export_ ? export_->frames() : 0; }

 private:
  void finish();
  std::optional<PathExport> export_;
  std::unique_ptr<ViewRasterizer> pinned_;  // holds the model the frames show
  uint64_t generation_ = 0;  // the content the path belongs to
};

}  // namespace splat::ui
