#include "ui/viewer_state.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <span>
#include <vector>

#include "core/model/ply_io.h"
#include "core/model/splat_files.h"
#include "core/scene/camera_path.h"
#include "ui/image_files.h"

namespace splat::ui {
namespace fs = std::filesystem;
namespace {
// Centre and radius of the bulk of the Gaussians: the per-axis 5..95 % range, so that a few
// far-away floaters do not shrink the view of the object.
void robust_bounds(std::span<const float> means, Vec3d& center, double& radius) {
  const int64_t n = static_cast<int64_t>(means.size() / 3);
  if (n == 0) {
    center = {};
    radius = 1.0;
    return;
  }
  Vec3d lo{}, hi{};
  std::vector<float> axis(static_cast<size_t>(n));
  for (int a = 0; a < 3; ++a) {
    for (int64_t i = 0; i < n; ++i) axis[i] = means[3 * i + a];
    // Two selections, not a sort: opening content (and fitting the crop box) stays linear in n.
    const auto lo_it = axis.begin() + static_cast<long>(0.05 * (n - 1));
    const auto hi_it = axis.begin() + static_cast<long>(0.95 * (n - 1));
    std::nth_element(axis.begin(), lo_it, axis.end());
    lo[a] = *lo_it;
    std::nth_element(lo_it, hi_it, axis.end());
    hi[a] = *hi_it;
  }
  center = 0.5 * (lo + hi);
  radius = std::max(1e-3, 0.5 * norm(hi - lo));
}

// The height along `up` below which a fraction q of the Gaussians lie.
double height_quantile(const GaussianModel& m, const Vec3d& up, double q) {
  const int64_t n = m.size();
  if (n == 0) return 0.0;
  std::vector<double> h(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) h[i] = up.x * m.means[3 * i] + up.y * m.means[3 * i + 1] + up.z * m.means[3 * i + 2];
  const auto k = h.begin() + static_cast<long>(q * (n - 1));
  std::nth_element(h.begin(), k, h.end());
  return *k;
}
}  // namespace

ViewerState::ViewerState(kernels::Device device, const fs::path& recent_file)
    : recent(recent_file), raster(device) {
  if (!recent.load_error().empty()) notes.error(recent.load_error());
}

void ViewerState::open(const fs::path& path, UpAxis up) {
  if (confirm_discard) {
    pending_open_ = OpenRequest{false, path, up};
    return;
  }
  start_open({false, path, up});
}

void ViewerState::open_demo() {
  if (confirm_discard) {
    pending_open_ = OpenRequest{true, {}};
    return;
  }
  start_open({true, {}});
}

void ViewerState::reopen() {
  if (content.scene && !content.demo) start_open({false, content.source, up_axis_});
}

void ViewerState::confirm_open() {
  if (!pending_open_) return;
  const OpenRequest request = *pending_open_;
  pending_open_.reset();
  start_open(request);
}

void ViewerState::start_open(const OpenRequest& request) {
  if (loader.busy()) {
    notes.error("still loading " + loader.label() + (request.demo ? "" : "; open " + request.path.string() + " when it is done"));
    return;
  }
  opening_up_ = request.up;
  if (request.demo) {
    loader.start("demo scene", [](const LoadProgressFn& report) { return load_demo_content(report); });
    return;
  }
  const fs::path path = fs::absolute(request.path).lexically_normal();
  const std::array<float, 3> fill{view.background[0], view.background[1], view.background[2]};
  loader.start(path.string(), [path, factor = data_factor, undistort = undistort, masks = mask_mode,
                               fill](const LoadProgressFn& report) {
    return load_content(path, factor, undistort, masks, fill, report);
  });
}

void ViewerState::poll_loader() {
  const std::string label = loader.label();
  try {
    if (auto loaded = loader.take_if_ready()) apply(std::move(*loaded));
  } catch (const std::exception& e) {
    // Scene and PLY errors already start with the file at fault; name the opened path otherwise.
    const std::string what = e.what();
    notes.error(what.rfind(label, 0) == 0 ? "cannot open " + what : "cannot open " + label + ": " + what);
  }
}

void ViewerState::apply(ViewerContent loaded) {
  content = std::move(loaded);
  if (content.antialiased) view.antialiased = *content.antialiased;
  shown_snapshot_.reset();
  ++content_generation;
  ++model_version;
  current_view = -1;
  const Scene* scene = content.scene.get();
  if (scene && !scene->views.empty()) {
    frame_center_ = scene->center;
    frame_radius_ = scene->extent;
  } else {
    robust_bounds(content.model->means, frame_center_, frame_radius_);
  }
  set_up_axis(opening_up_);
  crop_enabled_ = false;
  reset_crop();
  // Start upright, at home: a capture's first photo may be sideways (a phone held turned).
  reset_view();
  try {
    if (!content.demo) recent.add(content.source);
  } catch (const std::exception& e) {
    notes.error(e.what());
  }
  const std::string factor = content.data_factor > 1 ? ", photos at 1/" + std::to_string(content.data_factor) : "";
  notes.info("opened " + content.source + " (" + std::to_string(content.model->size()) + " Gaussians" +
             (scene ? ", " + std::to_string(scene->views.size()) + " cameras" + factor + ")" : ")"));
}

Vec3d ViewerState::up_direction(UpAxis axis) const {
  if (content.scene && !content.scene->views.empty()) {
    try {
      return splat::up_direction(axis, content.scene->views);
    } catch (const std::invalid_argument&) {
      // Cameras whose ups cancel out (a capture turned every way): fall back like a bare PLY.
    }
  }
  const Vec3d colmap_up{0, -1, 0};
  if (axis == UpAxis::Auto) return colmap_up;
  if (axis == UpAxis::Flipped) return -colmap_up;
  return splat::up_direction(axis, {});  // a world axis needs no views
}

void ViewerState::set_up_axis(UpAxis axis) {
  up_axis_ = axis;
  set_world_up(up_direction(axis));
  place_home();
  camera.level();
}

void ViewerState::place_home() {
  OrbitCamera home = camera;  // its up and field of view
  const Scene* scene = content.scene.get();
  if (scene && !scene->views.empty()) {
    const SceneView& first = scene->views.front();
    const CameraPose pose = orbit_poses(scene->views, 1, camera.world_up()).front();
    if (first.intrinsics.fy > 0 && first.intrinsics.height > 0)
      home.set_fov_y(2 * std::atan(0.5 * first.intrinsics.height / first.intrinsics.fy));
    home.look_at(pose.centre, focus_point(scene->views));
  } else {
    home.frame(frame_center_, frame_radius_);
    home.level();
  }
  camera.set_home(home);
}

void ViewerState::set_world_up(const Vec3d& up) {
  camera.set_world_up(up);
  const Vec3d u = camera.world_up();
  const double floor = content.model ? height_quantile(*content.model, u, 0.02) : dot(frame_center_, u);
  grid_center_ = frame_center_ + (floor - dot(frame_center_, u)) * u;
  if (crop_.up.x != u.x || crop_.up.y != u.y || crop_.up.z != u.z) {
    crop_.up = u;
    if (crop_enabled_) ++model_version;
  }
}

void ViewerState::set_crop(bool enabled, const CropBox& box) {
  crop_enabled_ = enabled;
  crop_ = box;
  ++model_version;
}

void ViewerState::reset_crop() {
  CropBox box;
  box.up = camera.world_up();
  double radius = 1.0;
  // Around what is shown: a training snapshot's means (only they come to the host), or the model's.
  if (shown_snapshot_) robust_bounds(shown_snapshot_->column_host(Group::Means), box.center, radius);
  else if (content.model) robust_bounds(content.model->means, box.center, radius);
  box.half_size = {radius, radius, radius};
  set_crop(crop_enabled_, box);
}

void ViewerState::show_model(std::shared_ptr<const GaussianModel> model) {
  content.model = std::move(model);
  shown_snapshot_.reset();
  ++model_version;
}

void ViewerState::show_snapshot(std::shared_ptr<const ModelSnapshot> snapshot) {
  shown_snapshot_ = std::move(snapshot);
  ++model_version;
}

int64_t ViewerState::gaussian_count() const {
  return shown_snapshot_ ? shown_snapshot_->size() : content.model ? content.model->size() : 0;
}

void ViewerState::show_in(ViewRasterizer& target) {
  if (crop_enabled_ && cropped_version_ != model_version) {
    // Cropped once per change of the model or the box: a training snapshot on its own device (only
    // its means come to the host, to choose the rows), a host model on the host.
    cropped_.reset();
    cropped_snapshot_.reset();
    if (shown_snapshot_)
      cropped_snapshot_ =
          shown_snapshot_->rows(rows_inside(shown_snapshot_->column_host(Group::Means), crop_), target.context());
    else
      cropped_ = std::make_shared<const GaussianModel>(cropped(*content.model, crop_));
    cropped_version_ = model_version;
  }
  if (crop_enabled_ && cropped_snapshot_) target.set_snapshot(cropped_snapshot_);
  else if (crop_enabled_) target.set_gaussians(cropped_, model_version);
  else if (shown_snapshot_) target.set_snapshot(shown_snapshot_);
  else target.set_gaussians(content.model, model_version);
}

void ViewerState::frame_scene() { camera.frame(frame_center_, frame_radius_); }

void ViewerState::snap_to_view(int view_index) {
  if (!content.scene || view_index < 0 || view_index >= static_cast<int>(content.scene->views.size())) return;
  const SceneView& v = content.scene->views[view_index];
  // Pivot at the depth of the framing centre along the camera's axis (never behind it).
  const Vec3d fwd{v.R.m[2][0], v.R.m[2][1], v.R.m[2][2]};
  const double depth = std::max(0.1 * frame_radius_, dot(frame_center_ - v.camera_center(), fwd));
  camera.snap_to(v, depth);
  current_view = view_index;
}

void ViewerState::step_view(int delta) {
  if (!content.scene) return;
  const std::vector<int> train = content.scene->train_indices();
  snap_to_view(ui::step_view(train, current_view, delta));
}

void ViewerState::snap_nearest() {
  if (!content.scene) return;
  const std::vector<int> train = content.scene->train_indices();
  snap_to_view(nearest_view(content.scene->views, train, camera.eye()));
}

kernels::RasterSettings ViewerState::raster_settings() const {
  kernels::RasterSettings s;
  s.sh_degree = view.sh_degree;
  s.antialiased = view.antialiased;
  std::copy(view.background, view.background + 3, s.background);
  return s;
}

ColorizeParams ViewerState::colorize_params() const {
  // Depth shading spans the pivot's depth twice over: the object around the pivot sits mid-grey.
  return {view.mode, 0.f, static_cast<float>(2.0 * camera.distance())};
}

void ViewerState::save_png() {
  try {
    if (!has_content()) throw std::runtime_error("nothing is open");
    if (snapshot.width < 1 || snapshot.height < 1 || snapshot.width > 16384 || snapshot.height > 16384)
      throw std::runtime_error("snapshot size must be 1..16384 pixels per side");
    update_raster();
    raster.render(camera.camera(snapshot.width, snapshot.height), raster_settings());
    write_png(snapshot.png_path, raster.colorize(colorize_params()));
    notes.info("saved " + fs::absolute(snapshot.png_path).lexically_normal().string() + " (" + std::to_string(snapshot.width) + "x" +
               std::to_string(snapshot.height) + ")");
  } catch (const std::exception& e) {
    notes.error(std::string("PNG snapshot: ") + e.what());
  }
}

void ViewerState::save_ply(std::optional<SplatFormat> as) {
  try {
    if (!has_content()) throw std::runtime_error("nothing is open");
    if (as) snapshot.ply_path = with_splat_format(snapshot.ply_path, *as).string();
    // A training snapshot is downloaded from its device here, once per save.
    const std::shared_ptr<const GaussianModel> model =
        shown_snapshot_ ? std::make_shared<const GaussianModel>(shown_snapshot_->download()) : content.model;
    std::optional<GaussianModel> inside;
    if (crop_enabled_) inside = cropped(*model, crop_);
    const GaussianModel& saved = inside ? *inside : *model;
    write_splats(snapshot.ply_path, saved);
    notes.info("saved " + fs::absolute(snapshot.ply_path).lexically_normal().string() + " (" + std::to_string(saved.size()) +
               " Gaussians" + (crop_enabled_ ? " inside the crop box)" : ")"));
  } catch (const std::exception& e) {
    notes.error(std::string("splat snapshot: ") + e.what());
  }
}

}  // namespace splat::ui
