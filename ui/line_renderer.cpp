#include "ui/line_renderer.h"

#include <cstddef>

#include "ui/shaders.h"

namespace splat::ui {

LineRenderer::LineRenderer() : program_("lines", shaders::kShader_lines_vs, shaders::kShader_lines_fs) {
  glCreateVertexArrays(1, &vao_);
  glCreateBuffers(1, &vbo_);
  glVertexArrayVertexBuffer(vao_, 0, vbo_, 0, sizeof(LineVertex));
  glEnableVertexArrayAttrib(vao_, 0);
  glEnableVertexArrayAttrib(vao_, 1);
  glVertexArrayAttribFormat(vao_, 0, 3, GL_FLOAT, GL_FALSE, offsetof(LineVertex, pos));
  glVertexArrayAttribFormat(vao_, 1, 4, GL_FLOAT, GL_FALSE, offsetof(LineVertex, color));
  glVertexArrayAttribBinding(vao_, 0, 0);
  glVertexArrayAttribBinding(vao_, 1, 0);
}

LineRenderer::~LineRenderer() {
  glDeleteBuffers(1, &vbo_);
  glDeleteVertexArrays(1, &vao_);
}

void LineRenderer::draw(std::span<const LineVertex> lines, const std::array<float, 16>& clip_from_world,
                        const PixelRect& where) {
  if (lines.empty()) return;
  if (lines.size() > capacity_) {
    // The buffer only grows, so steady frames just overwrite it.
    capacity_ = lines.size();
    glNamedBufferData(vbo_, capacity_ * sizeof(LineVertex), nullptr, GL_DYNAMIC_DRAW);
  }
  glNamedBufferSubData(vbo_, 0, lines.size_bytes(), lines.data());
  glViewport(where.x, where.y, where.width, where.height);
  glEnable(GL_BLEND);
  glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
  glUseProgram(program_.id());
  glUniformMatrix4fv(glGetUniformLocation(program_.id(), "clip_from_world"), 1, GL_FALSE, clip_from_world.data());
  glBindVertexArray(vao_);
  glDrawArrays(GL_LINES, 0, static_cast<GLsizei>(lines.size()));
  glBindVertexArray(0);
  glDisable(GL_BLEND);
}

}  // namespace splat::ui
