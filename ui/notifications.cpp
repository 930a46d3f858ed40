#include "ui/notifications.h"

#include <imgui.h>

#include <cstdio>

namespace splat::ui {
namespace {
constexpr double kInfoSeconds = 4.0;
}

void Notifications::info(std::string text) {
  std::fprintf(stderr, "splatlab: %s\n", text.c_str());
  messages_.push_back({std::move(text), false, -1.0});
}

void Notifications::error(std::string text) {
  std::fprintf(stderr, "splatlab: error: %s\n", text.c_str());
  messages_.push_back({std::move(text), true, -1.0});
  ++errors_;
}

void Notifications::draw(float x, float y) {
  const double now = ImGui::GetTime();
  std::erase_if(messages_, [&](const Message& m) { return !m.is_error && m.shown_at >= 0 && now - m.shown_at > kInfoSeconds; });
  float bottom = y;
  for (size_t i = messages_.size(); i-- > 0;) {
    Message& m = messages_[i];
    if (m.shown_at < 0) m.shown_at = now;
    ImGui::SetNextWindowPos(ImVec2(x, bottom), ImGuiCond_Always, ImVec2(0, 1));
    ImGui::SetNextWindowBgAlpha(0.85f);
    const std::string id = "##note" + std::to_string(i);
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
    bool close = false;
    if (m.is_error) close = ImGui::SmallButton("Close");
    bottom -= ImGui::GetWindowHeight() + 4.f;
    ImGui::End();
    if (close) messages_.erase(messages_.begin() + static_cast<long>(i));
  }
}

}  // namespace splat::ui
