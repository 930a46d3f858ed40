#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cstdio>
#include <vector>

#include "ui/panels.h"

namespace splat::ui {
namespace {
// PlotLines against the entry index, with a tooltip naming the step under the mouse: metrics are
// recorded every few steps, so the index alone would not say which step a value belongs to.
void plot_with_steps(const char* label, const std::vector<float>& steps, const std::vector<float>& values,
                     const char* fmt) {
  if (values.empty()) {
    ImGui::TextDisabled("%s: no values yet", label);
    return;
  }
  char overlay[64];
  std::snprintf(overlay, sizeof overlay, fmt, values.back());
  ImGui::PlotLines(label, values.data(), static_cast<int>(values.size()), 0, overlay, FLT_MAX, FLT_MAX,
                   ImVec2(0, 70));
  if (ImGui::IsItemHovered() && values.size() > 1) {
    const float x0 = ImGui::GetItemRectMin().x, w = ImGui::CalcItemWidth();
    const float t = std::clamp((ImGui::GetIO().MousePos.x - x0) / w, 0.f, 0.9999f);
    const size_t i = static_cast<size_t>(t * (values.size() - 1) + 0.5f);
    char text[64];
    std::snprintf(text, sizeof text, fmt, values[i]);
    ImGui::SetTooltip("step %d: %s", static_cast<int>(steps[i]), text);
  }
}
}  // namespace

void draw_metrics_panel(const TrainingController& training) {
  if (!ImGui::CollapsingHeader("Metrics", ImGuiTreeNodeFlags_DefaultOpen)) return;
  const MetricHistory& h = training.history;
  ImGui::Text("step %d, %lld Gaussians", h.last_step, static_cast<long long>(h.gaussians));
  ImGui::Text("%.1f images/s", h.images_per_s);
  if (const auto mem = training.gpu_memory_mb())
    ImGui::Text("GPU memory %.0f MiB", *mem);
  plot_with_steps("loss", h.loss_step, h.loss, "%.4f");
  plot_with_steps("test PSNR", h.psnr_step, h.psnr, "%.2f dB");
}

}  // namespace splat::ui
