#include "ui/folder_browser.h"

#include <imgui.h>
#include <imgui_stdlib.h>

namespace splat::ui {
namespace fs = std::filesystem;
namespace {
constexpr const char* kPopup = "Open scene";

// Tab in the path field: replace the text by the longest common completion.
int complete_on_tab(ImGuiInputTextCallbackData* data) {
  if (data->EventFlag != ImGuiInputTextFlags_CallbackCompletion) return 0;
  const std::string typed(data->Buf, data->BufTextLen);
  const std::string completed = complete_common_prefix(typed);
  if (completed != typed) {
    data->DeleteChars(0, data->BufTextLen);
    data->InsertChars(0, completed.c_str());
  }
  return 0;
}

std::string with_slash(const fs::path& p) {
  std::string s = p.string();
  if (s.empty() || s.back() != '/') s += '/';
  return s;
}

// "/a/b/" and "/a/b" both go up to "/a"; the root stays the root.
fs::path parent_folder(const fs::path& folder) {
  std::string s = folder.string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  const fs::path parent = fs::path(s).parent_path();
  return parent.empty() ? fs::path(s) : parent;
}
}  // namespace

void FolderBrowser::show(const fs::path& folder) {
  request_ = true;
  navigate(folder);
}

void FolderBrowser::navigate(const fs::path& folder) {
  std::error_code ec;
  const fs::path abs = fs::absolute(folder, ec).lexically_normal();
  path_ = with_slash(ec ? folder : abs);
}

std::optional<fs::path> FolderBrowser::draw(const RecentScenes& recent) {
  if (request_) {
    ImGui::OpenPopup(kPopup);
    request_ = false;
  }
  const ImVec2 size = ImGui::GetIO().DisplaySize;
  ImGui::SetNextWindowSize(ImVec2(size.x * 0.6f, size.y * 0.7f), ImGuiCond_Appearing);
  if (!ImGui::BeginPopupModal(kPopup)) return std::nullopt;
  std::optional<fs::path> chosen;

  ImGui::TextUnformatted("Path (Tab completes):");
  ImGui::SetNextItemWidth(-1);
  ImGui::InputText("##path", &path_, ImGuiInputTextFlags_CallbackCompletion, complete_on_tab);

  // The folder the field points into: the field itself when it ends in '/', else its parent.
  const fs::path field(path_);
  const fs::path folder = !path_.empty() && path_.back() == '/' ? field : field.parent_path();
  if (folder.string() != listed_) {
    listing_ = list_folder(folder.empty() ? fs::path(".") : folder);
    listed_ = folder.string();
  }

  if (ImGui::Button("Up")) navigate(parent_folder(folder));
  ImGui::SameLine();
  if (ImGui::Button("Open this folder")) chosen = folder;
  ImGui::SameLine();
  if (ImGui::Button("Cancel")) ImGui::CloseCurrentPopup();

  const float list_height = ImGui::GetContentRegionAvail().y - ImGui::GetTextLineHeightWithSpacing() * 7;
  ImGui::BeginChild("listing", ImVec2(0, list_height), true);
  if (!listing_.error.empty()) ImGui::TextColored(ImVec4(1, 0.45f, 0.4f, 1), "%s", listing_.error.c_str());
  for (const std::string& f : listing_.folders)
    if (ImGui::Selectable((f + "/").c_str())) navigate(folder / f);
  for (const std::string& f : listing_.ply_files)
    if (ImGui::Selectable(f.c_str())) chosen = folder / f;
  ImGui::EndChild();

  ImGui::TextUnformatted("Recent:");
  ImGui::BeginChild("recent", ImVec2(0, 0), true);
  if (recent.items().empty()) ImGui::TextDisabled("(none yet)");
  for (const std::string& r : recent.items())
    if (ImGui::Selectable(r.c_str())) chosen = fs::path(r);
  ImGui::EndChild();

  if (chosen) ImGui::CloseCurrentPopup();
  ImGui::EndPopup();
  return chosen;
}

}  // namespace splat::ui
