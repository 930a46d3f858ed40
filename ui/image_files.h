#pragma once
// PNG output for snapshots and scripted screenshots.
#include <filesystem>

#include "ui/view_rasterizer.h"

namespace splat::ui {

// Writes RGBA8 as PNG (alpha dropped: snapshots are opaque). Throws std::runtime_error naming the
// file when it cannot be written.
void write_png(const std::filesystem::path& file, const ImageRGBA8& image);

}  // namespace splat::ui
