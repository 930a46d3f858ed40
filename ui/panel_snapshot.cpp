#include <imgui.h>
#include <imgui_stdlib.h>

#include "ui/panels.h"

namespace splat::ui {

void draw_snapshot_panel(ViewerState& state) {
  if (!ImGui::CollapsingHeader("Snapshots", ImGuiTreeNodeFlags_DefaultOpen)) return;
  SnapshotSettings& s = state.snapshot;
  ImGui::InputInt("Width", &s.width, 0);
  ImGui::InputInt("Height", &s.height, 0);
  ImGui::InputText("PNG file", &s.png_path);
  ImGui::BeginDisabled(!state.has_content());
  if (ImGui::Button("Save PNG")) state.save_png();
  ImGui::EndDisabled();
  ImGui::InputText("PLY file", &s.ply_path);
  ImGui::BeginDisabled(!state.has_content());
  if (ImGui::Button("Save PLY")) state.save_ply();
  ImGui::EndDisabled();
}

}  // namespace splat::ui
