#include <imgui.h>

#include <cmath>
#include <iterator>

#include "ui/panels.h"

namespace splat::ui {
namespace {
// The up axis choices, in UpAxis order (core/scene/up_axis.h): the cameras' estimate (or its
// opposite, for a capture held upside down), then the world axes.
constexpr const char* kUpChoices = "from the cameras\0cameras, flipped\0+X\0-X\0+Y\0-Y\0+Z\0-Z\0";
static_assert(std::size(kUpAxisNames) == 8, "one combo entry per up axis");

// Up axis and crop box: the grid lies under the scene across the up axis; the crop box limits what
// is shown, saved and rendered.
void draw_orientation(ViewerState& state) {
  int up = static_cast<int>(state.up_axis());
  if (ImGui::Combo("Up axis", &up, kUpChoices)) state.set_up_axis(static_cast<UpAxis>(up));
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("levels the grid, the orbit and the view (R: the upright overview)");
  bool crop = state.crop_enabled();
  CropBox box = state.crop();
  bool changed = ImGui::Checkbox("Crop box", &crop);
  if (crop) {
    ImGui::SameLine();
    if (ImGui::Button("Fit##crop")) {
      state.reset_crop();
      box = state.crop();
    }
    float centre[3] = {float(box.center.x), float(box.center.y), float(box.center.z)};
    float size[3] = {float(2 * box.half_size.x), float(2 * box.half_size.y), float(2 * box.half_size.z)};
    float yaw = float(box.yaw);
    const float speed = 0.005f * float(state.frame_radius());
    if (ImGui::DragFloat3("Box centre", centre, speed, 0.f, 0.f, "%.2f")) {
      box.center = {centre[0], centre[1], centre[2]};
      changed = true;
    }
    if (ImGui::DragFloat3("Box size", size, speed, 0.f, 1e6f, "%.2f")) {
      box.half_size = {0.5 * size[0], 0.5 * size[1], 0.5 * size[2]};
      changed = true;
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("across, along the up axis, deep");
    changed |= ImGui::SliderAngle("Box turn", &yaw, -180.f, 180.f);
    box.yaw = yaw;
    ImGui::TextDisabled("%lld of %lld Gaussians inside", static_cast<long long>(state.raster.gaussian_count()),
                        static_cast<long long>(state.gaussian_count()));
  }
  if (changed) state.set_crop(crop, box);
}

// Two scales on one row (the panel column has no room to spare): at rest, and while the camera moves
// during training (ui/motion_resolution.h: how sharp the moves are while training shares the device).
void draw_resolution(ViewSettings& view) {
  const float spacing = ImGui::GetStyle().ItemInnerSpacing.x;
  const float half = 0.5f * (ImGui::CalcItemWidth() - spacing);
  ImGui::SetNextItemWidth(half);
  ImGui::SliderFloat("##resolution", &view.resolution_scale, 0.25f, 1.f, "%.2fx");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("rendered pixels per viewport pixel");
  ImGui::SameLine(0, spacing);
  ImGui::SetNextItemWidth(half);
  ImGui::SliderFloat("Resolution##moving", &view.moving_resolution_scale, 0.25f, 1.f, "moving %.2fx",
                     ImGuiSliderFlags_AlwaysClamp);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Resolution while moving (training): while training runs on the viewer's GPU,\n"
                      "a moving camera renders at this scale (at most Resolution), so its frames fit\n"
                      "between training's; a full frame follows once the camera rests");
}

// What watching a run may cost it (ui/frame_gate.h): how often a new snapshot is rendered, or
// nothing new at all.
void draw_training_view(ViewSettings& view) {
  ImGui::SliderInt("Viewer fps cap", &view.fps_cap, 1, 240, "%d fps", ImGuiSliderFlags_AlwaysClamp);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Viewer fps cap while training: new snapshots render at most this often\n"
                      "(moving the camera still renders every frame)");
  ImGui::Checkbox("Pause view while training", &view.pause_while_training);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("keeps the last frame while training runs; the camera renders nothing new");
}
}  // namespace

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
  draw_resolution(state.view);
  ImGui::SliderInt("SH degree", &state.view.sh_degree, 0, 3);
  float fov_deg = static_cast<float>(state.camera.fov_y() * 180.0 / M_PI);
  if (ImGui::SliderFloat("FOV", &fov_deg, 10.f, 120.f, "%.0f deg")) state.camera.set_fov_y(fov_deg * M_PI / 180.0);
  ImGui::ColorEdit3("Background", state.view.background, ImGuiColorEditFlags_NoInputs);
  ImGui::SameLine();
  ImGui::Checkbox("Anti-aliased", &state.view.antialiased);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Draw as the anti-aliased projection trains (a run opened from its folder sets it)");
  ImGui::Checkbox("Grid", &state.view.show_grid);
  ImGui::SameLine();
  ImGui::Checkbox("Axes", &state.view.show_axes);
  ImGui::SameLine();
  ImGui::Checkbox("Cameras", &state.view.show_frustums);
  if (state.has_content()) draw_orientation(state);
  draw_training_view(state.view);

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
    ImGui::Text("view %d: %s", state.current_view, state.content.scene->views[state.current_view].name.c_str());
  else
    ImGui::TextDisabled("free camera");
  ImGui::TextDisabled("drag: orbit / pan (right), wheel: zoom\nWASD QE: fly, [ ]: cameras, F1: all keys");
}

}  // namespace splat::ui
