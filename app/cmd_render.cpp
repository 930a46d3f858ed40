// `splatlab render <run> --camera <index|name> --out x.png [--width W] [--height H]`: one view of a
// run's Gaussians, at the view's training size or another. Views are numbered as everywhere on the
// command line (`info --cameras`): 0-based, in image-name order.
// `splatlab render <run> --path orbit|cameras [--frames N] [--width W] [--height H] --out dir/`: a
// frame sequence along a camera path (core/scene/camera_path.h), dir/frame_0000.png on, and
// dir/<path>.mp4 when ffmpeg is on PATH.
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
#include "core/run/run_config.h"
#include "core/scene/camera_path.h"
#include "core/model/device_gaussians.h"
#include "core/train/evaluator.h"
#include "core/model/ply_io.h"
#include "core/util/user_text.h"

namespace splat::app {
namespace {

struct RenderArgs {
  std::string run;
  std::string camera;
  std::string path;  // orbit or cameras; empty: one --camera
  int frames = -1;   // -1: the path's default (orbit 120, cameras one per view)
  std::string out;
  std::string ply;
  std::string device;
  int width = 0, height = 0;  // 0: the view's own (the other side keeps the view's aspect ratio)
};

// render writes PNG only: any other name would hold PNG bytes under a misleading extension.
void check_png_name(const std::string& out) {
  std::string ext = std::filesystem::path(out).extension().string();
  for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
  if (ext != ".png")
    throw std::invalid_argument("--out " + quote_user_text(out, 400) + ": render writes PNG images; name the file *.png");
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
    throw std::invalid_argument(arg + ": no such view; expected " + range + " or an image name");
  }
  throw std::invalid_argument(arg + ": no image of that name in " + scene.root + "; expected an image name or " + range);
}

// Quoted for a POSIX shell.
std::string shell_quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// dir/<name>.mp4 from the frames, when ffmpeg is on PATH; says what it did either way.
void encode_video(const std::filesystem::path& dir, const std::string& name) {
  if (std::system("command -v ffmpeg > /dev/null 2>&1") != 0) {
    std::printf("ffmpeg is not on PATH: frames only (no %s.mp4)\n", name.c_str());
    return;
  }
  const std::filesystem::path video = dir / (name + ".mp4");
  const std::string cmd = "ffmpeg -loglevel error -y -framerate 30 -i " + shell_quoted((dir / "frame_%04d.png").string()) +
                          " -vf 'pad=ceil(iw/2)*2:ceil(ih/2)*2' -c:v libx264 -pix_fmt yuv420p " +
                          shell_quoted(video.string());
  if (std::system(cmd.c_str()) != 0) throw std::runtime_error("ffmpeg failed to encode " + video.string());
  std::printf("wrote %s\n", video.string().c_str());
}

int run_render(const RenderArgs& a) {
  const std::filesystem::path run = a.run;
  check_path_argument("run folder", run);
  if (!a.ply.empty()) check_path_argument("--ply", a.ply);
  check_path_argument("--out", a.out);
  if (a.path.empty()) check_png_name(a.out);
  if (a.path.empty() && a.camera.empty()) throw std::invalid_argument("render: give --camera (one view) or --path (a frame sequence)");
  const nlohmann::json config = read_run_config(run);
  const kernels::Device dev = parse_device(a.device);
  const Scene scene = load_run_scene(config, false);
  std::vector<kernels::Camera> cameras;
  int v = -1;
  if (a.path.empty()) {
    v = find_view(scene, a.camera);
    cameras.push_back(resized(scene.views[v].to_kernel_camera(), a.width, a.height));
  } else if (a.path == "orbit") {
    cameras = orbit_path(scene.views, a.frames < 0 ? 120 : a.frames, a.width, a.height);
  } else {
    cameras = views_path(scene.views, std::max(a.frames, 0), a.width, a.height);
  }
  const GaussianModel model = read_ply(a.ply.empty() ? run / run_files::kPly : std::filesystem::path(a.ply));
  DeviceGaussians g(dev, GaussianState::from_model(model));
  auto raster = dev == kernels::Device::CPU ? kernels::make_cpu_rasterizer() : kernels::make_cuda_rasterizer();
  kernels::RasterSettings s;
  s.sh_degree = std::min(config.value("sh_degree", 3), model.sh_degree());
  const auto bg = config.value("background", std::vector<float>{0, 0, 0});
  for (int c = 0; c < 3; ++c) s.background[c] = bg.at(c);
  const std::filesystem::path dir = a.out;
  if (!a.path.empty()) std::filesystem::create_directories(dir);
  for (size_t k = 0; k < cameras.size(); ++k) {
    const kernels::Camera& cam = cameras[k];
    kernels::Buffer<float> rgb(dev, size_t(cam.width) * cam.height * 3);
    raster->forward(g.view(), std::span<const kernels::Camera>(&cam, 1), s, {rgb.data(), nullptr, nullptr});
    if (a.path.empty()) {
      write_png(a.out, rgb.download(), cam.width, cam.height);
      std::printf("rendered view %d (%s, %dx%d) to %s\n", v, scene.views[v].name.c_str(), cam.width, cam.height,
                  a.out.c_str());
      return 0;
    }
    char name[32];
    std::snprintf(name, sizeof name, "frame_%04zu.png", k);
    write_png(dir / name, rgb.download(), cam.width, cam.height);
    if ((k + 1) % std::max<size_t>(1, cameras.size() / 10) == 0 || k + 1 == cameras.size())
      std::printf("rendered %zu/%zu frames (%dx%d) into %s\n", k + 1, cameras.size(), cam.width, cam.height,
                  dir.string().c_str());
    std::fflush(stdout);
  }
  encode_video(dir, a.path);
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
                  "the views look at) or 'cameras' (the views in order)")
      ->check(CLI::IsMember({"orbit", "cameras"}))
      ->excludes(camera);
  sub->add_option("--frames", a->frames,
                  "Frames of the path (default: orbit 120; cameras: one per view, or N frames interpolated along them)")
      ->check(CLI::Range(1, 100000))
      ->needs(path);
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
