#pragma once
// The panels of the left column and the main menu. Each draws into the current ImGui window (the
// column) or the main menu bar and acts only through ViewerState.
#include "ui/folder_browser.h"
#include "ui/path_export_job.h"
#include "ui/training_controller.h"
#include "ui/view_compare.h"
#include "ui/viewer_state.h"
#include "ui/viewport_texture.h"

namespace splat::ui {

// Actions that wait for the user's yes in a modal dialog (viewer_app draws them).
struct Confirmations {
  bool reset_training = false;  // Reset would discard the training session
  bool quit = false;            // closing the window while training: save and quit, quit, cancel
  bool quit_after_saves = false;  // "Save and quit" chosen: close once the run's files are written
};

// What the menus open besides files: the render-versus-photo comparison and the camera path export.
struct ViewerTools {
  ViewCompare compare;
  PathExportJob path_export;
  bool reset_layout = false;  // View > Reset layout: the Plots window back to its default place
};

// File and View menus; returns false when the user asked to quit.
bool draw_main_menu(ViewerState& state, FolderBrowser& browser, ViewerTools& tools);
// Scene summary, render mode, resolution, field of view, overlays, the viewer's fps cap and pause
// while training, camera navigation.
void draw_view_panel(ViewerState& state);
// PNG (at a chosen resolution) and PLY snapshots, and a checkpoint of the training session.
void draw_snapshot_panel(ViewerState& state, TrainingController& training);
// Start / pause / resume / stop / reset and the training settings (live ones apply at the next
// step); Reset asks through `confirm`.
void draw_training_panel(ViewerState& state, TrainingController& training, Confirmations& confirm);
// #Gaussians, images/s, memory of each GPU, and the step-time share (profiled only while its section
// is open).
void draw_metrics_panel(TrainingController& training);
// Loss (smoothed, raw faint) and test PSNR side by side against training images or wall time, with
// axes (values on hover): the content of the Plots window (ui/window_layout.h places it).
void draw_plots(TrainingController& training);
// The price of watching: training images/s beside the viewport's render time per second; then one
// block per rank of the training session: device, Gaussians, memory, step time, exchange wait and
// bytes, and the imbalance over the ranks (ui/panel_gpus.cpp).
void draw_gpus_panel(const ViewerState& state, const TrainingController& training);
// The test views' PSNR (the evaluator on what is shown; one view a frame while it runs), and which
// view to compare with its photo.
void draw_compare_panel(ViewerState& state, ViewCompare& compare);
// The render-versus-photo window of the chosen view: split slider or error heat map.
void draw_compare_window(ViewerState& state, ViewCompare& compare, ViewportTexture& texture);
// The camera path dialog (kind, frames, size, folder) and, while frames are written, its progress.
void draw_path_export(ViewerState& state, PathExportJob& job);

}  // namespace splat::ui
