#include "ui/gui_run.h"

#include <fstream>
#include <system_error>

#include <nlohmann/json.hpp>

#include "core/run/run_config.h"

namespace splat::ui {
namespace fs = std::filesystem;

bool is_run_folder(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path / run_files::kConfig, ec);
}

bool holds_run(const fs::path& dir) {
  std::error_code ec;
  for (const char* name : {run_files::kConfig, run_files::kMetrics, run_files::kCheckpoint, run_files::kPly})
    if (fs::exists(dir / name, ec)) return true;
  return false;
}

fs::path default_run_dir(const fs::path& base, const Scene& scene) {
  const fs::path root = fs::absolute(scene.root).lexically_normal();
  std::string name = (root.has_filename() ? root : root.parent_path()).filename().string();
  if (name.empty()) name = "scene";
  const fs::path runs = fs::absolute(base / "runs").lexically_normal();
  fs::path dir = runs / name;
  for (int n = 2; holds_run(dir); ++n) dir = runs / (name + "-" + std::to_string(n));
  return dir;
}

MetricHistory read_metric_history(const fs::path& metrics_file) {
  MetricHistory h;
  std::ifstream in(metrics_file);
  double wall_offset = 0, last_wall = 0;
  for (std::string line; std::getline(in, line);) {
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object() || !j.contains("step") || !j.contains("loss") || !j["loss"].is_number()) continue;
    MetricsRecord m;
    m.step = j.value("step", 0);
    m.images = j.value("images", m.step);
    m.loss = j["loss"].get<double>();
    if (j.contains("psnr") && j["psnr"].is_number()) m.psnr = j["psnr"].get<double>();
    m.gaussians = j.value("gaussians", int64_t{0});
    m.step_ms = j.value("step_ms", 0.0);
    // Each continuation's clock starts at zero again: keep wall time increasing across them.
    const double wall = j.value("wall_s", 0.0);
    if (wall + wall_offset < last_wall) wall_offset = last_wall;
    m.wall_s = wall + wall_offset;
    last_wall = m.wall_s;
    h.add(m, 1);
  }
  return h;
}

}  // namespace splat::ui
