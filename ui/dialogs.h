#pragma once
// The modal questions (discard the training session? save before quitting?) and the shortcut
// sheet (F1). Each draws into the current ImGui frame.
#include "ui/key_taps.h"
#include "ui/panels.h"

namespace splat::ui {

// Asks before opening other content or resetting discards the session, and before closing the
// window while training. Returns true when the window may close now.
bool draw_confirmations(ViewerState& state, TrainingController& training, Confirmations& confirm);

// The keyboard and mouse shortcuts, in a window that F1 (a press in `taps`) opens and closes.
void draw_shortcut_sheet(bool& open, const KeyTaps& taps);

}  // namespace splat::ui
