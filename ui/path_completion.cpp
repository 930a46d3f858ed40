#include "ui/path_completion.h"

#include <algorithm>

namespace splat::ui {
namespace fs = std::filesystem;

FolderListing list_folder(const fs::path& folder) {
  FolderListing out;
  std::error_code ec;
  fs::directory_iterator it(folder, ec), end;
  if (ec) {
    out.error = folder.string() + ": " + ec.message();
    return out;
  }
  for (; it != end; it.increment(ec)) {
    if (ec) break;
    const std::string name = it->path().filename().string();
    if (name.empty() || name[0] == '.') continue;
    std::error_code type_ec;
    if (it->is_directory(type_ec)) {
      out.folders.push_back(name);
    } else if (it->path().extension() == ".ply") {
      out.ply_files.push_back(name);
    }
  }
  std::sort(out.folders.begin(), out.folders.end());
  std::sort(out.ply_files.begin(), out.ply_files.end());
  return out;
}

std::vector<std::string> complete_path(const std::string& typed) {
  const size_t slash = typed.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "" : typed.substr(0, slash + 1);
  const std::string stem = slash == std::string::npos ? typed : typed.substr(slash + 1);
  const FolderListing listing = list_folder(dir.empty() ? fs::path(".") : fs::path(dir));
  std::vector<std::string> out;
  for (const std::string& f : listing.folders)
    if (f.rfind(stem, 0) == 0) out.push_back(dir + f + "/");
  for (const std::string& f : listing.ply_files)
    if (f.rfind(stem, 0) == 0) out.push_back(dir + f);
  std::sort(out.begin(), out.end());
  return out;
}

std::string complete_common_prefix(const std::string& typed) {
  const std::vector<std::string> all = complete_path(typed);
  if (all.empty()) return typed;
  std::string prefix = all.front();
  for (const std::string& s : all) {
    size_t n = 0;
    while (n < prefix.size() && n < s.size() && prefix[n] == s[n]) ++n;
    prefix.resize(n);
  }
  return prefix.size() >= typed.size() ? prefix : typed;
}

}  // namespace splat::ui
