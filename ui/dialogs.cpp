#include "ui/dialogs.h"

#include <GLFW/glfw3.h>
#include <imgui.h>

#include "ui/gui_run.h"

namespace splat::ui {
namespace {
constexpr const char* kShortcuts[][2] = {
    {"left drag", "orbit around the pivot"},
    {"right / middle drag", "pan"},
    {"wheel", "zoom"},
    {"W A S D", "fly forward, left, back, right"},
    {"Q / E", "fly down / up"},
    {"Shift (held)", "fly faster"},
    {"[ / ]", "previous / next training camera"},
    {"N", "nearest training camera"},
    {"F", "frame the scene"},
    {"R", "reset the view: the upright overview"},
    {"F1", "this sheet"},
};

// A modal with the question and buttons; returns the index of the button pressed, -1 for none.
int ask(const char* id, const char* question, std::initializer_list<const char*> buttons) {
  int chosen = -1;
  if (!ImGui::IsPopupOpen(id)) ImGui::OpenPopup(id);
  ImGui::SetNextWindowPos(ImGui::GetMainViewport()->GetCenter(), ImGuiCond_Always, ImVec2(0.5f, 0.5f));
  if (ImGui::BeginPopupModal(id, nullptr, ImGuiWindowFlags_AlwaysAutoResize)) {
    ImGui::TextUnformatted(question);
    int i = 0;
    for (const char* b : buttons) {
      if (i > 0) ImGui::SameLine();
      if (ImGui::Button(b)) chosen = i;
      ++i;
    }
    if (chosen >= 0) ImGui::CloseCurrentPopup();
    ImGui::EndPopup();
  }
  return chosen;
}
}  // namespace

bool draw_confirmations(ViewerState& state, TrainingController& training, Confirmations& confirm) {
  // Opening other content drops the session (TrainingController::poll), so it asks first.
  state.confirm_discard = training.active();
  if (state.pending_open()) {
    const int a = ask("Discard training?##open", "Opening other content ends the training session.\n"
                      "The run folder keeps what it has saved.", {"Discard and open", "Cancel"});
    if (a == 0 && !state.pending_open()->demo && is_run_folder(state.pending_open()->path)) {
      const std::filesystem::path run = state.pending_open()->path;
      state.cancel_open();
      training.open_run(state, run);
    } else if (a == 0) {
      state.confirm_open();
    }
    if (a == 1) state.cancel_open();
  } else if (confirm.reset_training) {
    const int a = ask("Discard training?##reset", "Reset ends the training session and shows the initial model.\n"
                      "The run folder keeps what it has saved.", {"Reset", "Cancel"});
    if (a == 0) training.reset(state);
    if (a >= 0) confirm.reset_training = false;
  } else if (confirm.quit) {
    const int a = ask("Quit while training?##quit", "Training is in progress.",
                      {"Save and quit", "Quit without saving", "Cancel"});
    if (a == 0) {
      training.stop();  // the run's checkpoint and PLY are requested once it has stopped
      confirm.quit_after_saves = true;
    }
    if (a >= 0) confirm.quit = false;
    if (a == 1) return true;
  }
  // A failed session has nothing more to save.
  if (confirm.quit_after_saves && (training.results_written() || training.state() == SessionState::Failed)) return true;
  return false;
}

void draw_shortcut_sheet(bool& open, const KeyTaps& taps) {
  if (taps.presses(GLFW_KEY_F1, false) % 2) open = !open;
  if (!open) return;
  ImGui::SetNextWindowPos(ImGui::GetMainViewport()->GetCenter(), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
  if (ImGui::Begin("Shortcuts (F1)", &open, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoCollapse)) {
    if (ImGui::BeginTable("keys", 2)) {
      for (const auto& [key, what] : kShortcuts) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(key);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(what);
      }
      ImGui::EndTable();
    }
  }
  ImGui::End();
}

}  // namespace splat::ui
