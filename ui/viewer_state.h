#pragma once
// Everything the viewer's panels read and change: the open content, the camera, view settings,
// snapshots, loading and messages. Panels call the methods here, so each action has one
// implementation whether it comes from a menu, a button, a key or the command line.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "core/model/crop_box.h"
#include "core/model/model_snapshot.h"
#include "core/model/splat_files.h"
#include "core/scene/up_axis.h"
#include "core/train/trainer.h"
#include "kernels/rasterizer.h"
#include "ui/cpu_budget_probe.h"
#include "ui/motion_resolution.h"
#include "ui/notifications.h"
#include "ui/orbit_camera.h"
#include "ui/recent_scenes.h"
#include "ui/render_cost.h"
#include "ui/view_colorize.h"
#include "ui/view_rasterizer.h"
#include "ui/viewer_content.h"

namespace splat::ui {

struct ViewSettings {
  RenderMode mode = RenderMode::RGB;
  float resolution_scale = 1.f;  // rendered pixels per viewport pixel
  // ... while the camera moves and training shares the viewer's device (ui/motion_resolution.h); at
  // most resolution_scale. A full-scale frame follows once the camera rests.
  float moving_resolution_scale = MotionPolicy{}.moving_scale;
  int sh_degree = 3;
  // Drawn with the anti-aliased projection, as training draws by default; a run's own setting replaces
  // it when the run is opened, so the view shows what the run was trained to show.
  bool antialiased = TrainerOptions{}.antialiased;
  float background[3] = {0.f, 0.f, 0.f};
  bool show_grid = true, show_axes = true, show_frustums = true;
  // While training (ui/frame_gate.h): new snapshots render at most fps_cap times a second (the app
  // starts it at the display's refresh rate), and a paused view renders nothing new.
  int fps_cap = 60;
  bool pause_while_training = false;
  bool operator==(const ViewSettings&) const = default;
};

struct SnapshotSettings {
  int width = 1920, height = 1080;
  std::string png_path = "snapshot.png";
  std::string ply_path = "snapshot.ply";  // its ending chooses the format (core/model/splat_files.h)
  std::string checkpoint_path = "snapshot.ckpt";  // written by the training session, not the viewer
};

class ViewerState {
 public:
  ViewerState(kernels::Device device, const std::filesystem::path& recent_file);

  // Opening content (asynchronous; poll_loader() applies the result). A COLMAP folder loads at
  // data_factor, undistorted as `undistort` says, shown with `up` up (a run's recorded choice); paths
  // are made absolute (the recent list holds them so). While confirm_discard is set, the request
  // waits in pending_open() for confirm_open() or cancel_open() instead.
  void open(const std::filesystem::path& path, UpAxis up = UpAxis::Auto);
  void open_demo();
  // Opens the shown COLMAP scene again (at the current data_factor); PLY files and the demo are kept.
  void reopen();
  struct OpenRequest {
    bool demo = false;
    std::filesystem::path path;
    UpAxis up = UpAxis::Auto;
  };
  const std::optional<OpenRequest>& pending_open() const { return pending_open_; }
  void confirm_open();
  void cancel_open() { pending_open_.reset(); }
  // Applies a finished load: content, initial view, recent list; load errors become notifications.
  void poll_loader();
  bool has_content() const { return content.model != nullptr; }

  // What is shown: the content's model, or, while training, the session's latest snapshot (which
  // stays on the training device and is held here for as long as it is shown). Both bump
  // model_version; opening new content shows its model.
  void show_model(std::shared_ptr<const GaussianModel> model);
  void show_snapshot(std::shared_ptr<const ModelSnapshot> snapshot);
  const std::shared_ptr<const ModelSnapshot>& shown_snapshot() const { return shown_snapshot_; }
  int64_t gaussian_count() const;
  // Hands what is shown to the rasterizer (it uploads or copies only what changed): inside the crop
  // box alone while cropping. show_in hands it to another one (which keeps it while later training
  // steps change what is shown here).
  void update_raster() { show_in(raster); }
  void show_in(ViewRasterizer& target);

