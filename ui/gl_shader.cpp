#include "ui/gl_shader.h"

#include <stdexcept>
#include <string>

namespace splat::ui {
namespace {
// Shaders and programs report a failed compile or link the same way, through a parallel set of
// GL calls: the status, the info log and the delete.
struct GlObjectCalls {
  PFNGLGETSHADERIVPROC get_iv;  // glGetProgramiv has the same type, and so on
  PFNGLGETSHADERINFOLOGPROC get_info_log;
  PFNGLDELETESHADERPROC destroy;
};

// Throws with the info log, after deleting the object, unless `status` (compile or link) is set.
void check_status(GLuint object, GLenum status, const GlObjectCalls& gl, const std::string& what) {
  GLint ok = 0;
  gl.get_iv(object, status, &ok);
  if (ok) return;
  char log[2048] = {};
  gl.get_info_log(object, sizeof log, nullptr, log);
  gl.destroy(object);
  throw std::runtime_error(what + ": " + log);
}

GLuint compile(const std::string& name, GLenum type, const char* src) {
  const GLuint s = glCreateShader(type);
  glShaderSource(s, 1, &src, nullptr);
  glCompileShader(s);
  check_status(s, GL_COMPILE_STATUS, {glGetShaderiv, glGetShaderInfoLog, glDeleteShader},
               "shader " + name + (type == GL_VERTEX_SHADER ? " (vertex)" : " (fragment)"));
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
  check_status(id_, GL_LINK_STATUS, {glGetProgramiv, glGetProgramInfoLog, glDeleteProgram}, "shader " + name + " (link)");
}

GlProgram::~GlProgram() { glDeleteProgram(id_); }

}  // namespace splat::ui
