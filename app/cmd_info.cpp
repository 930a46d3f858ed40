// `splatlab info <scene>`: what a COLMAP scene holds and how splatlab will use it: its cameras (as
// COLMAP stores them and as the pinhole cameras training sees), counts, split, centre, extent.
// Cameras are summarised (a capture often has one per photo) unless --cameras lists each, with
// every view under the numbering the whole command line uses: 0-based indices in image-name order,
// which `render --camera` takes, as it takes the names. It also says which way is up (the estimate of
// core/scene/up_axis.h, which the GUI and `render --path orbit` start from).
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <memory>
#include <optional>
#include <nlohmann/json.hpp>

#include "app/commands.h"
#include "app/path_args.h"
#include "app/scene_args.h"
#include "core/scene/colmap_reader.h"
#include "core/scene/scene_loader.h"
#include "core/scene/up_axis.h"

namespace splat::app {
namespace {

struct InfoArgs {
  std::string scene;
  SceneArgs scene_args;
  bool json = false;
  bool cameras = false;
};

// The view that speaks for a COLMAP camera: its first (all views of one camera share the pinhole
// and the kept fraction unless their stored images differ in size).
std::map<int, const SceneView*> view_per_camera(const Scene& scene) {
  std::map<int, const SceneView*> r;
  for (const SceneView& v : scene.views) r.emplace(v.camera_id, &v);
  return r;
}

// The estimated up axis, or nullopt where the views have none (no views, or ups that cancel out).
std::optional<UpEstimate> scene_up(const Scene& scene) {
  try {
    return estimate_up(scene.views);
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

nlohmann::ordered_json to_json(const colmap::Reconstruction& rec, const Scene& scene, const InfoArgs& a) {
  using json = nlohmann::ordered_json;
  const auto first_view = view_per_camera(scene);
  const std::optional<UpEstimate> up = scene_up(scene);
  json cams = json::array();
  for (const colmap::Camera& c : rec.cameras) {
    json params = json::object();
    const auto names = colmap::model_param_names(c.model);
    for (size_t i = 0; i < names.size(); ++i) params[names[i]] = c.params[i];
    json cam = {{"id", c.id}, {"model", camera_model_name(c.model)}, {"width", c.width}, {"height", c.height}, {"params", params}};
    if (auto it = first_view.find(c.id); it != first_view.end()) {
      const PinholeIntrinsics& p = it->second->intrinsics;
      cam["pinhole"] = {{"width", p.width}, {"height", p.height}, {"fx", p.fx}, {"fy", p.fy}, {"cx", p.cx}, {"cy", p.cy}};
      cam["photo_kept"] = it->second->kept_fraction;
    }
    cams.push_back(cam);
  }
  json views = json::array();
  for (size_t i = 0; i < scene.views.size(); ++i) {
    const SceneView& v = scene.views[i];
    views.push_back({{"index", i}, {"name", v.name}, {"camera_id", v.camera_id}, {"split", v.is_test ? "test" : "train"}});
  }
  return {{"scene", scene.root},
          {"sparse_dir", rec.sparse_dir.string()},
          {"data_factor", a.scene_args.data_factor},
          {"undistort", a.scene_args.undistort},
          {"fisheye_fov", a.scene_args.fisheye_fov},
          {"cameras", cams},
          {"views", views},
          {"images", scene.views.size()},
          {"points", scene.points.size()},
          {"train", scene.train_indices().size()},
          {"test", scene.test_indices().size()},
          {"center", {scene.center.x, scene.center.y, scene.center.z}},
          {"extent", scene.extent},
          {"up", up ? json{up->up.x, up->up.y, up->up.z} : json()},
          {"up_from", up ? json(up_source_text(up->source)) : json()},
          {"notes", scene.notes}};
}

std::string pinhole_text(const SceneView& v) {
  const PinholeIntrinsics& p = v.intrinsics;
  char buf[160];
  std::snprintf(buf, sizeof buf, "pinhole %dx%d, %.1f%% of the photo kept", p.width, p.height, 100 * v.kept_fraction);
  return buf;
}

// One line per kind of camera (model, size, the pinhole training sees): "77 x SIMPLE_RADIAL 3118x2078 -> ...".
void print_camera_summary(const colmap::Reconstruction& rec, const Scene& scene) {
  const auto first_view = view_per_camera(scene);
  std::map<std::string, int> kinds;  // ordered, so the output does not depend on the file's order
  for (const colmap::Camera& c : rec.cameras) {
    char kind[96];
    std::snprintf(kind, sizeof kind, "%s %dx%d", camera_model_name(c.model), c.width, c.height);
    std::string text = kind;
    if (auto it = first_view.find(c.id); it != first_view.end()) text += " -> " + pinhole_text(*it->second);
    ++kinds[text];
  }
  std::printf("cameras    %zu (--cameras lists each camera and every view)\n", rec.cameras.size());
  for (const auto& [text, count] : kinds) std::printf("  %d x %s\n", count, text.c_str());
}

void print_camera_list(const colmap::Reconstruction& rec, const Scene& scene) {
  const auto first_view = view_per_camera(scene);
  std::printf("cameras    %zu (COLMAP camera id: model, size, parameters -> the pinhole training sees)\n",
              rec.cameras.size());
  for (const colmap::Camera& c : rec.cameras) {
    std::printf("  camera id %d  %s %dx%d ", c.id, camera_model_name(c.model), c.width, c.height);
    const auto names = colmap::model_param_names(c.model);
    for (size_t i = 0; i < names.size(); ++i) std::printf(" %s=%.6g", names[i].c_str(), c.params[i]);
    if (auto it = first_view.find(c.id); it != first_view.end()) {
      const PinholeIntrinsics& p = it->second->intrinsics;
      std::printf("  -> %s, fx=%.6g fy=%.6g cx=%.6g cy=%.6g", pinhole_text(*it->second).c_str(), p.fx, p.fy, p.cx, p.cy);
    }
    std::printf("\n");
  }
  std::printf("views      %zu (index: image name, COLMAP camera id, split)\n", scene.views.size());
  for (size_t i = 0; i < scene.views.size(); ++i) {
    const SceneView& v = scene.views[i];
    std::printf("  %4zu  %s  camera id %d  %s\n", i, v.name.c_str(), v.camera_id, v.is_test ? "test" : "train");
  }
}

void print_text(const colmap::Reconstruction& rec, const Scene& scene, const InfoArgs& a) {
  std::printf("scene      %s\n", scene.root.c_str());
  std::printf("model      %s\n", rec.sparse_dir.string().c_str());
  if (a.cameras) print_camera_list(rec, scene);
  else print_camera_summary(rec, scene);
  std::printf("images     %zu (data factor %d, undistortion: %s)\n", scene.views.size(), a.scene_args.data_factor,
              a.scene_args.undistort.c_str());
  if (!scene.views.empty())
    std::printf("views      numbered 0..%zu in image-name order (0 = %s); render --camera takes a number or a name\n",
                scene.views.size() - 1, scene.views.front().name.c_str());
  std::printf("points     %zu\n", scene.points.size());
  std::printf("split      %zu train / %zu test (every 8th image by name is a test view)\n", scene.train_indices().size(),
              scene.test_indices().size());
  std::printf("center     %.6g %.6g %.6g\n", scene.center.x, scene.center.y, scene.center.z);
  std::printf("extent     %.6g\n", scene.extent);
  if (const std::optional<UpEstimate> up = scene_up(scene))
    std::printf("up         %.4f %.4f %.4f (%s)\n", up->up.x, up->up.y, up->up.z, up_source_text(up->source));
  else
    std::printf("up         none (the views' up vectors cancel out)\n");
  for (const std::string& note : scene.notes) std::printf("note       %s\n", note.c_str());
}

}  // namespace

CommandRun add_info_command(CLI::App& app) {
  auto* sub = app.add_subcommand("info", "Print cameras, images, points, split and extent of a scene");
  auto args = std::make_shared<InfoArgs>();
  sub->add_option("scene", args->scene, "COLMAP scene folder, or 'demo' for the generated demo scene")->required();
  add_scene_options(sub, args->scene_args);
  sub->add_flag("--json", args->json, "Print JSON instead of text (every camera and view, with or without --cameras)");
  sub->add_flag("--cameras", args->cameras, "List every camera's parameters and every view (index, image name)");
  return [args]() {
    if (args->scene != "demo") require_path_argument("scene", "scene", args->scene);
    const std::filesystem::path folder = resolve_scene_folder(args->scene);
    const colmap::Reconstruction rec = colmap::read_reconstruction(colmap::find_sparse_dir(folder));
    SceneLoadOptions opts = scene_load_options(args->scene_args);
    opts.load_images = false;
    opts.show_progress = false;  // the notes are part of the output below
    const Scene scene = build_scene(folder, rec, opts);
    if (args->json) std::printf("%s\n", to_json(rec, scene, *args).dump(2).c_str());
    else print_text(rec, scene, *args);
    return 0;
  };
}

}  // namespace splat::app
