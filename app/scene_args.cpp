#include "app/scene_args.h"

#include "core/scene/demo_scene.h"

namespace splat::app {

void add_scene_options(CLI::App* sub, SceneArgs& a) {
  sub->add_option("--data-factor", a.data_factor, "Downscale images by this factor (uses images_N/ when the scene has it)")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  sub->add_option("--undistort", a.undistort,
                  "Distorted lenses: 'mask' keeps the photo's whole area and leaves pixels outside it out of the loss; "
                  "'crop' crops to the largest rectangle the photo covers")
      ->capture_default_str()
      ->check(CLI::IsMember({"mask", "crop"}));
  sub->add_option("--fisheye-fov", a.fisheye_fov,
                  "Field of view (degrees, across the longer side) of the pinhole a fisheye photo is undistorted to")
      ->capture_default_str()
      ->check(CLI::Range(10.0, 170.0));
  sub->add_option("--mask-mode", a.mask_mode,
                  "With a masks/ folder: 'ignore' leaves masked-out pixels out of the loss; 'alpha' trains them to the "
                  "background colour, so that nothing grows there (an object captured with masks exports alone)")
      ->capture_default_str()
      ->check(CLI::IsMember({"ignore", "alpha"}));
}

SceneLoadOptions scene_load_options(const SceneArgs& a) {
  SceneLoadOptions o;
  o.data_factor = a.data_factor;
  o.undistort.mode = parse_undistort_mode(a.undistort);
  o.undistort.fisheye_fov_deg = a.fisheye_fov;
  o.mask_mode = parse_mask_mode(a.mask_mode);
  return o;
}

std::filesystem::path resolve_scene_folder(const std::string& scene_arg) {
  if (scene_arg == "demo") return demo::ensure_demo_scene(demo::default_demo_folder()).folder;
  return scene_arg;
}

}  // namespace splat::app
