#include "core/scene_loader.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>

#include "core/image_loader.h"
#include "core/progress.h"
#include "core/scene_errors.h"
#include "core/undistort.h"

namespace splat {
namespace fs = std::filesystem;

namespace {

Mat3d rotation_of(const fs::path& file, const colmap::Image& im) {
  const auto& q = im.qvec;
  const double n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (!std::isfinite(n) || n < 1e-12) throw SceneError(file, "image '" + im.name + "' has a zero or invalid rotation quaternion");
  return quat_to_rotmat(q[0] / n, q[1] / n, q[2] / n, q[3] / n);
}

// The stored image must show the camera's field of view, possibly resized; a different aspect
// ratio means the image does not belong to that camera.
void check_aspect(const fs::path& image, ImageSize stored, const colmap::Camera& cam) {
  const double expected_h = static_cast<double>(cam.height) * stored.width / cam.width;
  if (std::abs(stored.height - expected_h) > 1.0)
    throw SceneError(image, "is " + std::to_string(stored.width) + "x" + std::to_string(stored.height) + " but camera " +
                                std::to_string(cam.id) + " is " + std::to_string(cam.width) + "x" +
                                std::to_string(cam.height) + " (a different aspect ratio)");
}

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

Scene build_scene(const fs::path& folder, const colmap::Reconstruction& rec, const SceneLoadOptions& options) {
  if (options.data_factor < 1) throw SceneError(folder, "data factor must be at least 1, got " + std::to_string(options.data_factor));
  if (rec.images.empty()) throw SceneError(rec.images_file, "the reconstruction has no registered images");
  if (rec.points.empty()) throw SceneError(rec.points_file, "the reconstruction has no 3D points (splatlab starts from them)");

  std::map<int, const colmap::Camera*> cameras;
  for (const colmap::Camera& c : rec.cameras) cameras[c.id] = &c;

  std::vector<const colmap::Image*> sorted;
  for (const colmap::Image& im : rec.images) sorted.push_back(&im);
  std::sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->name < b->name; });
  for (size_t i = 1; i < sorted.size(); ++i)
    if (sorted[i]->name == sorted[i - 1]->name) throw SceneError(rec.images_file, "image name '" + sorted[i]->name + "' is listed twice");

  const fs::path images_dir = images_dir_for(folder, options.data_factor);
  if (!fs::is_directory(images_dir)) throw SceneError(images_dir, "images folder does not exist");
  // images_N/ already holds downsampled files; images/ is downsampled here.
  const int load_factor = images_dir.filename() == "images" ? options.data_factor : 1;

  Scene scene;
  scene.root = folder.string();
  std::vector<fs::path> paths;
  for (const colmap::Image* im : sorted) paths.push_back(images_dir / im->name);
  const std::vector<ImageSize> stored = probe_images(paths, options.threads);

  std::vector<LensCamera> lenses;
  for (size_t i = 0; i < sorted.size(); ++i) {
    const colmap::Image& im = *sorted[i];
    const auto cam_it = cameras.find(im.camera_id);
    if (cam_it == cameras.end())
      throw SceneError(rec.images_file, "image '" + im.name + "' refers to camera " + std::to_string(im.camera_id) + ", which " +
                                            rec.cameras_file.filename().string() + " does not define");
    const colmap::Camera& cam = *cam_it->second;
    check_aspect(paths[i], stored[i], cam);
    const ImageSize target = downsampled_size(stored[i], load_factor);
    lenses.push_back(resized(lens_camera(cam.model, cam.width, cam.height, cam.params), target.width, target.height));

    SceneView v;
    v.name = im.name;
    v.image_path = paths[i].string();
    v.camera_id = im.camera_id;
    v.source_model = cam.model;
    v.intrinsics = pinhole_of(lenses.back());
    v.R = rotation_of(rec.images_file, im);
    v.t = im.tvec;
    v.is_test = i % 8 == 0;
    scene.views.push_back(std::move(v));
  }
  set_center_and_extent(scene);

  scene.points.reserve(rec.points.size());
  for (const colmap::Point& p : rec.points) scene.points.push_back({p.xyz, p.rgb});

  if (options.load_images) {
    const auto total = static_cast<int64_t>(paths.size());
    Progress progress("decoding images", total, options.show_progress ? stderr : nullptr);
    // Counting under a lock keeps the callback's calls in order; decoding a file takes far longer.
    std::mutex report_mutex;
    int64_t reported = 0;
    if (options.on_progress) options.on_progress(0, total);
    scene.images = load_images(
        paths, options.threads,
        [&](size_t i, ImageRGB8 img) {
          const LensCamera& lens = lenses[i];
          if (img.width != lens.width || img.height != lens.height) img = resize_area(img, lens.width, lens.height);
          ImageRGB8 done = has_distortion(lens) ? undistort_image(img, lens) : std::move(img);
          if (options.on_progress) {
            std::lock_guard lock(report_mutex);
            options.on_progress(++reported, total);
          }
          return done;
        },
        &progress);
  }
  return scene;
}

}  // namespace splat
