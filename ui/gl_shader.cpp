#include "ui/gl_shader.h"

#include <stdexcept>
#include <string>

namespace splat::ui {
namespace {
GLuint compile(const std::string& name, GLenum type, const char* src) {
  const GLuint s = glCreateShader(type);
  glShaderSource(s, 1, &src, nullptr);
  glCompileShader(s);
  GLint ok = 0;
  glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[2048] = {};
    glGetShaderInfoLog(s, sizeof log, nullptr, log);
    glDeleteShader(s);
    throw std::runtime_error("shader " + name + (type == GL_VERTEX_SHADER ? " (vertex)" : " (fragment)") +
                             ": " + log);
  }
  return s;
}
}  // namespace

GlProgram::GlProgram(const std::string& name, const char* vertex_src, const char* fragment_src) {
  const GLuint vs = compile(name, GL_VERTEX_SHADER, vertex_src);
  const GLuint fs = compile(name, GL_FRAGMENT_SHADER, fragment_src);
  id_ = glCreateProgram();
  glAttachShader(id_, vs);
  glAttachShader(id_, fs);
  glLinkProgram(id_);
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint ok = 0;
  glGetProgramiv(id_, GL_LINK_STATUS, &ok);
  if (!ok) {
    char log[2048] = {};
    glGetProgramInfoLog(id_, sizeof log, nullptr, log);
    glDeleteProgram(id_);
    throw std::runtime_error("shader " + name + " (link): " + log);
  }
}

GlProgram::~GlProgram() { glDeleteProgram(id_); }

}  // namespace splat::ui
