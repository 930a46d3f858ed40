#pragma once
// Draws world-space line lists (scene_lines.h) over the viewport with the viewer camera.
#include <array>
#include <span>

#include "ui/gl_shader.h"
#include "ui/presenter.h"
#include "ui/scene_lines.h"

namespace splat::ui {

class LineRenderer {
 public:
  LineRenderer();
  ~LineRenderer();
  LineRenderer(const LineRenderer&) = delete;
  LineRenderer& operator=(const LineRenderer&) = delete;
  void draw(std::span<const LineVertex> lines, const std::array<float, 16>& clip_from_world,
            const PixelRect& where);

 private:
  GlProgram program_;
  GLuint vao_ = 0, vbo_ = 0;
  size_t capacity_ = 0;  // vertices the buffer holds
};

}  // namespace splat::ui
