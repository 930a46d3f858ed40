#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "ui/panels.h"
#include "ui/plot_series.h"

namespace splat::ui {
namespace {
constexpr int kPlotSamples = 200;  // PlotLines points: the series is resampled evenly along x

struct Series {
  const std::vector<float>* y;
  ImU32 color;
  float thickness;
};

// Metric lines against x (training images or wall seconds) in a framed box with axes: the y range
// labelled at the top and bottom, the x range under it and the axis name, and on hover the recorded
// entry nearest the mouse (images, wall time and each series' value). The first series sets the range.
void plot_metric(const char* label, const char* x_name, const std::vector<float>& x, const std::vector<Series>& series,
                 const std::vector<float>& images, const std::vector<float>& wall, const char* fmt) {
  const std::vector<float>& main = *series.front().y;
  if (main.empty()) {
    ImGui::TextDisabled("%s: no values yet", label);
    return;
  }
  ImGui::TextUnformatted(label);
  float lo = FLT_MAX, hi = -FLT_MAX;
  for (const Series& s : series)
    for (float v : *s.y) lo = std::min(lo, v), hi = std::max(hi, v);
  if (hi - lo < 1e-6f) hi = lo + 1e-6f;
  char top[32], bottom[32];
  std::snprintf(top, sizeof top, fmt, hi);
  std::snprintf(bottom, sizeof bottom, fmt, lo);
  const float axis_w = std::max(ImGui::CalcTextSize(top).x, ImGui::CalcTextSize(bottom).x) + 6.f;
  const float line_h = ImGui::GetTextLineHeight();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  const float w = std::max(40.f, ImGui::GetContentRegionAvail().x - axis_w), h = 80.f;
  const ImVec2 p0(origin.x + axis_w, origin.y), p1(p0.x + w, p0.y + h);
  ImDrawList* draw = ImGui::GetWindowDrawList();
  draw->AddRectFilled(p0, p1, ImGui::GetColorU32(ImGuiCol_FrameBg));
  draw->AddRect(p0, p1, ImGui::GetColorU32(ImGuiCol_Border));
  const ImU32 text = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  draw->AddText(ImVec2(origin.x, p0.y), text, top);
  draw->AddText(ImVec2(origin.x, p1.y - line_h), text, bottom);
  const float x0 = x.front(), x1 = std::max(x.back(), x.front() + 1e-6f);
  for (const Series& s : series) {
    const std::vector<float> even = resample_even(x, *s.y, kPlotSamples);
    std::vector<ImVec2> points(even.size());
    for (size_t i = 0; i < even.size(); ++i) {
      const float t = even.size() > 1 ? float(i) / float(even.size() - 1) : 0.f;
      points[i] = ImVec2(p0.x + t * w, p1.y - (even[i] - lo) / (hi - lo) * h);
    }
    draw->AddPolyline(points.data(), static_cast<int>(points.size()), s.color, 0, s.thickness);
  }
  ImGui::Dummy(ImVec2(axis_w + w, h));
  const bool hovered = ImGui::IsItemHovered();
  char left[32], right[32];
  std::snprintf(left, sizeof left, "%.0f", x0);
  std::snprintf(right, sizeof right, "%.0f", x1);
  ImGui::SetCursorScreenPos(ImVec2(p0.x, ImGui::GetCursorScreenPos().y));
  ImGui::TextDisabled("%s", left);
  ImGui::SameLine(0, 0);
  const float name_w = ImGui::CalcTextSize(x_name).x, right_w = ImGui::CalcTextSize(right).x;
  ImGui::SetCursorScreenPos(ImVec2(p0.x + 0.5f * (w - name_w), ImGui::GetCursorScreenPos().y));
  ImGui::TextDisabled("%s", x_name);
  ImGui::SameLine(0, 0);
  ImGui::SetCursorScreenPos(ImVec2(p1.x - right_w, ImGui::GetCursorScreenPos().y));
  ImGui::TextDisabled("%s", right);
  if (hovered) {
    const float t = std::clamp((ImGui::GetIO().MousePos.x - p0.x) / w, 0.f, 1.f);
    const size_t i = nearest_index(x, x0 + t * (x1 - x0));
    std::string tip = "image " + std::to_string(static_cast<long long>(images[i])) + ", " +
                      std::to_string(static_cast<int>(wall[i])) + " s:";
    for (const Series& s : series) {
      char v[32];
      std::snprintf(v, sizeof v, fmt, (*s.y)[i]);
      tip += std::string(" ") + v;
    }
    ImGui::SetTooltip("%s", tip.c_str());
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

// The trainer's memory by role (the newest record's TrainingMemory): what the GPU's total is made of.
void draw_training_memory(const MetricHistory& h) {
  if (!ImGui::TreeNode("Training memory")) return;
  if (!h.memory) {
    ImGui::TextDisabled("no record yet");
    ImGui::TreePop();
    return;
  }
  const TrainingMemory& m = *h.memory;
  const std::pair<const char*, size_t> rows[] = {
      {"parameters", m.parameters}, {"Adam moments", m.optimizer}, {"gradients", m.gradients},
      {"densify stats", m.statistics}, {"photos", m.photos},      {"renders", m.renders},
      {"raster workspace", m.workspace}};
  const double total = double(std::max<size_t>(m.total(), 1));
  if (ImGui::BeginTable("memory", 2)) {
    ImGui::TableSetupColumn("role", ImGuiTableColumnFlags_WidthFixed, ImGui::CalcTextSize("raster workspace").x);
    ImGui::TableSetupColumn("MiB", ImGuiTableColumnFlags_WidthStretch);
    for (const auto& [name, bytes] : rows) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(name);
      ImGui::TableNextColumn();
      char label[32];
      std::snprintf(label, sizeof label, "%.1f MiB", double(bytes) / (1024.0 * 1024.0));
      ImGui::ProgressBar(float(double(bytes) / total), ImVec2(-1, 0), label);
    }
    ImGui::EndTable();
  }
  if (m.gaussians > 0)
    ImGui::Text("training state: %.0f bytes per Gaussian", double(m.state()) / double(m.gaussians));
  ImGui::TreePop();
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
  ImGui::Text("image %d (step %d), %lld Gaussians", h.last_images, h.last_step, static_cast<long long>(h.gaussians));
  ImGui::Text("%.1f images/s", h.images_per_s);
  draw_device_memory(training);
  draw_training_memory(h);
  draw_step_share(training);
}

void draw_plots(TrainingController& training) {
  const MetricHistory& h = training.history;
  int against = training.plot_wall_time ? 1 : 0;
  ImGui::TextUnformatted("plot against");
  ImGui::SameLine();
  ImGui::RadioButton("images", &against, 0);
  ImGui::SameLine();
  ImGui::RadioButton("wall time", &against, 1);
  training.plot_wall_time = against == 1;
  const char* x_name = against ? "wall time (s)" : "training images";
  const ImU32 line = ImGui::GetColorU32(ImGuiCol_PlotLines);
  const ImU32 faint = ImGui::GetColorU32(ImGuiCol_PlotLines, 0.3f);
  // Side by side: one row of plots fits a strip along the bottom of the viewport.
  if (!ImGui::BeginTable("plots", 2, ImGuiTableFlags_SizingStretchSame)) return;
  ImGui::TableNextColumn();
  // The raw loss jumps from photo to photo; its moving average shows the trend.
  plot_metric("loss (smoothed; raw faint)", x_name, against ? h.loss_wall : h.loss_images,
              {{&h.loss_smooth, line, 2.f}, {&h.loss, faint, 1.f}}, h.loss_images, h.loss_wall, "%.4f");
  ImGui::TableNextColumn();
  plot_metric("test PSNR (dB)", x_name, against ? h.psnr_wall : h.psnr_images, {{&h.psnr, line, 2.f}},
              h.psnr_images, h.psnr_wall, "%.2f");
  ImGui::EndTable();
}

}  // namespace splat::ui
