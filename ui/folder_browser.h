#pragma once
// File > Open: an in-app browser for scene folders and PLY files. A path field completes with
// Tab; folders open with a click (".." goes up); recent scenes are one click away.
#include <filesystem>
#include <optional>
#include <string>

#include "ui/path_completion.h"
#include "ui/recent_scenes.h"

namespace splat::ui {

class FolderBrowser {
 public:
  // Shows the browser from the next draw on, starting in `folder`.
  void show(const std::filesystem::path& folder);
  // Draws it while shown; returns the chosen folder or file once, when the user picks one.
  std::optional<std::filesystem::path> draw(const RecentScenes& recent);

 private:
  void navigate(const std::filesystem::path& folder);

  bool request_ = false;
  std::string path_;          // the path field
  std::string listed_;        // folder that listing_ describes
  FolderListing listing_;
};

}  // namespace splat::ui
