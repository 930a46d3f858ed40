#pragma once
// The viewer-trainer window: GLFW window and GL context, ImGui, the frame loop.
#include <optional>
#include <string>

#include "core/scene/up_axis.h"

namespace splat::ui {

struct GuiOptions {
  std::string open;         // COLMAP folder or .ply file to open at start; empty: none
  bool demo = false;        // open the demo scene at start
  // Training once loaded (scripted: before the screenshot): a budget of `images`, or of `steps` at the
  // batch size (0: no training); in run_dir, or the default folder (ui/gui_run.h) when empty.
  int images = 0;
  int steps = 0;
  std::string run_dir;
  int data_factor = 0;      // scene folders' photos load at 1/data_factor (0: the backend's default)
  std::string screenshot;   // scripted: PNG of the whole window, read from the back buffer
  bool exit = false;        // scripted: quit after the screenshot (or once loaded)
  int ranks = 0;            // the Training panel's rank count at start (TrainingSettings::ranks)
  int compare_view = -1;    // scripted: open the comparison of this view (0-based) with its photo
  bool error_map = false;   // scripted: the comparison as an error heat map instead of the split
  float crop = 0;           // scripted: crop to this share (0..1] of the fitted crop box; 0: no crop
  std::optional<UpAxis> up;  // the View panel's Up axis once the scene is loaded; none: the scene's or run's own
  bool reset_layout = false;  // start with the default layout (as View > Reset layout), not imgui.ini's
  int width = 1280, height = 800;
};

// Runs until the window closes (or the script ends). Returns the process exit code: nonzero when
// the window cannot be created or a scripted run met an error.
int run_viewer(const GuiOptions& options);

}  // namespace splat::ui
