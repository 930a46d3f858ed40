// `splatlab render <run> --camera <index|name> --out x.png [--width W] [--height H]`: one view of a
// run's Gaussians, at the view's training size or another. Views are numbered as everywhere on the
// command line (`info --cameras`): 0-based, in image-name order.
// `splatlab render <run> --path orbit|cameras [--frames N] [--width W] [--height H] --out dir/`: a
// frame sequence along a camera path (core/scene/camera_path.h), dir/frame_0000.png on, and
// dir/<path>.mp4 when ffmpeg is on PATH. The orbit turns about `--up` (default: the run's recorded
// choice, else the estimate from the cameras; core/scene/up_axis.h). `--path FILE.json` renders the
// cameras of a camera path file (core/render/camera_path_file.h: nerfstudio's camera_path.json
// layout) into dir/, with dir/<FILE>.mp4.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "app/commands.h"
#include "app/path_args.h"
#include "app/device_arg.h"
#include "app/up_arg.h"
#include "app/usage_error.h"
#include "core/run/run_config.h"
#include "core/render/camera_path_file.h"
#include "core/render/path_export.h"
#include "core/model/device_gaussians.h"
#include "core/scene/image_writer.h"
#include "core/model/ply_io.h"
#include "core/util/user_text.h"

namespace splat::app {
namespace {

struct RenderArgs {
  std::string run;
  std::string camera;
  std::string path;  // orbit, cameras or a camera path file (*.json); empty: one --camera
  int frames = -1;   // -1: the path's default (orbit 120, cameras one per view)
  std::string out;
  std::string ply;
  std::string device;
  std::string up = up_axis_name(UpAxis::Auto);  // the orbit's axis; auto: the run's recorded choice
  int width = 0, height = 0;  // 0: the view's own (the other side keeps the view's aspect ratio)
};

// render writes PNG only: any other name would hold PNG bytes under a misleading extension.
void check_png_name(const std::string& out) {
  std::string ext = std::filesystem::path(out).extension().string();
  for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
  if (ext != ".png")
    throw UsageError("--out " + quote_user_text(out, 400) + ": render writes PNG images; name the file *.png");
}

// The view's camera at another image size: focal lengths and principal point scale with it.
kernels::Camera resized(kernels::Camera cam, int width, int height) {
  if (width == 0 && height == 0) return cam;
  if (width == 0) width = std::max(1, int(std::lround(double(height) * cam.width / cam.height)));
  if (height == 0) height = std::max(1, int(std::lround(double(width) * cam.height / cam.width)));
  const float sx = float(width) / float(cam.width), sy = float(height) / float(cam.height);
  cam.fx *= sx;
  cam.cx *= sx;
  cam.fy *= sy;
  cam.cy *= sy;
  cam.width = width;
  cam.height = height;
  return cam;
}

// A view by image name, or by index into the scene's views (sorted by name) when all digits.
int find_view(const Scene& scene, const std::string& camera) {
  for (size_t i = 0; i < scene.views.size(); ++i)
    if (scene.views[i].name == camera) return int(i);
  const size_t n = scene.views.size();
  const std::string range = n == 0 ? "the scene has no views" : "a view index in 0.." + std::to_string(n - 1);
  const std::string arg = "--camera " + quote_user_text(camera);
  if (!camera.empty() && camera.find_first_not_of("0123456789") == std::string::npos) {
    uint64_t idx = 0;
    const auto r = std::from_chars(camera.data(), camera.data() + camera.size(), idx);  // fails past 2^64
    if (r.ec == std::errc() && idx < n) return int(idx);
    throw UsageError(arg + ": no such view; expected " + range + " or an image name");
  }
  throw UsageError(arg + ": no image of that name in " + scene.root + "; expected an image name or " + range);
}

// The orbit's up axis in words: the direction and where it came from (--up, the run's config, or the
// estimate and how it was made).
std::string up_text(UpAxis up, bool given, std::span<const SceneView> views) {
  const Vec3d u = up_direction(up, views);
  char dir[96];
  std::snprintf(dir, sizeof dir, "%.3f %.3f %.3f", u.x, u.y, u.z);
  std::string from = given ? std::string("--up ") + up_axis_name(up) : std::string("the run's up: ") + up_axis_name(up);
  if (up == UpAxis::Auto || up == UpAxis::Flipped)
    from += std::string(", ") + (up == UpAxis::Flipped ? "the opposite of " : "") + up_source_text(estimate_up(views).source);
  return std::string(dir) + " (" + from + ")";
}

int run_render(const RenderArgs& a) {
  const std::filesystem::path run = a.run;
  require_path_argument("run folder", "run", run);
  if (!a.ply.empty()) check_path_argument("--ply", a.ply);
  check_path_argument("--out", a.out);
  if (a.path.empty()) check_png_name(a.out);
  if (a.path.empty() && a.camera.empty()) throw UsageError("render: give --camera (one view) or --path (a frame sequence)");
  const RunConfig config = read_run_config(run);
  const kernels::Device dev = parse_device(a.device);
  const Scene scene = load_run_scene(config, false);
  // The views are checked before the Gaussians load: a mistyped --camera fails at once.
  const int v = a.path.empty() ? find_view(scene, a.camera) : -1;
  const bool from_file = is_camera_path_file(a.path);
  if (from_file && a.frames >= 0)
    throw UsageError("--frames: a camera path file has its own frames (" + quote_user_text(a.path, 400) + ")");
  const PathKind kind = a.path.empty() || from_file ? PathKind::Orbit : parse_path_kind(a.path);
  const UpAxis given_up = up_axis_arg(a.up);
  const UpAxis up = given_up == UpAxis::Auto ? config.up : given_up;
  std::vector<kernels::Camera> path;
  if (from_file) {
    check_path_argument("--path", a.path);
    for (const kernels::Camera& cam : read_camera_path(a.path)) path.push_back(resized(cam, a.width, a.height));
  } else if (!a.path.empty()) {
    path = path_cameras(scene.views, {kind, a.frames, a.width, a.height, up});
  }
  const GaussianModel model = read_ply(a.ply.empty() ? run / run_files::kPly : std::filesystem::path(a.ply));
  DeviceGaussians g(dev, GaussianState::from_model(model));
  auto raster = dev == kernels::Device::CPU ? kernels::make_cpu_rasterizer() : kernels::make_cuda_rasterizer();
  // Rendered as the run trained (background, packed, antialiased), up to the degree the PLY holds.
  kernels::RasterSettings s = render_settings(config.trainer_options(dev), std::min(config.sh_degree, model.sh_degree()));
  s.count_entries = true;  // every frame whole: it is written at once
  const RenderFn render = [&](const kernels::Camera& cam) {
    kernels::Buffer<float> rgb(dev, size_t(cam.width) * cam.height * 3);
    raster->forward(g.view(), std::span<const kernels::Camera>(&cam, 1), s, {rgb.data(), nullptr, nullptr});
    return rgb.download();
  };
  if (a.path.empty()) {
    const kernels::Camera cam = resized(scene.views[v].to_kernel_camera(), a.width, a.height);
    write_png(a.out, render(cam), cam.width, cam.height);
    std::printf("rendered view %d (%s, %dx%d) to %s\n", v, scene.views[v].name.c_str(), cam.width, cam.height,
                a.out.c_str());
    return 0;
  }
  if (!from_file && kind == PathKind::Orbit)
    std::printf("orbit about up %s\n", up_text(up, given_up != UpAxis::Auto, scene.views).c_str());
  const std::string name = from_file ? std::filesystem::path(a.path).stem().string() : std::string(path_kind_name(kind));
  PathExport frames(std::move(path), a.out, name);
  while (!frames.finished()) {
    frames.render_next(render);
    const size_t k = frames.done(), n = frames.frames();
    if (k % std::max<size_t>(1, n / 10) == 0 || k == n)
      std::printf("rendered %zu/%zu frames (%dx%d) into %s\n", k, n, frames.camera(0).width, frames.camera(0).height,
                  frames.dir().string().c_str());
    std::fflush(stdout);
  }
  if (const auto video = frames.encode_video()) std::printf("wrote %s\n", video->string().c_str());
  else std::printf("ffmpeg is not on PATH: frames only (no %s.mp4)\n", name.c_str());
  return 0;
}

}  // namespace

CommandRun add_render_command(CLI::App& app) {
  auto* sub = app.add_subcommand("render", "Render one camera of a trained run to a PNG, or a camera path to frames");
  auto a = std::make_shared<RenderArgs>();
  sub->add_option("run", a->run, "Run folder written by `splatlab train`")->required();
  auto* camera =
      sub->add_option("--camera", a->camera, "View index (0-based in image-name order, as `info --cameras` lists) or image name");
  auto* path = sub->add_option("--path", a->path,
                  "A frame sequence instead of one view: 'orbit' (a circle about the scene's up axis, looking at what "
                  "the views look at), 'cameras' (the views in order) or a camera path file FILE.json (nerfstudio's "
                  "camera_path.json layout, as the frame folders hold it)")
      ->check(CLI::Validator(
          [](std::string& v) -> std::string {
            if (is_camera_path_file(v) || v == kPathKindNames[0] || v == kPathKindNames[1]) return "";
            return quote_user_text(v) + ": expected orbit, cameras or a camera path file (*.json)";
          },
          "orbit|cameras|FILE.json"))
      ->excludes(camera);
  sub->add_option("--frames", a->frames,
                  "Frames of the path (default: orbit " + std::to_string(kDefaultOrbitFrames) + "; cameras: one per view, or N frames interpolated along them)")
      ->check(CLI::Range(1, 100000))
      ->needs(path);
  add_up_option(sub, a->up, "the run's recorded choice, else estimated from the cameras")->needs(path);
  sub->add_option("--out", a->out, "Output PNG file (*.png), or with --path the folder for the frames")->required();
  sub->add_option("--width", a->width, "Image width in pixels (default: the view's; alone, keeps its aspect ratio)")
      ->check(CLI::Range(16, 16384));
  sub->add_option("--height", a->height, "Image height in pixels (default: the view's; alone, keeps its aspect ratio)")
      ->check(CLI::Range(16, 16384));
  sub->add_option("--ply", a->ply, "Gaussians to render (default: <run>/point_cloud.ply)");
  sub->add_option("--device", a->device, "cpu or cuda (default: cuda when a CUDA device exists, else cpu)")
      ->check(CLI::IsMember({"cpu", "cuda"}));
  return [a]() { return run_render(*a); };
}

}  // namespace splat::app
