#include <imgui.h>
#include <imgui_stdlib.h>

#include "ui/panels.h"

namespace splat::ui {

void draw_snapshot_panel(ViewerState& state, TrainingController& training) {
  if (!ImGui::CollapsingHeader("Snapshots", ImGuiTreeNodeFlags_DefaultOpen)) return;
  SnapshotSettings& s = state.snapshot;
  ImGui::InputInt("Width", &s.width, 0);
  ImGui::InputInt("Height", &s.height, 0);
  ImGui::InputText("PNG file", &s.png_path);
  ImGui::BeginDisabled(!state.has_content());
  if (ImGui::Button("Save PNG")) state.save_png();
  ImGui::EndDisabled();
  ImGui::InputText("PLY file", &s.ply_path);
  // The name's ending is the format (core/model/splat_files.h); the combo sets it.
  const auto format = splat_format_of(s.ply_path);
  if (ImGui::BeginCombo("Format", format ? splat_format_info(*format).extension : "(unknown ending)")) {
    for (const SplatFormatInfo& f : kSplatFormats) {
      if (ImGui::Selectable(f.extension, format == f.format)) s.ply_path = with_splat_format(s.ply_path, f.format).string();
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", f.description);
    }
    ImGui::EndCombo();
  }
  ImGui::BeginDisabled(!state.has_content());
  if (ImGui::Button("Save PLY")) state.save_ply();
  ImGui::EndDisabled();
  ImGui::InputText("Checkpoint", &s.checkpoint_path);
  const std::string why_not = training.checkpoint_unavailable();
  ImGui::BeginDisabled(!why_not.empty());
  if (ImGui::Button("Save checkpoint")) training.save_checkpoint(state, s.checkpoint_path);
  ImGui::EndDisabled();
  // Disabled items report hover only with this flag; the tooltip says why the button is off.
  if (!why_not.empty() && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("A checkpoint holds the trainer's state (optimizer moments, step, random\n"
                      "streams), so it needs a running or paused session; now: %s", why_not.c_str());
}

}  // namespace splat::ui
