#include "ui/view_settings_file.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <stdexcept>

#include "ui/recent_scenes.h"

namespace splat::ui {
namespace {
// Applies `f(key, field)` to every persisted field, so reading and writing name the same keys.
template <typename S, typename F>
void for_each_field(S& s, F&& f) {
  f("resolution_scale", s.resolution_scale);
  f("moving_resolution_scale", s.moving_resolution_scale);
  f("sh_degree", s.sh_degree);
  f("background", s.background);
  f("show_grid", s.show_grid);
  f("show_axes", s.show_axes);
  f("show_frustums", s.show_frustums);
  f("fps_cap", s.fps_cap);
  f("pause_while_training", s.pause_while_training);
}
}  // namespace

std::filesystem::path default_view_settings_file() { return default_recent_file().parent_path() / "view.json"; }

void load_view_settings(const std::filesystem::path& file, ViewSettings& settings) {
  std::ifstream in(file);
  if (!in) return;
  try {
    const nlohmann::json j = nlohmann::json::parse(in);
    if (!j.is_object()) throw std::runtime_error("expected a JSON object");
    ViewSettings read = settings;  // all or nothing: a bad field leaves `settings` as it was
    if (j.contains("mode")) {
      const int mode = j.at("mode").get<int>();
      if (mode < 0 || mode > static_cast<int>(RenderMode::Alpha)) throw std::runtime_error("unknown render mode");
      read.mode = static_cast<RenderMode>(mode);
    }
    for_each_field(read, [&](const char* key, auto& field) {
      if (j.contains(key)) j.at(key).get_to(field);
    });
    settings = read;
  } catch (const std::exception& e) {
    throw std::runtime_error(file.string() + ": ignored, " + e.what());
  }
}

void save_view_settings(const std::filesystem::path& file, const ViewSettings& settings) {
  nlohmann::json j;
  j["mode"] = static_cast<int>(settings.mode);
  for_each_field(settings, [&](const char* key, const auto& field) { j[key] = field; });
  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  std::ofstream out(file, std::ios::trunc);
  out << j.dump(2) << "\n";
  if (!out) throw std::runtime_error(file.string() + ": cannot save the view settings");
}

}  // namespace splat::ui
