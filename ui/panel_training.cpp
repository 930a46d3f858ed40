#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "kernels/device.h"
#include "ui/panels.h"

namespace splat::ui {
namespace {
const char* state_name(SessionState s) {
  switch (s) {
    case SessionState::Idle: return "idle";
    case SessionState::Running: return "running";
    case SessionState::Paused: return "paused";
    case SessionState::Finished: return "finished";
    case SessionState::Failed: return "failed";
  }
  return "?";
}
}  // namespace

void draw_training_panel(ViewerState& state, TrainingController& training) {
  if (!ImGui::CollapsingHeader("Training", ImGuiTreeNodeFlags_DefaultOpen)) return;
  TrainingSettings& s = training.settings;
  const SessionState st = training.state();
  const bool running = st == SessionState::Running || st == SessionState::Paused;
  const bool trainable = state.content.scene != nullptr && !state.loader.busy();

  // Settings fixed for a run.
  ImGui::BeginDisabled(running);
  ImGui::InputInt("Steps", &s.steps, 1000);
  s.steps = std::max(1, s.steps);
  ImGui::Combo("Strategy", &s.strategy, kStrategies, IM_ARRAYSIZE(kStrategies));
  ImGui::InputInt("Eval every", &s.eval_every, 100);
  s.eval_every = std::max(0, s.eval_every);
  ImGui::EndDisabled();
  const int gpus = kernels::cuda_device_count();
  if (training.device() == kernels::Device::CUDA)
    ImGui::Text("GPUs: 1 of %d (multi-GPU training is headless only)", gpus);
  else
    ImGui::TextDisabled("GPUs: none, training on the CPU backend");

  // Settings applied at the next step boundary.
  bool changed = ImGui::SliderInt("Batch size", &s.batch_size, 1, 16);
  changed |= ImGui::Checkbox("Packed", &s.packed);
  ImGui::SameLine();
  changed |= ImGui::Checkbox("AMP", &s.amp);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("recorded only: mixed precision is not implemented yet");
  changed |= ImGui::SliderInt("SH degree cap", &s.sh_degree, 0, 3);
  if (changed) training.apply_live_settings();

  if (!running) {
    ImGui::BeginDisabled(!trainable);
    if (ImGui::Button("Start")) training.start(state);
    ImGui::EndDisabled();
  } else if (st == SessionState::Paused) {
    if (ImGui::Button("Resume")) training.resume();
  } else {
    if (ImGui::Button("Pause")) training.pause();
  }
  ImGui::SameLine();
  ImGui::BeginDisabled(!running);
  if (ImGui::Button("Stop")) training.stop();
  ImGui::EndDisabled();
  ImGui::SameLine();
  ImGui::BeginDisabled(!training.active());
  if (ImGui::Button("Reset")) training.reset(state);
  ImGui::EndDisabled();

  const float done = static_cast<float>(training.steps_done()) / static_cast<float>(s.steps);
  char label[64];
  std::snprintf(label, sizeof label, "%d / %d (%s)", training.steps_done(), s.steps, state_name(st));
  ImGui::ProgressBar(done, ImVec2(-1, 0), label);
  if (!trainable && !running) ImGui::TextDisabled("open a COLMAP scene to train");
}

}  // namespace splat::ui
