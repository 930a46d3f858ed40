#pragma once
// The recently opened scenes (folders and PLY files), newest first, persisted as a JSON array of
// paths so the File menu offers them in the next session.
#include <filesystem>
#include <string>
#include <vector>

namespace splat::ui {

// $XDG_CONFIG_HOME/splatlab/recent.json, else ~/.config/splatlab/recent.json.
std::filesystem::path default_recent_file();

class RecentScenes {
 public:
  // Reads `file` when it exists. A missing file is an empty list; an unreadable or malformed one
  // is an empty list too, with the reason in load_error() (the viewer shows it; it never blocks
  // opening the app).
  explicit RecentScenes(std::filesystem::path file, size_t capacity = 10);

  const std::vector<std::string>& items() const { return items_; }
  const std::string& load_error() const { return load_error_; }

  // Moves (or inserts) `path` to the front, drops the oldest beyond the capacity and saves.
  // Throws std::runtime_error naming the file when it cannot be saved.
  void add(const std::string& path);

 private:
  void save() const;
  std::filesystem::path file_;
  size_t capacity_;
  std::vector<std::string> items_;
  std::string load_error_;
};

}  // namespace splat::ui
