#include <imgui.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>

#include "ui/panels.h"

namespace splat::ui {
namespace {
// "view 3 (test): name", the numbering used everywhere (0-based, image-name order).
std::string view_label(const Scene& scene, int v) {
  return "view " + std::to_string(v) + (scene.views[v].is_test ? " (test): " : " (train): ") + scene.views[v].name;
}

void draw_test_psnr(ViewerState& state, ViewCompare& compare) {
  if (compare.evaluating()) {
    char overlay[64];
    std::snprintf(overlay, sizeof overlay, "evaluating %zu / %zu test views", compare.evaluated(), compare.to_evaluate());
    ImGui::ProgressBar(float(double(compare.evaluated()) / double(compare.to_evaluate())), ImVec2(-1, 0), overlay);
  } else if (ImGui::Button("Evaluate test views")) {
    compare.start_evaluation(state);
  }
  const auto& e = compare.evaluation();
  if (!e) {
    ImGui::SameLine();
    ImGui::TextDisabled("PSNR per test view");
    return;
  }
  ImGui::SameLine();
  if (compare.evaluation_current(state)) ImGui::Text("mean %.2f dB", e->psnr);
  else ImGui::TextDisabled("mean %.2f dB (model changed since)", e->psnr);
  const Scene& scene = *state.content.scene;
  const float rows = float(std::min<size_t>(e->views.size(), 8)) + 1.5f;
  if (!ImGui::BeginTable("test psnr", 3, ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersOuter,
                         ImVec2(0, rows * ImGui::GetTextLineHeightWithSpacing())))
    return;
  ImGui::TableSetupScrollFreeze(0, 1);
  ImGui::TableSetupColumn("view", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableSetupColumn("image", ImGuiTableColumnFlags_WidthStretch);
  ImGui::TableSetupColumn("PSNR", ImGuiTableColumnFlags_WidthFixed);
  ImGui::TableHeadersRow();
  for (const ViewMetrics& m : e->views) {
    if (m.view >= int(scene.views.size())) continue;
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    const std::string id = std::to_string(m.view);
    // Choosing a row compares that view with its photo.
    if (ImGui::Selectable(id.c_str(), compare.open && compare.view == m.view, ImGuiSelectableFlags_SpanAllColumns))
      compare.show(m.view);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(m.name.c_str());
    ImGui::TableNextColumn();
    ImGui::Text("%.2f", m.psnr);
  }
  ImGui::EndTable();
}
}  // namespace

void draw_compare_panel(ViewerState& state, ViewCompare& compare) {
  compare.evaluate_next(state);  // one test view per frame while evaluating
  if (compare.open) ImGui::SetNextItemOpen(true, ImGuiCond_Once);
  if (!ImGui::CollapsingHeader("Compare")) return;
  const Scene* scene = state.content.scene.get();
  if (!scene || scene->views.empty()) {
    ImGui::TextDisabled("open a scene with photos to compare");
    return;
  }
  const int n = int(scene->views.size());
  int v = std::clamp(compare.view < 0 ? std::max(state.current_view, 0) : compare.view, 0, n - 1);
  ImGui::SliderInt("View", &v, 0, n - 1);
  compare.view = v;
  ImGui::TextWrapped("%s", view_label(*scene, v).c_str());
  if (ImGui::Button("Compare with photo")) compare.show(v);
  ImGui::SameLine();
  if (ImGui::Button("Go to view")) state.snap_to_view(v);
  draw_test_psnr(state, compare);
}

void draw_compare_window(ViewerState& state, ViewCompare& compare, ViewportTexture& texture) {
  if (!compare.open) return;
  const ImGuiIO& io = ImGui::GetIO();
  ImGui::SetNextWindowSize(ImVec2(0.5f * io.DisplaySize.x, 0.6f * io.DisplaySize.y), ImGuiCond_FirstUseEver);
  ImGui::SetNextWindowPos(ImVec2(0.45f * io.DisplaySize.x, 0.1f * io.DisplaySize.y), ImGuiCond_FirstUseEver);
  if (!ImGui::Begin("Compare with photo", &compare.open)) {
    ImGui::End();
    return;
  }
  int mode = static_cast<int>(compare.params.mode);
  ImGui::RadioButton("split", &mode, 0);
  ImGui::SameLine();
  ImGui::RadioButton("error map", &mode, 1);
  compare.params.mode = static_cast<CompareMode>(mode);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.5f);
  if (compare.params.mode == CompareMode::Split)
    ImGui::SliderFloat("render | photo", &compare.params.split, 0.f, 1.f, "%.2f");
  else
    ImGui::SliderFloat("error at full heat", &compare.params.error_max, 0.01f, 1.f, "%.2f");
  const uint64_t before = compare.image_version();
  bool ok = false;
  try {
    ok = compare.update(state);
  } catch (const std::exception& e) {
    state.notes.error(std::string("comparing with the photo: ") + e.what());
    compare.open = false;
  }
  if (!ok) {
    ImGui::TextDisabled("%s", compare.why().c_str());
    ImGui::End();
    return;
  }
  const Scene& scene = *state.content.scene;
  ImGui::TextUnformatted(view_label(scene, compare.view).c_str());
  ImGui::SameLine();
  if (const auto psnr = compare.view_psnr()) ImGui::Text("  PSNR %.2f dB", *psnr);
  else ImGui::TextDisabled("  no valid pixels");
  if (compare.image_version() != before || !texture.id())
    texture.upload(compare.image());
  // The image fits the window, keeping its aspect ratio.
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float w = float(compare.image().width), h = float(compare.image().height);
  const float scale = std::max(0.01f, std::min(avail.x / w, avail.y / h));
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::Image(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(texture.id())), ImVec2(w * scale, h * scale));
  // Dragging across the image moves the split.
  if (compare.params.mode == CompareMode::Split && ImGui::IsItemHovered() && ImGui::IsMouseDown(ImGuiMouseButton_Left))
    compare.params.split = std::clamp((io.MousePos.x - p0.x) / (w * scale), 0.f, 1.f);
  ImGui::End();
}

}  // namespace splat::ui
