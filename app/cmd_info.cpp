// `splatlab info <scene>`: what a COLMAP scene holds and how splatlab will use it: each camera
// (as COLMAP stores it and as the pinhole camera training sees), counts, split, centre, extent.
#include <cstdio>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "app/commands.h"
#include "core/colmap_reader.h"
#include "core/scene_loader.h"

namespace splat::app {
namespace {

struct InfoArgs {
  std::string scene;
  int data_factor = 1;
  bool json = false;
};

// The pinhole camera training uses for a COLMAP camera: that of its first view (all views of one
// camera share it unless their stored images differ in size).
std::map<int, PinholeIntrinsics> pinhole_per_camera(const Scene& scene) {
  std::map<int, PinholeIntrinsics> r;
  for (const SceneView& v : scene.views) r.emplace(v.camera_id, v.intrinsics);
  return r;
}

nlohmann::ordered_json to_json(const colmap::Reconstruction& rec, const Scene& scene, const InfoArgs& a) {
  using json = nlohmann::ordered_json;
  const auto pinhole = pinhole_per_camera(scene);
  json cams = json::array();
  for (const colmap::Camera& c : rec.cameras) {
    json params = json::object();
    const auto names = colmap::model_param_names(c.model);
    for (size_t i = 0; i < names.size(); ++i) params[names[i]] = c.params[i];
    json cam = {{"id", c.id}, {"model", camera_model_name(c.model)}, {"width", c.width}, {"height", c.height}, {"params", params}};
    if (auto it = pinhole.find(c.id); it != pinhole.end()) {
      const PinholeIntrinsics& p = it->second;
      cam["pinhole"] = {{"width", p.width}, {"height", p.height}, {"fx", p.fx}, {"fy", p.fy}, {"cx", p.cx}, {"cy", p.cy}};
    }
    cams.push_back(cam);
  }
  return {{"scene", scene.root},
          {"sparse_dir", rec.sparse_dir.string()},
          {"data_factor", a.data_factor},
          {"cameras", cams},
          {"images", scene.views.size()},
          {"points", scene.points.size()},
          {"train", scene.train_indices().size()},
          {"test", scene.test_indices().size()},
          {"center", {scene.center.x, scene.center.y, scene.center.z}},
          {"extent", scene.extent}};
}

void print_text(const colmap::Reconstruction& rec, const Scene& scene, const InfoArgs& a) {
  const auto pinhole = pinhole_per_camera(scene);
  std::printf("scene      %s\n", scene.root.c_str());
  std::printf("model      %s\n", rec.sparse_dir.string().c_str());
  std::printf("cameras    %zu\n", rec.cameras.size());
  for (const colmap::Camera& c : rec.cameras) {
    std::printf("  camera %d  %s %dx%d ", c.id, camera_model_name(c.model), c.width, c.height);
    const auto names = colmap::model_param_names(c.model);
    for (size_t i = 0; i < names.size(); ++i) std::printf(" %s=%.6g", names[i].c_str(), c.params[i]);
    if (auto it = pinhole.find(c.id); it != pinhole.end())
      std::printf("  -> pinhole %dx%d fx=%.6g fy=%.6g cx=%.6g cy=%.6g", it->second.width, it->second.height, it->second.fx,
                  it->second.fy, it->second.cx, it->second.cy);
    std::printf("\n");
  }
  std::printf("images     %zu (data factor %d)\n", scene.views.size(), a.data_factor);
  std::printf("points     %zu\n", scene.points.size());
  std::printf("split      %zu train / %zu test (every 8th image by name is a test view)\n", scene.train_indices().size(),
              scene.test_indices().size());
  std::printf("center     %.6g %.6g %.6g\n", scene.center.x, scene.center.y, scene.center.z);
  std::printf("extent     %.6g\n", scene.extent);
}

}  // namespace

CommandRun add_info_command(CLI::App& app) {
  auto* sub = app.add_subcommand("info", "Print cameras, images, points, split and extent of a scene");
  auto args = std::make_shared<InfoArgs>();
  sub->add_option("scene", args->scene, "COLMAP scene folder")->required();
  sub->add_option("--data-factor", args->data_factor, "Downsampling factor (uses images_N/ when present)")
      ->check(CLI::Range(1, 64));
  sub->add_flag("--json", args->json, "Print JSON instead of text");
  return [args]() {
    const colmap::Reconstruction rec = colmap::read_reconstruction(colmap::find_sparse_dir(args->scene));
    SceneLoadOptions opts;
    opts.data_factor = args->data_factor;
    opts.load_images = false;
    const Scene scene = build_scene(args->scene, rec, opts);
    if (args->json) std::printf("%s\n", to_json(rec, scene, *args).dump(2).c_str());
    else print_text(rec, scene, *args);
    return 0;
  };
}

}  // namespace splat::app
