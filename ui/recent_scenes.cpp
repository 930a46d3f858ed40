#include "ui/recent_scenes.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

namespace splat::ui {

std::filesystem::path default_recent_file() {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  const char* home = std::getenv("HOME");
  const std::filesystem::path base = xdg && *xdg ? std::filesystem::path(xdg)
                                     : home && *home ? std::filesystem::path(home) / ".config"
                                                     : std::filesystem::path(".");
  return base / "splatlab" / "recent.json";
}

RecentScenes::RecentScenes(std::filesystem::path file, size_t capacity) : file_(std::move(file)), capacity_(capacity) {
  std::ifstream in(file_);
  if (!in) return;
  try {
    const nlohmann::json j = nlohmann::json::parse(in);
    if (!j.is_array()) throw std::runtime_error("expected a JSON array of paths");
    for (const auto& e : j)
      if (e.is_string() && items_.size() < capacity_) items_.push_back(e.get<std::string>());
  } catch (const std::exception& e) {
    items_.clear();
    load_error_ = file_.string() + ": ignored, " + e.what();
  }
}

void RecentScenes::add(const std::string& path) {
  items_.erase(std::remove(items_.begin(), items_.end(), path), items_.end());
  items_.insert(items_.begin(), path);
  if (items_.size() > capacity_) items_.resize(capacity_);
  save();
}

void RecentScenes::save() const {
  std::error_code ec;
  std::filesystem::create_directories(file_.parent_path(), ec);
  std::ofstream out(file_, std::ios::trunc);
  out << nlohmann::json(items_).dump(2) << "\n";
  if (!out) throw std::runtime_error(file_.string() + ": cannot save the recent scenes list");
}

}  // namespace splat::ui
