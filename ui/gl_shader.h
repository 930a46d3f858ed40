#pragma once
// Compiling and linking a GLSL program from the embedded sources (generated/ui/shaders.h).
#include <string>

#include "ui/gl.h"

namespace splat::ui {

// An owned GL program; throws std::runtime_error with the compiler log, naming the shader.
class GlProgram {
 public:
  GlProgram(const std::string& name, const char* vertex_src, const char* fragment_src);
  ~GlProgram();
  GlProgram(const GlProgram&) = delete;
  GlProgram& operator=(const GlProgram&) = delete;
  GLuint id() const { return id_; }

 private:
  GLuint id_ = 0;
};

}  // namespace splat::ui
