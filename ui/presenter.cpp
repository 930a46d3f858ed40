#include "ui/presenter.h"

#include "ui/shaders.h"

namespace splat::ui {

Presenter::Presenter() : program_("present", shaders::kShader_present_vs, shaders::kShader_present_fs) {
  glCreateVertexArrays(1, &vao_);
}

Presenter::~Presenter() { glDeleteVertexArrays(1, &vao_); }

void Presenter::draw(GLuint texture, const PixelRect& where) const {
  glViewport(where.x, where.y, where.width, where.height);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_BLEND);
  glUseProgram(program_.id());
  glBindTextureUnit(0, texture);
  glBindVertexArray(vao_);
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glBindVertexArray(0);
}

}  // namespace splat::ui
