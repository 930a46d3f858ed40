#pragma once
// Visible confirmations and errors in the viewport's corner: confirmations fade after a few
// seconds; errors stay until closed, because they name a file the user must fix. Everything is
// echoed to stderr so that scripted runs leave a trace in logs.
#include <string>
#include <vector>

namespace splat::ui {

class Notifications {
 public:
  void info(std::string text);
  void error(std::string text);
  int error_count() const { return errors_; }
  // Draws the messages stacked upwards from (x, y) (bottom-left corner, screen coordinates).
  void draw(float x, float y);

 private:
  struct Message {
    std::string text;
    bool is_error;
    double shown_at;  // ImGui time; < 0 until first drawn
  };
  std::vector<Message> messages_;
  int errors_ = 0;
};

}  // namespace splat::ui
