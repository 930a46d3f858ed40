#pragma once
// The GUI's frame loop in tests without a window: poll the loader, then the training controller, as
// ViewerApp does each frame, until a condition holds.
#include <chrono>
#include <functional>
#include <thread>

#include "ui/training_controller.h"
#include "ui/viewer_state.h"

namespace splat::test {

// Polls until `done` holds (or a generous timeout, 30 s); returns whether it did.
inline bool poll_until(ui::TrainingController& training, ui::ViewerState& state, const std::function<bool()>& done) {
  for (int i = 0; i < 6000; ++i) {
    state.poll_loader();  // as the frame loop does, before the controller
    training.poll(state);
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

}  // namespace splat::test