  // The crop box: while enabled, only the Gaussians inside it are shown, and saved (PLY), rendered
  // (PNG, camera paths) and compared. set_crop bumps model_version; reset_crop puts the box around
  // the bulk of the Gaussians, standing on the up axis.
  bool crop_enabled() const { return crop_enabled_; }
  const CropBox& crop() const { return crop_; }
  void set_crop(bool enabled, const CropBox& box);
  void reset_crop();

  // Which way is up: the grid lies across it under the scene, orbiting turns about it, the crop box
  // stands on it, and the home view (reset_view) is upright about it. Opening content sets the
  // choice it was opened with (Auto: the estimate from the cameras, core/scene/up_axis.h). Setting
  // one re-levels all of them at once and the current view too (it keeps its place, its horizon
  // levelled).
  UpAxis up_axis() const { return up_axis_; }
  void set_up_axis(UpAxis axis);
  // The direction a choice stands for here: among the scene's views; without views, or where their
  // ups cancel out, the estimate is -y (COLMAP's usual).
  Vec3d up_direction(UpAxis axis) const;

  // Camera actions. Home is the upright overview: the first pose of the orbit `render --path orbit`
  // takes (core/scene/camera_path.h), or the Gaussians framed level without cameras.
  void reset_view() { camera.reset(); }
  void frame_scene();
  void snap_to_view(int view_index);
  void step_view(int delta);  // through the training cameras
  void snap_nearest();

  // Snapshots of what is shown; the outcome is a notification either way.
  void save_png();
  // The Gaussians shown, to snapshot.ply_path in the format its ending names; with `as`, the path's
  // ending is first set to that format's (the menu's "Save ... snapshot" items).
  void save_ply(std::optional<SplatFormat> as = std::nullopt);

  // Settings for the rasterizer and the colouring, from the view settings and the camera.
  kernels::RasterSettings raster_settings() const;
  ColorizeParams colorize_params() const;
  // Centre and radius that framing uses: the scene's cameras when posed, else the Gaussians.
  Vec3d frame_center() const { return frame_center_; }
  double frame_radius() const { return frame_radius_; }
  // Where the ground grid goes: below the framing centre, at the low end of the Gaussians along up.
  Vec3d grid_center() const { return grid_center_; }

  ViewerContent content;
  int data_factor = 1;           // for COLMAP folders opened next (the Training panel sets it)
  UndistortOptions undistort;    // for COLMAP folders opened next (an opened run's, as it trained)
  MaskMode mask_mode = MaskMode::Ignore;  // likewise (the Training panel sets it; alpha fills with the background)
  bool confirm_discard = false;  // opening now would discard something: ask first (set by the app)
  uint64_t content_generation = 0;  // bumps whenever new content is opened
  uint64_t model_version = 0;       // bumps whenever what is shown changes (opening, training)
  OrbitCamera camera;
  int current_view = -1;  // training camera last snapped to, -1 when none
  ViewSettings view;
  SnapshotSettings snapshot;
  Notifications notes;
  ContentLoader loader;
  RecentScenes recent;
  ViewRasterizer raster;
  RenderCost render_cost;  // of the viewport's renders (the GPUs panel shows it)
  // The Training panel's proposal for CPU training (ui/cpu_budget_probe.h); the app turns it off where
  // the command line sets the budget or a script drives the window.
  CpuBudgetProbe budget_probe;
  bool propose_cpu_budget = true;

 private:
  void apply(ViewerContent loaded);
  void start_open(const OpenRequest& request);
  // The world up for the grid, the orbit and the crop box.
  void set_world_up(const Vec3d& up);
  void place_home();
  UpAxis up_axis_ = UpAxis::Auto;
  UpAxis opening_up_ = UpAxis::Auto;  // the up of the content being loaded
  std::optional<OpenRequest> pending_open_;
  std::shared_ptr<const ModelSnapshot> shown_snapshot_;  // null: content.model is shown
  bool crop_enabled_ = false;
  CropBox crop_;
  // Inside the crop box, of model_version cropped_version_: the shown snapshot's rows, or the host model's.
  std::shared_ptr<const ModelSnapshot> cropped_snapshot_;
  std::shared_ptr<const GaussianModel> cropped_;
  uint64_t cropped_version_ = 0;
  Vec3d frame_center_{};
  double frame_radius_ = 1.0;
  Vec3d grid_center_{};
};

}  // namespace splat::ui
