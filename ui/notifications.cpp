#include "ui/notifications.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>

namespace splat::ui {

void Notifications::info(std::string text) {
  std::fprintf(stderr, "splatlab: %s\n", text.c_str());
  messages_.push_back({std::move(text), false, -1.0});
}

void Notifications::error(std::string text) {
  std::fprintf(stderr, "splatlab: error: %s\n", text.c_str());
  messages_.push_back({std::move(text), true, -1.0});
  ++errors_;
}

void Notifications::expire(double now) {
  std::erase_if(messages_, [&](const Message& m) { return !m.is_error && m.shown_at >= 0 && now - m.shown_at > kInfoSeconds; });
  // The clock of a confirmation starts when it is first shown: one waiting behind newer ones
  // still gets its seconds on screen.
  for (size_t i : shown())
    if (messages_[i].shown_at < 0) messages_[i].shown_at = now;
}

std::vector<size_t> Notifications::shown() const {
  std::vector<size_t> out;
  for (size_t i = messages_.size(); i-- > 0 && out.size() < kMaxShown;) out.push_back(i);
  return out;
}

double Notifications::alpha(size_t index, double now) const {
  const Message& m = messages_.at(index);
  if (m.is_error || m.shown_at < 0) return 1.0;
  return std::clamp((kInfoSeconds - (now - m.shown_at)) / kFadeSeconds, 0.0, 1.0);
}

void Notifications::draw(float x, float bottom) {
  const double now = ImGui::GetTime();
  expire(now);
  const std::vector<size_t> indices = shown();
  const size_t waiting = messages_.size() - indices.size();
  float y = bottom;
  size_t closed = messages_.size();
  for (size_t k = 0; k < indices.size(); ++k) {
    const size_t i = indices[k];
    const Message& m = messages_[i];
    const float a = float(alpha(i, now));
    ImGui::SetNextWindowPos(ImVec2(x, y), ImGuiCond_Always, ImVec2(0, 1));
    ImGui::SetNextWindowBgAlpha(0.85f * a);
    ImGui::PushStyleVar(ImGuiStyleVar_Alpha, a);
    // Ids by slot, not by message: a slot's window keeps its place as messages come and go.
    const std::string id = "##note" + std::to_string(k);
    ImGui::Begin(id.c_str(), nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings |
                     ImGuiWindowFlags_NoFocusOnAppearing | ImGuiWindowFlags_NoNav);
    if (m.is_error) {
      ImGui::TextColored(ImVec4(1.f, 0.45f, 0.4f, 1.f), "Error");
      ImGui::SameLine();
    }
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 40.f);
    ImGui::TextUnformatted(m.text.c_str());
    ImGui::PopTextWrapPos();
    if (m.is_error && ImGui::SmallButton("Close")) closed = i;
    if (k + 1 == indices.size() && waiting > 0) ImGui::TextDisabled("+%zu more (all of them on stderr)", waiting);
    y -= ImGui::GetWindowHeight() + 4.f;
    ImGui::End();
    ImGui::PopStyleVar();
  }
  if (closed < messages_.size()) messages_.erase(messages_.begin() + static_cast<long>(closed));
}

}  // namespace splat::ui
