#include "core/render/path_export.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "core/render/camera_path_file.h"
#include "core/scene/camera_path.h"
#include "core/scene/image_writer.h"
#include "core/util/user_text.h"

namespace splat {
namespace {
// Quoted for a POSIX shell.
std::string shell_quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}
}  // namespace

PathKind parse_path_kind(const std::string& name) {
  for (int k = 0; k < 2; ++k)
    if (name == kPathKindNames[k]) return static_cast<PathKind>(k);
  throw std::invalid_argument("camera path " + quote_user_text(name) + ": expected 'orbit' or 'cameras'");
}

const char* path_kind_name(PathKind kind) { return kPathKindNames[static_cast<int>(kind)]; }

std::vector<kernels::Camera> path_cameras(std::span<const SceneView> views, const PathRequest& r) {
  if (r.kind == PathKind::Orbit)
    return orbit_path(views, r.frames < 0 ? kDefaultOrbitFrames : r.frames, r.width, r.height,
                      up_direction(r.up, views));
  return views_path(views, r.frames < 0 ? 0 : r.frames, r.width, r.height);
}

std::filesystem::path frame_file(const std::filesystem::path& dir, size_t k) {
  char name[32];
  std::snprintf(name, sizeof name, "frame_%04zu.png", k);
  return dir / name;
}

PathExport::PathExport(std::vector<kernels::Camera> cameras, std::filesystem::path dir, std::string name)
    : cameras_(std::move(cameras)), dir_(std::move(dir)), name_(std::move(name)) {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) throw std::runtime_error("cannot create the frame folder " + dir_.string() + ": " + ec.message());
  // A path file has one image size; a path of views of several sizes (which none made here is) goes without.
  const bool one_size = std::all_of(cameras_.begin(), cameras_.end(), [&](const kernels::Camera& c) {
    return c.width == cameras_[0].width && c.height == cameras_[0].height;
  });
  if (!cameras_.empty() && one_size) write_camera_path(dir_ / kCameraPathFileName, cameras_);
}

void PathExport::render_next(const RenderFn& render) {
  if (finished()) return;
  const kernels::Camera& cam = cameras_[done_];
  write_png(frame_file(dir_, done_), render(cam), cam.width, cam.height);
  ++done_;
}

std::optional<std::filesystem::path> PathExport::encode_video() const {
  if (std::system("command -v ffmpeg > /dev/null 2>&1") != 0) return std::nullopt;
  const std::filesystem::path video = dir_ / (name_ + ".mp4");
  // Even sizes: libx264's yuv420p needs them.
  const std::string cmd = "ffmpeg -loglevel error -y -framerate " + std::to_string(int(kCameraPathFps)) + " -i " + shell_quoted((dir_ / "frame_%04d.png").string()) +
                          " -vf 'pad=ceil(iw/2)*2:ceil(ih/2)*2' -c:v libx264 -pix_fmt yuv420p " +
                          shell_quoted(video.string()) + " < /dev/null";
  if (std::system(cmd.c_str()) != 0) throw std::runtime_error("ffmpeg failed to encode " + video.string());
  return video;
}

}  // namespace splat
