#include "ui/viewer_content.h"

#include "core/demo_scene.h"
#include "core/ply_io.h"
#include "core/scene_loader.h"

namespace splat::ui {
namespace fs = std::filesystem;
namespace {
ViewerContent from_scene_folder(const fs::path& folder, std::string source) {
  SceneLoadOptions opt;
  opt.show_progress = false;  // the window shows progress; stderr stays quiet
  auto scene = std::make_shared<Scene>(load_scene(folder, opt));
  auto model = std::make_shared<GaussianModel>(init_from_points(scene->points));
  return {std::move(source), std::move(scene), std::move(model)};
}
}  // namespace

ViewerContent load_content(const fs::path& path) {
  if (path.extension() == ".ply") {
    auto model = std::make_shared<GaussianModel>(read_ply(path));
    return {path.string(), nullptr, std::move(model)};
  }
  return from_scene_folder(path, path.string());
}

ViewerContent load_demo_content() {
  const demo::DemoSceneInfo info = demo::ensure_demo_scene(demo::default_demo_folder());
  return from_scene_folder(info.folder, "demo scene (" + info.folder.string() + ")");
}

void ContentLoader::start(std::string label, Job job) {
  label_ = std::move(label);
  started_ = std::chrono::steady_clock::now();
  future_ = std::async(std::launch::async, std::move(job));
}

double ContentLoader::elapsed_s() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
}

std::optional<ViewerContent> ContentLoader::take_if_ready() {
  if (!future_.valid() || future_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return std::nullopt;
  return future_.get();  // rethrows the loader's exception; the future becomes invalid either way
}

void ContentLoader::wait() const {
  if (future_.valid()) future_.wait();
}

}  // namespace splat::ui
