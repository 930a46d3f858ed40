#pragma once
// What the viewer shows: an optional posed scene (cameras for frustums, snapping and training) and
// the Gaussians. Opening a COLMAP folder, a PLY file or the demo scene all produce one of these;
// loading runs on a worker thread so the window stays responsive.
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>

#include "core/model/gaussian_model.h"
#include "core/scene/camera_undistortion.h"
#include "core/scene/scene.h"
#include "core/scene/user_masks.h"

namespace splat::ui {

struct ViewerContent {
  std::string source;                          // what was opened (folder, file, "demo scene")
  std::shared_ptr<const Scene> scene;          // null for a bare PLY file
  std::shared_ptr<const GaussianModel> model;  // never null once loaded
  int data_factor = 1;                         // the scene's photos were loaded at 1/data_factor size
  UndistortOptions undistort{};                // and its distorted lenses undistorted so
  MaskMode mask_mode = MaskMode::Ignore;       // and its masks' masked-out pixels meant this
  bool demo = false;                           // the built-in demo scene
  // How a bare PLY is drawn: as its run trained where it sits in a run folder (config.json beside it),
  // else without the anti-aliased filter, as the original 3DGS renderer draws the PLYs most tools
  // write. Unset for a scene, whose training decides.
  std::optional<bool> antialiased = std::nullopt;
};

// How far a load has got, reported from the loading threads: (images decoded, images to decode).
using LoadProgressFn = std::function<void(int64_t done, int64_t total)>;

// A COLMAP folder (Gaussians initialised from its SfM points, images loaded for training) or a
// .ply file of Gaussians. Throws SceneError / PlyError naming the file and the problem.
// on_progress (may be empty) follows the image decoding of a COLMAP folder, whose photos are loaded
// at 1/data_factor size (training's data factor), undistorted as `undistort` says, with the masks'
// masked-out pixels as `mask_mode` says (MaskMode::Alpha: shown in `mask_fill`, the training background).
ViewerContent load_content(const std::filesystem::path& path, int data_factor = 1, const UndistortOptions& undistort = {},
                           MaskMode mask_mode = MaskMode::Ignore, const std::array<float, 3>& mask_fill = {},
                           const LoadProgressFn& on_progress = {});
// The built-in demo scene, generated into its cache folder on first use; it is small enough for
// CPU training at full size, so it always loads at data factor 1.
ViewerContent load_demo_content(const LoadProgressFn& on_progress = {});

// One load at a time on a worker thread.
class ContentLoader {
 public:
  // The job gets the function through which it reports progress to this loader.
  using Job = std::function<ViewerContent(const LoadProgressFn& report)>;
  void start(std::string label, Job job);
  bool busy() const { return future_.valid(); }
  const std::string& label() const { return label_; }
  double elapsed_s() const;
  struct Fraction {
    int64_t done = 0, total = 0;
  };
  // The running job's last report; nullopt until it reports a total (file reading, demo scene
  // generation and PLY files report none).
  std::optional<Fraction> progress() const;
  // When the load has finished: its content, or rethrows its error. nullopt while still running
  // (and when nothing was started).
  std::optional<ViewerContent> take_if_ready();
  // Blocks until the load finishes (scripted mode).
  void wait() const;

 private:
  std::string label_;
  // Written by the job's threads, read by the GUI thread; declared before future_ so that they
  // outlive it (a std::async future's destructor waits for the job).
  std::atomic<int64_t> done_{0}, total_{0};
  std::future<ViewerContent> future_;
  std::chrono::steady_clock::time_point started_;
};

}  // namespace splat::ui
