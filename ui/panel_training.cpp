#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string_view>

#include "kernels/device.h"
#include "ui/panels.h"

namespace splat::ui {
namespace {
const char* state_name(SessionState s) {
  switch (s) {
    case SessionState::Idle: return "idle";
    case SessionState::Running: return "running";
    case SessionState::Paused: return "paused";
    case SessionState::Stopped: return "stopped";
    case SessionState::Finished: return "finished";
    case SessionState::Failed: return "failed";
  }
  return "?";
}

// "1h02m", "3m07s", "12s": short enough for the progress line.
void format_duration(char* out, size_t n, double s) {
  const long t = static_cast<long>(s + 0.5);
  if (t >= 3600) std::snprintf(out, n, "%ldh%02ldm", t / 3600, t % 3600 / 60);
  else if (t >= 60) std::snprintf(out, n, "%ldm%02lds", t / 60, t % 60);
  else std::snprintf(out, n, "%lds", t);
}

constexpr int kDataFactors[] = {1, 2, 4, 8};
constexpr const char* kDataFactorNames[] = {"1 (full)", "2", "4", "8"};

// The data factor loads the scene's photos smaller: training cost falls with the pixel count. It
// applies by opening the scene again, so the caller disables it while a session exists.
void draw_data_factor(ViewerState& state) {
  const bool demo = state.content.demo;
  const int factor = demo ? state.content.data_factor : state.data_factor;
  int index = 0;
  while (index < 3 && kDataFactors[index] < factor) ++index;
  ImGui::BeginDisabled(demo || state.loader.busy());
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6.5f);  // shares its row with the Masks choice
  if (ImGui::Combo("Data factor", &index, kDataFactorNames, IM_ARRAYSIZE(kDataFactorNames)) &&
      kDataFactors[index] != state.data_factor) {
    state.data_factor = kDataFactors[index];
    state.reopen();
  }
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip(demo ? "the demo scene is generated small: it always trains at full size"
                           : "photos load at 1/factor size (the scene is opened again)");
}
// What a capture's masks/ folder means for training (core/scene/user_masks.h): like the data factor
// it applies by opening the scene again. Alpha fills with the View panel's background as the scene
// opens, which is also the background the run trains with.
void draw_mask_mode(ViewerState& state) {
  const bool demo = state.content.demo;
  int index = state.mask_mode == MaskMode::Alpha ? 1 : 0;
  constexpr const char* kNames[] = {"ignore", "alpha"};
  ImGui::SameLine();  // beside the data factor: a row more would push the panels below out of a small window
  ImGui::BeginDisabled(demo || state.loader.busy());
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 5.0f);
  if (ImGui::Combo("Masks", &index, kNames, IM_ARRAYSIZE(kNames))) {
    const MaskMode chosen = index == 1 ? MaskMode::Alpha : MaskMode::Ignore;
    if (chosen != state.mask_mode) {
      state.mask_mode = chosen;
      state.reopen();
    }
  }
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("a masks/ folder's black pixels: ignore leaves them out of the loss; alpha trains them as the "
                      "background colour, so that nothing grows there (the scene is opened again)");
}

// Which devices train: a checkbox per CUDA device (all at first) and the rank count; on the CPU backend
// the rank count alone (CPU ranks, to try the multi-GPU algorithm without GPUs). Fixed while a session
// exists: the ranks are threads started with it.
void draw_rank_selector(TrainingController& training) {
  TrainingSettings& s = training.settings;
  ImGui::BeginDisabled(training.active());
  if (training.device() == kernels::Device::CUDA) {
    ImGui::TextUnformatted("GPUs");
    const int found = kernels::cuda_device_count();
    for (int d = 0; d < found; ++d) {
      ImGui::SameLine();
      const auto at = std::find(s.gpus.begin(), s.gpus.end(), d);
      bool on = at != s.gpus.end();
      char label[16];
      std::snprintf(label, sizeof label, "%d##gpu", d);
      if (ImGui::Checkbox(label, &on)) {
        if (on) s.gpus.insert(std::upper_bound(s.gpus.begin(), s.gpus.end(), d), d);
        else s.gpus.erase(at);
      }
      if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("train on CUDA device %d", d);
    }
  }
  ImGui::InputInt("Ranks", &s.ranks);
  s.ranks = std::clamp(s.ranks, 0, 64);
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip(training.device() == kernels::Device::CUDA
                          ? "ranks over the selected GPUs, each training a shard of the Gaussians (0: one per GPU)"
                          : "CPU ranks, each training a shard of the Gaussians (0: one)");
  ImGui::EndDisabled();
  const transport::RankPlan plan = training.rank_plan();
  try {
    plan.check();
    ImGui::TextDisabled("training with %s", plan.describe().c_str());
  } catch (const std::invalid_argument& e) {
    ImGui::TextColored(ImVec4(1.f, 0.45f, 0.35f, 1.f), "%s", e.what());
  }
}

// The CPU budget proposal (ui/cpu_budget_probe.h): applied once when its measurement finishes (a
// different data factor opens the scene again), then only shown; both fields stay the user's to change.
void propose_cpu_budget(ViewerState& state, TrainingController& training) {
  const bool wanted = state.propose_cpu_budget && training.device() == kernels::Device::CPU && !training.active() &&
                      !training.opening_run() && !state.loader.busy();
  const std::optional<BudgetProposal> p = state.budget_probe.poll(state.content, wanted);
  if (!p) return;
  training.settings.steps = p->images;
  if (!state.content.demo && p->data_factor != state.content.data_factor) {
    state.data_factor = p->data_factor;
    state.reopen();
  }
}
}  // namespace

