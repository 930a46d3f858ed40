#pragma once
// Filesystem helpers behind the folder browser: listing a folder and completing a typed path.
// No ImGui here, so they are tested directly.
#include <filesystem>
#include <string>
#include <vector>

namespace splat::ui {

struct FolderListing {
  std::vector<std::string> folders;  // child folder names, sorted, hidden ones (.name) left out
  std::vector<std::string> ply_files;  // *.ply file names, sorted
  std::string error;  // why the folder could not be read; empty on success
};
FolderListing list_folder(const std::filesystem::path& folder);

// Completions of a typed path: the entries of its parent folder whose names start with the
// typed last component (folders end in '/'), sorted. "dir/" lists everything in dir.
std::vector<std::string> complete_path(const std::string& typed);
// The longest common prefix of the completions (what Tab fills in); `typed` when there are none.
std::string complete_common_prefix(const std::string& typed);

}  // namespace splat::ui
