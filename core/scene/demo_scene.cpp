#include "core/scene/demo_scene.h"

#include <stb_image_write.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <numbers>
#include <random>
#include <sstream>
#include <stdexcept>

#include "core/scene/colmap_writer.h"
#include "core/scene/colmap_reader.h"
#include "core/scene/demo_raytracer.h"
#include "core/util/progress.h"
#include "core/scene/scene_errors.h"

namespace splat::demo {
namespace fs = std::filesystem;

namespace {

// Bump whenever the world, the camera layout or the sampling changes: cached copies made by an
// older generator then no longer match their stamp and are regenerated.
constexpr int kGeneratorVersion = 2;
constexpr const char* kStampName = "demo_scene.stamp";
constexpr uint64_t kPointSeed = 20241122;

// Elevation rings of the camera hemisphere: (elevation in degrees, cameras on the ring).
constexpr std::array<std::pair<double, int>, 5> kRings = {{{12, 16}, {25, 14}, {40, 12}, {55, 10}, {72, 8}}};
constexpr double kCameraDistance = 5.0;
const Vec3d kLookAt{0, 0, 0.4};
constexpr double kFocalPerWidth = 0.85;  // fx = fy = 0.85 * width: about 61 degrees across
constexpr double kMaxPointRadius = 4.0;  // ground beyond this fades into haze: no points there

Vec3d normalized(Vec3d v) { return v / norm(v); }

// Unit quaternion (w, x, y, z) of a rotation matrix, the inverse of quat_to_rotmat; branches on the
// largest diagonal term so the square root never sees a small argument.
std::array<double, 4> rotation_to_quat(const Mat3d& R) {
  const auto& m = R.m;
  const double tr = m[0][0] + m[1][1] + m[2][2];
  double w, x, y, z;
  if (tr > 0) {
    const double s = 2 * std::sqrt(tr + 1);
    w = s / 4, x = (m[2][1] - m[1][2]) / s, y = (m[0][2] - m[2][0]) / s, z = (m[1][0] - m[0][1]) / s;
  } else if (m[0][0] > m[1][1] && m[0][0] > m[2][2]) {
    const double s = 2 * std::sqrt(1 + m[0][0] - m[1][1] - m[2][2]);
    w = (m[2][1] - m[1][2]) / s, x = s / 4, y = (m[0][1] + m[1][0]) / s, z = (m[0][2] + m[2][0]) / s;
  } else if (m[1][1] > m[2][2]) {
    const double s = 2 * std::sqrt(1 + m[1][1] - m[0][0] - m[2][2]);
    w = (m[0][2] - m[2][0]) / s, x = (m[0][1] + m[1][0]) / s, y = s / 4, z = (m[1][2] + m[2][1]) / s;
  } else {
    const double s = 2 * std::sqrt(1 + m[2][2] - m[0][0] - m[1][1]);
    w = (m[1][0] - m[0][1]) / s, x = (m[0][2] + m[2][0]) / s, y = (m[1][2] + m[2][1]) / s, z = s / 4;
  }
  const double n = std::sqrt(w * w + x * x + y * y + z * z);
  if (w < 0) w = -w, x = -x, y = -y, z = -z;  // one canonical sign, as COLMAP writes them
  return {w / n, x / n, y / n, z / n};
}

// A camera at `center` looking at kLookAt with world z up, in the COLMAP convention: camera x
// right, y down, z forward, x_cam = R x_world + t. The rotation goes through the quaternion that
// is written to images.txt, so the rendered images match the file, not a slightly different R.
SceneView look_at_view(const Vec3d& center, const PinholeIntrinsics& k, int index) {
  const Vec3d forward = normalized(kLookAt - center);
  const Vec3d right = normalized(cross(forward, Vec3d{0, 0, 1}));
  const Vec3d down = cross(forward, right);
  Mat3d R;
  for (int c = 0; c < 3; ++c) {
    R.m[0][c] = right[c];
    R.m[1][c] = down[c];
    R.m[2][c] = forward[c];
  }
  const auto q = rotation_to_quat(R);
  SceneView v;
  char name[32];
  std::snprintf(name, sizeof name, "demo_%03d.png", index);
  v.name = name;
  v.camera_id = 1;
  v.intrinsics = k;
  v.R = quat_to_rotmat(q[0], q[1], q[2], q[3]);
  v.t = -(v.R * center);
  return v;
}

std::vector<SceneView> hemisphere_views(int width, int height) {
  PinholeIntrinsics k;
  k.width = width;
  k.height = height;
  k.fx = k.fy = kFocalPerWidth * width;
  k.cx = width / 2.0;
  k.cy = height / 2.0;
  std::vector<SceneView> views;
  for (size_t ring = 0; ring < kRings.size(); ++ring) {
    const double elev = kRings[ring].first * std::numbers::pi / 180.0;
    const int count = kRings[ring].second;
    for (int i = 0; i < count; ++i) {
      // Rings are rotated against each other so cameras do not line up in columns.
      const double az = 2 * std::numbers::pi * (i + 0.37 * static_cast<double>(ring)) / count;
      const Vec3d c = kLookAt + Vec3d{std::cos(elev) * std::cos(az), std::cos(elev) * std::sin(az), std::sin(elev)} *
                                    kCameraDistance;
      views.push_back(look_at_view(c, k, static_cast<int>(views.size())));
    }
  }
  return views;
}

// Uniform double in [0, 1) that is the same with every standard library (unlike
// std::uniform_real_distribution), so the points are the same everywhere.
double unit_double(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

void check_options(const DemoOptions& o) {
  if (o.width < 16 || o.height < 16 || o.width > 8192 || o.height > 8192)
    throw std::invalid_argument("demo scene size must be 16..8192 pixels per side, got " + std::to_string(o.width) +
                                "x" + std::to_string(o.height));
  if (o.points < 1 || o.points > 1000000) throw std::invalid_argument("demo scene points must be 1..1000000");
  if (o.samples_per_axis < 1 || o.samples_per_axis > 8) throw std::invalid_argument("demo samples per axis must be 1..8");
}

std::string stamp_text(const DemoOptions& o) {
  std::ostringstream s;
  s << "splatlab demo scene generator " << kGeneratorVersion << "\nwidth " << o.width << "\nheight " << o.height
    << "\npoints " << o.points << "\nsamples_per_axis " << o.samples_per_axis << "\nlens "
    << camera_model_name(o.lens_model);
  s.precision(17);
  for (double p : o.lens_distortion) s << " " << p;
  s << "\n";
  return s.str();
}

// Models with one focal length for both axes.
bool single_focal(CameraModel m) {
  switch (m) {
    case CameraModel::SimplePinhole: case CameraModel::SimpleRadial: case CameraModel::Radial:
    case CameraModel::SimpleRadialFisheye: case CameraModel::RadialFisheye:
      return true;
    default:
      return false;
  }
}

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return {};
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace

std::vector<double> demo_camera_params(const DemoOptions& o) {
  const double f = kFocalPerWidth * o.width, cx = o.width / 2.0, cy = o.height / 2.0;
  std::vector<double> p = single_focal(o.lens_model) ? std::vector<double>{f, cx, cy} : std::vector<double>{f, f, cx, cy};
  p.insert(p.end(), o.lens_distortion.begin(), o.lens_distortion.end());
  if (static_cast<int>(p.size()) != colmap::model_param_count(o.lens_model))
    throw std::invalid_argument(std::string("demo lens ") + camera_model_name(o.lens_model) + " needs " +
                                std::to_string(colmap::model_param_count(o.lens_model) - (p.size() - o.lens_distortion.size())) +
                                " distortion parameters, got " + std::to_string(o.lens_distortion.size()));
  return p;
}

int demo_view_count() {
  int n = 0;
  for (const auto& ring : kRings) n += ring.second;
  return n;
}

DemoScene generate_demo_scene(const DemoOptions& options) {
  check_options(options);
  const DemoWorld world;
  DemoScene scene;
  scene.lens_model = options.lens_model;
  scene.camera_params = demo_camera_params(options);
  const LensCamera lens = lens_camera(options.lens_model, options.width, options.height, scene.camera_params);
  scene.views = hemisphere_views(options.width, options.height);
  Progress progress("rendering demo views", static_cast<int64_t>(scene.views.size()),
                    options.show_progress ? stderr : nullptr);
  for (const SceneView& v : scene.views) {
    scene.images.push_back(render_view(world, v, lens, options.samples_per_axis, options.threads));
    progress.add();
  }
  progress.finish();

  // SfM stand-in: surface points seen through random pixels of the views (so each is visible in
  // at least that view), coloured like that view sees them.
  std::mt19937_64 rng(kPointSeed);
  const int64_t max_attempts = 50LL * options.points;
  for (int64_t a = 0; a < max_attempts && static_cast<int>(scene.points.size()) < options.points; ++a) {
    const int vi = static_cast<int>(a % static_cast<int64_t>(scene.views.size()));
    const double x = unit_double(rng) * options.width, y = unit_double(rng) * options.height;
    Ray ray;
    try {
      ray = camera_ray(scene.views[vi], lens, x, y);
    } catch (const std::domain_error&) {
      continue;  // a photo corner the lens does not image
    }
    const auto hit = world.intersect(ray);
    if (!hit || std::hypot(hit->point.x, hit->point.y) > kMaxPointRadius) continue;
    const Vec3d c = world.radiance(ray, -1);
    ScenePoint p;
    p.xyz = hit->point;
    for (int ch = 0; ch < 3; ++ch) p.rgb[ch] = to_display_byte(c[ch]);
    scene.points.push_back(p);
    scene.point_sources.push_back({vi, x, y});
  }
  if (static_cast<int>(scene.points.size()) < options.points)
    throw std::logic_error("demo scene: could not place the requested number of points");
  return scene;
}

void write_demo_scene(const DemoScene& scene, const fs::path& folder) {
  const fs::path images_dir = folder / "images";
  fs::create_directories(images_dir);
  for (size_t i = 0; i < scene.views.size(); ++i) {
    const ImageRGB8& img = scene.images[i];
    const fs::path file = images_dir / scene.views[i].name;
    if (!stbi_write_png(file.string().c_str(), img.width, img.height, 3, img.pixels.data(), img.width * 3))
      throw SceneError(file, "cannot write PNG");
  }
  const PinholeIntrinsics& k = scene.views.front().intrinsics;
  colmap::Camera cam;
  cam.id = 1;
  cam.model = scene.lens_model;
  cam.width = k.width;
  cam.height = k.height;
  cam.params = scene.camera_params;
  std::vector<colmap::Image> images;
  for (size_t i = 0; i < scene.views.size(); ++i) {
    colmap::Image im;
    im.id = static_cast<int>(i) + 1;
    im.qvec = rotation_to_quat(scene.views[i].R);
    im.tvec = scene.views[i].t;
    im.camera_id = cam.id;
    im.name = scene.views[i].name;
    images.push_back(im);
  }
  std::vector<colmap::Point> points;
  for (size_t i = 0; i < scene.points.size(); ++i) points.push_back({i + 1, scene.points[i].xyz, scene.points[i].rgb, 0.0});
  colmap::write_colmap_text(folder / "sparse" / "0", {cam}, images, points);
}

namespace {
// A new, empty folder beside `folder`, named after it with `tag` and a random suffix.
fs::path fresh_sibling(const fs::path& folder, const char* tag) {
  std::random_device entropy;
  for (;;) {
    char suffix[32];
    std::snprintf(suffix, sizeof suffix, ".%s-%08x%08x", tag, entropy(), entropy());
    fs::path p = folder;
    p += suffix;
    if (fs::create_directory(p)) return p;
  }
}

// Renames the finished scene in `part` to `folder`. A rename is all or nothing, so whoever opens the
// folder meanwhile finds no scene, the old one, or the new one whole. Returns false when another
// opener published the same scene first (theirs stays; `part` is removed).
bool publish(const fs::path& part, const fs::path& folder, const fs::path& stamp_file, const std::string& stamp,
             bool force) {
  for (int attempt = 0; attempt < 4; ++attempt) {
    std::error_code ec;
    fs::rename(part, folder, ec);  // succeeds over a missing or empty folder
    if (!ec) return true;
    if (!force && read_text(stamp_file) == stamp) {
      fs::remove_all(part);
      return false;
    }
    // An older scene (or a forced rewrite): move it aside and try again. Another opener may have
    // moved it already, which is as good.
    const fs::path old = fresh_sibling(folder, "old");
    fs::rename(folder, old / "scene", ec);
    fs::remove_all(old);
  }
  throw SceneError(folder, "cannot put the demo scene in place: something else keeps writing this folder");
}
}  // namespace

DemoSceneInfo ensure_demo_scene(const fs::path& folder, const DemoOptions& options, bool force) {
  check_options(options);
  DemoSceneInfo info{folder, false, demo_view_count(), options.points, options.width, options.height};
  const fs::path stamp_file = folder / kStampName;
  const std::string stamp = stamp_text(options);
  if (!force && read_text(stamp_file) == stamp) return info;
  if (fs::exists(folder) && !fs::is_empty(folder) && !fs::exists(stamp_file))
    throw SceneError(folder, "is not empty and has no " + std::string(kStampName) +
                                 ": refusing to write the demo scene over it (choose an empty or new folder)");
  // Written whole beside the folder, then renamed into place: the GUI, training and tests may open the
  // cache at once on a fresh machine, and none may read a half-written image.
  if (folder.has_parent_path()) fs::create_directories(folder.parent_path());
  const fs::path part = fresh_sibling(folder, "part");
  try {
    write_demo_scene(generate_demo_scene(options), part);
    std::ofstream out(part / kStampName, std::ios::binary);
    out << stamp;
    out.close();
    if (!out) throw SceneError(part / kStampName, "cannot write");
    info.regenerated = publish(part, folder, stamp_file, stamp, force);
  } catch (...) {
    std::error_code ignored;
    fs::remove_all(part, ignored);
    throw;
  }
  return info;
}

fs::path default_demo_folder() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg && fs::path(xdg).is_absolute())
    return fs::path(xdg) / "splatlab" / "demo";
  if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".cache" / "splatlab" / "demo";
  return fs::current_path() / "splatlab-demo";
}

}  // namespace splat::demo