void draw_training_panel(ViewerState& state, TrainingController& training, Confirmations& confirm) {
  propose_cpu_budget(state, training);  // whether the panel is open or not
  if (!ImGui::CollapsingHeader("Training", ImGuiTreeNodeFlags_DefaultOpen)) return;
  TrainingSettings& s = training.settings;
  const SessionState st = training.state();
  const bool running = st == SessionState::Running || st == SessionState::Paused;
  const bool continuable = st == SessionState::Stopped || st == SessionState::Finished;
  const bool trainable = state.content.scene != nullptr && !state.loader.busy();

  // Settings fixed for a run (the budget may change while it is paused, stopped or finished).
  ImGui::BeginDisabled(st == SessionState::Running);
  ImGui::InputInt("Images##budget", &s.steps, 1000);
  s.steps = std::max(1, s.steps);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("the run's budget in training images (batch size images a step)");
  ImGui::EndDisabled();
  if (state.budget_probe.measuring()) ImGui::TextDisabled("measuring the CPU's speed on this scene...");
  else if (!state.budget_probe.note().empty() && !training.active()) ImGui::TextWrapped("%s", state.budget_probe.note().c_str());
  ImGui::BeginDisabled(training.active());
  draw_data_factor(state);
  draw_mask_mode(state);
  // The strategy's budget of Gaussians shares its row: the default's growth limit (0: none) or
  // MCMC's cap. A lower one makes a compact model.
  const bool mcmc = std::string_view(kStrategies[s.strategy]) == "mcmc";
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6.5f);
  ImGui::Combo("Strategy", &s.strategy, kStrategies, IM_ARRAYSIZE(kStrategies));
  ImGui::SameLine();  // a row more would push the panels below out of a small window
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6.0f);
  int& most = mcmc ? s.cap_max : s.max_gaussians;
  ImGui::InputInt("Max", &most, 0);
  most = std::max(mcmc ? 1 : 0, most);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(mcmc ? "most Gaussians MCMC keeps; lower it for a compact model"
                           : "most Gaussians, for a compact model: growth stops there, the largest gradients first "
                             "(0: no limit)");
  ImGui::InputInt("Eval every", &s.eval_every, 100);
  s.eval_every = std::max(0, s.eval_every);
  ImGui::InputInt("Checkpoint every", &s.checkpoint_every, 1000);
  s.checkpoint_every = std::max(0, s.checkpoint_every);
  ImGui::InputTextWithHint("Run folder", "runs/<scene name>", &s.run_dir);
  ImGui::EndDisabled();
  if (training.active()) ImGui::TextWrapped("run: %s", training.run_dir().string().c_str());
  draw_rank_selector(training);

  // Settings applied at the next step boundary.
  bool changed = ImGui::SliderInt("Batch size", &s.batch_size, 1, 16);
  if (const int ranks = training.rank_plan().ranks; s.batch_size < ranks)
    ImGui::TextColored(ImVec4(1.f, 0.45f, 0.35f, 1.f), "a batch needs at least one image per rank (%d)", ranks);
  changed |= ImGui::Checkbox("Packed", &s.packed);
  ImGui::SameLine();
  changed |= ImGui::Checkbox("AMP", &s.amp);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("mixed precision: SH rest and Adam moments stored in bf16 (about a third less memory per "
                      "Gaussian); switches at the next step");
  // Fixed for a run, but on this row: a row more would push the panels below out of a small window.
  ImGui::SameLine();
  ImGui::BeginDisabled(training.active());
  ImGui::Checkbox("Exposure", &s.exposure);
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("learn a colour map per photo (exposure, white balance) beside the scene, for captures whose "
                      "photos change exposure; test views and exports are never mapped; set when a run starts");
  changed |= ImGui::SliderInt("SH degree cap", &s.sh_degree, 0, 3);
  if (changed) training.apply_live_settings();

  if (st == SessionState::Running) {
    if (ImGui::Button("Pause##training")) training.pause();
  } else if (st == SessionState::Paused) {
    if (ImGui::Button("Resume##training")) training.resume();
  } else {
    const bool grows = st != SessionState::Finished || s.steps > training.images_done();
    ImGui::BeginDisabled(!trainable || !grows);
    if (ImGui::Button(continuable ? "Continue##training" : "Start##training")) training.start(state);
    ImGui::EndDisabled();
    if (st == SessionState::Finished && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
      ImGui::SetTooltip("raise the image budget to train on");
  }
  ImGui::SameLine();
  ImGui::BeginDisabled(!running);
  if (ImGui::Button("Stop##training")) training.stop();
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("finish early and save the checkpoint and PLY into the run folder; Continue goes on");
  ImGui::SameLine();
  ImGui::BeginDisabled(!training.active());
  if (ImGui::Button("Reset##training")) confirm.reset_training = true;
  ImGui::EndDisabled();

  const float done = std::min(1.f, static_cast<float>(training.images_done()) / static_cast<float>(s.steps));
  char label[96];
  std::snprintf(label, sizeof label, "%d / %d images (%s)", training.images_done(), s.steps, state_name(st));
  ImGui::ProgressBar(done, ImVec2(-1, 0), label);
  if (training.active()) {
    char elapsed[32], eta[32] = "-";
    format_duration(elapsed, sizeof elapsed, training.elapsed_s());
    if (const auto left = training.eta_s(); left && st != SessionState::Finished) format_duration(eta, sizeof eta, *left);
    ImGui::Text("elapsed %s, ETA %s", elapsed, eta);
  }
  if (!trainable && !running) ImGui::TextDisabled("open a COLMAP scene to train");
}

}  // namespace splat::ui
