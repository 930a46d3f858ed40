// `splatlab info <scene>`: what a COLMAP scene holds and how splatlab will use it: each camera
// (as COLMAP stores it and as the pinhole camera training sees), counts, split, centre, extent.
#include <cstdio>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "app/commands.h"
#include "app/path_args.h"
#include "app/scene_args.h"
#include "core/scene/colmap_reader.h"
#include "core/scene/scene_loader.h"

namespace splat::app {
namespace {

struct InfoArgs {
  std::string scene;
  SceneArgs scene_args;
  bool json = false;
};

// The view that speaks for a COLMAP camera: its first (all views of one camera share the pinhole
// and the kept fraction unless their stored images differ in size).
std::map<int, const SceneView*> view_per_camera(const Scene& scene) {
  std::map<int, const SceneView*> r;
  for (const SceneView& v : scene.views) r.emplace(v.camera_id, &v);
  return r;
}

nlohmann::ordered_json to_json(const colmap::Reconstruction& rec, const Scene& scene, const InfoArgs& a) {
  using json = nlohmann::ordered_json;
  const auto first_view = view_per_camera(scene);
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
  return {{"scene", scene.root},
          {"sparse_dir", rec.sparse_dir.string()},
          {"data_factor", a.scene_args.data_factor},
          {"undistort", a.scene_args.undistort},
          {"fisheye_fov", a.scene_args.fisheye_fov},
          {"cameras", cams},
          {"images", scene.views.size()},
          {"points", scene.points.size()},
          {"train", scene.train_indices().size()},
          {"test", scene.test_indices().size()},
          {"center", {scene.center.x, scene.center.y, scene.center.z}},
          {"extent", scene.extent},
          {"notes", scene.notes}};
}

void print_text(const colmap::Reconstruction& rec, const Scene& scene, const InfoArgs& a) {
  const auto first_view = view_per_camera(scene);
  std::printf("scene      %s\n", scene.root.c_str());
  std::printf("model      %s\n", rec.sparse_dir.string().c_str());
  std::printf("cameras    %zu\n", rec.cameras.size());
  for (const colmap::Camera& c : rec.cameras) {
    std::printf("  camera %d  %s %dx%d ", c.id, camera_model_name(c.model), c.width, c.height);
    const auto names = colmap::model_param_names(c.model);
    for (size_t i = 0; i < names.size(); ++i) std::printf(" %s=%.6g", names[i].c_str(), c.params[i]);
    if (auto it = first_view.find(c.id); it != first_view.end()) {
      const PinholeIntrinsics& p = it->second->intrinsics;
      std::printf("  -> pinhole %dx%d fx=%.6g fy=%.6g cx=%.6g cy=%.6g, %.1f%% of the photo kept", p.width, p.height, p.fx,
                  p.fy, p.cx, p.cy, 100 * it->second->kept_fraction);
    }
    std::printf("\n");
  }
  std::printf("images     %zu (data factor %d, undistortion: %s)\n", scene.views.size(), a.scene_args.data_factor,
              a.scene_args.undistort.c_str());
  std::printf("points     %zu\n", scene.points.size());
  std::printf("split      %zu train / %zu test (every 8th image by name is a test view)\n", scene.train_indices().size(),
              scene.test_indices().size());
  std::printf("center     %.6g %.6g %.6g\n", scene.center.x, scene.center.y, scene.center.z);
  std::printf("extent     %.6g\n", scene.extent);
  for (const std::string& note : scene.notes) std::printf("note       %s\n", note.c_str());
}

}  // namespace

CommandRun add_info_command(CLI::App& app) {
  auto* sub = app.add_subcommand("info", "Print cameras, images, points, split and extent of a scene");
  auto args = std::make_shared<InfoArgs>();
  sub->add_option("scene", args->scene, "COLMAP scene folder")->required();
  add_scene_options(sub, args->scene_args);
  sub->add_flag("--json", args->json, "Print JSON instead of text");
  return [args]() {
    check_path_argument("scene", args->scene);
    const colmap::Reconstruction rec = colmap::read_reconstruction(colmap::find_sparse_dir(args->scene));
    SceneLoadOptions opts = scene_load_options(args->scene_args);
    opts.load_images = false;
    opts.show_progress = false;  // the notes are part of the output below
    const Scene scene = build_scene(args->scene, rec, opts);
    if (args->json) std::printf("%s\n", to_json(rec, scene, *args).dump(2).c_str());
    else print_text(rec, scene, *args);
    return 0;
  };
}

}  // namespace splat::app
