#pragma once
// Visible confirmations and errors in the viewport's bottom-left corner, above the plots: confirmations fade out after
// a few seconds; errors stay until closed, because they name a file the user must fix. At most a
// few are shown at once (the newest), so a burst of messages never buries the viewport; the rest
// wait below a "+N more" line, and everything is echoed to stderr so that scripted runs leave a
// trace in logs.
#include <string>
#include <vector>

namespace splat::ui {

class Notifications {
 public:
  static constexpr double kInfoSeconds = 4.0;  // a confirmation's life, the last second fading
  static constexpr double kFadeSeconds = 1.0;
  static constexpr size_t kMaxShown = 3;

  void info(std::string text);
  void error(std::string text);
  int error_count() const { return errors_; }
  // Draws the messages stacked upwards from (x, bottom) (bottom-left corner, screen coordinates),
  // the newest lowest.
  void draw(float x, float bottom);

  // The policy, apart from drawing (clock in seconds, as ImGui::GetTime): forgets expired
  // confirmations; then the indices of the messages to show, newest first, at most kMaxShown (the
  // oldest of them, drawn on top, says how many more wait).
  void expire(double now);
  std::vector<size_t> shown() const;
  // A message's opacity at `now`: 1, falling to 0 over a confirmation's last kFadeSeconds.
  double alpha(size_t index, double now) const;
  size_t size() const { return messages_.size(); }

 private:
  struct Message {
    std::string text;
    bool is_error;
    double shown_at;  // clock; < 0 until first shown
  };
  std::vector<Message> messages_;
  int errors_ = 0;
};

}  // namespace splat::ui
