#include "core/scene/scene_loader.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <tuple>

#include "core/scene/image_loader.h"
#include "core/util/parallel_for.h"
#include "core/util/progress.h"
#include "core/scene/scene_errors.h"
#include "core/scene/undistort.h"
#include "core/scene/user_masks.h"
#include "core/util/user_text.h"

namespace splat {
namespace fs = std::filesystem;

namespace {

Mat3d rotation_of(const fs::path& file, const colmap::Image& im) {
  const auto& q = im.qvec;
  const double n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (!std::isfinite(n) || n < 1e-12)
    throw SceneError(file, "image " + quote_user_text(im.name) + " has a zero or invalid rotation quaternion");
  return quat_to_rotmat(q[0] / n, q[1] / n, q[2] / n, q[3] / n);
}

// A photo must have its camera's size or an integer fraction of it (photos stored downscaled, as
// images_N/ folders hold them; rounding either way); returns that fraction. Anything else is a photo
// that does not belong to the camera, and training it at its own size could cost gigabytes.
int photo_downscale(const fs::path& image, ImageSize stored, const colmap::Camera& cam) {
  for (int k = 1; k <= 64; ++k) {
    const double w = static_cast<double>(cam.width) / k, h = static_cast<double>(cam.height) / k;
    if (std::abs(stored.width - w) < 1.0 && std::abs(stored.height - h) < 1.0) return k;
    if (w < stored.width - 1) break;
  }
  throw SceneError(image, "is " + std::to_string(stored.width) + "x" + std::to_string(stored.height) + " but camera " +
                              std::to_string(cam.id) + " is " + std::to_string(cam.width) + "x" +
                              std::to_string(cam.height) + " (neither that size nor an integer fraction of it)");
}

// One undistortion plan per camera and load size: views of a camera share it.
using PlanKey = std::tuple<int, int, int>;

std::string percent(double f) { return std::to_string(static_cast<int>(std::lround(100 * f))) + "%"; }

void set_center_and_extent(Scene& s) {
  Vec3d sum{};
  for (const SceneView& v : s.views) sum += v.camera_center();
  s.center = sum / static_cast<double>(s.views.size());
  double max_dist = 0;
  for (const SceneView& v : s.views) max_dist = std::max(max_dist, norm(v.camera_center() - s.center));
  // With every camera at one spot the 3DGS rule gives 0, which would zero the position learning
  // rate; the default extent of 1 stays in that case.
  if (max_dist > 0) s.extent = 1.1 * max_dist;
}

}  // namespace

Scene load_scene(const fs::path& folder, const SceneLoadOptions& options) {
  return build_scene(folder, colmap::read_reconstruction(colmap::find_sparse_dir(folder)), options);
}

// A std::filesystem error below (a symlink loop under images/, a folder without permission) names
// its path; it leaves as a SceneError on that path like every other bad input.
Scene build_scene(const fs::path& folder, const colmap::Reconstruction& rec,
                  const SceneLoadOptions& options) try {
  if (options.data_factor < 1) throw SceneError(folder, "data factor must be at least 1, got " + std::to_string(options.data_factor));
  if (rec.images.empty()) throw SceneError(rec.images_file, "the reconstruction has no registered images");
  if (rec.points.empty()) throw SceneError(rec.points_file, "the reconstruction has no 3D points (splatlab starts from them)");

  std::map<int, const colmap::Camera*> cameras;
  for (const colmap::Camera& c : rec.cameras) cameras[c.id] = &c;

  std::vector<const colmap::Image*> sorted;
  for (const colmap::Image& im : rec.images) sorted.push_back(&im);
  std::sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->name < b->name; });
  for (size_t i = 1; i < sorted.size(); ++i)
    if (sorted[i]->name == sorted[i - 1]->name)
      throw SceneError(rec.images_file, "image name " + quote_user_text(sorted[i]->name) + " is listed twice");

  const fs::path images_dir = images_dir_for(folder, options.data_factor);
  if (!fs::is_directory(images_dir)) throw SceneError(images_dir, "images folder does not exist");
  // images_N/ already holds downsampled files; images/ is downsampled here.
  const int load_factor = images_dir.filename() == "images" ? options.data_factor : 1;

  Scene scene;
  scene.root = folder.string();
  std::vector<fs::path> paths;
  for (const colmap::Image* im : sorted) paths.push_back(images_dir / im->name);
  const std::vector<ImageSize> stored = probe_images(paths, options.threads);

  // Pass 1: each view's camera and load size. Pass 2: one undistortion plan per (camera, size), in
  // parallel (a plan walks every pixel of its pinhole). Pass 3: the views.
  std::vector<const colmap::Camera*> view_cams;
  std::vector<PlanKey> view_keys;
  std::map<PlanKey, CameraUndistortion> plans;
  std::set<int> downscaled_cameras;
  for (size_t i = 0; i < sorted.size(); ++i) {
    const colmap::Image& im = *sorted[i];
    const auto cam_it = cameras.find(im.camera_id);
    if (cam_it == cameras.end())
      throw SceneError(rec.images_file, "image " + quote_user_text(im.name) + " refers to camera " +
                                            std::to_string(im.camera_id) + ", which " +
                                            rec.cameras_file.filename().string() + " does not define");
    const colmap::Camera& cam = *cam_it->second;
    const int stored_factor = photo_downscale(paths[i], stored[i], cam);
    if (stored_factor > 1 && images_dir.filename() == "images" && downscaled_cameras.insert(cam.id).second)
      scene.notes.push_back("camera " + std::to_string(cam.id) + ": its photos are stored at 1/" +
                            std::to_string(stored_factor) + " of the camera's size; intrinsics scaled to match");
    const ImageSize target = downsampled_size(stored[i], load_factor);
    view_cams.push_back(&cam);
    view_keys.push_back({cam.id, target.width, target.height});
    plans.try_emplace(view_keys.back());
  }
  std::vector<std::pair<const PlanKey, CameraUndistortion>*> todo;
  for (auto& entry : plans) todo.push_back(&entry);
  for_each_parallel(todo.size(), options.threads, [&](size_t k) {
    const auto& [id, width, height] = todo[k]->first;
    const colmap::Camera& cam = *cameras.at(id);
    try {
      todo[k]->second = plan_undistortion(resized(lens_camera(cam.model, cam.width, cam.height, cam.params), width, height),
                                          options.undistort);
    } catch (const std::invalid_argument& e) {
      throw SceneError(rec.cameras_file, "camera " + std::to_string(cam.id) + ": " + e.what());
    }
  });
  for (const auto& [key, plan] : plans) {
    const colmap::Camera& cam = *cameras.at(std::get<0>(key));
    if (plan.kept_fraction < 0.995 || plan.pinhole.width != std::get<1>(key) || plan.pinhole.height != std::get<2>(key))
      scene.notes.push_back("camera " + std::to_string(cam.id) + " (" + camera_model_name(cam.model) + "): undistorted to a " +
                            std::to_string(plan.pinhole.width) + "x" + std::to_string(plan.pinhole.height) + " pinhole" +
                            (is_fisheye(cam.model) ? " (fisheye field of view " +
                                                         std::to_string(static_cast<int>(options.undistort.fisheye_fov_deg)) +
                                                         " degrees at most; --fisheye-fov changes it)"
                                                   : "") +
                            ", keeping " + percent(plan.kept_fraction) + " of the photo");
  }
  std::vector<const CameraUndistortion*> view_plans;
  for (size_t i = 0; i < sorted.size(); ++i) {
    const colmap::Image& im = *sorted[i];
    const CameraUndistortion& plan = plans.at(view_keys[i]);
    view_plans.push_back(&plan);
    SceneView v;
    v.name = im.name;
    v.image_path = paths[i].string();
    v.camera_id = im.camera_id;
    v.source_model = view_cams[i]->model;
    v.intrinsics = plan.pinhole;
    v.kept_fraction = plan.kept_fraction;
    v.R = rotation_of(rec.images_file, im);
    v.t = im.tvec;
    v.is_test = i % 8 == 0;
    scene.views.push_back(std::move(v));
  }
  // Fisheye notes repeat per camera when each image has its own camera: say the first and count.
  if (scene.notes.size() > 3) {
    const size_t more = scene.notes.size() - 1;
    scene.notes.resize(1);
    scene.notes.push_back("... and " + std::to_string(more) + " more cameras like it (splatlab info lists them)");
  }
  set_center_and_extent(scene);

  scene.points.reserve(rec.points.size());
  for (const colmap::Point& p : rec.points) scene.points.push_back({p.xyz, p.rgb});

  if (options.load_images) {
    const fs::path masks_dir = masks_dir_for(images_dir);
    std::vector<std::optional<fs::path>> mask_files(sorted.size());
    if (options.use_masks && fs::is_directory(masks_dir)) {
      size_t found = 0;
      for (size_t i = 0; i < sorted.size(); ++i) found += (mask_files[i] = find_mask_file(masks_dir, sorted[i]->name)).has_value();
      scene.notes.push_back(masks_dir.string() + ": masks for " + std::to_string(found) + " of " +
                            std::to_string(sorted.size()) + " images");
    }
    const auto total = static_cast<int64_t>(paths.size());
    Progress progress("decoding images", total, options.show_progress ? stderr : nullptr);
    // Counting under a lock keeps the callback's calls in order; decoding a file takes far longer.
    std::mutex report_mutex;
    int64_t reported = 0;
    if (options.on_progress) options.on_progress(0, total);
    std::vector<PixelMask> masks(paths.size());
    scene.images = load_images(
        paths, options.threads,
        [&](size_t i, ImageRGB8 img) {
          const CameraUndistortion& plan = *view_plans[i];
          std::optional<PixelMask> user_mask;
          if (mask_files[i]) {
            user_mask = read_mask(*mask_files[i], img.width, img.height);
            if (img.width != plan.lens.width || img.height != plan.lens.height)
              user_mask = resize_mask(*user_mask, img.width, img.height, plan.lens.width, plan.lens.height);
          }
          if (img.width != plan.lens.width || img.height != plan.lens.height)
            img = resize_area(img, plan.lens.width, plan.lens.height);
          if (user_mask && options.mask_mode == MaskMode::Alpha) {
            fill_masked_out(img, *user_mask, options.mask_fill);
            user_mask.reset();  // trained, not left out (pixels outside a distorted photo still are)
          }
          TrainingImage done = to_training_image(plan, img, user_mask ? &*user_mask : nullptr);
          masks[i] = std::move(done.mask);
          if (options.on_progress) {
            std::lock_guard lock(report_mutex);
            options.on_progress(++reported, total);
          }
          return std::move(done.image);
        },
        &progress);
    if (std::any_of(masks.begin(), masks.end(), [](const PixelMask& m) { return !m.empty(); })) scene.masks = std::move(masks);
  }
  if (options.show_progress)
    for (const std::string& note : scene.notes) std::fprintf(stderr, "note: %s\n", note.c_str());
  return scene;
} catch (const fs::filesystem_error& e) {
  throw SceneError(e.path1().empty() ? folder : e.path1(), std::string("cannot access: ") + e.code().message());
}

}  // namespace splat
