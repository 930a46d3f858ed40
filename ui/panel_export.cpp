#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "ui/panels.h"

namespace splat::ui {
namespace {
void draw_settings(ViewerState& state, PathExportJob& job) {
  PathRequest& r = job.settings.request;
  int kind = static_cast<int>(r.kind);
  ImGui::RadioButton("orbit", &kind, 0);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("a circle about the up axis, looking at what the cameras look at");
  ImGui::SameLine();
  ImGui::RadioButton("cameras", &kind, 1);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("the scene's views in order (0-based, image-name order)");
  r.kind = static_cast<PathKind>(kind);
  // The request's defaults (-1 frames, 0 pixels) are shown as what they mean, never as those numbers.
  const std::vector<SceneView>* views = state.content.scene ? &state.content.scene->views : nullptr;
  const int view_count = views ? static_cast<int>(views->size()) : 0;
  bool auto_frames = r.frames < 0;
  if (ImGui::Checkbox("Frames: the path's default", &auto_frames))
    r.frames = auto_frames ? -1 : r.kind == PathKind::Orbit ? kDefaultOrbitFrames : std::max(1, view_count);
  if (auto_frames) {
    ImGui::SameLine();
    if (r.kind == PathKind::Orbit) ImGui::TextDisabled("(%d)", kDefaultOrbitFrames);
    else ImGui::TextDisabled("(one per view: %d)", view_count);
  } else {
    ImGui::InputInt("Frames", &r.frames);
    r.frames = std::clamp(r.frames, 1, 100000);
  }
  const PinholeIntrinsics first = views && !views->empty() ? views->front().intrinsics : PinholeIntrinsics{};
  bool auto_size = r.width <= 0 && r.height <= 0;
  if (ImGui::Checkbox("Size: the first view's", &auto_size)) {
    r.width = auto_size ? 0 : std::max(16, first.width);
    r.height = auto_size ? 0 : std::max(16, first.height);
  }
  if (auto_size) {
    ImGui::SameLine();
    ImGui::TextDisabled("(%d x %d)", first.width, first.height);
  } else {
    ImGui::InputInt("Width", &r.width, 16, 128);
    ImGui::InputInt("Height", &r.height, 16, 128);
    r.width = std::clamp(r.width, 16, 16384);
    r.height = std::clamp(r.height, 16, 16384);
  }
  char dir[1024];
  std::snprintf(dir, sizeof dir, "%s", job.settings.out_dir.c_str());
  if (ImGui::InputText("Folder", dir, sizeof dir)) job.settings.out_dir = dir;
  ImGui::TextDisabled("-> %s", std::filesystem::absolute(job.settings.out_dir).lexically_normal().c_str());
  ImGui::TextDisabled("the cameras go beside the frames as %s (render --path FILE.json)", kCameraPathFileName);
  if (state.crop_enabled()) ImGui::TextDisabled("the crop box applies");
  if (ImGui::Button("Export")) {
    job.start(state);
    if (job.running()) job.dialog_open = false;
  }
  ImGui::SameLine();
  if (ImGui::Button("Cancel##path")) job.dialog_open = false;
}
}  // namespace

void draw_path_export(ViewerState& state, PathExportJob& job) {
  if (job.running()) {
    ImGui::SetNextWindowPos(ImVec2(0.5f * ImGui::GetIO().DisplaySize.x, 0.5f * ImGui::GetIO().DisplaySize.y),
                            ImGuiCond_Always, ImVec2(0.5f, 0.5f));
    ImGui::Begin("Exporting camera path", nullptr, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoCollapse);
    char overlay[64];
    std::snprintf(overlay, sizeof overlay, "%zu / %zu frames", job.done(), job.frames());
    ImGui::ProgressBar(float(double(job.done()) / double(std::max<size_t>(1, job.frames()))), ImVec2(300, 0), overlay);
    if (ImGui::Button("Stop##path")) job.cancel(state);
    ImGui::End();
    job.step(state);  // one frame per GUI frame
    return;
  }
  if (!job.dialog_open) return;
  ImGui::SetNextWindowPos(ImVec2(0.5f * ImGui::GetIO().DisplaySize.x, 0.4f * ImGui::GetIO().DisplaySize.y),
                          ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  if (ImGui::Begin("Export camera path", &job.dialog_open, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoCollapse))
    draw_settings(state, job);
  ImGui::End();
}

}  // namespace splat::ui
