#pragma once
// Key presses since the last frame, as GLFW reported them. ImGui 1.86 keeps only whether a key is
// down at the start of a frame, so a tap (press and release) that falls between two frames is lost;
// while the CPU trains, frames are slow and most taps are that short. Shortcuts count the presses
// here instead. No GL: GLFW's key callback (ui/viewer_app.cpp) feeds it.
#include <algorithm>
#include <vector>

namespace splat::ui {

class KeyTaps {
 public:
  // A key press (repeat = false) or the auto-repeat of a held key (repeat = true).
  void record(int key, bool repeat) { events_.push_back({key, repeat}); }
  // Presses of `key` since clear(), with its auto-repeats when `with_repeats`.
  int presses(int key, bool with_repeats) const {
    return static_cast<int>(std::count_if(events_.begin(), events_.end(), [&](const Event& e) {
      return e.key == key && (with_repeats || !e.repeat);
    }));
  }
  // Once per frame, after the shortcuts have read the presses.
  void clear() { events_.clear(); }

 private:
  struct Event {
    int key;
    bool repeat;
  };
  std::vector<Event> events_;
};

}  // namespace splat::ui
