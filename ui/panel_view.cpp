#include <imgui.h>

#include <cmath>

#include "ui/panels.h"

namespace splat::ui {

void draw_view_panel(ViewerState& state) {
  if (!ImGui::CollapsingHeader("View", ImGuiTreeNodeFlags_DefaultOpen)) return;
  if (state.has_content()) {
    ImGui::TextWrapped("%s", state.content.source.c_str());
    ImGui::Text("%lld Gaussians", static_cast<long long>(state.gaussian_count()));
    if (state.content.scene)
      ImGui::Text("%zu cameras (%zu train)", state.content.scene->views.size(),
                  state.content.scene->train_indices().size());
  } else {
    ImGui::TextDisabled("Nothing open: File > Open or File > Demo scene");
  }
  ImGui::Separator();

  int mode = static_cast<int>(state.view.mode);
  ImGui::Combo("Render", &mode, "RGB\0Depth\0Alpha\0");
  state.view.mode = static_cast<RenderMode>(mode);
  ImGui::SliderFloat("Resolution", &state.view.resolution_scale, 0.25f, 1.f, "%.2fx");
  ImGui::SliderInt("SH degree", &state.view.sh_degree, 0, 3);
  float fov_deg = static_cast<float>(state.camera.fov_y() * 180.0 / M_PI);
  if (ImGui::SliderFloat("FOV", &fov_deg, 10.f, 120.f, "%.0f deg")) state.camera.set_fov_y(fov_deg * M_PI / 180.0);
  ImGui::ColorEdit3("Background", state.view.background, ImGuiColorEditFlags_NoInputs);
  ImGui::Checkbox("Grid", &state.view.show_grid);
  ImGui::SameLine();
  ImGui::Checkbox("Axes", &state.view.show_axes);
  ImGui::SameLine();
  ImGui::Checkbox("Cameras", &state.view.show_frustums);

  ImGui::Separator();
  if (ImGui::Button("Reset##view")) state.reset_view();
  ImGui::SameLine();
  if (ImGui::Button("Frame##view")) state.frame_scene();
  ImGui::SameLine();
  if (ImGui::Button("Nearest##view")) state.snap_nearest();
  if (ImGui::ArrowButton("prev", ImGuiDir_Left)) state.step_view(-1);
  ImGui::SameLine();
  if (ImGui::ArrowButton("next", ImGuiDir_Right)) state.step_view(+1);
  ImGui::SameLine();
  if (state.current_view >= 0 && state.content.scene)
    ImGui::Text("camera %d: %s", state.current_view, state.content.scene->views[state.current_view].name.c_str());
  else
    ImGui::TextDisabled("free camera");
  ImGui::TextDisabled("drag: orbit / pan (right), wheel: zoom\nWASD QE: fly, [ ]: cameras, F1: all keys");
}

}  // namespace splat::ui
