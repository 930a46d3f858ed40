#pragma once
// Reading back what the window shows, for scripted screenshots.
#include "ui/view_rasterizer.h"

namespace splat::ui {

// The back buffer of the current context (call after drawing, before the swap: on Mesa/Xvfb the
// front buffer reads back black), rows top first.
ImageRGBA8 read_back_buffer(int width, int height);

}  // namespace splat::ui
