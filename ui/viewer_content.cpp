#include "ui/viewer_content.h"

#include <algorithm>

#include "core/scene/demo_scene.h"
#include "core/model/ply_io.h"
#include "core/run/run_config.h"
#include "core/scene/scene_loader.h"

namespace splat::ui {
namespace fs = std::filesystem;
namespace {
ViewerContent from_scene_folder(const fs::path& folder, std::string source, int data_factor,
                                const UndistortOptions& undistort, MaskMode mask_mode,
                                const std::array<float, 3>& mask_fill, const LoadProgressFn& on_progress) {
  SceneLoadOptions opt;
  opt.data_factor = data_factor;
  opt.undistort = undistort;
  opt.mask_mode = mask_mode;
  opt.mask_fill = mask_fill;
  opt.show_progress = false;  // the window shows progress; stderr stays quiet
  opt.on_progress = on_progress;
  auto scene = std::make_shared<Scene>(load_scene(folder, opt));
  auto model = std::make_shared<GaussianModel>(init_from_points(scene->points));
  return {std::move(source), std::move(scene), std::move(model), data_factor, undistort, mask_mode, false, std::nullopt};
}

bool ply_drawn_antialiased(const fs::path& ply) {
  const fs::path run = ply.parent_path().empty() ? fs::path(".") : ply.parent_path();
  std::error_code ec;
  if (!fs::exists(run / run_files::kConfig, ec)) return false;
  try {
    return read_run_config(run).antialiased;
  } catch (const std::exception&) {
    return false;  // a damaged config beside a readable PLY: draw it the common way
  }
}
}  // namespace

ViewerContent load_content(const fs::path& path, int data_factor, const UndistortOptions& undistort,
                           MaskMode mask_mode, const std::array<float, 3>& mask_fill, const LoadProgressFn& on_progress) {
  if (path.extension() == ".ply") {
    auto model = std::make_shared<GaussianModel>(read_ply(path));
    return {path.string(), nullptr, std::move(model), 1, {}, MaskMode::Ignore, false, ply_drawn_antialiased(path)};
  }
  return from_scene_folder(path, path.string(), data_factor, undistort, mask_mode, mask_fill, on_progress);
}

ViewerContent load_demo_content(const LoadProgressFn& on_progress) {
  const demo::DemoSceneInfo info = demo::ensure_demo_scene(demo::default_demo_folder());
  ViewerContent c = from_scene_folder(info.folder, "demo scene (" + info.folder.string() + ")", 1, {}, MaskMode::Ignore, {},
                                      on_progress);
  c.demo = true;
  return c;
}

void ContentLoader::start(std::string label, Job job) {
  label_ = std::move(label);
  started_ = std::chrono::steady_clock::now();
  // No job runs here (start is only called when not busy), so nothing else writes these now.
  done_ = 0;
  total_ = 0;
  future_ = std::async(std::launch::async, [this, job = std::move(job)] {
    return job([this](int64_t done, int64_t total) {
      done_ = done;
      total_ = total;
    });
  });
}

std::optional<ContentLoader::Fraction> ContentLoader::progress() const {
  const int64_t total = total_.load();
  if (!busy() || total <= 0) return std::nullopt;
  // done_ and total_ are two stores: a reader between them may see a done of the previous
  // total, never more than the total itself once clamped.
  return Fraction{std::clamp<int64_t>(done_.load(), 0, total), total};
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
