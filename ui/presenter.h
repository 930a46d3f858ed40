#pragma once
// Draws the viewport texture as a full-viewport quad into a rectangle of the window.
#include "ui/gl.h"
#include "ui/gl_shader.h"

namespace splat::ui {

// A rectangle of the window's framebuffer in GL convention (origin at the bottom left), pixels.
struct PixelRect {
  int x = 0, y = 0, width = 0, height = 0;
};

class Presenter {
 public:
  Presenter();
  ~Presenter();
  Presenter(const Presenter&) = delete;
  Presenter& operator=(const Presenter&) = delete;
  void draw(GLuint texture, const PixelRect& where) const;

 private:
  GlProgram program_;
  GLuint vao_ = 0;  // empty: the vertex shader makes the triangle from gl_VertexID
};

}  // namespace splat::ui
