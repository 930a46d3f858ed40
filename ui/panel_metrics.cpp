#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cstdio>
#include <vector>

#include "ui/panels.h"
#include "ui/plot_series.h"

namespace splat::ui {
namespace {
constexpr int kPlotSamples = 200;  // PlotLines points: the series is resampled evenly along x

// One metric plotted against step or wall time (`x` is the chosen column). PlotLines spaces its
// values evenly, so the series is resampled along x first; the tooltip names the recorded entry
// nearest the mouse with both its step and its wall time.
void plot_metric(const char* label, const std::vector<float>& x, const std::vector<float>& steps,
                 const std::vector<float>& wall, const std::vector<float>& values, const char* fmt) {
  if (values.empty()) {
    ImGui::TextDisabled("%s: no values yet", label);
    return;
  }
  const std::vector<float> even = resample_even(x, values, kPlotSamples);
  char overlay[64];
  std::snprintf(overlay, sizeof overlay, fmt, values.back());
  ImGui::PlotLines(label, even.data(), static_cast<int>(even.size()), 0, overlay, FLT_MAX, FLT_MAX,
                   ImVec2(0, 70));
  if (ImGui::IsItemHovered()) {
    const float x0 = ImGui::GetItemRectMin().x, w = ImGui::CalcItemWidth();
    const float t = std::clamp((ImGui::GetIO().MousePos.x - x0) / w, 0.f, 1.f);
    const size_t i = nearest_index(x, x.front() + t * (x.back() - x.front()));
    char text[64];
    std::snprintf(text, sizeof text, fmt, values[i]);
    ImGui::SetTooltip("step %d, %.1f s: %s", static_cast<int>(steps[i]), wall[i], text);
  }
}

void draw_device_memory(const TrainingController& training) {
  if (training.device() != kernels::Device::CUDA) {
    ImGui::Text("memory: CPU backend");
    return;
  }
  const auto& devices = training.device_memory();
  if (devices.empty()) ImGui::TextDisabled("GPU memory: no device answered");
  for (size_t d = 0; d < devices.size(); ++d) {
    if (!devices[d]) {
      ImGui::TextDisabled("GPU %zu: unavailable", d);
      continue;
    }
    constexpr double kMiB = 1024.0 * 1024.0;
    const double used = double(devices[d]->used_bytes) / kMiB, total = double(devices[d]->total_bytes) / kMiB;
    char label[64];
    std::snprintf(label, sizeof label, "GPU %zu: %.0f / %.0f MiB", d, used, total);
    ImGui::ProgressBar(total > 0 ? float(used / total) : 0.f, ImVec2(-1, 0), label);
  }
}

// Profiling waits for every step on the device (Trainer::set_profiling), so the controller turns
// it on only while this section is open; closing it (or the whole Metrics panel) turns it off.
void draw_step_share(TrainingController& training) {
  const bool open = ImGui::TreeNode("Step-time share");
  training.set_step_share_shown(open);
  if (!open) return;
  const auto& share = training.step_share();
  if (!training.active()) {
    ImGui::TextDisabled("no training session");
  } else if (!share) {
    ImGui::TextDisabled("profiling the next steps...");
  } else {
    ImGui::Text("%.1f ms/step (device), %lld steps", share->ms_per_step, static_cast<long long>(share->steps));
    if (ImGui::BeginTable("share", 2)) {
      ImGui::TableSetupColumn("part", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("render backward").x);
      ImGui::TableSetupColumn("share", ImGuiTableColumnFlags_WidthStretch);
      for (int p = 0; p < kStepPartCount; ++p) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(step_part_name(static_cast<StepPart>(p)));
        ImGui::TableNextColumn();
        char label[32];
        std::snprintf(label, sizeof label, "%.1f %%", 100.0 * share->fraction[p]);
        ImGui::ProgressBar(float(share->fraction[p]), ImVec2(-1, 0), label);
      }
      ImGui::EndTable();
    }
  }
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::TextWrapped("Profiling waits for each step to finish: training runs a little slower while this is open.");
  ImGui::PopStyleColor();
  ImGui::TreePop();
}
}  // namespace

void draw_metrics_panel(TrainingController& training) {
  if (!ImGui::CollapsingHeader("Metrics", ImGuiTreeNodeFlags_DefaultOpen)) {
    training.set_step_share_shown(false);
    return;
  }
  const MetricHistory& h = training.history;
  ImGui::Text("step %d, %lld Gaussians", h.last_step, static_cast<long long>(h.gaussians));
  ImGui::Text("%.1f images/s", h.images_per_s);
  draw_device_memory(training);
  int against = training.plot_wall_time ? 1 : 0;
  ImGui::TextUnformatted("plot against");
  ImGui::SameLine();
  ImGui::RadioButton("step", &against, 0);
  ImGui::SameLine();
  ImGui::RadioButton("wall time", &against, 1);
  training.plot_wall_time = against == 1;
  plot_metric("loss", against ? h.loss_wall : h.loss_step, h.loss_step, h.loss_wall, h.loss, "%.4f");
  plot_metric("test PSNR", against ? h.psnr_wall : h.psnr_step, h.psnr_step, h.psnr_wall, h.psnr, "%.2f dB");
  draw_step_share(training);
}

}  // namespace splat::ui
