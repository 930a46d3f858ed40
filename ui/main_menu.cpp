#include <imgui.h>

#include <algorithm>

#include "ui/panels.h"

namespace splat::ui {

bool draw_main_menu(ViewerState& state, FolderBrowser& browser, ViewerTools& tools) {
  bool keep_running = true;
  if (!ImGui::BeginMainMenuBar()) return keep_running;
  if (ImGui::BeginMenu("File")) {
    const bool idle = !state.loader.busy();
    if (ImGui::MenuItem("Open...", nullptr, false, idle)) {
      // Start beside the last scene opened: sibling scenes usually live together.
      const auto& recent = state.recent.items();
      const std::filesystem::path start = recent.empty() ? std::filesystem::path(".") : std::filesystem::path(recent.front()).parent_path();
      browser.show(start.empty() ? std::filesystem::path(".") : start);
    }
    if (ImGui::MenuItem("Demo scene", nullptr, false, idle)) state.open_demo();
    if (ImGui::BeginMenu("Recent", idle && !state.recent.items().empty())) {
      for (const std::string& r : state.recent.items())
        if (ImGui::MenuItem(r.c_str())) state.open(r);
      ImGui::EndMenu();
    }
    ImGui::Separator();
    if (ImGui::MenuItem("Save PNG snapshot", nullptr, false, state.has_content())) state.save_png();
    if (ImGui::MenuItem("Save PLY snapshot", nullptr, false, state.has_content())) state.save_ply(SplatFormat::Ply);
    if (ImGui::MenuItem("Save compressed PLY snapshot", nullptr, false, state.has_content()))
      state.save_ply(SplatFormat::CompressedPly);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", splat_format_info(SplatFormat::CompressedPly).description);
    const bool posed = state.content.scene && !state.content.scene->views.empty();
    if (ImGui::MenuItem("Export camera path...", nullptr, false, posed && !tools.path_export.running()))
      tools.path_export.dialog_open = true;
    ImGui::Separator();
    if (ImGui::MenuItem("Quit")) keep_running = false;
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu("View")) {
    if (ImGui::MenuItem("Reset view", "R")) state.reset_view();
    if (ImGui::MenuItem("Frame scene", "F")) state.frame_scene();
    if (ImGui::MenuItem("Nearest training camera", "N")) state.snap_nearest();
    if (ImGui::MenuItem("Next training camera", "]")) state.step_view(+1);
    if (ImGui::MenuItem("Previous training camera", "[")) state.step_view(-1);
    if (ImGui::MenuItem("Compare with photo", nullptr, false, state.content.scene != nullptr))
      tools.compare.show(state.current_view >= 0 ? state.current_view : std::max(tools.compare.view, 0));
    ImGui::Separator();
    ImGui::MenuItem("Ground grid", nullptr, &state.view.show_grid);
    ImGui::MenuItem("Axes", nullptr, &state.view.show_axes);
    ImGui::MenuItem("Camera frustums", nullptr, &state.view.show_frustums);
    ImGui::Separator();
    if (ImGui::MenuItem("Reset layout")) tools.reset_layout = true;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("the Plots window back along the bottom of the viewport");
    ImGui::EndMenu();
  }
  ImGui::EndMainMenuBar();
  return keep_running;
}

}  // namespace splat::ui
