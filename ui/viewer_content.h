#pragma once
// What the viewer shows: an optional posed scene (cameras for frustums, snapping and training) and
// the Gaussians. Opening a COLMAP folder, a PLY file or the demo scene all produce one of these;
// loading runs on a worker thread so the window stays responsive.
#include <chrono>
#include <filesystem>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>

#include "core/gaussian_model.h"
#include "core/scene.h"

namespace splat::ui {

struct ViewerContent {
  std::string source;                          // what was opened (folder, file, "demo scene")
  std::shared_ptr<const Scene> scene;          // null for a bare PLY file
  std::shared_ptr<const GaussianModel> model;  // never null once loaded
};

// A COLMAP folder (Gaussians initialised from its SfM points, images loaded for training) or a
// .ply file of Gaussians. Throws SceneError / PlyError naming the file and the problem.
ViewerContent load_content(const std::filesystem::path& path);
// The built-in demo scene, generated into its cache folder on first use.
ViewerContent load_demo_content();

// One load at a time on a worker thread.
class ContentLoader {
 public:
  using Job = std::function<ViewerContent()>;
  void start(std::string label, Job job);
  bool busy() const { return future_.valid(); }
  const std::string& label() const { return label_; }
  double elapsed_s() const;
  // When the load has finished: its content, or rethrows its error. nullopt while still running
  // (and when nothing was started).
  std::optional<ViewerContent> take_if_ready();
  // Blocks until the load finishes (scripted mode).
  void wait() const;

 private:
  std::string label_;
  std::future<ViewerContent> future_;
  std::chrono::steady_clock::time_point started_;
};

}  // namespace splat::ui
