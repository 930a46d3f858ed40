#pragma once
// The View panel's settings, persisted as a JSON object beside the recent-scenes list so the next
// session starts with them.
#include <filesystem>

#include "ui/viewer_state.h"

namespace splat::ui {

// view.json in the folder of default_recent_file().
std::filesystem::path default_view_settings_file();

// Reads `file` over `settings`: a missing file or field keeps what `settings` has. Throws
// std::runtime_error naming the file when it is malformed.
void load_view_settings(const std::filesystem::path& file, ViewSettings& settings);
// Throws std::runtime_error naming the file when it cannot be saved.
void save_view_settings(const std::filesystem::path& file, const ViewSettings& settings);

}  // namespace splat::ui
